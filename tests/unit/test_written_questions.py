"""A question written in chat, without a database: the write form read into a draft, the pack rules of `content
check --strict` keyed by the form's fields, the draft back into the form, a team pack resolved beside the shipped
ones, the grammar of `/quiz write` and `/quiz drafts`, and the forms and buttons that stand for them. Then the
whole flow through the real QuizApp on the in-memory unit of work (write, queue, edit, reject, approve)."""

from __future__ import annotations

import pytest

from bot.clock import ManualClock
from bot.commands import (
    ApproveDraft,
    EditDraft,
    ListDrafts,
    RejectDraft,
    SaveDraft,
    SubmitDraft,
    WriteQuestion,
    parse_command,
)
from bot.commands.forms import ACTION_COMMANDS, FORM_COMMANDS
from bot.content import load_catalog
from bot.content.written import check_draft, form_values, question_key, read_form
from bot.domain import ChannelRef, Pack, Question
from bot.domain.drafts import DraftContent, is_workspace_pack_key, slug_of_key, workspace_pack_key
from bot.domain.forms import FormKind
from bot.errors import CommandError, UnknownPack
from bot.ports import ActionKind
from bot.service.facade import Context, Invocation, Reply
from tests.conftest import SEED_CONTENT, make_user
from tests.fakes.memory_uow import MemoryApp, bootstrap_test_app

GOOD = {
    "prompt": "Which collective leaves every rank with the sum of all ranks' gradients?",
    "choices": "*all-reduce\nbroadcast\nscatter",
    "explanation": "All-reduce sums the tensors and gives every rank the result. Broadcast only copies one rank's data.",
    "references": "https://pytorch.org/docs/stable/distributed.html",
    "details": "tags: ddp, NCCL; difficulty: Easy",
}
CATALOG = load_catalog(SEED_CONTENT)


def test_the_form_reads_into_a_draft_and_back() -> None:
    content, errors = read_form(GOOD)
    assert errors == {}
    assert content == DraftContent(
        GOOD["prompt"],
        ("all-reduce", "broadcast", "scatter"),
        0,
        GOOD["explanation"],
        (GOOD["references"],),
        ("ddp", "nccl"),
        "easy",
    )
    assert read_form(form_values(content)) == (content, {})
    assert check_draft(content, pack=None, others=CATALOG.packs) == {}


@pytest.mark.parametrize(
    ("change", "field", "start"),
    [
        ({"choices": "all-reduce\nbroadcast"}, "choices", "Mark the correct choice with a leading `*`"),
        ({"choices": "*all-reduce\n*broadcast"}, "choices", "2 choices are marked with `*`"),
        ({"choices": "*all-reduce"}, "choices", "List should have at least 2 items"),
        ({"choices": "*all-reduce\nALL-REDUCE"}, "choices", ""),
        ({"details": "difficulty: brutal"}, "details", "`brutal` is no difficulty"),
        ({"details": "level 3"}, "details", "`level 3` is not understood"),
        ({"details": "tags: Not A Tag!"}, "details", ""),
        ({"references": "not a link"}, "references", "`not a link` is not a link"),
        ({"references": ""}, "references", "no references"),
        ({"references": "https://example.com/x"}, "references", ""),
        ({"explanation": "Because."}, "explanation", "the explanation has 1 sentence"),
        ({"explanation": ""}, "explanation", ""),
        ({"prompt": "TODO write this"}, "prompt", ""),
        ({"prompt": CATALOG.packs[0].questions[0].prompt}, "prompt", "the same prompt as"),
    ],
)
def test_each_problem_comes_back_on_its_field(change: dict[str, str], field: str, start: str) -> None:
    content, errors = read_form({**GOOD, **change})
    if not errors:
        errors = check_draft(content, pack=None, others=CATALOG.packs)
    assert field in errors, errors
    assert errors[field].startswith(start), errors[field]


def test_a_near_duplicate_of_the_teams_own_pack_is_refused_too() -> None:
    content, _ = read_form(GOOD)
    mine = Question("team", "q1", GOOD["prompt"] + "!", ("a", "b"), 0, "x")
    errors = check_draft(content, pack=Pack("team", "Team", "", (mine,)), others=())
    assert errors["prompt"].startswith("the same prompt as") or "% like the prompt of" in errors["prompt"]


def test_question_ids_are_unique_in_their_pack() -> None:
    content, _ = read_form(GOOD)
    first = question_key(content, set())
    assert first.startswith("which-collective") and len(first) <= 40
    assert question_key(content, {first}) == f"{first}-2"
    assert question_key(content, {first, f"{first}-2"}) == f"{first}-3"


def test_a_team_pack_key_never_equals_a_shipped_id_and_resolves_by_its_slug() -> None:
    key = workspace_pack_key(7, "team")
    assert is_workspace_pack_key(key) and slug_of_key(key) == "team" and slug_of_key("fsdp") == "fsdp"
    assert all(not is_workspace_pack_key(pack.id) for pack in CATALOG.packs)
    team = {"team": key, "runbooks": workspace_pack_key(7, "runbooks")}
    assert CATALOG.resolve_key("TEAM", team) == key
    assert CATALOG.resolve_key("run", team) == team["runbooks"]
    shipped = CATALOG.packs[0].id
    assert CATALOG.resolve_key(shipped, {shipped: workspace_pack_key(7, shipped)}) == shipped  # shipped wins
    with pytest.raises(UnknownPack, match="runbooks"):
        CATALOG.resolve_key("nothing-like-it", team)
    assert CATALOG.expand_keys(["team", shipped], team) == [key, shipped]


def test_the_grammar_and_the_forms_and_buttons_build_the_commands() -> None:
    assert parse_command("write") == WriteQuestion(None)
    assert parse_command("write Runbooks") == WriteQuestion("runbooks")
    assert parse_command("drafts") == ListDrafts()
    assert parse_command("drafts approve #3") == ApproveDraft(3)
    assert parse_command("drafts reject 3 we have it") == RejectDraft(3, "we have it")
    assert parse_command("drafts edit 4") == EditDraft(4)
    for text, start in [
        ("write a b", "Name one pack"),
        ("drafts approve", "Say which draft"),
        ("drafts approve three", "`three` is not a draft number"),
        ("drafts list x", "`/quiz drafts` takes nothing"),
        ("drafts publish 3", "`publish` is not something `/quiz drafts` does"),
    ]:
        with pytest.raises(CommandError) as refused:
            parse_command(text)
        assert refused.value.worded().startswith(start), text
    assert FORM_COMMANDS[FormKind.WRITE_QUESTION]("team", {"prompt": "x"}) == SubmitDraft("team", (("prompt", "x"),))
    assert FORM_COMMANDS[FormKind.EDIT_DRAFT]("5", {}) == SaveDraft(5, ())
    assert ACTION_COMMANDS[ActionKind.APPROVE_DRAFT]("5") == ApproveDraft(5)
    assert ACTION_COMMANDS[ActionKind.EDIT_DRAFT]("5") == EditDraft(5)
    assert ACTION_COMMANDS[ActionKind.REJECT_DRAFT]("5") == RejectDraft(5)
    with pytest.raises(CommandError):
        ACTION_COMMANDS[ActionKind.APPROVE_DRAFT]("5; drop table")


# --- through the QuizApp, in memory --------------------------------------------------------------------------

CHANNEL = ChannelRef("fake", "W1", "C1")
LEAD = Context(CHANNEL, make_user("Lee"), is_admin=True)
ANN = Context(CHANNEL, make_user("Ann"))


@pytest.fixture
def core() -> MemoryApp:
    return bootstrap_test_app(clock=ManualClock(), content_dir=SEED_CONTENT)


async def typed(core: MemoryApp, context: Context, text: str) -> Reply:
    return await core.app.handle_command(Invocation(context.channel, context.user, text, is_admin=context.is_admin))


async def test_write_queue_edit_reject_and_approve_in_memory(core: MemoryApp) -> None:
    opened = await typed(core, ANN, "write")
    assert opened.form is not None and opened.form.state == "team" and len(opened.form.fields) == 5
    refused = await core.app.submit_form(
        kind=FormKind.WRITE_QUESTION, state="team", values={**GOOD, "choices": "a\nb"}, context=ANN
    )
    assert refused.form is not None and list(refused.form.errors) == ["choices"] and core.store.committed.drafts == {}
    for _ in range(2):
        saved = await core.app.submit_form(kind=FormKind.WRITE_QUESTION, state="team", values=GOOD, context=ANN)
        assert saved.ok and saved.form is None
    assert not (await typed(core, ANN, "drafts")).ok  # members write, leads review
    queue = await typed(core, LEAD, "drafts")
    assert queue.page is not None and len(queue.page.actions) == 6
    rejected = await core.app.act(action=ActionKind.REJECT_DRAFT, value="2", context=LEAD)
    assert rejected.ok and rejected.message.title == "Draft 2 rejected."
    assert [s.user_id for s in core.platform.of_kind("send_direct")] == ["U-Ann"]
    approved = await core.app.act(action=ActionKind.APPROVE_DRAFT, value="1", context=LEAD)
    assert approved.ok and approved.message.lines == ("Ask it now with `/quiz now team`.",)
    [pack] = core.store.committed.workspace_packs.values()
    assert pack.slug == "team" and [q.prompt for q in core.store.committed.workspace_questions[pack.key]] == [
        GOOD["prompt"]
    ]
    listed = await typed(core, ANN, "packs")
    assert listed.message.lines[-1] == "team — Our team questions (1 question, your team's)"
    assert (await typed(core, LEAD, "drafts")).message.lines == ("No drafts are waiting for review.",)


def test_a_content_folder_pack_exports_as_yaml_that_loads_back_the_same(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import main
    from bot.content.loader import parse_pack_model

    monkeypatch.setenv("QUIZBOT_CONTENT_DIR", str(SEED_CONTENT))
    pack = CATALOG.packs[0]
    assert main(["content", "export", pack.id, "--format", "yaml"]) == 0
    again = parse_pack_model(capsys.readouterr().out, source="stdout").to_domain()
    assert again == pack


def test_the_forms_fit_every_platform() -> None:
    from bot.domain.forms import MAX_LABEL, MAX_TITLE
    from bot.service.handlers.drafts import question_form

    for form in (
        question_form(FormKind.WRITE_QUESTION, "x" * 48),
        question_form(FormKind.EDIT_DRAFT, "999999", form_values(read_form(GOOD)[0])),
    ):
        assert len(form.title) <= MAX_TITLE and len(form.submit) <= MAX_TITLE
        assert all(len(field.label) <= MAX_LABEL and len(field.hint) <= 100 for field in form.fields), form.fields
