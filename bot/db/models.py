"""SQLAlchemy 2 models. Every row that belongs to a team is reached through its workspace (Slack team id,
Discord guild id, or the terminal's local workspace), so several workspaces can share one database."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
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
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

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
    display_name: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime]


class PackRow(Base):
    """A pack as last synced from content/."""

    __tablename__ = "packs"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    title: Mapped[str] = mapped_column(String(300))
    description: Mapped[str] = mapped_column(Text, default="")
    tags: Mapped[list[str]] = mapped_column(JSON, default=list)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    synced_at: Mapped[datetime]


class QuestionRow(Base):
    """A question as last synced; kept (inactive) when removed from its pack so old posts still render."""

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


class Post(Base):
    """One question posted to one channel, with the order its choices were shown in."""

    __tablename__ = "posts"
    __table_args__ = (Index("ix_posts_channel_open", "channel_id", "closed_at", "opened_at"),)

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


class Answer(Base):
    """One person's answer to one post: the first click counts, so (post, user) is unique.

    workspace_id and channel_id are copied from the post so leaderboards read one table through one index.
    """

    __tablename__ = "answers"
    __table_args__ = (
        UniqueConstraint("post_id", "user_id"),
        Index("ix_answers_workspace_time", "workspace_id", "answered_at"),
        Index("ix_answers_channel_time", "channel_id", "answered_at"),
        Index("ix_answers_user_time", "user_id", "answered_at"),
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


class Schedule(Base):
    """A channel's rule for posting questions (`weekdays 09:30` in Europe/Helsinki), and when it fires next.

    `rule` holds five cron fields (see bot.scheduling.rules). `next_fire_at` is the UTC instant of the next fire and
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
