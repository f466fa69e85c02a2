"""How many statements a board sends: one, its totals with its lookups (the channel's place, the cohort it names, its
season) as last read and the current streaks of its rows; the lookups on their own first the first time, or
when they no longer read the same (then the totals again, and the streaks of the rows shown apart). Counted for a board opened on its own, on its read-only
connection (the card updates and other work a click leaves behind run on others)."""

from __future__ import annotations

from collections.abc import Awaitable
from datetime import UTC, datetime, timedelta

import pytest

from bot.clock import ManualClock
from bot.domain import ChannelRef, Leaderboard
from bot.domain.windows import Scope, Window
from bot.errors import NoSeasonRunning
from bot.runtime import Runtime
from bot.service.facade import Invocation, Reply
from bot.service.stats import Stats
from tests.conftest import make_user
from tests.scoring_helpers import answer, confirm, post, read_only_statements, set_timezone


async def run(runtime: Runtime, channel: ChannelRef, who: str, text: str, *, admin: bool = False) -> Reply:
    """Type a /quiz command as a user."""
    return await runtime.app.handle_command(Invocation(channel, make_user(who), text, is_admin=admin))


async def test_every_board_is_its_totals_and_its_streaks_once_its_lookups_were_read(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    assert (await run(runtime, channel, "lead", "cohort create spring")).ok
    assert (await run(runtime, channel, "ann", "cohort join spring")).ok
    assert (await run(runtime, channel, "ada", "season start winter", admin=True)).ok
    clock.advance(timedelta(minutes=1))
    await answer(runtime, await post(runtime, channel), "ann", right=True)

    looked_up: set[tuple[str | None, bool]] = set()  # the lookups a board needs: its cohort, whether a season
    for scope in (Scope.CHANNEL, Scope.WORKSPACE, Scope.COHORT):
        for window in Window:
            cohort = "Spring" if scope is Scope.COHORT else None
            lookups = (cohort, window is Window.SEASON)
            new = lookups not in looked_up
            looked_up.add(lookups)
            with read_only_statements(runtime) as first:
                board = await runtime.stats.leaderboard(
                    channel, window=window, scope=scope, cohort=cohort, now=clock.now()
                )
            with read_only_statements(runtime) as again:
                same = await runtime.stats.leaderboard(
                    channel, window=window, scope=scope, cohort=cohort, now=clock.now()
                )
            assert [row.name for row in board.rows] == ["ann"], (scope, window)
            assert same == board, (scope, window)
            # lookups, totals, streaks; or totals with the lookups another board read and their streaks
            assert len(first) == (3 if new else 1), (scope, window, first)
            assert len(again) == 1, (scope, window, again)  # totals with the lookups and the streaks
    for window in Window:
        with read_only_statements(runtime) as first:
            cohorts = await runtime.stats.cohort_board(channel, window=window, now=clock.now())
        with read_only_statements(runtime) as again:
            same_cohorts = await runtime.stats.cohort_board(channel, window=window, now=clock.now())
        assert [row.name for row in cohorts.rows] == ["spring"], window
        assert same_cohorts == cohorts, window
        new = window in (Window.WEEK, Window.SEASON)  # the first board without a season, the first with one
        assert (len(first), len(again)) == ((2 if new else 1), 1), (window, first, again)


async def test_a_board_reads_its_lookups_again_when_they_changed(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    """Lookups kept from an earlier board are used only when they read the same beside the totals: a new timezone
    moves the week, a season that ended is no longer the running one, a cohort made again is another cohort."""
    await set_timezone(runtime, channel, "UTC")
    clock.set(datetime(2026, 1, 4, 21, 30, tzinfo=UTC))  # Sunday 21:30 in UTC, 23:30 in Helsinki
    assert (await run(runtime, channel, "lead", "cohort create spring")).ok
    assert (await run(runtime, channel, "ann", "cohort join spring")).ok
    assert (await run(runtime, channel, "ada", "season start winter", admin=True)).ok
    clock.advance(timedelta(minutes=1))
    await answer(runtime, await post(runtime, channel), "ann", right=True)

    def week() -> Awaitable[Leaderboard]:
        return runtime.stats.leaderboard(channel, window=Window.WEEK, scope=Scope.WORKSPACE, now=clock.now())

    assert [row.name for row in (await week()).rows] == ["ann"]
    await set_timezone(runtime, channel, "Europe/Helsinki")
    clock.set(datetime(2026, 1, 4, 22, 30, tzinfo=UTC))  # still Sunday in UTC; Monday 00:30 in Helsinki: a new week
    with read_only_statements(runtime) as sent:
        assert (await week()).rows == ()  # the UTC week would still show ann
    assert len(sent) > 2, sent  # the kept lookups did not read the same: read again, and the totals again
    fresh = Stats(runtime.uow)
    assert await week() == await fresh.leaderboard(channel, window=Window.WEEK, scope=Scope.WORKSPACE, now=clock.now())

    def season_board() -> Awaitable[Leaderboard]:
        return runtime.stats.leaderboard(channel, window=Window.SEASON, scope=Scope.CHANNEL, now=clock.now())

    assert (await season_board()).season == "winter"
    asked = await run(runtime, channel, "ada", "season end", admin=True)
    assert (await confirm(runtime, asked, channel, "ada", admin=True)).ok
    with pytest.raises(NoSeasonRunning):
        await season_board()

    def cohort_board() -> Awaitable[Leaderboard]:
        return runtime.stats.leaderboard(
            channel, window=Window.ALL, scope=Scope.COHORT, cohort="spring", now=clock.now()
        )

    assert [row.name for row in (await cohort_board()).rows] == ["ann"]
    asked = await run(runtime, channel, "lead", "cohort delete spring", admin=True)
    assert (await confirm(runtime, asked, channel, "lead", admin=True)).ok
    assert (await run(runtime, channel, "lead", "cohort create spring")).ok
    assert (await cohort_board()).rows == ()  # the new cohort has no members yet


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


async def test_lookups_kept_by_a_workspace_board_serve_a_channel_board_only_once_the_channel_is_known(
    runtime: Runtime, channel: ChannelRef
) -> None:
    """A workspace's board keeps the lookups of a channel never seen (its row id None); that channel's own board is
    empty, and shows its answers once the channel has some."""
    quiet = ChannelRef(channel.platform, channel.workspace_id, "C-quiet")
    await answer(runtime, await post(runtime, channel), "ann", right=True)
    now = runtime.clock.now()
    workspace = await runtime.stats.leaderboard(quiet, window=Window.ALL, scope=Scope.WORKSPACE, now=now)
    assert [row.name for row in workspace.rows] == ["ann"]
    assert (await runtime.stats.leaderboard(quiet, window=Window.ALL, scope=Scope.CHANNEL, now=now)).rows == ()
    await answer(runtime, await post(runtime, quiet), "ben", right=True)
    now = runtime.clock.now()
    here = await runtime.stats.leaderboard(quiet, window=Window.ALL, scope=Scope.CHANNEL, now=now)
    assert [row.name for row in here.rows] == ["ben"]
    workspace = await runtime.stats.leaderboard(quiet, window=Window.ALL, scope=Scope.WORKSPACE, now=now)
    assert sorted(row.name for row in workspace.rows) == ["ann", "ben"]


async def test_cohort_vs_cohort_and_a_cohort_named_cohorts_keep_their_lookups_apart(
    runtime: Runtime, channel: ChannelRef
) -> None:
    assert (await run(runtime, channel, "lead", "cohort create cohorts")).ok
    assert (await run(runtime, channel, "ann", "cohort join cohorts")).ok
    await answer(runtime, await post(runtime, channel), "ann", right=True)
    now = runtime.clock.now()
    ranked = await runtime.stats.cohort_board(channel, window=Window.ALL, now=now)
    assert [row.name for row in ranked.rows] == ["cohorts"]
    board = await runtime.stats.leaderboard(channel, window=Window.ALL, scope=Scope.COHORT, cohort="cohorts", now=now)
    assert [row.name for row in board.rows] == ["ann"]


async def test_a_cohorts_all_time_board_reads_its_members_rows_once(runtime: Runtime, channel: ChannelRef) -> None:
    """A cohort's members' rollup rows have no index in board order: the board ranks them in one read (RANK()), where
    the cut of the rollups read through such an index (the limit-th row's totals, three reads of the rows, each
    sorted) read and sorted every member three more times."""
    assert (await run(runtime, channel, "lead", "cohort create spring")).ok
    for who in ("ann", "bob"):
        assert (await run(runtime, channel, who, "cohort join spring")).ok
        await answer(runtime, await post(runtime, channel), who, right=True)
    with read_only_statements(runtime) as sent:
        for _ in range(2):  # the first call reads the lookups on their own, the second beside the board
            board = await runtime.stats.leaderboard(
                channel, window=Window.ALL, scope=Scope.COHORT, cohort="spring", now=runtime.clock.now()
            )
            assert {row.name for row in board.rows} == {"ann", "bob"}
    flat = [" ".join(statement.split()) for statement in sent]
    reads = [statement.count("FROM cohort_members WHERE") for statement in flat if "cohort_members" in statement]
    assert reads and all(count == 1 for count in reads), flat
