"""`/quiz import` through the core on SQLite and PostgreSQL: an uploaded file becomes a workspace pack (complete
questions) and drafts (questions lacking only an explanation); a bad upload is refused in one reply with nothing
stored (rows counted before and after); members may not import; a shipped pack's id is refused."""

from __future__ import annotations

import random
from pathlib import Path

from sqlalchemy import func, select

from bot.clock import ManualClock
from bot.commands import ImportPack
from bot.config import Settings
from bot.db.models import DraftRow, PackRow, QuestionRow, WorkspacePackRow
from bot.domain import ChannelRef
from bot.domain.forms import FormKind
from bot.ports import ActionKind
from bot.runtime import Runtime, build_runtime
from bot.service.facade import Context, Invocation, Reply, error_reply
from tests.conftest import make_user
from tests.fakes.fake_platform import FakePlatform
from tests.upload_support import KAHOOT_EXPLANATIONS, KAHOOT_ROWS, kahoot_workbook, zip_bomb

FORMATS = Path(__file__).resolve().parents[1] / "data" / "formats"

GIFT = b"""// pack_title: Team ops

::ops-ssh:: Which port does SSH listen on by default? {
=22 #Port 22 is SSH's registered port. Servers may move it, but the default stays 22.
~80 #Port 80 is plain HTTP.
~443 #Port 443 is HTTPS.
}

::ops-dig:: Which tool asks a DNS server for a name's records? {
=dig #dig sends DNS queries and prints the answers. It is the usual tool for checking records.
~ping #ping sends ICMP echo requests.
~curl #curl fetches URLs.
}
"""


async def upload(
    runtime: Runtime, channel: ChannelRef, filename: str, data: bytes, *, who: str = "ada", admin: bool = True
) -> Reply:
    context = Context(channel=channel, user=make_user(who, channel.workspace_id), is_admin=admin)
    try:
        return await runtime.app.execute(ImportPack(filename, data), context)
    except Exception as exc:  # a refusal raised by the dispatcher (the permission check), as adapters word it
        return error_reply(exc)


async def counts(runtime: Runtime) -> dict[str, int]:
    async with runtime.db.transaction() as session:
        found = {}
        for name, model in (
            ("packs", PackRow),
            ("questions", QuestionRow),
            ("workspace_packs", WorkspacePackRow),
            ("drafts", DraftRow),
        ):
            found[name] = int((await session.execute(select(func.count()).select_from(model))).scalar_one())
        return found


async def test_a_kahoot_workbook_becomes_drafts_of_a_workspace_pack(runtime: Runtime, channel: ChannelRef) -> None:
    before = await counts(runtime)
    reply = await upload(runtime, channel, "Team Runbooks.xlsx", kahoot_workbook())
    assert reply.ok and reply.private
    assert reply.message.title == "pack team-runbooks: 0 questions added, 4 drafts to complete in /quiz drafts"
    after = await counts(runtime)
    assert after["drafts"] == before["drafts"] + len(KAHOOT_ROWS)
    assert after["questions"] == before["questions"]  # nothing complete: the pack waits for its first approval
    async with runtime.db.transaction() as session:
        drafts = (await session.execute(select(DraftRow).order_by(DraftRow.id))).scalars().all()
    assert [d.prompt for d in drafts] == [row[0] for row in KAHOOT_ROWS]
    assert {d.pack_slug for d in drafts} == {"team-runbooks"}
    assert {d.origin for d in drafts} == {"uploaded"}
    assert drafts[0].correct_index == 1 and drafts[0].explanation == ""


async def test_the_same_file_twice_queues_its_drafts_once(runtime: Runtime, channel: ChannelRef) -> None:
    first = await upload(runtime, channel, "Team Runbooks.xlsx", kahoot_workbook())
    assert first.ok and first.message.title.endswith(f"{len(KAHOOT_ROWS)} drafts to complete in /quiz drafts")
    before = await counts(runtime)
    again = await upload(runtime, channel, "Team Runbooks.xlsx", kahoot_workbook(), who="bob")
    assert again.ok, again.message
    assert again.message.title == "pack team-runbooks: 0 questions added"
    assert f"{len(KAHOOT_ROWS)} drafts were already waiting in /quiz drafts: not queued again." in again.message.lines
    assert await counts(runtime) == before
    # one new question beside the waiting ones: only it is queued, and the reply counts the rest
    extra = ("Which command shows a pod's recent events?", "kubectl describe pod", "kubectl top", None, None, 20, 1)
    more = await upload(runtime, channel, "Team Runbooks.xlsx", kahoot_workbook([*KAHOOT_ROWS, extra]))
    assert more.message.title == "pack team-runbooks: 0 questions added, 1 draft to complete in /quiz drafts"
    assert f"{len(KAHOOT_ROWS)} drafts were already waiting in /quiz drafts: not queued again." in more.message.lines
    assert (await counts(runtime))["drafts"] == before["drafts"] + 1
    # a decided draft no longer waits: the same question uploaded after its rejection is queued again
    lead = Context(channel, make_user("lee", channel.workspace_id), is_admin=True)
    rejected = await runtime.app.act(action=ActionKind.REJECT_DRAFT, value="1", context=lead)
    assert rejected.ok, rejected.message
    after_reject = await upload(runtime, channel, "Team Runbooks.xlsx", kahoot_workbook(KAHOOT_ROWS[:1]))
    assert after_reject.message.title == "pack team-runbooks: 0 questions added, 1 draft to complete in /quiz drafts"
    # the same prompts under another pack are other drafts
    other = await upload(runtime, channel, "Other Runbooks.xlsx", kahoot_workbook())
    assert other.message.title.endswith(f"{len(KAHOOT_ROWS)} drafts to complete in /quiz drafts")


async def test_an_uploaded_draft_completed_and_approved_is_posted_by_now(
    runtime: Runtime, channel: ChannelRef, platform: FakePlatform
) -> None:
    reply = await upload(runtime, channel, "Team Runbooks.xlsx", kahoot_workbook(KAHOOT_ROWS[:1]))
    assert reply.message.title == "pack team-runbooks: 0 questions added, 1 draft to complete in /quiz drafts"
    lead = Context(channel, make_user("lee", channel.workspace_id), is_admin=True)
    incomplete = await runtime.app.act(action=ActionKind.APPROVE_DRAFT, value="1", context=lead)
    assert not incomplete.ok  # it lacks its explanation: the lead completes it first
    opened = await runtime.app.act(action=ActionKind.EDIT_DRAFT, value="1", context=lead)
    assert opened.form is not None
    values = {f.key: f.value for f in opened.form.fields}
    assert values["prompt"] == KAHOOT_ROWS[0][0] and values["explanation"] == ""
    values["explanation"] = KAHOOT_EXPLANATIONS[0]
    values["references"] = "https://kubernetes.io/docs/reference/kubectl/generated/kubectl_rollout/"
    saved = await runtime.app.submit_form(kind=FormKind.EDIT_DRAFT, state="1", values=values, context=lead)
    assert saved.ok, saved.message
    approved = await runtime.app.act(action=ActionKind.APPROVE_DRAFT, value="1", context=lead)
    assert approved.ok, approved.message
    posted = await runtime.app.handle_command(
        Invocation(channel, make_user("bob", channel.workspace_id), "now team-runbooks")
    )
    assert posted.ok, posted.message
    card = platform.sent[-1].card
    assert card is not None and card.prompt == KAHOOT_ROWS[0][0]


async def test_complete_questions_join_a_workspace_pack(
    runtime: Runtime, channel: ChannelRef, platform: FakePlatform
) -> None:
    reply = await upload(runtime, channel, "team-ops.gift", GIFT)
    assert reply.ok, reply.message
    assert reply.message.title == "pack team-ops: 2 questions added"
    assert "Post one with /quiz now team-ops." in reply.message.lines
    posted = await runtime.app.handle_command(
        Invocation(channel, make_user("bob", channel.workspace_id), "now team-ops")
    )
    assert posted.ok, posted.message
    card = platform.sent[-1].card
    assert card is not None and card.prompt in {
        "Which port does SSH listen on by default?",
        "Which tool asks a DNS server for a name's records?",
    }
    async with runtime.db.transaction() as session:
        keys = (await session.execute(select(QuestionRow.key).order_by(QuestionRow.position))).scalars().all()
        workspace_pack = (await session.execute(select(WorkspacePackRow))).scalar_one()
    assert workspace_pack.slug == "team-ops" and workspace_pack.created_by == "ada"
    assert [key for key in keys if key.startswith("ops-")] == ["ops-ssh", "ops-dig"]
    # the same file again: the same questions, nothing new; another prompt under a used id gets a fresh id
    again = await upload(runtime, channel, "team-ops.gift", GIFT.replace(b"listen on by default", b"use by default"))
    assert again.ok and "joined the workspace pack team-ops" in " ".join(again.message.lines)
    async with runtime.db.transaction() as session:
        query = select(QuestionRow.key).where(QuestionRow.pack_id == workspace_pack.pack_id)
        keys = (await session.execute(query.order_by(QuestionRow.position))).scalars().all()
    assert keys == ["ops-ssh", "ops-dig", "ops-ssh-2"]


async def test_bad_uploads_are_refused_with_nothing_stored(runtime: Runtime, channel: ChannelRef) -> None:
    await upload(runtime, channel, "team-ops.gift", GIFT)
    before = await counts(runtime)
    several = [
        *KAHOOT_ROWS,
        ("Pick two", "a", "b", "c", None, 20, "1,2"),
        ("No answer", "a", "b", None, None, 20, None),
    ]
    cases = {
        "formula": ("quiz.xlsx", kahoot_workbook(formula="=1+1"), "cell I12 of sheet 'Sheet1' holds a formula"),
        "zip bomb": ("quiz.xlsx", zip_bomb(), "would unpack to"),
        "oversize": ("quiz.csv", b"question,a,b,correct\n" + b"x" * 2_000_000, "uploads are limited to 1000000 bytes"),
        "unknown type": ("quiz.pdf", b"%PDF-1.7", ".pdf files cannot be imported"),
        "not utf-8": ("quiz.gift", b"::q:: caf\xe9 {=a ~b}", "is not UTF-8 text"),
        "macros": ("quiz.xlsm", kahoot_workbook(), "carries macros"),
    }
    for name, (filename, data, expected) in cases.items():
        reply = await upload(runtime, channel, filename, data)
        assert not reply.ok, name
        assert reply.message.title.startswith(f"{filename} was not imported: "), (name, reply.message)
        assert expected in reply.message.title, (name, reply.message.title)
    listed = await upload(runtime, channel, "quiz.xlsx", kahoot_workbook(several))
    assert not listed.ok and listed.message.title == "quiz.xlsx was not imported:"
    assert listed.message.lines[0].startswith("• row 13: 1, 2 are all marked correct")
    assert listed.message.lines[1].startswith("• row 14: no correct answer")
    assert listed.message.lines[-1] == "Nothing was stored: fix the file and upload it again."
    assert await counts(runtime) == before


async def test_members_may_not_import_and_typed_alone_it_says_how(runtime: Runtime, channel: ChannelRef) -> None:
    before = await counts(runtime)
    refused = await upload(runtime, channel, "team-ops.gift", GIFT, who="bob", admin=False)
    assert not refused.ok and refused.message.title.startswith("Only leads and admins can import packs")
    assert await counts(runtime) == before
    user = make_user("ada", channel.workspace_id)
    how = await runtime.app.handle_command(Invocation(channel, user, "import", is_admin=True))
    assert how.ok and how.message.title == "To import a pack, attach its file:"
    assert any("direct message" in line for line in how.message.lines)


async def test_a_shipped_pack_id_is_refused(runtime: Runtime, channel: ChannelRef) -> None:
    before = await counts(runtime)
    reply = await upload(runtime, channel, "data-parallelism.gift", GIFT.replace(b"// pack_title: Team ops\n", b""))
    assert not reply.ok
    assert reply.message.title.startswith(
        "data-parallelism.gift was not imported: `data-parallelism` is a shipped pack"
    )
    assert await counts(runtime) == before


async def test_the_size_limit_is_the_setting(settings: Settings, clock: ManualClock, channel: ChannelRef) -> None:
    small = await build_runtime(
        settings.model_copy(update={"upload_max_bytes": 2_000}), clock=clock, rng=random.Random(7), migrate=False
    )
    try:
        reply = await upload(small, channel, "team-ops.gift", GIFT + b"\n" + b"// padding\n" * 200)
        assert not reply.ok
        assert reply.message.title.endswith("uploads are limited to 2000 bytes: split the pack into smaller files")
        assert (await upload(small, channel, "team-ops.gift", GIFT)).ok  # under the limit
    finally:
        await small.aclose()
