"""Streak rules, as pure functions over what happened (the read models feed them from the database).

Two streaks, each with a current and a best value:

- question streak ("in a row"): consecutive *scheduled* questions of a channel (posted by a schedule's fire) that
  the user answered correctly. Nothing posted by hand (`/quiz now`, `/quiz cohort next`) touches it, so a cohort's
  posts never affect anyone, inside the cohort or out. Each question the user has an outcome on counts once, at the
  moment that outcome was settled: a correct answer extends the streak and a wrong one breaks it when the answer is
  recorded; a question that closed without the user's answer (missed, or clicked too late) breaks it at its close
  (the close time, or the reveal if that came first). Outcomes are taken in the order they were settled (ties in
  posting order), so a later close never rewrites what came before: a streak only ever grows by one or breaks, now.
  A scheduled question still open and not yet answered neither counts nor breaks: the user may still answer it.
  Per channel; a user's workspace-wide figure is their best channel's.
- day streak: consecutive days, in the workspace's timezone, with at least one answer (to any question; review
  answers are not answers to a post and do not count). It is current while the last such day is today or
  yesterday (today is not over yet).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import NamedTuple

from bot.domain import PostSource

STREAK_SOURCES = (PostSource.SCHEDULE.value,)
"""Post sources whose questions make up a question streak: a schedule's fires only, never a post made by hand
(`/quiz now` is PostSource.COMMAND, `/quiz cohort next` PostSource.COHORT)."""


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


@dataclass(frozen=True, slots=True)
class StreakPost:
    """A scheduled question of a channel, as the question streak sees it: when it opened and when it closes."""

    post_id: int
    opened_at: datetime
    closes_at: datetime | None = None
    closed_at: datetime | None = None

    def finished_at(self, now: datetime) -> datetime | None:
        """When it stopped taking answers (its close time, or its reveal if earlier), or None while open at `now`."""
        ends = [end for end in (self.closes_at, self.closed_at) if end is not None]
        end = min(ends) if ends else None
        return end if end is not None and end <= now else None


class Settled(NamedTuple):
    """One outcome and when it was settled: the answer's time, or the finish of a question left unanswered.

    Ordered as outcomes are taken: by that time, ties in posting order (opened, then post id)."""

    at: datetime
    opened_at: datetime
    post_id: int
    outcome: Outcome


def _order(event: Settled) -> tuple[datetime, datetime, int]:
    return event[:3]


def settled_events(
    posts: Iterable[StreakPost],
    answers: Mapping[int, tuple[datetime, bool]],
    now: datetime,
    *,
    since: datetime | None = None,
) -> list[Settled]:
    """One user's outcomes on one channel's scheduled questions with when each was settled, in that order; only
    those settled at or after `since` when given (what a checkpoint taken at `since` has not folded yet).

    `answers` maps a post id to the user's (answer time, correct). An answered question is settled when the answer
    was recorded, an unanswered one when it finished (MISSED); one still open and unanswered is not settled yet and
    is left out.
    """
    settled: list[Settled] = []
    for post in posts:
        answer = answers.get(post.post_id)
        if answer is not None:
            outcome = Outcome.CORRECT if answer[1] else Outcome.WRONG
            event = Settled(answer[0], post.opened_at, post.post_id, outcome)
        else:
            finished = post.finished_at(now)
            if finished is None:
                continue
            event = Settled(finished, post.opened_at, post.post_id, Outcome.MISSED)
        if since is None or event.at >= since:
            settled.append(event)
    settled.sort(key=_order)
    return settled


def settled_outcomes(
    posts: Iterable[StreakPost], answers: Mapping[int, tuple[datetime, bool]], now: datetime
) -> list[Outcome]:
    """One user's outcomes on one channel's scheduled questions, in the order they were settled.

    `answers` maps a post id to the user's (answer time, correct). An answered question is settled when the answer
    was recorded, an unanswered one when it finished (MISSED); one still open and unanswered is not settled yet and
    is left out. Ties are taken in posting order.
    """
    return [event.outcome for event in settled_events(posts, answers, now)]


def question_streak(outcomes: Iterable[Outcome], start: Streak = Streak()) -> Streak:
    """The question streak from one channel's outcomes in the order they were settled (`settled_outcomes`),
    resumed from `start`, the streak of the outcomes settled before them (a checkpoint; none by default)."""
    run, best = start.current, start.best
    for outcome in outcomes:
        if outcome is Outcome.CORRECT:
            run += 1
            best = max(best, run)
        elif outcome is not Outcome.PENDING:
            run = 0
    return Streak(current=run, best=best)


@dataclass(frozen=True, slots=True)
class DayRun:
    """What the day streak of some answer days comes to, before knowing today: the run of consecutive days that
    ends at the last of them, the longest run, and that last day (None without any). A checkpoint of day streaks:
    `fold_days` resumes from it with the days of later answers."""

    run: int = 0
    best: int = 0
    last: date | None = None


def fold_days(days: Iterable[date], start: DayRun = DayRun()) -> DayRun:
    """`start` extended with the local dates of later answers (any order, repeats allowed). A day up to
    `start.last` is already counted (the last day of a checkpoint may get more answers after it)."""
    run, best, previous = start.run, start.best, start.last
    for day in sorted(set(days)):
        if previous is not None and day <= previous:
            continue
        run = run + 1 if previous is not None and day - previous == timedelta(days=1) else 1
        best = max(best, run)
        previous = day
    return DayRun(run=run, best=best, last=previous)


def day_streak_of(folded: DayRun, today: date) -> Streak:
    """The day streak on `today` of folded answer days: current while the last day is today or yesterday."""
    last = folded.last
    current = folded.run if last is not None and today - last <= timedelta(days=1) else 0
    return Streak(current=current, best=folded.best)


def day_streak(days: Iterable[date], today: date) -> Streak:
    """The day streak from the local dates of a user's answers (any order, repeats allowed)."""
    return day_streak_of(fold_days(days), today)


def best_of(streaks: Iterable[Streak]) -> Streak:
    """Several channels' question streaks as one: the longest current and the longest best."""
    current = best = 0
    for streak in streaks:
        current = max(current, streak.current)
        best = max(best, streak.best)
    return Streak(current=current, best=best)


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """What one user's `/quiz me` has folded of their history: everything settled before `settled_to`.

    The question streak of each channel (absent: nothing yet, `Streak()`), the day streak's fold in `timezone` (the
    workspace's when it was taken), and the user's (answered, correct) counts of each question they answered (by
    question row id; its wrong answers are the difference). The next call resumes from it with what was settled
    since (`question_streak(..., start=)`, `fold_days(..., start=)`), which equals folding the whole history
    (tests/unit/test_streak_resume.py)."""

    settled_to: datetime
    timezone: str
    channels: Mapping[int, Streak]
    days: DayRun
    questions: Mapping[int, tuple[int, int]]
