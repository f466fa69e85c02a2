"""The scheduler on SQLite and PostgreSQL with a controlled clock: each slot posts once, across replicas, restarts,
crashes between claim and post, rate limits and platform failures; closed posts are revealed."""

from __future__ import annotations

import asyncio
import logging
import random
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

from bot.clock import ManualClock
from bot.config import Settings
from bot.db.models import Post, Schedule, ScheduleFire
from bot.domain import ChannelRef, QuestionCard
from bot.ports import PlatformError, PlatformLimits, Rate
from bot.runtime import Runtime, build_runtime
from bot.scheduling.fanout import FanOut
from bot.scheduling.fires import TickReport
from bot.scheduling.leases import Leases, channel_fires
from bot.scheduling.lifecycle import Stage
from bot.scheduling.ticker import Ticker
from bot.service.facade import Invocation
from bot.wording.cards import reveal_lines
from tests.conftest import make_user
from tests.fakes.fake_platform import FakePlatform
from tests.fakes.rate_limited import LimitedPlatform, VirtualTime

ADMIN = make_user("Ada")
MONDAY_8 = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)
LEASE = timedelta(minutes=5)


def make_ticker(
    runtime: Runtime,
    clock: ManualClock,
    *,
    replica: str = "A",
    grace: timedelta = timedelta(hours=1),
    sleep: Callable[[float], Awaitable[None]] | None = None,
    max_concurrent: int = 8,
) -> Ticker:
    time = VirtualTime(clock)
    return Ticker(
        uow=runtime.uow,
        post_question=runtime.quiz.post_question,
        reveal_post=runtime.app.reveal,
        platforms=runtime.platforms,
        clock=clock,
        fanout=FanOut(monotonic=time.monotonic, sleep=sleep or time.sleep),
        grace=grace,
        lease=LEASE,
        replica=replica,
        max_concurrent=max_concurrent,
    )


async def add(runtime: Runtime, channel: ChannelRef, rule: str) -> None:
    reply = await runtime.app.handle_command(Invocation(channel, ADMIN, f"schedule add {rule}", is_admin=True))
    assert reply.ok, reply.message


async def rows(runtime: Runtime, model: type[Any]) -> list[Any]:
    async with runtime.db.transaction() as session:
        return list((await session.execute(select(model).order_by(model.id))).scalars())


def cards(platform: FakePlatform, kind: str = "post_card") -> list[QuestionCard]:
    return [sent.card for sent in platform.of_kind(kind) if sent.card is not None]


@pytest.fixture
def monday(clock: ManualClock) -> ManualClock:
    clock.set(MONDAY_8)
    return clock


@dataclass
class HangingPlatform(FakePlatform):
    """Posts block until `release` is set (a slow or stuck platform call)."""

    release: asyncio.Event = field(default_factory=asyncio.Event)
    entered: asyncio.Event = field(default_factory=asyncio.Event)

    async def post_card(self, channel: ChannelRef, card: QuestionCard) -> str:
        self.entered.set()
        await self.release.wait()
        return await super().post_card(channel, card)


@dataclass
class FlakyPlatform(FakePlatform):
    """The first `failures` posts fail with a transient error."""

    failures: int = 0

    async def post_card(self, channel: ChannelRef, card: QuestionCard) -> str:
        if self.failures > 0:
            self.failures -= 1
            raise PlatformError("internal_error")
        return await super().post_card(channel, card)


@dataclass
class GatedPlatform(FakePlatform):
    """The first `free` posts go through; the others wait at `gate` until it opens (a fan-out under way)."""

    free: int = 0
    gate: asyncio.Event = field(default_factory=asyncio.Event)
    at_gate: int = 0
    refuse_at_gate: bool = False  # what waited at the gate is then refused with a 429

    async def post_card(self, channel: ChannelRef, card: QuestionCard) -> str:
        if self.free > 0:
            self.free -= 1
        else:
            self.at_gate += 1
            await self.gate.wait()
            if self.refuse_at_gate:
                raise PlatformError("ratelimited", retry_after=30)
        return await super().post_card(channel, card)


HANG = 60.0
"""How long a test waits for what it expects: a bound that fails a hang, not a speed check (a loaded machine may
take seconds for what takes milliseconds here)."""


async def until(condition: Callable[[], bool]) -> None:
    async with asyncio.timeout(HANG):
        while not condition():  # noqa: ASYNC110 - polls tasks running in the background
            await asyncio.sleep(0.01)


# --- one schedule --------------------------------------------------------------------------------------


async def test_a_due_slot_posts_once_and_the_post_is_revealed_when_the_next_one_is_due(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef, monday: ManualClock
) -> None:
    monday.set(datetime(2026, 1, 5, 5, 0, tzinfo=UTC))
    await add(runtime, channel, "daily 09:00 data-parallelism tz:Europe/Helsinki")  # 07:00 UTC in winter
    ticker = make_ticker(runtime, monday)
    monday.set(datetime(2026, 1, 5, 6, 59, 59, tzinfo=UTC))
    assert (await ticker.tick()).posted == []
    monday.set(datetime(2026, 1, 5, 7, 0, 4, tzinfo=UTC))
    report = await ticker.tick()
    assert len(report.posted) == 1
    assert (await ticker.tick()).posted == []  # the same slot never posts twice
    (card,) = cards(platform)
    assert card.pack_title == "Data Parallelism Quiz"
    (post,) = await rows(runtime, Post)
    assert (post.source, post.source_ref) == ("schedule", "1:2026-01-05T09:00")
    assert post.closes_at == datetime(2026, 1, 6, 7, 0, tzinfo=UTC)  # until the next fire
    (fire,) = await rows(runtime, ScheduleFire)
    assert (fire.slot_key, fire.status, fire.post_id, fire.attempts) == ("2026-01-05T09:00", "posted", post.id, 1)
    (schedule,) = await rows(runtime, Schedule)
    assert (schedule.next_slot, schedule.next_fire_at) == ("2026-01-06T09:00", datetime(2026, 1, 6, 7, tzinfo=UTC))

    pack = runtime.catalog.get("data-parallelism")
    question = next(q for q in pack.questions if q.prompt == card.prompt)
    await runtime.app.answer(post_id=card.post_id, user=make_user("alice"), choice_index=question.correct_index)
    await runtime.app.answer(post_id=card.post_id, user=make_user("bob"), choice_index=(question.correct_index + 1) % 2)

    monday.set(datetime(2026, 1, 6, 7, 0, 3, tzinfo=UTC))
    report = await ticker.tick()
    assert report.revealed == [card.post_id]
    assert len(report.posted) == 1
    kinds = [(s.kind, s.card.post_id if s.card else None, bool(s.card and s.card.reveal)) for s in platform.sent]
    reveal_at = kinds.index(("update_card", card.post_id, True))
    second_post_at = next(i for i, k in enumerate(kinds) if k[0] == "post_card" and k[1] != card.post_id)
    assert reveal_at < second_post_at  # yesterday's question is closed before today's is posted
    revealed = next(s.card for s in platform.of_kind("update_card") if s.card and s.card.reveal)
    assert revealed is not None
    assert revealed.reveal is not None
    assert revealed.reveal.correct_users == ("alice",)
    assert sum(revealed.reveal.counts) == 2
    lines = reveal_lines(revealed)
    assert f"Answer: {question.correct_choice}" in lines
    assert question.explanation in lines
    assert "Got it right: alice" in lines
    assert (await ticker.tick()).revealed == []  # revealed once


async def test_a_close_duration_reveals_the_post_after_it(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef, monday: ManualClock
) -> None:
    await add(runtime, channel, "weekdays 09:00 close:2h tz:UTC")
    ticker = make_ticker(runtime, monday)
    monday.set(datetime(2026, 1, 5, 9, 0, 5, tzinfo=UTC))
    await ticker.tick()
    (post,) = await rows(runtime, Post)
    assert post.closes_at == datetime(2026, 1, 5, 11, 0, 5, tzinfo=UTC)
    monday.set(datetime(2026, 1, 5, 11, 0, 4, tzinfo=UTC))
    assert (await ticker.tick()).revealed == []
    monday.set(datetime(2026, 1, 5, 11, 0, 6, tzinfo=UTC))
    assert (await ticker.tick()).revealed == [post.id]
    (post,) = await rows(runtime, Post)
    assert post.closed_at == datetime(2026, 1, 5, 11, 0, 5, tzinfo=UTC)  # closed at its close time


async def test_schedules_of_platforms_not_running_here_are_left_alone(
    runtime: Runtime, platform: FakePlatform, monday: ManualClock
) -> None:
    await add(runtime, ChannelRef("slack", "T1", "C1"), "daily 09:00")
    ticker = make_ticker(runtime, monday)
    monday.set(datetime(2026, 1, 5, 9, 0, 5, tzinfo=UTC))
    await ticker.tick()
    assert await rows(runtime, ScheduleFire) == []
    (schedule,) = await rows(runtime, Schedule)
    assert schedule.next_slot == "2026-01-05T09:00"  # still due, for a replica that runs Slack


# --- replicas ------------------------------------------------------------------------------------------


@pytest.fixture
async def second_replica(settings: Settings, monday: ManualClock) -> AsyncIterator[Runtime]:
    """Another process on the same database: its own engine, services and platform connection."""
    other = await build_runtime(settings, clock=monday, rng=random.Random(11), migrate=False)
    other.platforms.register(FakePlatform())
    try:
        yield other
    finally:
        await other.aclose()


async def test_two_schedulers_on_one_database_post_each_slot_exactly_once(
    runtime: Runtime, second_replica: Runtime, platform: FakePlatform, monday: ManualClock
) -> None:
    channels = [ChannelRef("fake", "W1", f"C{i}") for i in range(12)]
    monday.set(datetime(2026, 1, 4, 23, 0, tzinfo=UTC))
    for i, ch in enumerate(channels):
        await add(runtime, ch, f"daily 09:00 tz:{['UTC', 'Europe/Helsinki', 'America/New_York'][i % 3]}")
    other_platform = second_replica.platforms.get("fake")
    assert isinstance(other_platform, FakePlatform)
    a, b = make_ticker(runtime, monday, replica="A"), make_ticker(second_replica, monday, replica="B")
    for hour in range(24 * 2):  # two days of ticks, both replicas at the same moment
        monday.set(datetime(2026, 1, 5, 0, 0, 3, tzinfo=UTC) + timedelta(hours=hour))
        await asyncio.gather(a.tick(), b.tick(), a.tick())
    posted = Counter(s.channel for p in (platform, other_platform) for s in p.of_kind("post_card"))
    assert posted == dict.fromkeys(channels, 2)  # one post a day in each channel, never two
    # (Which replica wins each slot depends on timing; that none is posted twice does not.)
    fires = await rows(runtime, ScheduleFire)
    assert len(fires) == 24
    assert {f.status for f in fires} == {"posted"}
    assert len(await rows(runtime, Post)) == 24


async def test_a_pause_on_one_replica_is_seen_by_the_other_without_a_restart(
    runtime: Runtime, second_replica: Runtime, channel: ChannelRef, monday: ManualClock
) -> None:
    await add(runtime, channel, "daily 09:00 tz:UTC")
    reply = await runtime.app.handle_command(Invocation(channel, ADMIN, "schedule pause 1", is_admin=True))
    assert reply.ok
    monday.set(datetime(2026, 1, 5, 9, 0, 5, tzinfo=UTC))
    report = await make_ticker(second_replica, monday, replica="B").tick()
    assert report.posted == []
    assert await rows(runtime, ScheduleFire) == []


async def test_a_replica_stopped_mid_fan_out_hands_its_unposted_slots_to_the_next_tick_of_another(
    runtime: Runtime, second_replica: Runtime, monday: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    gated = GatedPlatform(free=3)
    runtime.platforms.register(gated)
    other_platform = second_replica.platforms.get("fake")
    assert isinstance(other_platform, FakePlatform)
    channels = [ChannelRef("fake", "W1", f"C{i}") for i in range(20)]
    for ch in channels:
        await add(runtime, ch, "daily 09:00 tz:UTC")
    monday.set(datetime(2026, 1, 5, 9, 0, 2, tzinfo=UTC))
    a, b = make_ticker(runtime, monday, replica="A"), make_ticker(second_replica, monday, replica="B")
    await a.tick(wait=False)
    await until(lambda: len(gated.of_kind("post_card")) == 3 and gated.at_gate > 0)

    with caplog.at_level(logging.INFO, logger="bot.scheduling.ticker"):
        stopping = asyncio.create_task(a.stop(drain_seconds=30))  # SIGTERM on replica A
        # What waited for its turn is handed back at once; what is inside the platform call may finish.
        # (Posts that went out may still wait for a worker for their bookkeeping, behind the calls at the gate.)
        await until(lambda: not a.holdings.at(Stage.WAITING) and len(a.holdings.at(Stage.SENDING)) == gated.at_gate)
        in_call = gated.at_gate
        gated.gate.set()
        await stopping
    handed_back = 20 - 3 - in_call
    assert handed_back > 0
    assert f"stopping: handed {handed_back} unposted slot(s) back" in caplog.text
    fires = await rows(runtime, ScheduleFire)
    assert Counter(f.status for f in fires) == {"posted": 3 + in_call, "claimed": handed_back}
    released = [f for f in fires if f.status == "claimed"]
    assert all(f.claimed_by == "A" and f.attempts == 1 for f in released)  # handing back is not an attempt
    assert all(f.claimed_at < monday.now() - LEASE for f in released)

    report = await b.tick()  # replica B's next tick: no waiting out the lease
    assert len(report.posted) == report.recovered == handed_back
    posted = Counter(s.channel for p in (gated, other_platform) for s in p.of_kind("post_card"))
    assert posted == dict.fromkeys(channels, 1)  # every channel once, none twice
    assert len(other_platform.of_kind("post_card")) == handed_back
    fires = await rows(runtime, ScheduleFire)
    assert {f.status for f in fires} == {"posted"}
    assert sorted(f.attempts for f in fires) == [1] * (3 + in_call) + [2] * handed_back
    assert len(await rows(runtime, Post)) == 20


async def test_a_post_cut_short_in_its_platform_call_at_stop_is_left_to_the_lease_not_handed_back(
    runtime: Runtime, second_replica: Runtime, monday: ManualClock
) -> None:
    stuck = HangingPlatform()
    runtime.platforms.register(stuck)
    other_platform = second_replica.platforms.get("fake")
    assert isinstance(other_platform, FakePlatform)
    channels = [ChannelRef("fake", "W1", f"C{i}") for i in range(3)]
    for ch in channels:
        await add(runtime, ch, "daily 09:00 tz:UTC")
    monday.set(datetime(2026, 1, 5, 9, 0, 2, tzinfo=UTC))
    a = make_ticker(runtime, monday, replica="A", max_concurrent=1)
    b = make_ticker(second_replica, monday, replica="B")
    await a.tick(wait=False)
    await asyncio.wait_for(stuck.entered.wait(), HANG)
    await a.stop(drain_seconds=0.1)  # one post hangs in the platform call; the other two wait for a worker
    report = await b.tick()
    assert len(report.posted) == report.recovered == 2
    (cut,) = [f for f in await rows(runtime, ScheduleFire) if f.status == "claimed"]
    assert cut.claimed_by == "A"  # whether it went out is unknown until the lease runs out
    monday.set(cut.claimed_at + LEASE + timedelta(seconds=1))
    report = await b.tick()
    assert len(report.posted) == report.recovered == 1
    assert Counter(s.channel for s in other_platform.of_kind("post_card")) == dict.fromkeys(channels, 1)
    assert stuck.of_kind("post_card") == []
    assert len(await rows(runtime, Post)) == 3


async def test_a_post_refused_with_a_429_while_stopping_is_handed_back_not_retried(
    runtime: Runtime, second_replica: Runtime, monday: ManualClock
) -> None:
    gated = GatedPlatform(refuse_at_gate=True)
    runtime.platforms.register(gated)
    other_platform = second_replica.platforms.get("fake")
    assert isinstance(other_platform, FakePlatform)
    channels = [ChannelRef("fake", "W1", f"C{i}") for i in range(3)]
    for ch in channels:
        await add(runtime, ch, "daily 09:00 tz:UTC")
    monday.set(datetime(2026, 1, 5, 9, 0, 2, tzinfo=UTC))
    a, b = make_ticker(runtime, monday, replica="A"), make_ticker(second_replica, monday, replica="B")
    await a.tick(wait=False)
    await until(lambda: gated.at_gate == 3)  # all three inside the platform call
    stopping = asyncio.create_task(a.stop(drain_seconds=30))
    await until(lambda: all(h.stage is Stage.SENDING for h in a.holdings))
    gated.gate.set()  # the platform answers 429 to all three: nothing went out, and A must not try again
    await stopping
    assert gated.of_kind("post_card") == []
    report = await b.tick()
    assert len(report.posted) == report.recovered == 3
    assert Counter(s.channel for s in other_platform.of_kind("post_card")) == dict.fromkeys(channels, 1)
    assert gated.at_gate == 3  # A did not retry after the 429s
    assert len(await rows(runtime, Post)) == 3


# --- downtime ------------------------------------------------------------------------------------------


async def test_after_a_restart_a_slot_missed_within_the_grace_window_posts_once_late_and_older_ones_are_skipped(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef, monday: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    await add(runtime, channel, "daily 09:00 tz:UTC")
    # The bot was down over 09:00 and restarts at 09:40: inside the one-hour grace window.
    monday.set(datetime(2026, 1, 5, 9, 40, tzinfo=UTC))
    restarted = make_ticker(runtime, monday, replica="restarted")
    assert len((await restarted.tick()).posted) == 1
    assert (await restarted.tick()).posted == []
    assert len(platform.of_kind("post_card")) == 1

    # Down again over the next 09:00, back at 10:30: outside the window, so nothing is posted late.
    monday.set(datetime(2026, 1, 6, 10, 30, tzinfo=UTC))
    with caplog.at_level(logging.WARNING, logger="bot.scheduling.ticker"):
        report = await make_ticker(runtime, monday, replica="again").tick()
    assert report.posted == []
    assert report.skipped == ["1:2026-01-06T09:00"]
    assert "more than the grace window" in caplog.text
    assert len(platform.of_kind("post_card")) == 1
    fires = {f.slot_key: f for f in await rows(runtime, ScheduleFire)}
    assert fires["2026-01-06T09:00"].status == "skipped"
    assert fires["2026-01-06T09:00"].detail == "missed by 1:30:00 (grace 1:00:00)"
    (schedule,) = await rows(runtime, Schedule)
    assert schedule.next_slot == "2026-01-07T09:00"  # and it carries on

    # Down for three days, back at 09:20: the latest slot posts late, the days before are recorded as skipped.
    monday.set(datetime(2026, 1, 10, 9, 20, tzinfo=UTC))
    report = await make_ticker(runtime, monday, replica="third").tick()
    assert len(report.posted) == 1
    assert report.skipped == ["1:2026-01-07T09:00", "1:2026-01-08T09:00", "1:2026-01-09T09:00"]
    statuses = {f.slot_key[:10]: f.status for f in await rows(runtime, ScheduleFire)}
    assert statuses == {
        "2026-01-05": "posted",
        "2026-01-06": "skipped",
        "2026-01-07": "skipped",
        "2026-01-08": "skipped",
        "2026-01-09": "skipped",
        "2026-01-10": "posted",
    }


async def test_a_restart_outside_the_grace_window_posts_nothing(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef, monday: ManualClock
) -> None:
    await add(runtime, channel, "daily 09:00 tz:UTC")
    monday.set(datetime(2026, 1, 5, 10, 0, 1, tzinfo=UTC))
    report = await make_ticker(runtime, monday, grace=timedelta(hours=1)).tick()
    assert report.posted == []
    assert platform.of_kind("post_card") == []
    assert [(f.status, f.post_id) for f in await rows(runtime, ScheduleFire)] == [("skipped", None)]


# --- crashes -------------------------------------------------------------------------------------------


async def test_a_claim_whose_replica_crashed_before_posting_is_posted_once_after_the_lease(
    runtime: Runtime, channel: ChannelRef, monday: ManualClock
) -> None:
    stuck = HangingPlatform()
    runtime.platforms.register(stuck)
    await add(runtime, channel, "daily 09:00 tz:UTC")
    monday.set(datetime(2026, 1, 5, 9, 0, 2, tzinfo=UTC))
    a = make_ticker(runtime, monday, replica="A")
    await a.tick(wait=False)
    await asyncio.wait_for(stuck.entered.wait(), HANG)
    for task in list(a._tasks):  # replica A dies in the middle of the platform call
        task.cancel()
    await asyncio.sleep(0)
    (fire,) = await rows(runtime, ScheduleFire)
    assert (fire.status, fire.claimed_by) == ("claimed", "A")
    assert [p.message_ref for p in await rows(runtime, Post)] == [None]  # the half-done attempt

    working = FakePlatform()
    runtime.platforms.register(working)
    b = make_ticker(runtime, monday, replica="B")
    monday.advance(60)
    assert (await b.tick()).posted == []  # the lease has not expired: A might still be posting
    monday.set(fire.claimed_at + LEASE + timedelta(seconds=1))
    report = await b.tick()
    assert len(report.posted) == 1
    assert report.recovered == 1
    assert (await b.tick()).posted == []
    assert len(working.of_kind("post_card")) == 1
    (fire,) = await rows(runtime, ScheduleFire)
    assert (fire.status, fire.claimed_by, fire.attempts) == ("posted", "B", 2)
    (post,) = await rows(runtime, Post)  # the orphan row of A's attempt is gone
    assert post.message_ref is not None
    assert fire.post_id == post.id


class CrashAfterPostLeases(Leases):
    """A replica that dies right after the platform accepted the post, before recording it."""

    async def finish(self, *args: Any, **kwargs: Any) -> None:
        raise asyncio.CancelledError


async def test_a_claim_whose_replica_crashed_after_posting_is_adopted_not_posted_again(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef, monday: ManualClock
) -> None:
    await add(runtime, channel, "daily 09:00 tz:UTC")
    monday.set(datetime(2026, 1, 5, 9, 0, 2, tzinfo=UTC))
    crashing = make_ticker(runtime, monday, replica="A")
    crashing.poster.leases = CrashAfterPostLeases(
        jobs=crashing.jobs, store=channel_fires, clock=monday, replica="A", lease=LEASE
    )
    await crashing.tick()
    assert len(platform.of_kind("post_card")) == 1
    (fire,) = await rows(runtime, ScheduleFire)
    assert fire.status == "claimed"
    monday.set(fire.claimed_at + LEASE + timedelta(seconds=1))
    report = await make_ticker(runtime, monday, replica="B").tick()
    assert report.recovered == 1
    assert len(platform.of_kind("post_card")) == 1  # not posted twice
    (fire,) = await rows(runtime, ScheduleFire)
    (post,) = await rows(runtime, Post)
    assert (fire.status, fire.post_id) == ("posted", post.id)


async def test_a_slow_post_is_not_taken_over_while_its_replica_is_alive(
    runtime: Runtime, channel: ChannelRef, monday: ManualClock
) -> None:
    slow = HangingPlatform()
    runtime.platforms.register(slow)
    await add(runtime, channel, "daily 09:00 tz:UTC")
    monday.set(datetime(2026, 1, 5, 9, 0, 2, tzinfo=UTC))
    a, b = make_ticker(runtime, monday, replica="A"), make_ticker(runtime, monday, replica="B")
    await a.tick(wait=False)
    await asyncio.wait_for(slow.entered.wait(), HANG)
    monday.advance(LEASE + timedelta(minutes=1))
    await a.tick()  # A is alive: its tick renews the claims it is working on
    assert (await b.tick()).recovered == 0
    slow.release.set()
    await asyncio.gather(*a._tasks)
    assert len(slow.of_kind("post_card")) == 1
    (fire,) = await rows(runtime, ScheduleFire)
    assert (fire.status, fire.claimed_by) == ("posted", "A")


async def test_a_replica_that_lost_its_claim_does_not_post(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef, monday: ManualClock
) -> None:
    await add(runtime, channel, "daily 09:00 tz:UTC")
    monday.set(datetime(2026, 1, 5, 9, 0, 2, tzinfo=UTC))
    gate = asyncio.Event()
    waiting = asyncio.Event()

    async def stalled_sleep(seconds: float) -> None:
        waiting.set()
        await gate.wait()

    a = make_ticker(runtime, monday, replica="A", sleep=stalled_sleep)
    platform.fail_next_post = PlatformError("ratelimited", retry_after=30)  # A backs off, and stalls there
    await a.tick(wait=False)
    await asyncio.wait_for(waiting.wait(), HANG)
    monday.advance(LEASE + timedelta(seconds=1))  # A went silent for longer than the lease
    report = await make_ticker(runtime, monday, replica="B").tick()
    assert len(report.posted) == 1
    gate.set()
    await asyncio.gather(*a._tasks)
    assert len(platform.of_kind("post_card")) == 1  # A's retry found its claim gone
    (fire,) = await rows(runtime, ScheduleFire)
    assert (fire.status, fire.claimed_by, fire.attempts) == ("posted", "B", 2)


# --- failures ------------------------------------------------------------------------------------------


async def test_a_channel_that_is_gone_pauses_its_schedule_with_the_reason(
    runtime: Runtime, monday: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    gone = LimitedPlatform(monday, gone={"C1"})
    runtime.platforms.register(gone)
    here, there = ChannelRef("fake", "W1", "C1"), ChannelRef("fake", "W1", "C2")
    await add(runtime, here, "daily 09:00 tz:UTC")
    await add(runtime, there, "daily 09:00 tz:UTC")
    ticker = make_ticker(runtime, monday)
    monday.set(datetime(2026, 1, 5, 9, 0, 2, tzinfo=UTC))
    with caplog.at_level(logging.WARNING, logger="bot.scheduling.ticker"):
        report = await ticker.tick()
    assert report.paused == [1]
    assert len(report.posted) == 1  # the other channel is not held up
    assert "schedule paused: the platform refused the post: channel_not_found" in caplog.text
    first, second = await rows(runtime, Schedule)
    assert (first.enabled, first.paused_reason) == (False, "the platform refused the post: channel_not_found")
    assert second.enabled
    fires = {f.schedule_id: f for f in await rows(runtime, ScheduleFire)}
    assert fires[1].status == "failed"
    assert [p.channel_id for p in await rows(runtime, Post)] == [fires[2].post_id and second.channel_id]
    listing = await runtime.app.handle_command(Invocation(there, ADMIN, "schedule list all"))
    assert any("paused (the platform refused the post: channel_not_found)" in line for line in listing.message.lines)
    requests = gone.requests
    monday.set(datetime(2026, 1, 6, 9, 0, 2, tzinfo=UTC))
    await ticker.tick()  # not retried forever: the paused schedule is not tried again
    assert gone.requests == requests + 2  # the other channel's reveal and post only


async def test_a_transient_failure_is_retried_a_minute_later_and_posts_once(
    runtime: Runtime, channel: ChannelRef, monday: ManualClock
) -> None:
    flaky = FlakyPlatform(failures=3)  # the first attempt and both quick retries fail
    runtime.platforms.register(flaky)
    await add(runtime, channel, "daily 09:00 tz:UTC")
    ticker = make_ticker(runtime, monday)
    monday.set(datetime(2026, 1, 5, 9, 0, 2, tzinfo=UTC))
    report = await ticker.tick()
    assert report.deferred == ["1:2026-01-05T09:00"]
    assert (await ticker.tick()).posted == []
    monday.advance(61)
    report = await ticker.tick()
    assert len(report.posted) == 1
    assert len(flaky.of_kind("post_card")) == 1
    (fire,) = await rows(runtime, ScheduleFire)
    assert (fire.status, fire.attempts) == ("posted", 2)
    assert len(await rows(runtime, Post)) == 1


# --- fan-out -------------------------------------------------------------------------------------------


async def test_200_channels_due_at_once_are_posted_and_revealed_once_each_through_rate_limits_and_429s(
    runtime: Runtime, monday: ManualClock
) -> None:
    strict = LimitedPlatform(
        monday,
        channel_spacing=1.0,
        platform_limit=(50, 1.0),  # Discord-like
        random_429=0.02,
        rate_limits=PlatformLimits(channel=None, platform=Rate(60.0, burst=10)),  # declares too much
    )
    runtime.platforms.register(strict)
    channels = [ChannelRef("fake", f"W{i % 5}", f"C{i}") for i in range(200)]
    for ch in channels:
        await add(runtime, ch, "daily 09:00 tz:UTC")
    ticker = make_ticker(runtime, monday)
    monday.set(datetime(2026, 1, 5, 9, 0, 1, tzinfo=UTC))
    report = await ticker.tick()
    assert len(report.posted) == 200
    assert sorted(len(strict.posts[ch]) for ch in channels) == [1] * 200
    assert strict.refused > 0
    assert ticker.fanout.rate_limited == strict.refused

    monday.set(datetime(2026, 1, 6, 9, 0, 1, tzinfo=UTC))
    report = await ticker.tick()
    assert len(report.posted) == 200
    assert len(report.revealed) == 200
    assert sorted(len(strict.posts[ch]) for ch in channels) == [2] * 200
    revealed = Counter(card.post_id for ch in channels for card in strict.edits[ch] if card.reveal is not None)
    assert sorted(revealed.values()) == [1] * 200
    fires = await rows(runtime, ScheduleFire)
    assert Counter(f.status for f in fires) == {"posted": 400}


# --- the timer -----------------------------------------------------------------------------------------


async def test_the_timer_runs_the_tick_until_stopped(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef, monday: ManualClock
) -> None:
    await add(runtime, channel, "daily 09:00 tz:UTC")
    monday.set(datetime(2026, 1, 5, 9, 0, 1, tzinfo=UTC))
    ticker = make_ticker(runtime, monday)
    ticker.interval = 0.05
    ticker.start()
    try:
        assert ticker.running
        async with asyncio.timeout(HANG):
            while ticker.ticks < 3 or not platform.of_kind("post_card"):  # noqa: ASYNC110 - polls the timer's effect
                await asyncio.sleep(0.02)
    finally:
        await ticker.stop()
    assert not ticker.running
    ticks = ticker.ticks
    await asyncio.sleep(0.2)
    assert ticker.ticks == ticks  # stopped
    assert len(platform.of_kind("post_card")) == 1


INTERVAL = 0.25


async def test_a_wall_clock_jump_back_or_forward_neither_stalls_the_timer_nor_posts_a_slot_twice(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef, monday: ManualClock
) -> None:
    """The timer waits on the event loop's monotonic clock, so the tick after a jump of the wall clock (the Clock)
    comes on its usual beat; slots stay keyed by local calendar time, so none posts twice. (APScheduler's
    IntervalTrigger, the timer before, re-armed for about an hour after the system clock went back an hour: `jump`
    fails after HANG, a minute, and does not measure the beat itself, which a loaded machine may delay.)"""
    await add(runtime, channel, "0 * * * * tz:UTC")  # on the hour, every hour
    monday.set(datetime(2026, 1, 5, 9, 0, 1, tzinfo=UTC))
    ticker = make_ticker(runtime, monday)
    ticker.interval = INTERVAL
    loop = asyncio.get_running_loop()
    started: list[float] = []  # loop time of each tick's start
    tick = ticker.tick

    async def recorded_tick(*, wait: bool = True) -> TickReport:
        started.append(loop.time())
        return await tick(wait=wait)

    ticker.tick = recorded_tick  # type: ignore[method-assign]

    async def jump(to: datetime) -> None:
        """Set the wall clock; wait for the next tick to start."""
        monday.set(to)
        jumped = loop.time()
        async with asyncio.timeout(HANG):
            while not started or started[-1] < jumped:  # noqa: ASYNC110 - polls the timer
                await asyncio.sleep(0.01)

    async def settle() -> None:
        """Let two more ticks run (and what they spawned)."""
        count = len(started)
        async with asyncio.timeout(HANG):
            while len(started) < count + 2:  # noqa: ASYNC110 - polls the timer
                await asyncio.sleep(0.01)
        await asyncio.gather(*ticker._tasks)

    def posted() -> list[str | None]:
        return [card.prompt for card in cards(platform)]

    ticker.start()
    try:
        await settle()
        assert len(posted()) == 1  # the 09:00 slot
        await jump(datetime(2026, 1, 5, 8, 0, 1, tzinfo=UTC))  # back an hour
        await settle()
        await jump(datetime(2026, 1, 5, 9, 0, 1, tzinfo=UTC))  # forward: 09:00 again
        await settle()
        assert len(posted()) == 1  # not posted twice
        await jump(datetime(2026, 1, 5, 10, 0, 1, tzinfo=UTC))  # forward: 10:00 is due
        await settle()
        assert len(posted()) == 2
        assert [c.post_id for c in cards(platform, "update_card") if c.reveal is not None] == [1]  # 09:00 revealed
        await jump(datetime(2026, 1, 5, 9, 0, 1, tzinfo=UTC))  # back again
        await settle()
        assert len(posted()) == 2
    finally:
        await ticker.stop()
    assert Counter(p.source_ref for p in await rows(runtime, Post)) == {
        "1:2026-01-05T09:00": 1,
        "1:2026-01-05T10:00": 1,
    }
    assert [(f.slot_key, f.status) for f in await rows(runtime, ScheduleFire)] == [
        ("2026-01-05T09:00", "posted"),
        ("2026-01-05T10:00", "posted"),
    ]
