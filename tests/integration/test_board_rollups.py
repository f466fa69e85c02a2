"""Week and month boards from period rollups: always the plain sum of the window's answers, on SQLite and
PostgreSQL, across local period boundaries, after a timezone change, and after the migration's backfill."""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import UTC, datetime, timedelta

from alembic import command
from sqlalchemy import select
from sqlalchemy.engine import Connection

from bot.clock import ManualClock
from bot.commands import Scope, Window
from bot.db import Database
from bot.db.migrate import alembic_config, upgrade
from bot.db.models import Answer, Channel, PeriodScore, User
from bot.domain import ChannelRef
from bot.domain.windows import window_start
from bot.runtime import Runtime
from tests.conftest import make_user
from tests.scoring_helpers import answer, post, set_timezone

Totals = dict[tuple[str, ...], tuple[int, int, int]]


async def _plain(runtime: Runtime, *, channel: str | None, start: datetime) -> list[tuple[str, int, int, int]]:
    """The board as a plain sum over answers since `start`: (name, points, correct, answered), best first."""
    query = (
        select(User.display_name, Answer.points, Answer.is_correct)
        .join(User, User.id == Answer.user_id)
        .join(Channel, Channel.id == Answer.channel_id)
        .where(Answer.answered_at >= start)
    )
    if channel is not None:
        query = query.where(Channel.external_id == channel)
    sums: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    async with runtime.db.transaction() as session:
        for name, points, correct in await session.execute(query):
            sums[name][0] += points
            sums[name][1] += int(correct)
            sums[name][2] += 1
    return sorted(((n, *t) for n, t in sums.items()), key=lambda r: (-r[1], -r[2], r[3], r[0]))


async def _board(runtime: Runtime, where: ChannelRef, scope: Scope, window: Window) -> list[tuple[str, int, int, int]]:
    board = await runtime.stats.leaderboard(where, window=window, scope=scope, now=runtime.clock.now(), limit=100)
    return sorted(
        ((r.name, r.points, r.correct, r.answered) for r in board.rows), key=lambda r: (-r[1], -r[2], r[3], r[0])
    )


async def _assert_boards_are_plain_sums(runtime: Runtime, here: ChannelRef, timezone: str) -> None:
    now = runtime.clock.now()
    for window in (Window.WEEK, Window.MONTH):
        start = window_start(window, now, timezone)
        assert start is not None
        for scope, channel in ((Scope.WORKSPACE, None), (Scope.CHANNEL, here.channel_id)):
            expected = await _plain(runtime, channel=channel, start=start)
            assert await _board(runtime, here, scope, window) == expected, (window, scope, now)


async def test_week_and_month_boards_are_the_plain_sum_of_the_windows_answers(
    runtime: Runtime, clock: ManualClock
) -> None:
    here, there = ChannelRef("fake", "W1", "C1"), ChannelRef("fake", "W1", "C2")
    await set_timezone(runtime, here, "Europe/Helsinki")
    rng = random.Random(16)
    names = [f"user{n}" for n in range(8)]
    # Sunday 31 May 2026, 20:00 UTC (23:00 in Helsinki): answers every 50 minutes across the local midnight that
    # starts both a week and a month (Monday 1 June 00:00 in Helsinki is 21:00 UTC on Sunday), and on after it.
    clock.set(datetime(2026, 5, 31, 20, 0, tzinfo=UTC))
    checked = 0
    for step in range(10):
        for where in (here, there):
            card = await post(runtime, where)
            for name in rng.sample(names, 5):
                await answer(runtime, card, name, right=rng.random() < 0.6)
        if step in (0, 1, 2, 9):  # before the boundary, just after it, and well after
            await _assert_boards_are_plain_sums(runtime, here, "Europe/Helsinki")
            checked += 1
        clock.advance(timedelta(minutes=50))
    assert checked == 4


async def test_period_rollups_equal_the_answers_grouped_by_local_period(runtime: Runtime, clock: ManualClock) -> None:
    here = ChannelRef("fake", "W1", "C1")
    await set_timezone(runtime, here, "America/New_York")
    clock.set(datetime(2026, 3, 1, 4, 30, tzinfo=UTC))  # 23:30 on Saturday 28 February in New York
    for hours in (0, 1, 24, 24 * 8):
        clock.set(datetime(2026, 3, 1, 4, 30, tzinfo=UTC) + timedelta(hours=hours))
        card = await post(runtime, here)
        for name in ("ann", "ben"):
            await answer(runtime, card, name, right=name == "ann")
    expected: dict[tuple[int, str, datetime], tuple[int, int, int]] = {}
    async with runtime.db.transaction() as session:
        for user, points, correct, at in await session.execute(
            select(Answer.user_id, Answer.points, Answer.is_correct, Answer.answered_at)
        ):
            for window in (Window.WEEK, Window.MONTH):
                key = (int(user), window.value, window_start(window, at, "America/New_York"))
                p, c, a = expected.get(key, (0, 0, 0))  # type: ignore[arg-type]
                expected[key] = (p + points, c + int(correct), a + 1)  # type: ignore[index]
        stored = {
            (row.user_id, row.period, row.period_start): (row.points, row.correct, row.answered)
            for row in (await session.execute(select(PeriodScore))).scalars()
        }
    assert stored == expected
    assert len({key[2] for key in stored if key[1] == "month"}) == 2  # February and March, in New York


async def test_a_changed_timezone_makes_the_board_sum_answers_again(runtime: Runtime, clock: ManualClock) -> None:
    here = ChannelRef("fake", "W1", "C1")
    clock.set(datetime(2026, 6, 10, 12, 0, tzinfo=UTC))
    for name, right in (("ann", True), ("ben", True), ("cy", False)):
        await answer(runtime, await post(runtime, here), name, right=right)
    # The rollups were keyed in UTC; the week now starts 12 hours earlier in Auckland.
    await set_timezone(runtime, here, "Pacific/Auckland")
    clock.set(datetime(2026, 6, 10, 13, 0, tzinfo=UTC))
    await answer(runtime, await post(runtime, here), "dee", right=True)
    await _assert_boards_are_plain_sums(runtime, here, "Pacific/Auckland")
    names = [row[0] for row in await _board(runtime, here, Scope.WORKSPACE, Window.WEEK)]
    assert sorted(names) == ["ann", "ben", "cy", "dee"]


async def test_the_migration_fills_the_current_periods_from_existing_answers(
    runtime: Runtime, clock: ManualClock, database_url: str
) -> None:
    here = ChannelRef("fake", "W1", "C1")
    clock.set(datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1))
    card = await post(runtime, here)
    await answer(runtime, card, "alice", right=True)
    await answer(runtime, card, make_user("bob"), right=False)
    db = Database.from_url(database_url)
    try:

        def downgrade(connection: Connection) -> None:
            config = alembic_config()
            config.attributes["connection"] = connection
            command.downgrade(config, "0007")

        async with db.engine.begin() as connection:
            await connection.run_sync(downgrade)
        await upgrade(db)  # 0007 -> head, with the backfill
    finally:
        await db.dispose()
    async with runtime.db.transaction() as session:
        rows = sorted(
            (row.period, row.points, row.correct, row.answered)
            for row in (await session.execute(select(PeriodScore))).scalars()
        )
    assert [row[0] for row in rows] == ["month", "month", "week", "week"]
    await _assert_boards_are_plain_sums(runtime, here, "UTC")
