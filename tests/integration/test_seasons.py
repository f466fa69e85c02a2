"""Seasons through the core on SQLite and PostgreSQL: start, boards in the season's window, end (by command, after
confirmation, and by the ticker once `until:` has passed), final boards posted through the platform port, past seasons."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import create_mock_engine, select, update
from sqlalchemy.exc import IntegrityError

from bot.clock import ManualClock
from bot.db.models import Base, Season, Workspace
from bot.domain import ChannelRef
from bot.domain.windows import Scope, Window
from bot.runtime import Runtime
from bot.service.facade import Invocation, Reply
from tests.conftest import make_user
from tests.fakes.fake_platform import FakePlatform
from tests.scoring_helpers import answer, confirm, post

OTHER = ChannelRef("fake", "W1", "C2")
QUIET = ChannelRef("fake", "W1", "C3")


async def run(runtime: Runtime, channel: ChannelRef, who: str, text: str, *, admin: bool = False) -> Reply:
    """Type a /quiz command as a user."""
    return await runtime.app.handle_command(Invocation(channel, make_user(who), text, is_admin=admin))


async def seasons(runtime: Runtime) -> list[Season]:
    async with runtime.db.transaction() as session:
        return list((await session.execute(select(Season).order_by(Season.id))).scalars())


async def test_only_admins_start_and_end_seasons_and_one_runs_at_a_time(runtime: Runtime, channel: ChannelRef) -> None:
    refused = await run(runtime, channel, "bob", "season start q1")
    assert not refused.ok and refused.message.title.startswith("Only leads and admins can start seasons")
    started = await run(runtime, channel, "ada", "season start Q1 until:2026-03-31", admin=True)
    assert started.ok and not started.private
    assert started.message.title == "Season Q1 has started: it runs through 2026-03-31."
    again = await run(runtime, channel, "ada", "season start q2", admin=True)
    assert not again.ok
    assert again.message.title == (
        "Season Q1 is running (since 2026-01-05); end it with `/quiz season end` before starting another."
    )
    assert not (await run(runtime, channel, "bob", "season end")).ok
    assert len(await seasons(runtime)) == 1
    asked = await run(runtime, channel, "ada", "season end", admin=True)
    ended = await confirm(runtime, asked, channel, "ada", admin=True)
    assert ended.ok, ended.message.text
    taken = await run(runtime, channel, "ada", "season start q1", admin=True)
    assert not taken.ok and taken.message.title == "There already was a season called q1 here; pick another name."
    past = await run(runtime, channel, "ada", "season start q0 until:2026-01-04", admin=True)
    assert not past.ok
    assert past.message.title == (
        "`until:2026-01-04` is in the past (today is 2026-01-05); give the season's last day, today or later."
    )
    assert len(await seasons(runtime)) == 1


async def test_a_season_board_counts_only_the_season_and_all_time_is_unchanged(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    before = await post(runtime, channel)
    await answer(runtime, before, "ann", right=True)  # before the season: all time only
    none = await run(runtime, channel, "ann", "leaderboard season")
    assert not none.ok and none.message.title.startswith("No season is running.")

    clock.advance(timedelta(hours=1))
    await run(runtime, channel, "ada", "season start winter", admin=True)
    clock.advance(timedelta(minutes=1))
    card = await post(runtime, channel)
    await answer(runtime, card, "ben", right=True)
    await answer(runtime, card, "ann", right=False)

    board = await runtime.stats.leaderboard(channel, window=Window.SEASON, scope=Scope.CHANNEL, now=clock.now())
    assert board.season == "winter"
    assert [(row.name, row.answered) for row in board.rows] == [("ben", 1), ("ann", 1)]
    shown = await run(runtime, channel, "ann", "leaderboard season workspace")
    assert shown.message.title == "Leaderboard (workspace, season winter)"
    all_time = await runtime.stats.leaderboard(channel, window=Window.ALL, scope=Scope.CHANNEL, now=clock.now())
    assert {row.name: row.answered for row in all_time.rows} == {"ann": 2, "ben": 1}

    clock.advance(timedelta(minutes=1))
    asked = await run(runtime, channel, "ada", "season end", admin=True)
    await confirm(runtime, asked, channel, "ada", admin=True)
    after = await post(runtime, channel)
    await answer(runtime, after, "cat", right=True)  # after the season: not in its board
    past = await run(runtime, channel, "ann", "leaderboard season WINTER")
    assert past.ok and past.message.title == "Leaderboard (channel, season winter)"
    assert [line.split(" — ")[0] for line in past.message.lines] == ["1. ben", "2. ann"]
    unknown = await run(runtime, channel, "ann", "leaderboard season spring")
    assert not unknown.ok and unknown.message.title == "There is no season called spring here. Seasons: winter."
    all_time = await runtime.stats.leaderboard(channel, window=Window.ALL, scope=Scope.WORKSPACE, now=clock.now())
    assert {row.name: row.answered for row in all_time.rows} == {"ann": 2, "ben": 1, "cat": 1}


async def test_ending_asks_first_then_each_channel_with_answers_gets_its_top_three(
    runtime: Runtime, channel: ChannelRef, platform: FakePlatform, clock: ManualClock
) -> None:
    await post(runtime, QUIET)  # a channel with no answer in the season gets no board
    await run(runtime, channel, "ada", "season start s1", admin=True)
    clock.advance(timedelta(minutes=1))
    first, second = await post(runtime, channel), await post(runtime, channel)
    for name, rights in (("ann", (True, True)), ("ben", (True, False)), ("cat", (False,)), ("dan", (False, False))):
        for card, right in zip((first, second), rights, strict=False):
            await answer(runtime, card, name, right=right)
    elsewhere = await post(runtime, OTHER)
    await answer(runtime, elsewhere, "eve", right=True)
    clock.advance(timedelta(minutes=1))

    asked = await run(runtime, channel, "ada", "season end", admin=True)
    assert asked.ok and asked.confirm is not None and asked.private
    assert asked.message.title == "End season s1 (running since 2026-01-05) now?"
    assert asked.confirm.confirm_label == "End the season"
    assert platform.of_kind("post_message") == []
    assert (await seasons(runtime))[0].ended_at is None  # nothing happens before the confirmation

    ended = await confirm(runtime, asked, channel, "ada", admin=True)
    assert ended.message.title == "Season s1 has ended."
    assert "Its final board went to 2 channels." in ended.message.lines
    boards = {sent.channel.channel_id: sent.message for sent in platform.of_kind("post_message")}
    assert set(boards) == {"C1", "C2"}
    here = boards["C1"]
    assert here is not None and here.title == "Season s1 is over. This channel's top three:"
    assert [line.split(" — ")[0] for line in here.lines[:-1]] == ["1st: ann", "2nd: ben", "3rd: cat"]
    assert boards["C2"] is not None and boards["C2"].lines[0].startswith("1st: eve")

    listing = await run(runtime, channel, "bob", "season list")
    assert listing.message.lines[0] == "s1 — 2026-01-05 to 2026-01-05"
    none = await run(runtime, channel, "ada", "season end", admin=True)
    assert not none.ok and none.message.title.startswith("No season is running.")


async def test_the_ticker_ends_a_season_once_its_until_date_has_passed(
    runtime: Runtime, channel: ChannelRef, platform: FakePlatform, clock: ManualClock
) -> None:
    await run(runtime, channel, "ada", "season start jan until:2026-01-06", admin=True)
    card = await post(runtime, channel)
    await answer(runtime, card, "ann", right=True)
    await runtime.ticker.tick()
    assert platform.of_kind("post_message") == [] and (await seasons(runtime))[0].ended_at is None

    clock.set(datetime(2026, 1, 7, 0, 0, 5, tzinfo=UTC))  # a tick just after the local midnight ending the 6th
    late = await post(runtime, channel)
    await answer(runtime, late, "ben", right=True)  # after its end: not in the season
    report = await runtime.ticker.tick()
    assert report.seasons_ended == [(await seasons(runtime))[0].id]
    assert (await seasons(runtime))[0].ended_at == datetime(2026, 1, 7, 0, 0, tzinfo=UTC)
    boards = platform.of_kind("post_message")
    assert len(boards) == 1 and boards[0].message is not None
    assert [line.split(" — ")[0] for line in boards[0].message.lines[:-1]] == ["1st: ann"]
    await runtime.ticker.tick()
    assert len(platform.of_kind("post_message")) == 1  # ended once, announced once
    listing = await run(runtime, channel, "bob", "season list")
    assert listing.message.lines[0] == "jan — 2026-01-05 to 2026-01-07"


async def test_season_list_shows_the_running_one_first(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    assert (await run(runtime, channel, "bob", "season list")).message.title == "No seasons yet."
    await run(runtime, channel, "ada", "season start autumn", admin=True)
    await confirm(runtime, await run(runtime, channel, "ada", "season end", admin=True), channel, "ada", admin=True)
    clock.advance(timedelta(days=2))
    await run(runtime, channel, "ada", "season start winter until:2026-02-28", admin=True)
    listing = await run(runtime, channel, "bob", "seasons")
    assert listing.message.lines[:2] == (
        "winter — running since 2026-01-07, through 2026-02-28",
        "autumn — 2026-01-05 to 2026-01-05",
    )


async def test_cohort_and_cohort_vs_cohort_boards_have_a_season_window(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await run(runtime, channel, "lead", "cohort create spring")
    await run(runtime, channel, "ann", "cohort join spring")
    early = await post(runtime, channel)
    await answer(runtime, early, "ann", right=True)
    clock.advance(timedelta(hours=1))
    await run(runtime, channel, "ada", "season start s1", admin=True)
    clock.advance(timedelta(minutes=1))
    card = await post(runtime, channel)
    await answer(runtime, card, "ann", right=False)
    board = await run(runtime, channel, "ann", "leaderboard season cohort spring")
    assert board.message.title.endswith("season s1)")
    assert "0/1 correct" in board.message.lines[0]
    cohorts = await run(runtime, channel, "ann", "leaderboard season cohorts")
    assert cohorts.message.title == "Cohorts by points per active member (season s1)"
    assert "0 pts" in cohorts.message.lines[0]


START = datetime(2026, 1, 5, 9, tzinfo=UTC)


async def _workspace(runtime: Runtime, external_id: str) -> int:
    async with runtime.db.transaction() as session:
        workspace = Workspace(platform="fake", external_id=external_id, created_at=START)
        session.add(workspace)
        await session.flush()
        return workspace.id


async def _add_season(runtime: Runtime, workspace: int, key: str, *, ended: bool) -> None:
    async with runtime.db.transaction() as session:
        ended_at = START + timedelta(days=1) if ended else None
        season = Season(workspace_id=workspace, key=key, name=key, starts_at=START, ended_at=ended_at, created_at=START)
        session.add(season)


async def test_the_database_refuses_a_second_running_season_in_a_workspace_and_allows_ended_ones(
    runtime: Runtime,
) -> None:
    """The partial unique index `ix_seasons_running` (`WHERE ended_at IS NULL`), not only the handler's check: two
    admins starting a season at once both pass the check, and the index lets one insert through."""
    here, there = await _workspace(runtime, "W-index"), await _workspace(runtime, "W-other")
    for key in ("s1", "s2"):
        await _add_season(runtime, here, key, ended=True)
    await _add_season(runtime, here, "s3", ended=False)  # one running beside any number ended
    with pytest.raises(IntegrityError):
        await _add_season(runtime, here, "s4", ended=False)
    await _add_season(runtime, there, "s4", ended=False)  # one running a workspace
    async with runtime.db.transaction() as session:
        await session.execute(update(Season).where(Season.key == "s3").values(ended_at=START + timedelta(days=2)))
    await _add_season(runtime, here, "s4", ended=False)  # the running one ended: another may start
    running = [(s.workspace_id, s.key) for s in await seasons(runtime) if s.ended_at is None]
    assert sorted(running) == sorted([(there, "s4"), (here, "s4")])


@pytest.mark.parametrize("url", ["sqlite+aiosqlite://", "postgresql+asyncpg://"])
def test_the_models_create_the_running_index_partial_on_both_databases(url: str) -> None:
    """The migrations create `ix_seasons_running` with its WHERE; so does `Base.metadata.create_all`, which gives it
    as the index is created (bot/db/models/seasons.py says why the model declares it without one)."""
    created: list[str] = []
    engine = create_mock_engine(url, lambda ddl, *_, **__: created.append(str(ddl.compile(dialect=engine.dialect))))
    Base.metadata.create_all(engine, checkfirst=False)
    assert [ddl.strip() for ddl in created if "ix_seasons_running" in ddl] == [
        "CREATE UNIQUE INDEX ix_seasons_running ON seasons (workspace_id) WHERE ended_at IS NULL"
    ]
