"""SQLAlchemy 2 models. Every row that belongs to a team is reached through its workspace (Slack team id,
Discord guild id, or the terminal's local workspace), so several workspaces can share one database."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    ColumnElement,
    Date,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    and_,
    case,
    or_,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from bot.domain import DISPLAY_NAME_MAX

# BIGINT ids on PostgreSQL; INTEGER on SQLite, where only INTEGER PRIMARY KEY autoincrements.
BigId = BigInteger().with_variant(Integer(), "sqlite")


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp stored in UTC and always read back timezone-aware (SQLite keeps no offset)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Declarative base with stable constraint names (Alembic needs them)."""

    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: UTCDateTime()}


class Workspace(Base):
    """A Slack team, a Discord guild, or the terminal's local workspace."""

    __tablename__ = "workspaces"
    __table_args__ = (UniqueConstraint("platform", "external_id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    platform: Mapped[str] = mapped_column(String(16))
    external_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(200), default="")
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    created_at: Mapped[datetime]
    enterprise_id: Mapped[str | None] = mapped_column(String(64), default=None)
    """The Slack Enterprise Grid organisation of the team, as its commands last said (None: none, or not known)."""


class SeenDelivery(Base):
    """A platform request that was run (a Slack slash command, by its trigger_id, hashed), kept for a few minutes:
    a byte-identical copy, replayed to any replica while its signature is still valid, is not run again."""

    __tablename__ = "seen_deliveries"
    __table_args__ = (Index("ix_seen_deliveries_seen_at", "seen_at"),)

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    seen_at: Mapped[datetime]


class Channel(Base):
    """A channel questions are posted to."""

    __tablename__ = "channels"
    __table_args__ = (UniqueConstraint("workspace_id", "external_id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    external_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(200), default="")
    timezone: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime]


class User(Base):
    """A person who answers, as known on one workspace."""

    __tablename__ = "users"
    __table_args__ = (UniqueConstraint("workspace_id", "external_id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    external_id: Mapped[str] = mapped_column(String(64))
    display_name: Mapped[str] = mapped_column(String(DISPLAY_NAME_MAX), default="")
    created_at: Mapped[datetime]
    timezone: Mapped[str | None] = mapped_column(String(64))
    """The platform profile's IANA timezone (Slack `users.info` tz), cached for private delivery at the person's
    local time; None until asked, "" when the platform gave none (the cohort schedule's timezone applies)."""


class PackRow(Base):
    """A pack as last synced from content/."""

    __tablename__ = "packs"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    title: Mapped[str] = mapped_column(Text)  # the pack schema allows 2,000 characters
    description: Mapped[str] = mapped_column(Text, default="")
    tags: Mapped[list[str]] = mapped_column(JSON, default=list)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    synced_at: Mapped[datetime]


class QuestionRow(Base):
    """A question as last synced: the pack's current text, which new posts and review questions show.

    Kept (inactive, "retired") when removed from its pack. What a post showed is never read from here but from
    the QuestionVersion its PostSnapshot points at, so editing the pack changes only later posts.
    """

    __tablename__ = "questions"
    __table_args__ = (UniqueConstraint("pack_id", "key"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    pack_id: Mapped[str] = mapped_column(ForeignKey("packs.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(64))
    position: Mapped[int] = mapped_column(Integer)
    prompt: Mapped[str] = mapped_column(Text)
    choices: Mapped[list[str]] = mapped_column(JSON)
    correct_index: Mapped[int] = mapped_column(Integer)
    explanation: Mapped[str] = mapped_column(Text)
    tags: Mapped[list[str]] = mapped_column(JSON, default=list)
    difficulty: Mapped[str | None] = mapped_column(String(16))
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    images: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True, default=None)
    """`{"prompt": {url|file, alt}, "explanation": {...}}` (bot.domain.Question.images_json), None without any."""


class QuestionVersion(Base):
    """What a question said at one time: prompt, choices in the pack's order then, correct choice, explanation.

    Immutable. A post (through its PostSnapshot) and a review question that is out point at the version they
    showed; `answers.choice_index` and `posts.choice_order` index its `choices`. A version is named by a digest
    of its content (bot.domain.versions), so every post of the same text shares one row (a fan-out to a
    thousand channels stores the text once) and an edit that is undone finds its old version again.
    """

    __tablename__ = "question_versions"
    __table_args__ = (UniqueConstraint("question_id", "digest"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    question_id: Mapped[int] = mapped_column(ForeignKey("questions.id", ondelete="CASCADE"))
    digest: Mapped[str] = mapped_column(String(64))
    prompt: Mapped[str] = mapped_column(Text)
    choices: Mapped[list[str]] = mapped_column(JSON)
    correct_index: Mapped[int] = mapped_column(Integer)
    explanation: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime]
    images: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True, default=None)
    """The images the version showed (as `QuestionRow.images`), None without any; part of its digest."""


class Post(Base):
    """One question posted to one channel, with the order its choices were shown in (indexes into the choices
    of the post's QuestionVersion, see PostSnapshot)."""

    __tablename__ = "posts"
    __table_args__ = (
        Index("ix_posts_channel_open", "channel_id", "closed_at", "opened_at"),
        Index("ix_posts_channel_time", "channel_id", "opened_at"),  # newest first per channel, for streaks
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"))
    question_id: Mapped[int] = mapped_column(ForeignKey("questions.id"), index=True)
    message_ref: Mapped[str | None] = mapped_column(String(128))
    choice_order: Mapped[list[int]] = mapped_column(JSON)
    source: Mapped[str] = mapped_column(String(16))
    source_ref: Mapped[str | None] = mapped_column(String(64))
    posted_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    opened_at: Mapped[datetime]
    closes_at: Mapped[datetime | None]
    closed_at: Mapped[datetime | None]
    fire_key: Mapped[str | None] = mapped_column(String(40), index=True)
    """The fire slot that posted it (`12:2026-01-05T09:00`, bot.scheduling.fires.FireKey), for any scheduled post:
    how recovery finds what a crashed replica's claim already posted, whatever the post's source."""


POST_FINISH_SQL = (
    "(\nCASE\n    WHEN closed_at IS NOT NULL AND (closes_at IS NULL OR closed_at < closes_at) THEN closed_at\n"
    "    ELSE closes_at\nEND)"
)
"""post_finish_time() as the SQL of ix_posts_channel_finish, written exactly as PostgreSQL prints it back (line
breaks included), so comparing the migrations with the models sees the same index."""


def post_finish_time() -> ColumnElement[datetime]:
    """When a finished post stopped taking answers: its close time, or its reveal if that came first (streaks order
    a channel's scheduled questions by it; ix_posts_channel_finish indexes exactly this expression)."""
    revealed_first = and_(Post.closed_at.is_not(None), or_(Post.closes_at.is_(None), Post.closed_at < Post.closes_at))
    return case((revealed_first, Post.closed_at), else_=Post.closes_at)


Index(
    "ix_posts_channel_finish",
    Post.channel_id,
    text(f"{POST_FINISH_SQL} DESC"),
    Post.opened_at.desc(),
    Post.id.desc(),
)
"""A channel's posts, the last finished first: the latest miss of a current streak is found at the top of it."""


class PostSnapshot(Base):
    """What a post showed, fixed when it was posted: the question version, and the card's "question 3 of 8".

    One row per post, written in the transaction that inserts the post. A table of its own rather than columns
    of `posts` because SQLite adds a NOT NULL foreign key column only by rebuilding `posts`, and dropping the
    old `posts` with foreign keys on would cascade into `answers`.
    """

    __tablename__ = "post_snapshots"

    post_id: Mapped[int] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True)
    question_version_id: Mapped[int] = mapped_column(ForeignKey("question_versions.id"), index=True)
    question_number: Mapped[int] = mapped_column(Integer)
    question_count: Mapped[int] = mapped_column(Integer)


class PostRecipient(Base):
    """The one person a privately delivered post (a cohort's direct message) was sent to: only their click counts.

    Posts in a channel have no row here. A table of its own, like PostSnapshot, because SQLite adds a named foreign
    key to `posts` only by rebuilding it (which would cascade into `answers`); forgetting the person removes it.
    """

    __tablename__ = "post_recipients"

    post_id: Mapped[int] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)


class Answer(Base):
    """One person's answer to one post: the first click counts, so (post, user) is unique.

    workspace_id and channel_id are copied from the post so leaderboards read one table through one index.
    The three time indexes carry the columns a windowed board sums (user, points, correctness), so a week or
    month board is an index-only range scan; all-time boards read the rollups below instead. The user index
    also carries the post, for streaks and cohort boards.
    """

    __tablename__ = "answers"
    __table_args__ = (
        UniqueConstraint("post_id", "user_id"),
        Index("ix_answers_workspace_board", "workspace_id", "answered_at", "user_id", "points", "is_correct"),
        Index("ix_answers_channel_board", "channel_id", "answered_at", "user_id", "points", "is_correct"),
        Index("ix_answers_user_board", "user_id", "answered_at", "points", "is_correct", "post_id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    post_id: Mapped[int] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"))
    choice_index: Mapped[int] = mapped_column(Integer)
    is_correct: Mapped[bool] = mapped_column(Boolean)
    points: Mapped[int] = mapped_column(Integer)
    answered_at: Mapped[datetime]
    latency_ms: Mapped[int] = mapped_column(BigInteger)


class UserScore(Base):
    """A user's all-time totals in their workspace: a rollup of `answers` kept in the answer's own transaction.

    The all-time workspace board is then an index scan of this table instead of an aggregate of every answer.
    """

    __tablename__ = "user_scores"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    points: Mapped[int] = mapped_column(Integer, default=0)
    correct: Mapped[int] = mapped_column(Integer, default=0)
    answered: Mapped[int] = mapped_column(Integer, default=0)


class ChannelScore(Base):
    """A user's all-time totals in one channel (same rollup as UserScore, for the channel board)."""

    __tablename__ = "channel_scores"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"), primary_key=True)
    points: Mapped[int] = mapped_column(Integer, default=0)
    correct: Mapped[int] = mapped_column(Integer, default=0)
    answered: Mapped[int] = mapped_column(Integer, default=0)


class PeriodScore(Base):
    """A user's totals in one period of a windowed board of their workspace (this week, this month), a rollup kept
    like UserScore, so the workspace's week and month boards are an index scan instead of a sum over the window's
    answers (a channel's boards sum its answers: a twentieth of the workspace's in the benchmark, and a second
    rollup per answer cost the answer path more than it saved there).

    `period` is the window (bot.domain.windows.Window value), `period_start` where that period starts in the
    workspace's timezone (window_start of the answer's time), in UTC. Boards read the rows of the period containing
    now; they fall back to summing answers if rows of the same period keyed in another timezone exist (the
    workspace's timezone was changed), so a board is always exact.
    """

    __tablename__ = "period_scores"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    period: Mapped[str] = mapped_column(String(16), primary_key=True)
    period_start: Mapped[datetime] = mapped_column(primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    points: Mapped[int] = mapped_column(Integer, default=0)
    correct: Mapped[int] = mapped_column(Integer, default=0)
    answered: Mapped[int] = mapped_column(Integer, default=0)


def _board_order(rollup: type[UserScore] | type[ChannelScore] | type[PeriodScore]) -> tuple[Any, ...]:
    """A rollup's columns in the order every board ranks them (bot.domain.ranking): points and correct answers most
    first, answers fewest first, then the user; a board index in this order is read from its top, nothing sorted."""
    return (rollup.points.desc(), rollup.correct.desc(), rollup.answered, rollup.user_id)


Index("ix_user_scores_board", UserScore.workspace_id, *_board_order(UserScore))
Index("ix_channel_scores_board", ChannelScore.channel_id, *_board_order(ChannelScore))
Index(
    "ix_period_scores_board",
    PeriodScore.workspace_id,
    PeriodScore.period,
    PeriodScore.period_start,
    *_board_order(PeriodScore),
)


class Cohort(Base):
    """A named group of a workspace (an onboarding cohort) with a start date and a curriculum of packs in order.

    `key` is the casefolded name (names are unique per workspace whatever their case); `starts_at` is the start
    date's local midnight in the workspace's timezone, as UTC: answers from then on count for the cohort.
    """

    __tablename__ = "cohorts"
    __table_args__ = (UniqueConstraint("workspace_id", "key"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(64))
    start_date: Mapped[date] = mapped_column(Date)
    starts_at: Mapped[datetime]
    packs: Mapped[list[str]] = mapped_column(JSON, default=list)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime]
    delivery: Mapped[str] = mapped_column(String(16), default="channel", server_default="channel")
    """How its schedules deliver the curriculum (bot.domain.Delivery): `channel` (one post in the schedule's
    channel) or `dm` (each member privately, at the schedule's time in their own timezone)."""


class CohortMember(Base):
    """A member of a cohort, with their totals since the cohort's start (a rollup kept like UserScore)."""

    __tablename__ = "cohort_members"
    __table_args__ = (Index("ix_cohort_members_user", "user_id"),)

    cohort_id: Mapped[int] = mapped_column(ForeignKey("cohorts.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    joined_at: Mapped[datetime]
    added_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    points: Mapped[int] = mapped_column(Integer, default=0)
    correct: Mapped[int] = mapped_column(Integer, default=0)
    answered: Mapped[int] = mapped_column(Integer, default=0)


class ReviewItem(Base):
    """A question a user got wrong, in a Leitner box: due again at `due_at`, retired once mastered.

    While a review question is out (`asked_at` set), `shown_order` holds the order its choices were shown in,
    as indexes into the choices of the version its ReviewSnapshot names.
    """

    __tablename__ = "review_items"
    __table_args__ = (
        UniqueConstraint("user_id", "question_id"),
        Index("ix_review_items_due", "user_id", "retired_at", "due_at"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    question_id: Mapped[int] = mapped_column(ForeignKey("questions.id", ondelete="CASCADE"))
    box: Mapped[int] = mapped_column(Integer)
    due_at: Mapped[datetime]
    retired_at: Mapped[datetime | None]
    asked_at: Mapped[datetime | None]
    shown_order: Mapped[list[int] | None] = mapped_column(JSON)
    reviews: Mapped[int] = mapped_column(Integer, default=0)
    lapses: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class ReviewSnapshot(Base):
    """The version a review question that is out showed (its item's `shown_order` indexes that version's choices).

    One row per item while it is out. A table of its own for the same reason as PostSnapshot: SQLite adds a
    named foreign key to review_items only by rebuilding it, and that would cascade into review_answers.
    """

    __tablename__ = "review_snapshots"

    item_id: Mapped[int] = mapped_column(ForeignKey("review_items.id", ondelete="CASCADE"), primary_key=True)
    question_version_id: Mapped[int] = mapped_column(ForeignKey("question_versions.id", ondelete="CASCADE"))


class ReviewAnswer(Base):
    """One answer given in review: counts for the user's mastery, never for a leaderboard.

    `choice_index` indexes the choices of `question_version_id`, the version the review question showed.
    """

    __tablename__ = "review_answers"
    __table_args__ = (Index("ix_review_answers_user_time", "user_id", "answered_at"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("review_items.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    question_id: Mapped[int] = mapped_column(ForeignKey("questions.id", ondelete="CASCADE"))
    box: Mapped[int] = mapped_column(Integer)
    choice_index: Mapped[int] = mapped_column(Integer)
    is_correct: Mapped[bool] = mapped_column(Boolean)
    answered_at: Mapped[datetime]
    question_version_id: Mapped[int] = mapped_column(ForeignKey("question_versions.id", ondelete="CASCADE"))


class Schedule(Base):
    """A channel's rule for posting questions (`weekdays 09:30` in Europe/Helsinki), and when it fires next.

    `rule` holds five cron fields (see bot.domain.schedules). `next_fire_at` is the UTC instant of the next fire and
    `next_slot` its local slot key; the ticker advances both with a conditional update, so replicas agree.
    """

    __tablename__ = "schedules"
    __table_args__ = (Index("ix_schedules_due", "enabled", "next_fire_at"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"), index=True)
    rule: Mapped[str] = mapped_column(String(200))
    timezone: Mapped[str] = mapped_column(String(64))
    pack_ids: Mapped[list[str]] = mapped_column(JSON, default=list)
    close_after_seconds: Mapped[int | None] = mapped_column(Integer)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    paused_reason: Mapped[str | None] = mapped_column(String(300))
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime]
    next_fire_at: Mapped[datetime | None]
    next_slot: Mapped[str | None] = mapped_column(String(16))
    cohort_id: Mapped[int | None] = mapped_column(BigId, index=True)
    """A cohort schedule: each fire posts the cohort's next curriculum question (instead of drawing from
    `pack_ids`); None for a pack schedule. No foreign key (SQLite would rebuild `schedules`, cascading into its
    fires): deleting a cohort deletes its schedules itself (repositories.Cohorts.remove)."""


class ScheduleFire(Base):
    """One fire slot of a schedule, claimed by a unique insert before anything is posted.

    (schedule_id, slot_key) is unique, so each slot posts at most once across replicas. `attempts` fences the
    claim: a replica that takes over an expired claim bumps it, and the old owner's lease renewal then fails.
    """

    __tablename__ = "schedule_fires"
    __table_args__ = (
        UniqueConstraint("schedule_id", "slot_key"),
        Index("ix_schedule_fires_status_claimed", "status", "claimed_at"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    schedule_id: Mapped[int] = mapped_column(ForeignKey("schedules.id", ondelete="CASCADE"))
    slot_key: Mapped[str] = mapped_column(String(16))
    due_at: Mapped[datetime]
    status: Mapped[str] = mapped_column(String(16))
    claimed_at: Mapped[datetime]
    claimed_by: Mapped[str] = mapped_column(String(100))
    attempts: Mapped[int] = mapped_column(Integer, default=1)
    post_id: Mapped[int | None] = mapped_column(ForeignKey("posts.id", ondelete="SET NULL"))
    detail: Mapped[str | None] = mapped_column(String(300))
    finished_at: Mapped[datetime | None]


class MemberFire(Base):
    """One member's fire slot of a privately delivered cohort schedule, claimed by a unique insert before sending.

    (schedule_id, user_id, slot_key) is unique: each member gets each slot at most once across replicas; `slot_key`
    is the slot in the member's own timezone. Leases, fencing by `attempts` and recovery work as for
    ScheduleFire (bot/scheduling/leases.py, delivery.py).
    """

    __tablename__ = "member_fires"
    __table_args__ = (
        UniqueConstraint("schedule_id", "user_id", "slot_key"),
        Index("ix_member_fires_status_claimed", "status", "claimed_at"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    schedule_id: Mapped[int] = mapped_column(ForeignKey("schedules.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    slot_key: Mapped[str] = mapped_column(String(16))
    due_at: Mapped[datetime]
    status: Mapped[str] = mapped_column(String(16))
    claimed_at: Mapped[datetime]
    claimed_by: Mapped[str] = mapped_column(String(100))
    attempts: Mapped[int] = mapped_column(Integer, default=1)
    post_id: Mapped[int | None] = mapped_column(ForeignKey("posts.id", ondelete="SET NULL"))
    detail: Mapped[str | None] = mapped_column(String(300))
    finished_at: Mapped[datetime | None]


class QuestionFlag(Base):
    """One person's report that a question is wrong ("Report a problem", `/quiz flag [reason]`), in a workspace.

    (user, question) is unique: a person flags a question once, and flagging it again updates the reason. The post
    says where they saw it. A question with at least QUIZBOT_FLAG_PAUSE_THRESHOLD open flags (not cleared) in a
    workspace leaves that workspace's rotation and curricula until an admin clears them (`/quiz flags clear`),
    which stamps `cleared_at`; the rows stay, so pack authors keep the history. workspace_id is copied from the
    user so that the pause check reads one index.
    """

    __tablename__ = "question_flags"
    __table_args__ = (
        UniqueConstraint("user_id", "question_id"),
        Index("ix_question_flags_open", "workspace_id", "cleared_at", "question_id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    question_id: Mapped[int] = mapped_column(ForeignKey("questions.id", ondelete="CASCADE"), index=True)
    post_id: Mapped[int | None] = mapped_column(ForeignKey("posts.id", ondelete="SET NULL"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    reason: Mapped[str | None] = mapped_column(String(500))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    cleared_at: Mapped[datetime | None]
    cleared_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))


class Season(Base):
    """A named stretch of time in a workspace whose answers make a board of their own (`/quiz season start`).

    The season's window is [starts_at, ended_at): `ends_at` is the planned end (`until:`, the local midnight after
    that date), `ended_at` when it really ended (by `/quiz season end`, or the ticker once `ends_at` passed), NULL
    while it runs. At most one season runs per workspace (a partial unique index). Ending is a conditional update
    (`ended_at IS NULL`), so whoever ends it, once, posts the final boards. `key` is the casefolded name.
    Season boards sum `answers` through the same covering time indexes as week and month boards; no rollup.
    """

    __tablename__ = "seasons"
    __table_args__ = (
        UniqueConstraint("workspace_id", "key"),
        Index(
            "ix_seasons_running",
            "workspace_id",
            unique=True,
            sqlite_where=text("ended_at IS NULL"),
            postgresql_where=text("ended_at IS NULL"),
        ),
        Index("ix_seasons_due", "ended_at", "ends_at"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(64))
    starts_at: Mapped[datetime]
    ends_at: Mapped[datetime | None]
    ended_at: Mapped[datetime | None]
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    ended_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime]


class PendingConfirmation(Base):
    """A destructive command waiting for its asker's "Confirm" click (or `y` on the terminal).

    `token` is 128 random bits (secrets.token_urlsafe), the only thing the button carries: a click is honoured only
    if a row has that token, was asked by the same user of the same workspace, has not expired, and is not used yet.
    Using it is a conditional update (`used_at IS NULL`), so a second click, or a replayed one, does nothing.
    `command` is the command to run (its type and fields, bot.service.confirmations).
    """

    __tablename__ = "pending_confirmations"
    __table_args__ = (Index("ix_pending_confirmations_expires", "expires_at"),)

    token: Mapped[str] = mapped_column(String(64), primary_key=True)
    platform: Mapped[str] = mapped_column(String(16))
    workspace_external_id: Mapped[str] = mapped_column(String(64))
    channel_external_id: Mapped[str] = mapped_column(String(64))
    user_external_id: Mapped[str] = mapped_column(String(64))
    user_name: Mapped[str] = mapped_column(String(200), default="")
    command: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]
    outcome: Mapped[str | None] = mapped_column(String(16))
