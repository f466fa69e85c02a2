"""A board whose lookups were read before reads its rows' current streaks in its own statement
(`board_queries.with_streaks`): the streaks it shows are those of the users' whole history, question streaks (in the
channel, or the best of their channels) and day streaks alike; and a board with more rows than it reads streaks for
in that statement (a name the database orders apart from the board, tied at its cut) reads the streaks of those
rows apart, as exactly."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from sqlalchemy import event, select

from bot.clock import ManualClock
from bot.db.database import READ_ONLY
from bot.db.models import Channel, User
from bot.domain import ChannelRef, Leaderboard, PostSource
from bot.domain.windows import Scope, Window
from bot.runtime import Runtime
from bot.service.streak_stats import user_streaks
from tests.scoring_helpers import answer, post


async def _whole(runtime: Runtime, board: Leaderboard, *, channel: int | None) -> dict[str, tuple[int, int]]:
    """(question streak, day streak) now of the board's rows, from the users' whole history."""
    async with runtime.db.transaction() as session:
        ids = dict((await session.execute(select(User.display_name, User.id))).all())
        users = [ids[row.name] for row in board.rows]
        found = await user_streaks(session, users, timezone="UTC", now=runtime.clock.now(), channel=channel)
    return {row.name: (found[ids[row.name]][0].current, found[ids[row.name]][1].current) for row in board.rows}


def _shown(board: Leaderboard) -> dict[str, tuple[int, int]]:
    return {row.name: (row.streak, row.day_streak) for row in board.rows}


async def _channel_row(runtime: Runtime, ref: ChannelRef) -> int:
    async with runtime.db.transaction() as session:
        found = (await session.execute(select(Channel.id).where(Channel.external_id == ref.channel_id))).scalar_one()
    return int(found)


async def test_a_warm_boards_streaks_are_the_whole_historys(runtime: Runtime, clock: ManualClock) -> None:
    rng = random.Random(26)
    channels = [ChannelRef("fake", "W1", "A"), ChannelRef("fake", "W1", "B")]
    names = ["ann", "ben", "cy", "dee", "eve"]
    checked = 0
    for step in range(24):
        here = channels[step % 2]
        open_for = rng.choice([timedelta(minutes=30), timedelta(hours=1), timedelta(days=2)])
        source = PostSource.SCHEDULE if rng.random() < 0.8 else PostSource.COMMAND
        card = await post(runtime, here, source=source, closes_at=clock.now() + open_for)
        for name in names:
            if rng.random() < 0.6:
                await answer(runtime, card, name, right=rng.random() < 0.75)
        clock.advance(timedelta(hours=rng.choice([2, 11, 20, 26])))
        if step % 4 != 3:
            continue
        for scope, ref in ((Scope.WORKSPACE, channels[0]), (Scope.CHANNEL, channels[0]), (Scope.CHANNEL, channels[1])):
            for window in (Window.ALL, Window.WEEK):
                first = await runtime.stats.leaderboard(ref, window=window, scope=scope, now=clock.now())
                warm = await runtime.stats.leaderboard(ref, window=window, scope=scope, now=clock.now())
                assert warm == first, (step, scope, window)
                channel = await _channel_row(runtime, ref) if scope is Scope.CHANNEL else None
                assert _shown(warm) == await _whole(runtime, warm, channel=channel), (step, scope, window)
                checked += sum(1 for row in warm.rows if row.streak or row.day_streak)
    assert checked > 0  # some streaks were not zero


async def test_a_board_reads_apart_the_streaks_of_rows_it_shows_that_its_statement_did_not(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    """Ties at a board's cut are shown by name (`rank_entries`: `casefold`); its statement reads the streaks of its
    first rows by the database's `lower` in byte order, which agrees for ASCII only: "éclair" comes before "Émile" on
    the board ("e" folded), and after it in the database ("É" is not folded, and before "é"). The row it did not
    read is read apart."""
    card = await post(runtime, channel, source=PostSource.SCHEDULE, closes_at=clock.now() + timedelta(hours=1))
    for name in ("Émile", "éclair"):  # tied
        await answer(runtime, card, name, right=True)
    clock.advance(timedelta(hours=2))
    sent: list[str] = []

    def record(conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if conn.get_execution_options().get(READ_ONLY):  # the board's own (a click's other work runs on others)
            sent.append(statement)

    def top() -> Any:
        return runtime.stats.leaderboard(channel, window=Window.ALL, scope=Scope.CHANNEL, now=clock.now(), limit=1)

    await top()
    engine = runtime.db.engine.sync_engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        board = await top()
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert [row.name for row in board.rows] == ["éclair"]
    assert len(sent) == 2, [s[:60] for s in sent]  # the board with "Émile"'s streaks, then "éclair"'s
    assert _shown(board) == await _whole(runtime, board, channel=await _channel_row(runtime, channel))
    assert _shown(board) == {"éclair": (1, 1)}


async def test_a_board_tied_at_its_cut_reads_the_streaks_of_the_rows_it_shows_in_its_statement(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    card = await post(runtime, channel, source=PostSource.SCHEDULE, closes_at=clock.now() + timedelta(hours=1))
    for number in range(25):  # all tied: the board's rows are every one of them, ten shown
        await answer(runtime, card, f"User{24 - number:02}", right=True)
    clock.advance(timedelta(hours=2))
    sent: list[str] = []

    def record(conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if conn.get_execution_options().get(READ_ONLY):
            sent.append(statement)

    await runtime.stats.leaderboard(channel, window=Window.ALL, scope=Scope.CHANNEL, now=clock.now())
    engine = runtime.db.engine.sync_engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        board = await runtime.stats.leaderboard(channel, window=Window.ALL, scope=Scope.CHANNEL, now=clock.now())
    finally:
        event.remove(engine, "before_cursor_execute", record)
    assert [row.name for row in board.rows] == [f"User{number:02}" for number in range(10)]
    assert len(sent) == 1, [s[:60] for s in sent]
    assert set(_shown(board).values()) == {(1, 1)}
    assert _shown(board) == await _whole(runtime, board, channel=await _channel_row(runtime, channel))
