"""The read models' view types: what cohorts, reports, review and schedules hand to the wording package.

A leaf module (it imports only the domain and the rule types), so services can raise with the wording package's
words while the wording package reads these types: no import circle, not even a TYPE_CHECKING one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.domain import ChannelRef, Delivery, Leaderboard, Tally
from bot.domain.flags import FlaggedQuestion
from bot.domain.leitner import Placement
from bot.scheduling.rules import Rule, Slot

# --- cohorts -------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CurriculumPack:
    """One pack of a curriculum and how far the cohort has got through it."""

    pack_id: str
    title: str
    posted: int
    total: int


@dataclass(frozen=True, slots=True)
class MemberProgress:
    """A member: cohort questions answered (and right), and points since the cohort's start (anywhere)."""

    name: str
    answered: int
    correct: int
    points: int


@dataclass(frozen=True, slots=True)
class CohortView:
    """A cohort as `/quiz cohort show` and `list` present it."""

    name: str
    start_date: date
    created_by: str | None
    curriculum: tuple[CurriculumPack, ...]
    members: tuple[MemberProgress, ...]
    delivery: Delivery = Delivery.CHANNEL
    """How its schedules deliver the curriculum: into their channel, or to each member privately."""

    @property
    def posted(self) -> int:
        """Curriculum questions asked so far."""
        return sum(p.posted for p in self.curriculum)

    @property
    def total(self) -> int:
        """Curriculum questions in all."""
        return sum(p.total for p in self.curriculum)


# --- reports -------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DayActivity:
    """Answers on one local day (or one week, for long reports)."""

    day: date
    answers: int
    participants: int
    correct: int


@dataclass(frozen=True, slots=True)
class QuestionResult(Tally):
    """How one question went: answers and correct answers in the report's scope."""

    pack_id: str
    pack_title: str
    key: str
    number: int
    prompt: str
    correct_choice: str
    explanation: str
    tags: tuple[str, ...]
    answered: int
    correct: int

    @property
    def missed(self) -> int:
        """Wrong answers."""
        return self.answered - self.correct


@dataclass(frozen=True, slots=True)
class TagResult(Tally):
    """Answers to questions with one tag (a question with several tags counts for each)."""

    tag: str
    answered: int
    correct: int


@dataclass(frozen=True, slots=True)
class Report(Tally):
    """Everything a report shows."""

    title: str
    workspace: str
    timezone: str
    generated_at: datetime
    since: date | None
    participants: int
    answers: int
    correct: int
    points: int
    leaderboard: Leaderboard
    questions: tuple[QuestionResult, ...]
    days: tuple[DayActivity, ...] = ()
    members: tuple[MemberProgress, ...] | None = None
    curriculum: tuple[CurriculumPack, ...] = ()
    review_learning: int = 0
    review_mastered: int = 0
    tags: tuple[TagResult, ...] = field(default=())
    flagged: tuple[FlaggedQuestion, ...] = ()
    """Questions with open flags in the report's scope, most flagged first."""

    @property
    def answered(self) -> int:
        """Same as `answers` (so accuracy reads like the other records)."""
        return self.answers

    def most_missed(self, limit: int = 5) -> list[QuestionResult]:
        """Questions with wrong answers, lowest accuracy first (more answers first among equals)."""
        missed = [q for q in self.questions if q.missed]
        return sorted(missed, key=lambda q: (q.accuracy, -q.answered, q.pack_id, q.number))[:limit]


# --- review --------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReviewQuestion:
    """A review question as shown to its user: choices in the shown order, numbered from 1."""

    pack_title: str
    prompt: str
    choices: tuple[str, ...]
    box: int
    due_after: int


@dataclass(frozen=True, slots=True)
class NothingDue:
    """Nothing to review now: when the next question is due (None when none is waiting), and what is mastered."""

    next_due_at: datetime | None
    waiting: int
    mastered: int


@dataclass(frozen=True, slots=True)
class ReviewResult:
    """The answer to a review question and where the question went."""

    correct: bool
    chosen: str
    correct_choice: str
    explanation: str
    placement: Placement
    due_now: int


@dataclass(frozen=True, slots=True)
class ReviewSummary:
    """A user's review: due now, still learning (including due), mastered."""

    due: int = 0
    learning: int = 0
    mastered: int = 0


# --- schedules -----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScheduleView:
    """A schedule as people see it."""

    id: int
    channel: ChannelRef
    rule: Rule
    timezone: str
    pack_ids: tuple[str, ...]
    close_after: timedelta | None
    enabled: bool
    paused_reason: str | None
    next_slot: Slot | None
    created_by: str | None
    paused_by_user: bool = False
    """Paused by a person (`paused_by` is their current name, None when they are no longer known) rather than for
    `paused_reason` (a platform refusal, say)."""
    paused_by: str | None = None
    cohort: str | None = None
    """A cohort schedule: the cohort whose curriculum each fire delivers (its packs, not `pack_ids`)."""
    delivery: Delivery = Delivery.CHANNEL
    """How a cohort schedule delivers: into the channel, or to each member privately at their local time."""

    @property
    def zone(self) -> ZoneInfo:
        """The schedule's timezone."""
        return ZoneInfo(self.timezone)
