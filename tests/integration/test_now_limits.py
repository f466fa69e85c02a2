"""`/quiz now`'s per-channel cooldown and limit of open on-demand questions (QUIZBOT_NOW_COOLDOWN_SECONDS,
QUIZBOT_NOW_OPEN_LIMIT) through the core on SQLite and PostgreSQL: a member is told when they may post again, or to
reveal one first; leads and admins are exempt; another channel has its own."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from sqlalchemy import text as sql

from bot.clock import ManualClock
from bot.config import Settings
from bot.domain import ChannelRef, PostSource
from bot.runtime import Runtime
from bot.service.facade import Invocation, Reply
from tests.conftest import SEED_CONTENT, make_user, patient_settings
from tests.fakes.fake_platform import FakePlatform
from tests.scoring_helpers import post

OTHER = ChannelRef("fake", "W1", "C2")


@pytest.fixture
def settings(database_url: str) -> Settings:
    """The test bot's settings with a 2-minute cooldown and at most 2 open on-demand questions per channel."""
    return patient_settings(
        database_url=database_url,
        content_dir=SEED_CONTENT,
        card_update_interval=0.0,
        now_cooldown_seconds=120,
        now_open_limit=2,
    )


async def run(runtime: Runtime, channel: ChannelRef, who: str, text: str, *, admin: bool = False) -> Reply:
    return await runtime.app.handle_command(Invocation(channel, make_user(who), text, is_admin=admin))


async def test_a_member_waits_out_the_cooldown_and_leads_do_not(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    assert (await run(runtime, channel, "bob", "now")).ok
    clock.advance(timedelta(seconds=30))
    soon = await run(runtime, channel, "cy", "now")
    assert not soon.ok and soon.private
    assert soon.message.title == "You can post the next question here in 1 min 30 s (leads and admins can post now)."
    assert (await run(runtime, OTHER, "cy", "now")).ok  # each channel has its own
    assert (await run(runtime, channel, "ada", "now", admin=True)).ok
    await run(runtime, channel, "ada", "role grant U-lee lead", admin=True)
    clock.advance(timedelta(seconds=10))
    assert (await run(runtime, channel, "lee", "now")).ok
    clock.advance(timedelta(seconds=120))
    for _ in range(2):
        assert (await run(runtime, channel, "ada", "reveal", admin=True)).ok
    assert (await run(runtime, channel, "cy", "now")).ok  # the cooldown is over


async def test_a_member_may_not_open_more_than_the_limit(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    for _ in range(2):
        assert (await run(runtime, channel, "bob", "now")).ok
        clock.advance(timedelta(minutes=5))
    await post(runtime, channel, source=PostSource.SCHEDULE)  # a scheduled question does not count
    full = await run(runtime, channel, "cy", "now")
    assert not full.ok
    assert full.message.title == (
        "This channel already has 2 open questions; reveal one first (leads and admins can post more)."
    )
    assert (await run(runtime, channel, "ada", "now", admin=True)).ok
    clock.advance(timedelta(minutes=5))
    for _ in range(3):  # the admin's, the scheduled one, and one of bob's
        assert (await run(runtime, channel, "ada", "reveal", admin=True)).ok
    assert (await run(runtime, channel, "cy", "now")).ok


async def _lock_waiters(runtime: Runtime) -> int:
    """How many PostgreSQL sessions of this database wait for a lock (the gate the race test holds)."""
    async with runtime.db.engine.connect() as connection:
        query = sql(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return int((await connection.execute(query)).scalar_one())


async def test_two_members_at_the_same_instant_post_one_question_and_the_other_waits_out_the_cooldown(
    runtime: Runtime, channel: ChannelRef
) -> None:
    """Two members' `/quiz now` in one channel at the same moment (two replicas, say): exactly one card is posted
    and the other is told the cooldown's one line. The test holds the channel's row until both wait on it
    (PostgreSQL: FOR UPDATE, seen in pg_stat_activity; SQLite: its write lock, under which they run one after the
    other whatever the order): both used to pass the check and post two cards."""
    async with runtime.app.uow() as uow:
        channel_row = await uow.places.channel_id(channel, runtime.clock.now())
        await uow.commit()
    postgres = runtime.db.engine.dialect.name == "postgresql"
    hold = "SELECT id FROM channels WHERE id = :id FOR UPDATE" if postgres else "SELECT id FROM channels WHERE id = :id"
    async with runtime.db.engine.begin() as gate:  # SQLite: BEGIN IMMEDIATE, the write lock
        await gate.execute(sql(hold), {"id": channel_row})
        racing = asyncio.gather(run(runtime, channel, "bob", "now"), run(runtime, channel, "cy", "now"))
        if postgres:
            while await _lock_waiters(runtime) < 2:
                assert not racing.done(), racing.result()
                await asyncio.sleep(0.01)
    replies = await racing
    platform = runtime.platforms.get("fake")
    assert isinstance(platform, FakePlatform)
    assert [sent.kind for sent in platform.sent].count("post_card") == 1
    assert sorted(reply.ok for reply in replies) == [False, True]
    refused = next(reply for reply in replies if not reply.ok)
    assert refused.private
    assert refused.message.title == "You can post the next question here in 2 min (leads and admins can post now)."
