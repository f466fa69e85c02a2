"""The season rollup on SQLite and PostgreSQL: a season's rows of `period_scores` are, at every step, the sums of
the season's answers (a plain GROUP BY over `answers` in its [start, end)), and the season boards read from them
equal the same boards summed from answers (`Stats(rollups=False)`): while it runs, after an end by command or by
the ticker (its planned end already past), for a past season named on the board, across two seasons, for cohorts,
with the answers stored while it started or ended settled by the start and the end, and after migration 0017."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from alembic import command
from sqlalchemy import Connection, case, func, select

from bot.clock import ManualClock
from bot.db.migrate import alembic_config, upgrade
from bot.db.models import Answer, PeriodScore, Season
from bot.domain import ChannelRef, Leaderboard
from bot.domain.windows import Scope, Window
from bot.runtime import Runtime
from bot.service.facade import Invocation, Reply
from bot.service.repositories.scores import season_period
from bot.service.stats import Stats
from tests.conftest import make_user
from tests.scoring_helpers import answer, confirm, post

OTHER = ChannelRef("fake", "W1", "C2")

Totals = dict[int, tuple[int, int, int]]


async def run(runtime: Runtime, channel: ChannelRef, who: str, text: str, *, admin: bool = False) -> Reply:
    """Type a /quiz command as a user."""
    reply = await runtime.app.handle_command(Invocation(channel, make_user(who), text, is_admin=admin))
    assert reply.ok, reply.message.text
    return reply


async def end_season(runtime: Runtime, channel: ChannelRef) -> None:
    """`/quiz season end`, confirmed."""
    ended = await confirm(
        runtime, await run(runtime, channel, "ada", "season end", admin=True), channel, "ada", admin=True
    )
    assert ended.ok, ended.message.text


async def rows_and_sums(runtime: Runtime, name: str) -> tuple[Totals, Totals]:
    """The season's rollup rows and the sums of its answers (in [starts_at, ended_at or ends_at)), by user row."""
    async with runtime.db.transaction() as session:
        season = (await session.execute(select(Season).where(Season.key == name.casefold()))).scalar_one()
        end = season.ended_at or season.ends_at
        window = [Answer.workspace_id == season.workspace_id, Answer.answered_at >= season.starts_at]
        if end is not None:
            window.append(Answer.answered_at < end)
        summed = select(
            Answer.user_id, func.sum(Answer.points), func.sum(case((Answer.is_correct, 1), else_=0)), func.count()
        )
        sums = {
            int(u): (int(p), int(c), int(n))
            for u, p, c, n in await session.execute(summed.where(*window).group_by(Answer.user_id))
        }
        stored = select(PeriodScore.user_id, PeriodScore.points, PeriodScore.correct, PeriodScore.answered).where(
            PeriodScore.period == season_period(season.id), PeriodScore.period_start == season.starts_at
        )
        rows = {int(u): (int(p), int(c), int(n)) for u, p, c, n in await session.execute(stored)}
    return rows, sums


async def exact(runtime: Runtime, name: str, users: int) -> None:
    """The season's rows are the sums of its answers, of `users` users."""
    rows, sums = await rows_and_sums(runtime, name)
    assert rows == sums
    assert len(rows) == users


async def boards(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock, scope: Scope, **options: Any
) -> tuple[Leaderboard, Leaderboard]:
    """A season board as the bot reads it, and the same board summed from answers."""
    kwargs: dict[str, Any] = {"window": Window.SEASON, "scope": scope, "now": clock.now(), "limit": 50, **options}
    board = await runtime.stats.leaderboard(channel, **kwargs)
    summed = await Stats(runtime.stats.uow, rollups=False).leaderboard(channel, **kwargs)
    return board, summed


async def same_board(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock, names: list[str], *, season: str | None = None
) -> None:
    """The workspace's season board (of `season`, else the running one) equals the one summed from answers, and
    shows these people."""
    board, summed = await boards(runtime, channel, clock, Scope.WORKSPACE, season=season)
    assert board == summed
    assert sorted(row.name for row in board.rows) == sorted(names)


async def test_a_running_season_then_ended_by_command_is_the_sum_of_its_answers(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    before = await post(runtime, channel)
    await answer(runtime, before, "ann", right=True)  # before the season: all time only
    clock.advance(timedelta(hours=1))
    await run(runtime, channel, "ada", "season start winter", admin=True)
    await exact(runtime, "winter", 0)
    clock.advance(timedelta(minutes=1))
    card, elsewhere = await post(runtime, channel), await post(runtime, OTHER)
    await answer(runtime, card, "ben", right=True)
    await answer(runtime, card, "ann", right=False)
    await answer(runtime, elsewhere, "ann", right=True)
    await answer(runtime, elsewhere, "cat", right=False)
    await exact(runtime, "winter", 3)
    await same_board(runtime, channel, clock, ["ann", "ben", "cat"])

    clock.advance(timedelta(minutes=1))
    await end_season(runtime, channel)
    after = await post(runtime, channel)
    await answer(runtime, after, "dan", right=True)  # after its end: not in it
    await answer(runtime, card, "dan", right=True)  # a card of the season, answered after its end: not in it either
    await exact(runtime, "winter", 3)
    await same_board(runtime, channel, clock, ["ann", "ben", "cat"], season="WINTER")


async def test_answers_stored_while_a_season_starts_or_ends_are_settled_by_the_start_and_the_end(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    """An answer given after the instant a season starts, but stored before the season's row (a click recorded
    while the start was under way), is added by the start; one given after the instant it ends, but stored while it
    ran, is taken back by the end. The clock is set back to give the season those instants."""
    t0 = clock.now()
    card = await post(runtime, channel)
    clock.set(t0 + timedelta(minutes=1))
    await answer(runtime, card, "ann", right=True)  # at t0 + 1 min, before the season's row exists
    clock.set(t0)
    await run(runtime, channel, "ada", "season start spring", admin=True)  # starts at t0
    await exact(runtime, "spring", 1)
    await same_board(runtime, channel, clock, ["ann"])

    clock.set(t0 + timedelta(minutes=3))
    await answer(runtime, card, "ben", right=True)  # at t0 + 3 min, while it runs: taken by the rows
    await answer(runtime, card, "cat", right=False)
    clock.set(t0 + timedelta(minutes=2))
    await end_season(runtime, channel)  # ends at t0 + 2 min: ben's and cat's answers are not in it
    await exact(runtime, "spring", 1)
    await same_board(runtime, channel, clock, ["ann"], season="spring")


async def test_the_ticker_ends_a_season_at_its_planned_end_and_later_answers_never_count(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await run(runtime, channel, "ada", "season start jan until:2026-01-06", admin=True)
    card = await post(runtime, channel)
    await answer(runtime, card, "ann", right=True)
    await answer(runtime, card, "ben", right=False)
    clock.set(datetime(2026, 1, 7, 0, 0, 5, tzinfo=UTC))  # its planned end has passed; the ticker has not noticed
    late = await post(runtime, channel)
    await answer(runtime, late, "cat", right=True)
    await answer(runtime, late, "ann", right=True)
    await exact(runtime, "jan", 2)
    await same_board(runtime, channel, clock, ["ann", "ben"])
    report = await runtime.ticker.tick()
    assert len(report.seasons_ended) == 1
    await answer(runtime, card, "dan", right=True)
    await exact(runtime, "jan", 2)
    await same_board(runtime, channel, clock, ["ann", "ben"], season="jan")


async def test_an_end_by_command_after_the_planned_end_keeps_the_rows(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    """An admin's end after the planned end passed ends it at the planned end (nothing to take back)."""
    await run(runtime, channel, "ada", "season start feb until:2026-01-06", admin=True)
    card = await post(runtime, channel)
    await answer(runtime, card, "ann", right=True)
    clock.set(datetime(2026, 1, 8, tzinfo=UTC))
    await answer(runtime, card, "ben", right=True)
    await end_season(runtime, channel)
    await exact(runtime, "feb", 1)
    await same_board(runtime, channel, clock, ["ann"], season="feb")


async def test_two_seasons_keep_their_own_rows(runtime: Runtime, channel: ChannelRef, clock: ManualClock) -> None:
    await run(runtime, channel, "ada", "season start one", admin=True)
    card = await post(runtime, channel)
    await answer(runtime, card, "ann", right=True)
    await answer(runtime, card, "ben", right=False)
    await end_season(runtime, channel)  # at the same instant as the last answers: they are not in it
    await run(runtime, channel, "ada", "season start two", admin=True)  # and at the same instant as this start
    await exact(runtime, "one", 0)
    await exact(runtime, "two", 2)
    clock.advance(timedelta(hours=2))
    second = await post(runtime, channel)
    await answer(runtime, second, "cat", right=True)
    await answer(runtime, second, "ben", right=True)
    await exact(runtime, "two", 3)
    clock.advance(timedelta(minutes=1))
    await end_season(runtime, channel)
    clock.advance(timedelta(days=1))
    await run(runtime, channel, "ada", "season start three", admin=True)
    third = await post(runtime, channel)
    await answer(runtime, third, "dan", right=True)
    await exact(runtime, "one", 0)
    await exact(runtime, "two", 3)
    await exact(runtime, "three", 1)
    await same_board(runtime, channel, clock, ["ben", "cat", "ann"], season="two")
    await same_board(runtime, channel, clock, ["dan"])
    await same_board(runtime, channel, clock, [], season="one")


async def test_cohort_and_channel_season_boards_equal_their_sums(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    """A cohort that had started by the season's start reads its members' season rows; one that starts during the
    season, and every channel board, sums its answers: all equal the boards summed from answers."""
    await run(runtime, channel, "lead", "cohort create early")
    for name in ("ann", "ben"):
        await run(runtime, channel, name, "cohort join early")
    clock.advance(timedelta(hours=1))
    await run(runtime, channel, "ada", "season start s1", admin=True)
    await run(runtime, channel, "lead", "cohort create later start:2026-01-07")
    for name in ("ben", "cat"):
        await run(runtime, channel, name, "cohort join later")
    card, elsewhere = await post(runtime, channel), await post(runtime, OTHER)
    for name, right in (("ann", True), ("ben", False), ("cat", True), ("dan", True)):
        await answer(runtime, card, name, right=right)
    await answer(runtime, elsewhere, "ben", right=True)
    clock.set(datetime(2026, 1, 7, 12, tzinfo=UTC))
    late = await post(runtime, channel)
    for name in ("cat", "ann"):
        await answer(runtime, late, name, right=True)
    await exact(runtime, "s1", 4)
    expected = {"early": ["ann", "ben"], "later": ["cat"]}
    for cohort, names in expected.items():
        board, summed = await boards(runtime, channel, clock, Scope.COHORT, cohort=cohort)
        assert board == summed
        assert [row.name for row in board.rows] == names
    board, summed = await boards(runtime, channel, clock, Scope.CHANNEL)
    assert board == summed and len(board.rows) == 4
    cohorts = await runtime.stats.cohort_board(channel, window=Window.SEASON, now=clock.now())
    summed_cohorts = await Stats(runtime.stats.uow, rollups=False).cohort_board(
        channel, window=Window.SEASON, now=clock.now()
    )
    assert cohorts == summed_cohorts and len(cohorts.rows) == 2


def _downgrade(connection: Connection, revision: str) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    command.downgrade(config, revision)


async def test_migration_0017_fills_every_season_and_its_downgrade_removes_them(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await run(runtime, channel, "ada", "season start old until:2026-01-06", admin=True)
    card = await post(runtime, channel)
    await answer(runtime, card, "ann", right=True)
    clock.set(datetime(2026, 1, 7, 1, tzinfo=UTC))
    await answer(runtime, card, "ben", right=True)  # after old's planned end, before it was ended: not in it
    await runtime.ticker.tick()
    clock.advance(timedelta(minutes=1))
    await run(runtime, channel, "ada", "season start new", admin=True)
    clock.advance(timedelta(minutes=1))
    await answer(runtime, card, "cat", right=False)
    async with runtime.db.engine.begin() as connection:
        await connection.run_sync(_downgrade, "0016")
    async with runtime.db.transaction() as session:
        seasons = select(func.count()).where(PeriodScore.period.like("season:%"))
        assert (await session.execute(seasons)).scalar_one() == 0
        assert (await session.execute(select(func.count()).select_from(PeriodScore))).scalar_one() > 0  # weeks, months
    await upgrade(runtime.db)
    await exact(runtime, "old", 1)
    await exact(runtime, "new", 1)
