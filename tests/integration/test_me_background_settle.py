"""The scheduler settles `/quiz me` checkpoints in the background (bot/scheduling/checkpoints.py), so a user's first
`/quiz me` reads only what was settled since, and shows what a call without that checkpoint shows; through the
ticker, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import pytest
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

import bot.service.stats as stats_module
from bot.clock import ManualClock
from bot.db.models import MeCheckpoint, User
from bot.domain import ChannelRef
from bot.errors import StorageUnavailable
from bot.runtime import Runtime
from bot.service.repositories.checkpoints import Checkpoints
from bot.service.stats import MeRecordView
from bot.service.streak_stats import ADVANCE_EVERY, CHECKPOINT_AGE, SETTLE_MARGIN
from tests.conftest import make_user
from tests.integration.test_me_checkpoint import a_week, me, scheduled, stored
from tests.scoring_helpers import answer, read_only_statements

if TYPE_CHECKING:
    from bot.scheduling.checkpoints import CheckpointSettling

HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


async def user_row(runtime: Runtime, who: str) -> int:
    async with runtime.db.transaction() as session:
        return int((await session.execute(select(User.id).where(User.external_id == f"U-{who}"))).scalar_one())


def settling(runtime: Runtime) -> CheckpointSettling:
    step = runtime.ticker.checkpoints
    assert step is not None  # the runtime's ticker settles checkpoints
    return step


@pytest.fixture(autouse=True)
def no_time_budget(runtime: Runtime) -> None:
    """A tick's time budget (`CheckpointSettling.budget`, 0.2 s of the real clock) spent by no one: these tests count
    the users a tick settles, and a slow or loaded machine would otherwise stop a tick after its first user. The
    budget's own test sets it, and holds the clock it is read on."""
    settling(runtime).budget = math.inf


async def record(runtime: Runtime, who: str) -> MeRecordView:
    return await runtime.stats.user_record(make_user(who), now=runtime.clock.now())


async def test_the_ticker_settles_a_users_history_and_their_first_me_reads_only_the_tail(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await a_week(runtime, channel, clock)
    assert await stored(runtime, "alice") is None and await stored(runtime, "bob") is None

    report = await runtime.ticker.tick()

    alice, bob = await user_row(runtime, "alice"), await user_row(runtime, "bob")
    assert sorted(report.checkpoints_settled) == sorted([alice, bob])
    settled = await stored(runtime, "alice")
    assert settled is not None and settled.settled_to == clock.now() - SETTLE_MARGIN

    card = await scheduled(runtime, channel, clock)  # a little more since: the tail
    await answer(runtime, card, "alice", right=True)
    clock.advance(3 * HOUR)
    with read_only_statements(runtime) as sent:
        first = await record(runtime, "alice")  # the user's first /quiz me
    assert any("answers_since" in statement for statement in sent)
    assert not any("anchors" in statement for statement in sent), "the whole history was read"
    await me(runtime, "alice")  # and it is what the whole history gives

    async with runtime.db.transaction() as session:  # the same call without the background's checkpoint
        await session.execute(delete(MeCheckpoint))
    with read_only_statements(runtime) as sent:
        cold = await record(runtime, "alice")
    assert any("anchors" in statement for statement in sent)  # this one read the whole history
    assert cold == first
    assert first.stats.best_streak > 0 and first.stats.best_day_streak > 0 and first.tags


async def test_users_with_nothing_settled_since_their_checkpoint_are_skipped(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await a_week(runtime, channel, clock)
    assert len((await runtime.ticker.tick()).checkpoints_settled) == 2
    assert (await runtime.ticker.tick()).checkpoints_settled == []  # settled already: fresh

    clock.advance(3 * DAY)  # both checkpoints are old now, and neither answered since
    before = await stored(runtime, "alice")
    assert (await runtime.ticker.tick()).checkpoints_settled == []
    after = await stored(runtime, "alice")
    assert before is not None and after is not None and after.settled_to == before.settled_to

    card = await scheduled(runtime, channel, clock)
    await answer(runtime, card, "carol", right=True)  # a new user, whose only answer is not settled yet
    await answer(runtime, card, "alice", right=False)
    assert (await runtime.ticker.tick()).checkpoints_settled == []
    clock.advance(SETTLE_MARGIN + timedelta(minutes=1))  # now it is
    report = await runtime.ticker.tick()
    expected = [await user_row(runtime, "alice"), await user_row(runtime, "carol")]
    assert sorted(report.checkpoints_settled) == sorted(expected)
    await me(runtime, "alice")
    await me(runtime, "carol")


async def test_a_checkpoint_taken_older_than_the_stored_one_does_not_replace_it(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The step has found alice (no checkpoint) when she asks `/quiz me` two hours later, before the step writes:
    the step's checkpoint, settled less far, must not replace hers."""
    await a_week(runtime, channel, clock)
    step_now = clock.now()
    real = stats_module.resumed_record
    asked: list[datetime] = []

    async def she_asks_meanwhile(*args: Any, **kwargs: Any) -> Any:
        if not asked:
            asked.append(step_now + 2 * HOUR)
            clock.advance(2 * HOUR)
            await me(runtime, "alice")  # her own call, committed before the step's write
        return await real(*args, **kwargs)

    monkeypatch.setattr(stats_module, "resumed_record", she_asks_meanwhile)
    report = await runtime.ticker.tick()  # the tick's now is step_now
    monkeypatch.undo()

    kept = await stored(runtime, "alice")
    assert asked and kept is not None and kept.settled_to == asked[0] - SETTLE_MARGIN
    assert await user_row(runtime, "alice") not in report.checkpoints_settled
    assert await user_row(runtime, "bob") in report.checkpoints_settled  # not asked: the step's own is stored
    bob = await stored(runtime, "bob")
    assert bob is not None and bob.settled_to == step_now - SETTLE_MARGIN
    await me(runtime, "alice")


async def test_each_tick_settles_a_bounded_batch_and_walks_on(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    names = ["alice", "bob", "carol", "dave", "erin"]
    for _ in range(2):
        card = await scheduled(runtime, channel, clock)
        for name in names:
            await answer(runtime, card, name, right=True)
        clock.advance(DAY)
    step = settling(runtime)
    step.batch = 2
    rows = sorted([await user_row(runtime, name) for name in names])

    ticks = [(await runtime.ticker.tick()).checkpoints_settled for _ in range(4)]

    assert ticks == [rows[0:2], rows[2:4], rows[4:5], []]  # the last: past the last user, over from the first
    step.scan = 1  # a pass reads at most `scan` users a tick, whatever the batch
    clock.advance(3 * DAY)
    card = await scheduled(runtime, channel, clock)
    for name in names:
        await answer(runtime, card, name, right=False)
    clock.advance(2 * HOUR)
    ticks = [(await runtime.ticker.tick()).checkpoints_settled for _ in range(3)]
    assert ticks == [rows[0:1], rows[1:2], rows[2:3]]
    for name in names:
        await me(runtime, name)


async def test_a_database_failure_is_left_to_the_next_tick(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    await a_week(runtime, channel, clock)
    step = settling(runtime)
    real = step.settle

    async def unavailable(**_: Any) -> Any:
        raise StorageUnavailable("the database is away")

    step.settle = unavailable
    report = await runtime.ticker.tick()  # the tick itself goes on
    assert report.checkpoints_settled == [] and await stored(runtime, "alice") is None
    assert any("not settled this tick" in r.getMessage() for r in caplog.records)
    step.settle = real
    assert len((await runtime.ticker.tick()).checkpoints_settled) == 2


async def test_a_tick_starts_no_further_user_once_its_time_is_spent(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    names = ["alice", "bob", "carol"]
    card = await scheduled(runtime, channel, clock)
    for name in names:
        await answer(runtime, card, name, right=True)
    clock.advance(DAY)
    step = settling(runtime)
    real = step.settle
    seconds = iter(range(100))  # a clock that moves one second each time it is read

    async def ticking(**kwargs: Any) -> Any:
        return await real(**kwargs, monotonic=lambda: float(next(seconds)))

    step.settle = ticking
    step.budget = 1.5  # the start, then a second a user: two users fit, not three
    rows = sorted([await user_row(runtime, name) for name in names])

    ticks = [(await runtime.ticker.tick()).checkpoints_settled for _ in range(2)]

    assert ticks == [rows[0:2], rows[2:3]]  # the next tick goes on after the last user settled
    step.budget = 0.0
    clock.advance(2 * DAY)
    card = await scheduled(runtime, channel, clock)
    for name in names:
        await answer(runtime, card, name, right=False)
    clock.advance(2 * HOUR)
    assert [(await runtime.ticker.tick()).checkpoints_settled for _ in range(3)] == [rows[0:1], rows[1:2], rows[2:3]]


async def test_a_user_forgotten_while_the_step_reads_them_is_skipped_quietly(
    runtime: Runtime,
    channel: ChannelRef,
    clock: ManualClock,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """`forget-user` removes alice after the step read her history and before it writes her checkpoint: the write
    finds no user. The step stores nothing for her, logs no traceback, and settles the others."""
    await a_week(runtime, channel, clock)
    alice, bob = await user_row(runtime, "alice"), await user_row(runtime, "bob")
    real = stats_module.resumed_record

    async def forgotten_meanwhile(session: Any, user: int, **kwargs: Any) -> Any:
        found = await real(session, user, **kwargs)
        if user == alice:
            async with runtime.db.transaction() as other:  # forget-user's delete, committed before the write
                await other.execute(delete(User).where(User.id == alice))
        return found

    monkeypatch.setattr(stats_module, "resumed_record", forgotten_meanwhile)
    caplog.set_level("INFO")
    report = await runtime.ticker.tick()
    monkeypatch.undo()

    assert report.checkpoints_settled == [bob]
    async with runtime.db.transaction() as session:
        assert (await session.execute(select(MeCheckpoint.user_id))).scalars().all() == [bob]
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"
    assert not [r for r in caplog.records if "not stored" in r.getMessage()], "the write failed"


async def test_a_checkpoint_write_refused_by_the_database_is_one_line_in_the_log(
    runtime: Runtime,
    channel: ChannelRef,
    clock: ManualClock,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The delete of a forgotten user still in flight when the write checks its user (PostgreSQL), or SQLite busy:
    the checkpoint is a cache, so the step logs one line without a traceback and settles the others."""
    await a_week(runtime, channel, clock)
    alice, bob = await user_row(runtime, "alice"), await user_row(runtime, "bob")
    real = Checkpoints.advance

    async def refused(self: Checkpoints, user: int, checkpoint: Any) -> bool:
        if user == alice:
            raise IntegrityError("INSERT INTO me_checkpoints ...", {}, Exception("FOREIGN KEY constraint failed"))
        return await real(self, user, checkpoint)

    monkeypatch.setattr(Checkpoints, "advance", refused)
    caplog.set_level("INFO")
    report = await runtime.ticker.tick()
    monkeypatch.undo()

    assert report.checkpoints_settled == [bob]
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"
    assert any(r.getMessage().endswith("not stored: FOREIGN KEY constraint failed") for r in caplog.records)


async def test_the_step_moves_on_a_checkpoint_a_call_would_keep(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    """A checkpoint a day old, with answers since: too young for `/quiz me` to write again (ADVANCE_EVERY), old
    enough for the step (CHECKPOINT_AGE), which stores it."""
    await a_week(runtime, channel, clock)
    await me(runtime, "alice")
    card = await scheduled(runtime, channel, clock)
    await answer(runtime, card, "alice", right=True)
    clock.advance(CHECKPOINT_AGE + SETTLE_MARGIN)
    assert CHECKPOINT_AGE + SETTLE_MARGIN < ADVANCE_EVERY

    report = await runtime.ticker.tick()

    assert await user_row(runtime, "alice") in report.checkpoints_settled
    settled = await stored(runtime, "alice")
    assert settled is not None and settled.settled_to == clock.now() - SETTLE_MARGIN
    await me(runtime, "alice")
