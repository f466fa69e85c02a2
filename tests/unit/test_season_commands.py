"""The season grammar, the leaderboard's season window, the confirmation fields of destructive commands, and the
wording of seasons and confirmations (no database)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from bot.commands import (
    DeleteCohort,
    EndSeason,
    ListSeasons,
    RemoveSchedule,
    ShowLeaderboard,
    StartSeason,
    parse_command,
)
from bot.domain import Leaderboard, LeaderboardRow
from bot.domain.views import SeasonEnded, SeasonView
from bot.domain.windows import Scope, Span, Window, window_span
from bot.errors import CommandError
from bot.wording import boards, confirmations, seasons


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("season start q1", StartSeason("q1")),
        ("season start 2027-Q1 until:2027-03-31", StartSeason("2027-Q1", date(2027, 3, 31))),
        ("season new q1 until=2027-03-31", StartSeason("q1", date(2027, 3, 31))),
        ("season end", EndSeason()),
        ("season list", ListSeasons()),
        ("season", ListSeasons()),
        ("seasons", ListSeasons()),
        ("leaderboard season", ShowLeaderboard(Window.SEASON, Scope.CHANNEL)),
        ("leaderboard season workspace", ShowLeaderboard(Window.SEASON, Scope.WORKSPACE)),
        ("leaderboard season q1", ShowLeaderboard(Window.SEASON, Scope.CHANNEL, season="q1")),
        ("lb workspace season q1", ShowLeaderboard(Window.SEASON, Scope.WORKSPACE, season="q1")),
        ("lb season q1 cohort spring", ShowLeaderboard(Window.SEASON, Scope.COHORT, "spring", "q1")),
        ("lb season cohorts", ShowLeaderboard(Window.SEASON, Scope.COHORTS)),
    ],
)
def test_season_grammar(text: str, command: object) -> None:
    assert parse_command(text) == command


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("season start", "Name the season"),
        ("season start q1 until:2027-02-30", "is not a date"),
        ("season start q1 colour:blue", "is not a season option"),
        ("season start -x", "is not a season name"),
        ("season end now", "takes no arguments"),
        ("season list all", "takes no arguments"),
        ("season frob", "is not a season command"),
        ("leaderboard season q!", "is not a season name"),
        ("season start 新人", "use 1 to 40 letters a-z or A-Z"),  # not "letters": other scripts' are refused
        ("lb season q1 week", "Give one window, not both `season q1` and `week`"),  # issue 12: refused, not resolved
    ],
)
def test_season_grammar_errors(text: str, message: str) -> None:
    with pytest.raises(CommandError, match=message):
        parse_command(text)


def test_the_grammar_never_confirms_a_destructive_command() -> None:
    assert parse_command("cohort delete spring") == DeleteCohort("spring", confirmed=False)
    assert parse_command("schedule remove 3") == RemoveSchedule(3, confirmed=False)
    assert parse_command("season end") == EndSeason(confirmed=False)
    with pytest.raises(CommandError):
        parse_command("season end confirmed")


def test_a_season_window_is_the_span_it_is_given() -> None:
    now = datetime(2026, 3, 10, 12, tzinfo=UTC)
    season = Span(start=now - timedelta(days=3), end=now - timedelta(days=1))
    assert window_span(Window.SEASON, now, "UTC", season=season) == season
    assert window_span(Window.ALL, now, "UTC") == Span()
    assert window_span(Window.WEEK, now, "UTC") == Span(start=datetime(2026, 3, 9, tzinfo=UTC))
    with pytest.raises(ValueError, match="season's span"):
        window_span(Window.SEASON, now, "UTC")


def test_season_wording() -> None:
    board = Leaderboard(
        scope="channel",
        window="season",
        season="q1",
        rows=(
            LeaderboardRow(rank=1, name="ann", points=20, correct=2, answered=2),
            LeaderboardRow(rank=2, name="ben", points=10, correct=1, answered=2),
        ),
    )
    assert boards.leaderboard_message(board).title == "Leaderboard (channel, season q1)"
    final = seasons.final_board_message(board)
    assert final.title == "Season q1 is over. This channel's top three:"
    assert final.lines[:2] == ("1st: ann — 20 pts · 2/2 correct (100%)", "2nd: ben — 10 pts · 1/2 correct (50%)")
    assert boards.window_words("season") == "this season"
    listing = seasons.listing(
        [
            SeasonView("q2", date(2026, 4, 1), date(2026, 6, 30), None),
            SeasonView("q1", date(2026, 1, 1), None, date(2026, 3, 31)),
        ]
    )
    assert listing.lines[:2] == ("q2 — running since 2026-04-01, through 2026-06-30", "q1 — 2026-01-01 to 2026-03-31")
    assert seasons.ended_message(SeasonEnded("q1", posted=0)).lines[0].startswith("No channel had answers")
    assert "1 channel could not be posted to." in seasons.ended_message(SeasonEnded("q1", posted=2, failed=1)).lines


def test_confirmation_wording() -> None:
    assert confirmations.expires_in(timedelta(minutes=2)) == "Only you can confirm, within 2 minutes."
    assert confirmations.expires_in(timedelta(seconds=90)) == "Only you can confirm, within 90 seconds."
    assert confirmations.terminal_question("Delete the cohort") == "Delete the cohort? [y/N] "
    assert confirmations.already_answered(None).startswith("This was already answered")
    assert "--yes" in confirmations.not_a_terminal()
