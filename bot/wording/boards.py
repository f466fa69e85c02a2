"""Leaderboards: a scope's board in a window, and cohort vs cohort."""

from __future__ import annotations

from datetime import date

from bot.domain import CohortBoard, Leaderboard
from bot.domain.windows import Window
from bot.ports import Message
from bot.wording.i18n import percent, plural
from bot.wording.i18n import translate as _

_WINDOW_WORDS: dict[Window, str] = {
    Window.WEEK: "this week",
    Window.MONTH: "this month",
    Window.SEASON: "this season",
    Window.ALL: "all time",
}
_COHORT_WINDOW_WORDS: dict[Window, str] = {**_WINDOW_WORDS, Window.ALL: "since each cohort's start"}


def cohort_scope(name: str, start: date) -> str:
    """What a cohort's board says of its scope: `cohort spring from 2026-01-05`."""
    return _("cohort {name} from {start}", name=name, start=start.isoformat())


def window_words(window: str, *, cohorts: bool = False) -> str:
    """`this week`, `this month`, `all time`: a window a board names (a new Window needs its words here)."""
    words = _COHORT_WINDOW_WORDS if cohorts else _WINDOW_WORDS
    return _(words[Window(window)])


def streak_words(streak: int, day_streak: int) -> str:
    """` · 3 in a row · 4-day streak` (empty when both are 0)."""
    words = []
    if streak:
        words.append(_("{count} in a row", count=streak))
    if day_streak:
        words.append(_("{count}-day streak", count=day_streak))
    return "".join(f" · {word}" for word in words)


def board_window_words(window: str, season: str | None, *, cohorts: bool = False) -> str:
    """What a board's title says of its window: `this week`, ..., or `season 2027-q1` for a season's board."""
    if season is not None:
        return _("season {name}", name=season)
    return window_words(window, cohorts=cohorts)


def leaderboard_message(board: Leaderboard) -> Message:
    """A leaderboard as lines: rank, name, points, accuracy, current streaks."""
    window = board_window_words(board.window, board.season)
    title = _("Leaderboard ({scope}, {window})", scope=board.scope, window=window)
    if not board.rows:
        return Message(title=title, lines=(_("No answers yet. Post a question with `/quiz now`."),))
    lines = [
        _(
            "{rank}. {name} — {points} · {correct}/{answered} correct ({accuracy})",
            rank=row.rank,
            name=row.name,
            points=plural(row.points, "pt"),
            correct=row.correct,
            answered=row.answered,
            accuracy=percent(row.accuracy),
        )
        + streak_words(row.streak, row.day_streak)
        for row in board.rows
    ]
    return Message(title=title, lines=tuple(lines))


def cohort_board_message(board: CohortBoard) -> Message:
    """Cohort vs cohort: points per active member, with how many are active and their accuracy."""
    title = _(
        "Cohorts by points per active member ({window})",
        window=board_window_words(board.window, board.season, cohorts=True),
    )
    if not board.rows:
        return Message(
            title=title, lines=(_("No cohort has answers yet. Create one with `/quiz cohort create NAME`."),)
        )
    lines = [
        _(
            "{rank}. {name} — {per_member:.1f} pts per active member · {active}/{members} active · {points} · "
            "accuracy {accuracy}",
            rank=row.rank,
            name=row.name,
            per_member=row.points_per_member,
            active=row.active,
            members=row.members,
            points=plural(row.points, "pt"),
            accuracy=percent(row.accuracy),
        )
        for row in board.rows
    ]
    return Message(title=title, lines=tuple(lines))


def cohorts_board_elsewhere() -> str:
    """A cohorts-scope board asked of the per-scope board (a programming slip; the command is another one)."""
    return _("The cohort-vs-cohort board is `/quiz leaderboard cohorts`.")
