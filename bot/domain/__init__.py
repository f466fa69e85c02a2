"""Plain domain objects of the quiz core: packs, questions, channels, and the results of use cases."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple

from bot.domain.text import display_name as shown_name


class Tally:
    """Something with `correct` of `answered` answers; its accuracy is written once, here."""

    __slots__ = ()

    if TYPE_CHECKING:  # provided by each subclass, as a field or a property

        @property
        def correct(self) -> int: ...
        @property
        def answered(self) -> int: ...

    @property
    def accuracy(self) -> float:
        """Share of answers that were correct, 0..1."""
        return self.correct / self.answered if self.answered else 0.0


IMAGES_DIR = "images"
"""Where a pack's image files live: `images/` next to the pack files (content/images/)."""


@dataclass(frozen=True, slots=True)
class Image:
    """An image a question shows, with its alt text: an https `url`, or a `file` under the content's `images/`
    folder (the adapter uploads it once)."""

    alt: str
    url: str | None = None
    file: str | None = None

    def as_json(self) -> dict[str, str]:
        """The image as stored (in a question version's `images`)."""
        stored = {"alt": self.alt}
        if self.url is not None:
            stored["url"] = self.url
        if self.file is not None:
            stored["file"] = self.file
        return stored

    @classmethod
    def from_json(cls, stored: object) -> Image | None:
        """The image stored by `as_json`, or None for anything else."""
        if not isinstance(stored, dict) or not isinstance(stored.get("alt"), str):
            return None
        url, file = stored.get("url"), stored.get("file")
        return cls(
            alt=stored["alt"], url=url if isinstance(url, str) else None, file=file if isinstance(file, str) else None
        )


@dataclass(frozen=True, slots=True)
class Question:
    """One multiple-choice question of a pack; `correct_index` is the zero-based index into `choices`."""

    pack_id: str
    key: str
    prompt: str
    choices: tuple[str, ...]
    correct_index: int
    explanation: str
    tags: tuple[str, ...] = ()
    difficulty: str | None = None
    references: tuple[str, ...] = ()
    image: Image | None = None
    """Shown with the prompt."""
    explanation_image: Image | None = None
    """Shown with the explanation, once the answer is revealed."""

    def images_json(self) -> dict[str, dict[str, str]] | None:
        """The question's images as stored (None without any): `{"prompt": ..., "explanation": ...}`."""
        stored = {
            name: image.as_json()
            for name, image in (("prompt", self.image), ("explanation", self.explanation_image))
            if image is not None
        }
        return stored or None

    @property
    def correct_choice(self) -> str:
        """The text of the correct choice."""
        return self.choices[self.correct_index]


class QuestionKey(NamedTuple):
    """A question by its pack and its stable id in that pack."""

    pack_id: str
    key: str


@dataclass(frozen=True, slots=True)
class Pack:
    """A validated quiz pack: an ordered set of questions on one topic."""

    id: str
    title: str
    description: str
    questions: tuple[Question, ...]
    tags: tuple[str, ...] = ()

    def question(self, key: str) -> Question | None:
        """The question with this stable id, if the pack has it."""
        return next((q for q in self.questions if q.key == key), None)


@dataclass(frozen=True, slots=True)
class ChannelRef:
    """Where a message goes: a channel of a workspace (Slack team, Discord guild, terminal) on a platform."""

    platform: str
    workspace_id: str
    channel_id: str
    enterprise_id: str | None = field(default=None, compare=False)
    """The organisation the workspace belongs to, when the platform says (a Slack Enterprise Grid org id, from the
    signed request); not part of the channel's identity. A post's workspace records it, so that a click from
    another workspace of the same organisation, in a channel they share, counts (service/answers.py)."""


DISPLAY_NAME_MAX = 200
"""The longest display name kept (the `users.display_name` column): a longer one is cut to it."""


@dataclass(frozen=True, slots=True)
class UserRef:
    """Who acted: a user id on a platform and workspace, with the name to show on leaderboards: on one line, without
    invisible characters (`text.display_name`), and at most DISPLAY_NAME_MAX characters (a longer one, say typed at
    the terminal, is cut to that, so it fits its column)."""

    platform: str
    workspace_id: str
    user_id: str
    display_name: str

    def __post_init__(self) -> None:
        name = shown_name(self.display_name)[:DISPLAY_NAME_MAX]
        if name != self.display_name:
            object.__setattr__(self, "display_name", name)


class PostSource(enum.StrEnum):
    """Why a question was posted."""

    COMMAND = "command"
    SCHEDULE = "schedule"
    COHORT = "cohort"


class Delivery(enum.StrEnum):
    """How a cohort receives its curriculum from its schedules."""

    CHANNEL = "channel"
    """One post in the schedule's channel, for everyone."""
    DM = "dm"
    """Each member privately (a direct message), at the schedule's local time in the member's own timezone."""


@dataclass(frozen=True, slots=True)
class RevealView:
    """What a closed post shows: the correct choice, the distribution and who got it right."""

    correct_position: int
    counts: tuple[int, ...]
    explanation: str
    correct_users: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class QuestionCard:
    """A platform-neutral question card; adapters render it as Block Kit, an embed or terminal text.

    `choices` are in the order shown for this post; `choice_ids[i]` is the pack's own index of the
    i-th shown choice at posting time (an index into the post's question version), which is what an answer
    button carries. `question_number` is the question's place in its pack and `question_count` the pack's size
    when posted (an identity, not progress: a rotation may start anywhere); `retired` says the question has since
    been removed from its pack (then the count is no longer meaningful and is not shown).

    `source` says why it was posted (`cohort` names the cohort of a cohort post, None once it is deleted);
    `opened_at` and `closes_at` are shown in `timezone`, the channel's (or else its workspace's) timezone.
    """

    post_id: int
    pack_title: str
    question_number: int
    question_count: int
    prompt: str
    choices: tuple[str, ...]
    choice_ids: tuple[int, ...]
    answer_count: int
    closes_at: datetime | None = None
    reveal: RevealView | None = None
    retired: bool = False
    source: PostSource = PostSource.COMMAND
    cohort: str | None = None
    opened_at: datetime | None = None
    timezone: str = "UTC"
    image: Image | None = None
    """Shown with the prompt."""
    explanation_image: Image | None = None
    """Shown with the explanation once revealed."""

    @property
    def is_closed(self) -> bool:
        """Whether the post is closed (revealed)."""
        return self.reveal is not None


class AnswerOutcome(enum.StrEnum):
    """What happened to a click."""

    RECORDED = "recorded"
    ALREADY_ANSWERED = "already_answered"
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class AnswerResult:
    """The private reply to a click: the outcome, and enough to teach (right/wrong, answer, explanation).

    A correct answer just recorded also carries the points it earned and the user's rank on the channel's
    all-time board once it counted (`points`, `rank`); other results leave them None.
    """

    outcome: AnswerOutcome
    post_id: int
    chosen: str | None
    correct: bool | None
    correct_choice: str
    explanation: str
    revealed: bool = False
    points: int | None = None
    rank: int | None = None


@dataclass(frozen=True, slots=True)
class LeaderboardRow(Tally):
    """One line of a leaderboard; `streak` is the current question streak, `day_streak` the current day streak."""

    rank: int
    name: str
    points: int
    correct: int
    answered: int
    streak: int = 0
    day_streak: int = 0


@dataclass(frozen=True, slots=True)
class Leaderboard:
    """A ranked leaderboard for one scope and window (`season`: the season's name, for the season window)."""

    scope: str
    window: str
    rows: Sequence[LeaderboardRow]
    season: str | None = None


@dataclass(frozen=True, slots=True)
class UserStats(Tally):
    """A user's own record: all-time totals and rank in the workspace, streaks, review progress, cohorts."""

    name: str
    answered: int
    correct: int
    points: int
    rank: int | None
    missed_tags: tuple[tuple[str, int], ...] = field(default_factory=tuple)
    streak: int = 0
    best_streak: int = 0
    day_streak: int = 0
    best_day_streak: int = 0
    review_due: int = 0
    review_learning: int = 0
    review_mastered: int = 0
    cohorts: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CohortStanding(Tally):
    """One cohort on the cohort-vs-cohort board: ranked by points per active member, so size does not win."""

    rank: int
    name: str
    members: int
    active: int
    points: int
    correct: int
    answered: int

    @property
    def points_per_member(self) -> float:
        """Points per active member (members who answered in the window)."""
        return self.points / self.active if self.active else 0.0


@dataclass(frozen=True, slots=True)
class CohortBoard:
    """The cohort-vs-cohort board of a workspace for one window (`season`: the season's name, for that window)."""

    window: str
    rows: Sequence[CohortStanding]
    season: str | None = None
