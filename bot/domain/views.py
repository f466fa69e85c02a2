"""The read models' view types: what cohorts, reports, review and schedules hand to the wording package.

Part of the domain (it imports only the domain), so services can raise with the wording package's words while the
wording package reads these types: no import circle, not even a TYPE_CHECKING one.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.domain import ChannelRef, Delivery, Leaderboard, Tally, UserRef, UserStats
from bot.domain.attention import DEFAULT_RULES, AttentionRules
from bot.domain.flags import FlaggedQuestion
from bot.domain.leitner import Placement
from bot.domain.schedules import Rule, Slot

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
    """A member as the onboarding lead sees them.

    `answered` and `correct`: curriculum questions posted to the cohort that they answered (and got right);
    `points`: everything they earned since the cohort's start, anywhere (`cohort_points` of it on the cohort's
    questions); `last_active`: the local day of their last answer in the workspace (None: never answered);
    `behind` and `inactive` by the cohort's AttentionRules (bot/domain/attention.py).
    """

    name: str
    answered: int
    correct: int
    points: int
    cohort_points: int = 0
    last_active: date | None = None
    behind: bool = False
    inactive: bool = False
    sent: int | None = None
    """Cohort questions that reached this member (channel posts, and the direct messages sent to them); None: all."""
    user_id: str = ""
    """The member's id on the platform (a nudge goes there)."""

    @property
    def points_elsewhere(self) -> int:
        """Points since the cohort's start earned on questions that were not the cohort's."""
        return max(self.points - self.cohort_points, 0)

    @property
    def needs_attention(self) -> bool:
        """Behind or inactive."""
        return self.behind or self.inactive


@dataclass(frozen=True, slots=True)
class CohortView:
    """A cohort as `/quiz cohort show` and `list` present it."""

    name: str
    start_date: date
    created_by: str | None
    curriculum: tuple[CurriculumPack, ...]
    members: tuple[MemberProgress, ...]
    rules: AttentionRules = DEFAULT_RULES
    posts: int = 0
    """Posts made for the cohort (the "of N" each member's answered count is out of)."""
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


@dataclass(frozen=True, slots=True)
class DueQuestion:
    """A cohort question a member has not answered and can still answer: where it is, and when it closes."""

    post_id: int
    prompt: str
    pack_title: str
    channel: ChannelRef
    closes_at: datetime | None
    timezone: str


@dataclass(frozen=True, slots=True)
class Nudge:
    """A private reminder for one member who is behind: their due cohort questions, oldest first."""

    user: UserRef
    cohort: str
    due: tuple[DueQuestion, ...]


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
    still_open: bool = False
    """A post of it in the report's scope is still open: its answer is not out, so it is not among the most missed."""

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
    cohort_posts: int = 0
    """Posts made for the cohort (what each member's answered count is out of)."""
    cohort_rules: AttentionRules = DEFAULT_RULES
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
        """Questions with wrong answers, lowest accuracy first (more answers first among equals).

        A question still open somewhere in the scope is left out: the list shows each one's answer, and people
        are still answering it."""
        missed = [q for q in self.questions if q.missed and not q.still_open]
        return sorted(missed, key=lambda q: (q.accuracy, -q.answered, q.pack_id, q.number))[:limit]


class ChartKind(enum.Enum):
    """The charts of a report, as the HTML report draws them and `/quiz report` posts them as images."""

    PARTICIPATION = "participation"
    QUESTIONS = "questions"
    TAGS = "tags"


@dataclass(frozen=True, slots=True)
class ReportChart:
    """One chart of a report to post as an image: what it draws, its file name, title and alt text."""

    kind: ChartKind
    filename: str
    title: str
    alt_text: str
    report: Report


# --- the personal home ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChannelStanding(Tally):
    """A person's all-time standing on one channel's board: points, rank among `players`, answers."""

    channel: ChannelRef
    points: int
    rank: int
    players: int
    correct: int
    answered: int


@dataclass(frozen=True, slots=True)
class CohortProgress:
    """One of a person's cohorts: curriculum questions asked of all, and how many of those they answered."""

    name: str
    posted: int
    total: int
    answered: int
    correct: int


@dataclass(frozen=True, slots=True)
class NextQuestion:
    """The next scheduled question in one of a person's channels, and the schedule's timezone."""

    channel: ChannelRef
    due: datetime
    timezone: str

    @property
    def zone(self) -> ZoneInfo:
        """The schedule's timezone."""
        return ZoneInfo(self.timezone)


@dataclass(frozen=True, slots=True)
class HomeView:
    """Everything the personal home shows (Slack's App Home tab, `/quiz me`)."""

    stats: UserStats
    """Totals and rank in the workspace, both streaks, review counts: what `/quiz me` always showed."""
    channels: tuple[ChannelStanding, ...]
    weakest: tuple[TagResult, ...]
    """Their three weakest topics (tags with a miss), lowest accuracy first."""
    cohorts: tuple[CohortProgress, ...]
    next_question: NextQuestion | None
    now: datetime


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


# --- seasons -------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeasonView:
    """A season as its list shows it: name, local first day, planned last day, the day it ended (None: running)."""

    name: str
    started: date
    until: date | None
    ended: date | None


@dataclass(frozen=True, slots=True)
class SeasonEnded:
    """A season that just ended, and the channels its final boards were posted to (and those that failed)."""

    name: str
    posted: int
    failed: int = 0


# --- confirmations ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ConfirmationRequest:
    """A destructive command waiting for its asker: the platform-neutral shape adapters render as buttons.

    `token` goes into the buttons (Slack action ids, Discord custom ids) and back to `QuizApp.confirm`; it is 22
    URL-safe characters. The Reply's message is the prompt; `note` says who may confirm and for how long.
    """

    token: str
    confirm_label: str
    cancel_label: str
    note: str
    asked_by: str
    expires_at: datetime
