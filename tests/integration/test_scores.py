"""Points, streaks, windows in a workspace's timezone, score rollups and fair ties, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime, timedelta

import pytest
from alembic import command
from sqlalchemy import case, func, select
from sqlalchemy.engine import Connection

from bot.clock import ManualClock
from bot.commands import Scope, Window
from bot.db import Database
from bot.db.migrate import alembic_config, upgrade
from bot.db.models import Answer, ChannelScore, ReviewItem, UserScore
from bot.domain import AnswerOutcome, ChannelRef, PostSource
from bot.domain.scoring import points_for
from bot.domain.streaks import Outcome, Streak, best_of, day_streak, question_streak
from bot.runtime import Runtime
from bot.service.facade import Invocation
from tests.conftest import make_user
from tests.scoring_helpers import answer, post, set_timezone

C, W, M, P = Outcome.CORRECT, Outcome.WRONG, Outcome.MISSED, Outcome.PENDING


# --- points ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("correct", "latency", "window", "points"),
    [
        (True, timedelta(0), timedelta(hours=1), 20),
        (True, timedelta(minutes=30), timedelta(hours=1), 15),
        (True, timedelta(minutes=59, seconds=59), timedelta(hours=1), 10),
        (True, timedelta(hours=3), timedelta(hours=1), 10),  # slow but before the close: still the base
        (True, timedelta(minutes=6), None, 19),  # no close time: a one-hour window
        (True, timedelta(minutes=1), timedelta(minutes=10), 19),
        (True, timedelta(seconds=-5), timedelta(hours=1), 20),  # clock skew never scores above the range
        (False, timedelta(0), timedelta(hours=1), 0),
    ],
)
def test_points_are_bounded_and_reward_speed(
    correct: bool, latency: timedelta, window: timedelta | None, points: int
) -> None:
    assert points_for(correct=correct, latency=latency, window=window) == points


# --- streak rules ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        ([], Streak(0, 0)),
        ([C, C, C], Streak(3, 3)),
        ([C, C, W, C], Streak(1, 2)),
        ([C, C, M, C, C, C], Streak(3, 3)),
        ([C, C, C, M], Streak(0, 3)),
        ([C, C, P], Streak(2, 2)),  # a question still open neither counts nor breaks
        ([C, P, C], Streak(2, 2)),
        ([W, W], Streak(0, 0)),
    ],
)
def test_question_streak_rules(outcomes: list[Outcome], expected: Streak) -> None:
    assert question_streak(outcomes) == expected


def test_day_streak_rules() -> None:
    d = date(2026, 3, 1)
    days = [d, d + timedelta(1), d + timedelta(2), d + timedelta(5), d + timedelta(6), d + timedelta(6)]
    assert day_streak(days, today=d + timedelta(6)) == Streak(2, 3)
    assert day_streak(days, today=d + timedelta(7)) == Streak(2, 3)  # yesterday still counts: today is not over
    assert day_streak(days, today=d + timedelta(8)) == Streak(0, 3)  # a whole day without an answer breaks it
    assert day_streak([], today=d) == Streak(0, 0)
    assert best_of([Streak(1, 4), Streak(3, 3)]) == Streak(3, 4)


# --- streaks through the service -------------------------------------------------------------------------------


async def test_question_streaks_follow_scheduled_questions_only(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    hour = timedelta(hours=1)
    s1 = await post(runtime, channel, source=PostSource.SCHEDULE, closes_at=clock.now() + hour)
    await answer(runtime, s1, "alice", right=True)
    await answer(runtime, s1, "bob", right=True)
    await runtime.app.reveal(s1.post_id)

    adhoc = await post(runtime, channel)  # `/quiz now` questions do not touch question streaks
    await answer(runtime, adhoc, "alice", right=False)

    clock.advance(timedelta(days=1))
    s2 = await post(runtime, channel, source=PostSource.SCHEDULE, closes_at=clock.now() + hour)
    await answer(runtime, s2, "alice", right=True)
    clock.advance(hour)  # s2 closes by time; bob never answered it: missed

    clock.advance(timedelta(days=1))
    s3 = await post(runtime, channel, source=PostSource.SCHEDULE, closes_at=clock.now() + hour)
    clock.advance(timedelta(minutes=59))
    slow = await answer(runtime, s3, "alice", right=True)  # slow but in time: counts, with few points
    clock.advance(timedelta(minutes=2))
    late = await answer(runtime, s3, "bob", right=True)  # after the close: refused, so missed
    assert slow.outcome is AnswerOutcome.RECORDED
    assert late.outcome is AnswerOutcome.CLOSED

    clock.advance(timedelta(days=1))
    s4 = await post(runtime, channel, source=PostSource.SCHEDULE, closes_at=clock.now() + hour)  # still open

    board = await runtime.stats.leaderboard(channel, window=Window.ALL, scope=Scope.CHANNEL, now=clock.now())
    streaks = {row.name: row.streak for row in board.rows}
    assert streaks == {"alice": 3, "bob": 0}
    alice = await runtime.stats.user_stats(make_user("alice"), now=clock.now())
    bob = await runtime.stats.user_stats(make_user("bob"), now=clock.now())
    assert (alice.streak, alice.best_streak) == (3, 3)
    assert (bob.streak, bob.best_streak) == (0, 1)

    await runtime.app.reveal(s4.post_id)  # closed without alice's answer: her streak breaks
    alice = await runtime.stats.user_stats(make_user("alice"), now=clock.now())
    assert (alice.streak, alice.best_streak) == (0, 3)


async def test_question_streaks_are_per_channel(runtime: Runtime, channel: ChannelRef, clock: ManualClock) -> None:
    other = ChannelRef("fake", "W1", "C2")
    for _ in range(2):
        card = await post(runtime, channel, source=PostSource.SCHEDULE)
        await answer(runtime, card, "alice", right=True)
        await runtime.app.reveal(card.post_id)
    missed = await post(runtime, other, source=PostSource.SCHEDULE)
    await runtime.app.reveal(missed.post_id)  # a miss in another channel leaves this channel's streak alone
    here = await runtime.stats.leaderboard(channel, window=Window.ALL, scope=Scope.CHANNEL, now=clock.now())
    assert here.rows[0].streak == 2
    stats = await runtime.stats.user_stats(make_user("alice"), now=clock.now())
    assert stats.streak == 2  # the best current streak among the user's channels


async def test_day_streaks_use_the_workspace_timezone(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await set_timezone(runtime, channel, "America/New_York")
    # Local days Sat 7, Sun 8 (23:00, which is already the 9th in UTC; DST began that night) and Mon 9 March.
    for when in ("2026-03-07T15:00", "2026-03-09T03:00", "2026-03-09T14:00"):
        clock.set(datetime.fromisoformat(when).replace(tzinfo=UTC))
        await answer(runtime, await post(runtime, channel), "alice", right=True)
    stats = await runtime.stats.user_stats(make_user("alice"), now=clock.now())
    assert (stats.day_streak, stats.best_day_streak) == (3, 3)
    clock.set(datetime(2026, 3, 11, 12, 0, tzinfo=UTC))
    stats = await runtime.stats.user_stats(make_user("alice"), now=clock.now())
    assert (stats.day_streak, stats.best_day_streak) == (0, 3)


async def test_week_and_month_windows_start_at_local_midnight(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await set_timezone(runtime, channel, "Europe/Helsinki")  # UTC+2 in winter
    clock.set(datetime(2026, 1, 11, 21, 30, tzinfo=UTC))  # Sunday 23:30 in Helsinki
    await answer(runtime, await post(runtime, channel), "sunday", right=True)
    clock.set(datetime(2026, 1, 11, 22, 30, tzinfo=UTC))  # Monday 00:30 in Helsinki, still Sunday in UTC
    await answer(runtime, await post(runtime, channel), "monday", right=True)
    clock.set(datetime(2026, 1, 12, 10, 0, tzinfo=UTC))
    week = await runtime.stats.leaderboard(channel, window=Window.WEEK, scope=Scope.WORKSPACE, now=clock.now())
    assert [row.name for row in week.rows] == ["monday"]

    clock.set(datetime(2026, 1, 31, 22, 30, tzinfo=UTC))  # 1 February 00:30 in Helsinki
    await answer(runtime, await post(runtime, channel), "february", right=True)
    clock.set(datetime(2026, 2, 2, 9, 0, tzinfo=UTC))
    month = await runtime.stats.leaderboard(channel, window=Window.MONTH, scope=Scope.CHANNEL, now=clock.now())
    assert [row.name for row in month.rows] == ["february"]


# --- rollups and ranking -----------------------------------------------------------------------------------------


async def test_rollups_always_equal_the_answers(runtime: Runtime, clock: ManualClock) -> None:
    here, there, elsewhere = (
        ChannelRef("fake", "W1", "C1"),
        ChannelRef("fake", "W1", "C2"),
        ChannelRef("fake", "W2", "C1"),
    )
    cards = [await post(runtime, ch) for ch in (here, there, here, elsewhere, there)]
    for i, name in enumerate(["ann", "ben", "cy", "dee"]):
        clock.advance(7 * (i + 1))
        for j, card in enumerate(cards):
            workspace = "W2" if card is cards[3] else "W1"
            await answer(runtime, card, make_user(name, workspace), right=(i + j) % 3 != 0)
    # One user clicking on several posts at once: the rollup rows must not lose an update.
    burst = [await post(runtime, here) for _ in range(6)]
    await asyncio.gather(*(answer(runtime, card, "eve", right=True) for card in burst))

    async with runtime.db.transaction() as session:
        correct = func.sum(case((Answer.is_correct, 1), else_=0))
        by_user = {
            row[0]: tuple(row[1:])
            for row in (
                await session.execute(
                    select(Answer.user_id, func.sum(Answer.points), correct, func.count()).group_by(Answer.user_id)
                )
            ).all()
        }
        by_channel = {
            (row[0], row[1]): tuple(row[2:])
            for row in (
                await session.execute(
                    select(Answer.user_id, Answer.channel_id, func.sum(Answer.points), correct, func.count()).group_by(
                        Answer.user_id, Answer.channel_id
                    )
                )
            ).all()
        }
        users = {
            s.user_id: (s.points, s.correct, s.answered) for s in (await session.execute(select(UserScore))).scalars()
        }
        channels = {
            (s.user_id, s.channel_id): (s.points, s.correct, s.answered)
            for s in (await session.execute(select(ChannelScore))).scalars()
        }
    assert users == by_user
    assert channels == by_channel
    assert by_user[max(by_user)][2] == 6  # eve's six concurrent answers

    # All answers fall in this month: the all-time board (rollups) and the month board (answers) agree.
    for scope in (Scope.CHANNEL, Scope.WORKSPACE):
        all_time = await runtime.stats.leaderboard(here, window=Window.ALL, scope=scope, now=clock.now(), limit=50)
        month = await runtime.stats.leaderboard(here, window=Window.MONTH, scope=scope, now=clock.now(), limit=50)
        assert all_time.rows == month.rows


async def test_ties_at_the_cut_are_ranked_fairly_and_stably(runtime: Runtime, channel: ChannelRef) -> None:
    first = await post(runtime, channel)
    second = await post(runtime, channel)
    for name in ["zed", "bea", "al", "cat", "dan"]:
        await answer(runtime, first, name, right=True)
    await answer(runtime, second, "zed", right=True)
    for window in (Window.ALL, Window.WEEK):
        board = await runtime.stats.leaderboard(
            channel, window=window, scope=Scope.WORKSPACE, now=runtime.clock.now(), limit=3
        )
        assert [(row.rank, row.name) for row in board.rows] == [(1, "zed"), (2, "al"), (2, "bea")]
    me = await runtime.stats.user_stats(make_user("dan"), now=runtime.clock.now())
    assert me.rank == 2  # tied with al, bea and cat


async def test_leaderboard_and_me_show_streaks(runtime: Runtime, channel: ChannelRef) -> None:
    for _ in range(2):
        card = await post(runtime, channel, source=PostSource.SCHEDULE)
        await answer(runtime, card, "alice", right=True)
        await runtime.app.reveal(card.post_id)
    board = await runtime.app.handle_command(Invocation(channel, make_user("alice"), "leaderboard"))
    assert "1. alice — 40 pts · 2/2 correct (100%) · 2 in a row · 1-day streak" in board.message.text
    me = await runtime.app.handle_command(Invocation(channel, make_user("alice"), "me"))
    assert "Streaks: 2 scheduled questions right in a row (best 2) · 1 day in a row with an answer (best 1)" in (
        me.message.text
    )


# --- migration ---------------------------------------------------------------------------------------------------


async def test_the_migration_rolls_up_existing_answers_and_puts_misses_in_review(
    runtime: Runtime, channel: ChannelRef, database_url: str
) -> None:
    card = await post(runtime, channel)
    await answer(runtime, card, "alice", right=True)
    await answer(runtime, card, "bob", right=False)
    db = Database.from_url(database_url)
    try:

        def downgrade(connection: Connection) -> None:
            config = alembic_config()
            config.attributes["connection"] = connection
            command.downgrade(config, "0001")

        async with db.engine.begin() as connection:
            await connection.run_sync(downgrade)
        await upgrade(db)  # 0001 -> head, with the backfill
        async with db.transaction() as session:
            scores = sorted(
                (s.points, s.correct, s.answered) for s in (await session.execute(select(UserScore))).scalars()
            )
            channels = (await session.execute(select(func.count()).select_from(ChannelScore))).scalar_one()
            review = (await session.execute(select(ReviewItem))).scalars().all()
    finally:
        await db.dispose()
    assert scores == [(0, 0, 1), (20, 1, 1)]
    assert channels == 2
    assert [(item.box, item.retired_at) for item in review] == [(1, None)]


@pytest.mark.parametrize("seed", [11, 12, 13])
async def test_boards_read_only_the_tail_of_the_history_and_agree_with_it(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock, seed: int
) -> None:
    import random

    from bot.service.stats import user_streaks

    rng = random.Random(seed)
    names = ["ann", "ben", "cy"]
    for i in range(14):
        closes = clock.now() + timedelta(hours=1) if i % 3 else None
        card = await post(runtime, channel, source=PostSource.SCHEDULE, closes_at=closes)
        for name in names:
            roll = rng.random()
            if roll < 0.75:
                await answer(runtime, card, name, right=roll < 0.6)
        if i < 11 and rng.random() < 0.8:
            await runtime.app.reveal(card.post_id)
        clock.advance(timedelta(hours=2 if i % 4 else 26))
    async with runtime.db.transaction() as session:
        rows = dict((await session.execute(select(UserScore.user_id, UserScore.user_id))).all())
        users = sorted(rows)
        full = await user_streaks(session, users, timezone="UTC", now=clock.now(), history=True)
        tail = await user_streaks(session, users, timezone="UTC", now=clock.now(), history=False)
    assert {u: (q.current, d.current) for u, (q, d) in tail.items()} == {
        u: (q.current, d.current) for u, (q, d) in full.items()
    }
    assert any(q.current for q, _ in full.values())  # the scenario has live streaks to compare
