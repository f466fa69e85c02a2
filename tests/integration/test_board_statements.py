"""How many statements a board sends: its lookups (the channel's place, the cohort it names, its season) in one,
then its totals, then the current streaks of the rows shown. Counted for a board opened on its own, on its read-only
connection (the card updates and other work a click leaves behind run on others)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from sqlalchemy import event

from bot.clock import ManualClock
from bot.db.database import READ_ONLY
from bot.domain import ChannelRef
from bot.domain.windows import Scope, Window
from bot.runtime import Runtime
from bot.service.facade import Invocation, Reply
from tests.conftest import make_user
from tests.scoring_helpers import answer, post


async def run(runtime: Runtime, channel: ChannelRef, who: str, text: str, *, admin: bool = False) -> Reply:
    """Type a /quiz command as a user."""
    return await runtime.app.handle_command(Invocation(channel, make_user(who), text, is_admin=admin))


@contextmanager
def statements(runtime: Runtime) -> Iterator[list[str]]:
    """The statements read-only connections sent to the database inside the block, in order."""
    sent: list[str] = []

    def record(conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if conn.get_execution_options().get(READ_ONLY):
            sent.append(" ".join(statement.split())[:80])

    engine = runtime.db.engine.sync_engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        event.remove(engine, "before_cursor_execute", record)


async def test_every_board_is_its_lookups_its_totals_and_its_streaks(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    assert (await run(runtime, channel, "lead", "cohort create spring")).ok
    assert (await run(runtime, channel, "ann", "cohort join spring")).ok
    assert (await run(runtime, channel, "ada", "season start winter", admin=True)).ok
    clock.advance(timedelta(minutes=1))
    await answer(runtime, await post(runtime, channel), "ann", right=True)

    for scope in (Scope.CHANNEL, Scope.WORKSPACE, Scope.COHORT):
        for window in Window:
            cohort = "Spring" if scope is Scope.COHORT else None
            with statements(runtime) as sent:
                board = await runtime.stats.leaderboard(
                    channel, window=window, scope=scope, cohort=cohort, now=clock.now()
                )
            assert [row.name for row in board.rows] == ["ann"], (scope, window)
            assert len(sent) == 3, (scope, window, sent)  # lookups, totals, streaks
    for window in Window:
        with statements(runtime) as sent:
            cohorts = await runtime.stats.cohort_board(channel, window=window, now=clock.now())
        assert [row.name for row in cohorts.rows] == ["spring"], window
        assert len(sent) == 2, (window, sent)  # lookups, totals


async def test_a_board_with_no_such_cohort_or_season_still_says_what_there_is(
    runtime: Runtime, channel: ChannelRef
) -> None:
    assert (await run(runtime, channel, "lead", "cohort create spring")).ok
    no_cohort = await run(runtime, channel, "ann", "leaderboard cohort autumn")
    assert not no_cohort.ok and "spring" in no_cohort.message.text
    no_season = await run(runtime, channel, "ann", "leaderboard season")
    assert not no_season.ok and no_season.message.title.startswith("No season is running.")
    assert (await run(runtime, channel, "ada", "season start winter", admin=True)).ok
    unknown = await run(runtime, channel, "ann", "leaderboard season summer")
    assert not unknown.ok and "winter" in unknown.message.text
    both = await run(runtime, channel, "ann", "leaderboard cohort autumn season summer")
    assert not both.ok and "spring" in both.message.text  # the cohort is checked first, as before
