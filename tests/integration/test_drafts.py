"""Write, review and ask a team's own question, through the real QuizApp on SQLite and PostgreSQL: the write form's
submission (`submit_form`) is checked by the pack rules and comes back with its problems, or becomes a draft; a lead
sees the queue (`/quiz drafts`, a page with buttons), approves with a click (`act`) and the question is asked by
`/quiz now PACK` at once; a member may not review; a shipped pack's id is refused; the author hears the outcome."""

from __future__ import annotations

from bot.domain import ChannelRef
from bot.domain.forms import FormKind
from bot.ports import ActionKind
from bot.runtime import Runtime
from bot.service.facade import Context, Invocation, Reply
from tests.conftest import make_user
from tests.fakes.fake_platform import FakePlatform

GOOD = {
    "prompt": "Which collective leaves every rank with the sum of all ranks' gradients?",
    "choices": "*all-reduce\nbroadcast\nscatter",
    "explanation": "All-reduce sums the tensors and gives every rank the result. Broadcast only copies one rank's data.",
    "references": "https://pytorch.org/docs/stable/distributed.html",
    "details": "tags: ddp, nccl; difficulty: easy",
}


def context(channel: ChannelRef, who: str, *, admin: bool = False) -> Context:
    return Context(channel, make_user(who, channel.workspace_id), is_admin=admin)


async def run(runtime: Runtime, channel: ChannelRef, who: str, text: str, *, admin: bool = False) -> Reply:
    return await runtime.app.handle_command(
        Invocation(channel, make_user(who, channel.workspace_id), text, is_admin=admin)
    )


async def submit(runtime: Runtime, channel: ChannelRef, who: str, pack: str, values: dict[str, str]) -> Reply:
    return await runtime.app.submit_form(
        kind=FormKind.WRITE_QUESTION, state=pack, values=values, context=context(channel, who)
    )


async def test_written_approved_then_posted_by_now(
    runtime: Runtime, channel: ChannelRef, platform: FakePlatform
) -> None:
    opened = await run(runtime, channel, "ann", "write runbooks")
    assert opened.ok and opened.form is not None and opened.form.kind is FormKind.WRITE_QUESTION
    assert opened.form.state == "runbooks" and [f.key for f in opened.form.fields] == list(GOOD)
    saved = await submit(runtime, channel, "ann", opened.form.state, GOOD)
    assert saved.ok and saved.form is None and saved.private
    assert saved.message.title == "Draft 1 saved for review by a lead."
    # not yet in the pack: /quiz now cannot find it
    assert not (await run(runtime, channel, "ann", "now runbooks")).ok

    queue = await run(runtime, channel, "lee", "drafts", admin=True)
    assert queue.ok and queue.page is not None
    assert [(a.kind, a.value) for a in queue.page.actions] == [
        (ActionKind.APPROVE_DRAFT, "1"),
        (ActionKind.EDIT_DRAFT, "1"),
        (ActionKind.REJECT_DRAFT, "1"),
    ]
    assert queue.message.lines[0].startswith("1. [runbooks] Which collective leaves every rank")

    approved = await runtime.app.act(
        action=ActionKind.APPROVE_DRAFT, value="1", context=context(channel, "lee", admin=True)
    )
    assert approved.ok, approved.message
    assert approved.message.title.startswith("Draft 1 approved: it is question which-collective")
    told = platform.of_kind("send_direct")
    assert [(s.user_id, s.message.title if s.message else "") for s in told] == [
        ("U-ann", "Your question was approved and joined the `runbooks` pack.")
    ]
    again = await runtime.app.act(
        action=ActionKind.APPROVE_DRAFT, value="1", context=context(channel, "lee", admin=True)
    )
    assert not again.ok and again.message.title == "Draft 1 was already approved by lee; nothing changed."

    posted = await run(runtime, channel, "bob", "now runbooks")  # no restart, no sync
    assert posted.ok, posted.message
    card = platform.sent[-1].card
    assert card is not None and card.prompt == GOOD["prompt"] and card.pack_title == "Our runbooks questions"
    assert sorted(card.choices) == ["all-reduce", "broadcast", "scatter"]
    listed = await run(runtime, channel, "bob", "packs")
    assert "runbooks — Our runbooks questions (1 question, your team's)" in listed.message.lines


async def test_the_rules_come_back_inside_the_form_and_nothing_is_stored(runtime: Runtime, channel: ChannelRef) -> None:
    bad = dict(GOOD, choices="all-reduce\nbroadcast", references="", explanation="Because.")
    refused = await submit(runtime, channel, "ann", "team", bad)
    assert not refused.ok and refused.form is not None
    assert set(refused.form.errors) == {"choices"}  # unreadable first: which choice is right
    assert [f.value for f in refused.form.fields][:2] == [bad["prompt"], bad["choices"]]  # what was typed is kept
    bad["choices"] = "*all-reduce\nbroadcast"
    refused = await submit(runtime, channel, "ann", "team", bad)
    assert refused.form is not None and set(refused.form.errors) == {"references", "explanation"}
    assert refused.form.errors["references"] == "no references: add a link that backs the answer"
    duplicate = runtime.app.quiz.catalog.packs[0].questions[0]
    copied = dict(GOOD, prompt=duplicate.prompt)
    refused = await submit(runtime, channel, "ann", "team", copied)
    assert refused.form is not None and refused.form.errors["prompt"].startswith("the same prompt as")
    queue = await run(runtime, channel, "lee", "drafts", admin=True)
    assert queue.message.lines == ("No drafts are waiting for review.",)


async def test_members_may_write_but_not_review_and_shipped_ids_are_refused(
    runtime: Runtime, channel: ChannelRef, platform: FakePlatform
) -> None:
    shipped = runtime.app.quiz.catalog.packs[0].id
    refused = await run(runtime, channel, "ann", f"write {shipped}")
    assert not refused.ok and refused.message.title.startswith(f"`{shipped}` is a shipped pack")
    assert not (await submit(runtime, channel, "ann", shipped, GOOD)).ok
    assert (await submit(runtime, channel, "ann", "team", GOOD)).ok
    member = await run(runtime, channel, "bob", "drafts")
    assert not member.ok and member.message.title.startswith("Only leads and admins can review drafts")
    clicked = await runtime.app.act(action=ActionKind.APPROVE_DRAFT, value="1", context=context(channel, "bob"))
    assert not clicked.ok and clicked.message.title.startswith("Only leads and admins can approve drafts")
    await run(runtime, channel, "lee", "role grant U-cy lead", admin=True)
    platform.unreachable.add("U-ann")
    rejected = await run(runtime, channel, "cy", "drafts reject 1 we have this one")
    assert rejected.ok and rejected.message.lines == ("Its author could not be told privately here; let them know.",)
    assert (await run(runtime, channel, "cy", "drafts approve 1")).message.title == (
        "Draft 1 was already rejected by cy; nothing changed."
    )
    assert (await run(runtime, channel, "cy", "drafts approve 9")).message.title.startswith("There is no draft 9 here")
    elsewhere = ChannelRef("fake", "W2", "C1")  # another workspace's lead does not see W1's drafts
    assert (await run(runtime, elsewhere, "zed", "drafts approve 1", admin=True)).message.title.startswith(
        "There is no draft 1 here"
    )


async def test_a_lead_edits_a_draft_in_the_form_then_approves_it(runtime: Runtime, channel: ChannelRef) -> None:
    await submit(runtime, channel, "ann", "team", GOOD)
    opened = await runtime.app.act(action=ActionKind.EDIT_DRAFT, value="1", context=context(channel, "lee", admin=True))
    assert opened.form is not None and opened.form.kind is FormKind.EDIT_DRAFT and opened.form.state == "1"
    values = {f.key: f.value for f in opened.form.fields}
    assert (
        values["choices"] == "*all-reduce\nbroadcast\nscatter"
        and values["details"] == "tags: ddp, nccl; difficulty: easy"
    )
    values["choices"] = "*all-reduce\nbroadcast\nscatter\nreduce-scatter"
    saved = await runtime.app.submit_form(
        kind=FormKind.EDIT_DRAFT, state="1", values=values, context=context(channel, "lee", admin=True)
    )
    assert saved.ok and saved.message.title == "Draft 1 updated; approve it when it is ready."
    approved = await run(runtime, channel, "lee", "drafts approve 1", admin=True)
    assert approved.ok
    async with runtime.uow() as uow:
        workspace = await uow.places.workspace("fake", "W1")
        assert workspace is not None
        pack = await uow.workspace_packs.get(workspace.id, "team")
        assert pack is not None
        [question] = await uow.workspace_packs.questions(pack)
    assert question.choices == ("all-reduce", "broadcast", "scatter", "reduce-scatter") and question.correct_index == 0
    assert question.references == (GOOD["references"],) and question.tags == ("ddp", "nccl")


async def test_schedules_and_cohorts_name_a_team_pack_by_its_slug(runtime: Runtime, channel: ChannelRef) -> None:
    await submit(runtime, channel, "ann", "team", GOOD)
    await run(runtime, channel, "lee", "drafts approve 1", admin=True)
    added = await run(runtime, channel, "lee", "schedule add daily 09:00 team", admin=True)
    assert added.ok, added.message
    listed = await run(runtime, channel, "lee", "schedule list")
    assert any("packs: team" in line for line in (listed.message.title, *listed.message.lines)), listed.message
    cohort = await run(runtime, channel, "lee", "cohort create spring packs:team")
    assert cohort.ok, cohort.message
    elsewhere = ChannelRef("fake", "W2", "C1")
    assert not (await run(runtime, elsewhere, "zed", "now team")).ok  # W1's pack is not W2's


async def test_two_leads_approving_at_once_approve_once(runtime: Runtime, channel: ChannelRef) -> None:
    import asyncio

    await submit(runtime, channel, "ann", "team", GOOD)
    lee, kim = context(channel, "lee", admin=True), context(channel, "kim", admin=True)
    replies = await asyncio.gather(
        runtime.app.act(action=ActionKind.APPROVE_DRAFT, value="1", context=lee),
        runtime.app.act(action=ActionKind.APPROVE_DRAFT, value="1", context=kim),
    )
    assert sorted(reply.ok for reply in replies) == [False, True], [r.message for r in replies]
    [refused] = [reply for reply in replies if not reply.ok]
    assert refused.message.title.startswith("Draft 1 was") and refused.message.title.endswith("nothing changed.")
    async with runtime.uow() as uow:
        workspace = await uow.places.workspace("fake", "W1")
        assert workspace is not None
        pack = await uow.workspace_packs.get(workspace.id, "team")
        assert pack is not None and pack.questions == 1


async def test_a_team_question_is_flagged_listed_and_cleared_by_its_slug(
    runtime: Runtime, channel: ChannelRef, platform: FakePlatform
) -> None:
    await submit(runtime, channel, "ann", "team", GOOD)
    approved = await run(runtime, channel, "lee", "drafts approve 1", admin=True)
    key = approved.message.title.split("question ")[1].split(" of")[0]
    assert (await run(runtime, channel, "bob", "now team")).ok
    assert (await run(runtime, channel, "bob", "flag two answers are right")).ok
    listed = await run(runtime, channel, "lee", "flags", admin=True)
    assert any(f"team/{key} · " in line for line in (listed.message.title, *listed.message.lines)), listed.message
    cleared = await run(runtime, channel, "lee", f"flags clear team/{key}", admin=True)
    assert cleared.ok, cleared.message
    cohort = await run(runtime, channel, "lee", "cohort create spring packs:team")
    assert cohort.ok and "team" in cohort.message.text and "1:team" not in cohort.message.text, cohort.message


async def test_an_uploaded_draft_is_completed_in_the_form_and_approved_with_its_image(
    runtime: Runtime, channel: ChannelRef
) -> None:
    from bot.content.written import read_form
    from bot.domain.drafts import DraftContent, DraftOrigin

    async with runtime.uow() as uow:
        workspace = await uow.places.workspace_id("fake", "W1", runtime.clock.now())
        content = DraftContent(GOOD["prompt"], ("all-reduce", "broadcast", "scatter"), 0, "", (GOOD["references"],))
        image = {"url": "https://pytorch.org/docs/stable/_images/allreduce.png", "alt": "four ranks summing"}
        await uow.drafts.add_draft(
            workspace,
            "kahoot",
            content,
            author_id="U-ann",
            author_name="ann",
            now=runtime.clock.now(),
            origin=DraftOrigin.UPLOADED,
            extra={"image": image},
        )
        await uow.commit()
    queue = await run(runtime, channel, "lee", "drafts", admin=True)
    assert queue.message.lines[0].endswith("needs an explanation or a marked answer: Edit it first")
    incomplete = await run(runtime, channel, "lee", "drafts approve 1", admin=True)
    assert not incomplete.ok and incomplete.message.title.startswith("Draft 1 is not complete")
    opened = await run(runtime, channel, "lee", "drafts edit 1", admin=True)
    assert opened.form is not None
    values = {f.key: f.value for f in opened.form.fields} | {"explanation": GOOD["explanation"]}
    assert read_form(values)[1] == {}
    lee = context(channel, "lee", admin=True)
    assert (await runtime.app.submit_form(kind=FormKind.EDIT_DRAFT, state="1", values=values, context=lee)).ok
    assert (await run(runtime, channel, "lee", "drafts approve 1", admin=True)).ok
    async with runtime.uow() as uow:
        pack = await uow.workspace_packs.get(workspace, "kahoot")
        assert pack is not None
        [question] = await uow.workspace_packs.questions(pack)
    assert question.image is not None and question.image.url == image["url"] and question.image.alt == image["alt"]
    assert question.explanation == GOOD["explanation"]
