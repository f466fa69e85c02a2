"""Confirmations of destructive commands through the core, on SQLite and PostgreSQL: only the asker, once, in time."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from bot.clock import ManualClock
from bot.db.models import Cohort, PendingConfirmation, Schedule
from bot.domain import ChannelRef
from bot.runtime import Runtime
from bot.service.facade import Context, Invocation, Reply
from tests.conftest import make_user
from tests.scoring_helpers import confirm


async def run(runtime: Runtime, channel: ChannelRef, who: str, text: str, *, admin: bool = False) -> Reply:
    return await runtime.app.handle_command(Invocation(channel, make_user(who), text, is_admin=admin))


async def cohorts(runtime: Runtime) -> list[str]:
    async with runtime.db.transaction() as session:
        return list((await session.execute(select(Cohort.name))).scalars())


async def test_cohort_delete_asks_and_only_its_asker_confirms_once(runtime: Runtime, channel: ChannelRef) -> None:
    await run(runtime, channel, "lead", "cohort create spring")
    await run(runtime, channel, "ann", "cohort join spring")
    asked = await run(runtime, channel, "lead", "cohort delete spring")
    assert asked.ok and asked.private and asked.confirm is not None
    assert asked.message.title == "Delete cohort spring and its board (1 member)?"
    assert asked.confirm.confirm_label == "Delete the cohort" and asked.confirm.cancel_label == "Cancel"
    assert asked.confirm.note == "Only you can confirm, within 2 minutes."
    assert len(asked.confirm.token) >= 22
    assert await cohorts(runtime) == ["spring"]

    other = await confirm(runtime, asked, channel, "root", admin=True)  # even an admin is not the asker
    assert not other.ok and other.message.title == "Only lead can confirm this; nothing was changed."
    assert await cohorts(runtime) == ["spring"]
    done = await confirm(runtime, asked, channel, "lead")
    assert done.ok and done.message.title == "Deleted cohort spring. Answers and points of its members are kept."
    assert await cohorts(runtime) == []
    second = await confirm(runtime, asked, channel, "lead")
    assert not second.ok and second.message.title == "This was already confirmed; it is done."


async def test_cancel_expiry_and_a_forged_token_change_nothing(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await run(runtime, channel, "ada", "schedule add daily 09:00", admin=True)
    asked = await run(runtime, channel, "ada", "schedule remove 1", admin=True)
    assert asked.message.title == "Remove schedule #1 (every day at 09:00, UTC)?"
    cancelled = await confirm(runtime, asked, channel, "ada", admin=True, accept=False)
    assert cancelled.ok and cancelled.message.title == "Cancelled: nothing was changed."
    late = await confirm(runtime, asked, channel, "ada", admin=True)
    assert late.message.title.startswith("This was already cancelled; nothing was changed.")

    again = await run(runtime, channel, "ada", "schedule remove 1", admin=True)
    clock.advance(timedelta(minutes=2, seconds=1))
    expired = await confirm(runtime, again, channel, "ada", admin=True)
    assert not expired.ok
    assert expired.message.title == (
        "This confirmation expired (they last 2 minutes); nothing was changed. Run the command again."
    )
    forged = await runtime.app.confirm(
        token="A" * 22, context=Context(channel, make_user("ada"), is_admin=True), accept=True
    )
    assert not forged.ok and forged.message.title.startswith("I don't know this confirmation")
    async with runtime.db.transaction() as session:
        assert len((await session.execute(select(Schedule))).all()) == 1


async def test_the_asker_of_another_workspace_cannot_confirm(runtime: Runtime, channel: ChannelRef) -> None:
    await run(runtime, channel, "ada", "season start s1", admin=True)
    asked = await run(runtime, channel, "ada", "season end", admin=True)
    elsewhere = ChannelRef("fake", "W2", "C1")
    reply = await confirm(runtime, asked, elsewhere, make_user("ada", "W2"), admin=True)
    assert not reply.ok and reply.message.title == "Only ada can confirm this; nothing was changed."
    assert (await run(runtime, channel, "bob", "season list")).message.lines[0].startswith("s1 — running since")


async def test_permission_is_checked_again_when_confirming(runtime: Runtime, channel: ChannelRef) -> None:
    await run(runtime, channel, "ada", "schedule add daily 09:00", admin=True)
    asked = await run(runtime, channel, "ada", "schedule remove 1", admin=True)
    demoted = await confirm(runtime, asked, channel, "ada", admin=False)  # no longer an admin by the time they click
    assert not demoted.ok and demoted.message.title.startswith("Only leads and admins can remove schedules")


async def test_expired_confirmations_are_swept(runtime: Runtime, channel: ChannelRef, clock: ManualClock) -> None:
    await run(runtime, channel, "ada", "schedule add daily 09:00", admin=True)
    await run(runtime, channel, "ada", "schedule remove 1", admin=True)
    clock.advance(timedelta(days=2))
    await run(runtime, channel, "ada", "schedule remove 1", admin=True)
    async with runtime.db.transaction() as session:
        assert len((await session.execute(select(PendingConfirmation))).all()) == 1
