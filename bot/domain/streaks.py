"""Streak rules, as pure functions over what happened (the read models feed them from the database).

Two streaks, each with a current and a best value:

- question streak: consecutive *scheduled* questions of a channel (posted by a schedule or a cohort schedule)
  that the user answered correctly. A wrong answer breaks it, and so does a scheduled question that closed
  without an answer from the user (missed, or answered too late). A scheduled question still open and not yet
  answered neither counts nor breaks: the user may still answer it. Questions posted with `/quiz now` do not
  touch it.
- day streak: consecutive days, in the workspace's timezone, with at least one answer. It is current while the
  last such day is today or yesterday (today is not over yet).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from bot.domain import PostSource

STREAK_SOURCES = (PostSource.SCHEDULE.value, PostSource.COHORT.value)
"""Post sources whose questions make up a question streak."""


@dataclass(frozen=True, slots=True)
class Streak:
    """A streak now and at its longest."""

    current: int = 0
    best: int = 0


class Outcome(enum.Enum):
    """What one scheduled question came to for one user."""

    CORRECT = "correct"
    WRONG = "wrong"
    MISSED = "missed"
    PENDING = "pending"


def outcome_of(*, answered_correctly: bool | None, finished: bool) -> Outcome:
    """A user's outcome on a scheduled question: None means no answer; `finished` means the post has closed."""
    if answered_correctly is True:
        return Outcome.CORRECT
    if answered_correctly is False:
        return Outcome.WRONG
    return Outcome.MISSED if finished else Outcome.PENDING


def question_streak(outcomes: Iterable[Outcome]) -> Streak:
    """The question streak from one channel's scheduled questions in posting order."""
    run = best = 0
    for outcome in outcomes:
        if outcome is Outcome.CORRECT:
            run += 1
            best = max(best, run)
        elif outcome is not Outcome.PENDING:
            run = 0
    return Streak(current=run, best=best)


def day_streak(days: Iterable[date], today: date) -> Streak:
    """The day streak from the local dates of a user's answers (any order, repeats allowed)."""
    ordered = sorted(set(days))
    run = best = 0
    previous: date | None = None
    for day in ordered:
        run = run + 1 if previous is not None and day - previous == timedelta(days=1) else 1
        best = max(best, run)
        previous = day
    current = run if previous is not None and today - previous <= timedelta(days=1) else 0
    return Streak(current=current, best=best)


def best_of(streaks: Iterable[Streak]) -> Streak:
    """Several channels' question streaks as one: the longest current and the longest best."""
    current = best = 0
    for streak in streaks:
        current = max(current, streak.current)
        best = max(best, streak.best)
    return Streak(current=current, best=best)
