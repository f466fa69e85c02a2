"""Posted questions and their answers: a post, what it showed, who a private one was for, and each answer."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    ColumnElement,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    and_,
    case,
    or_,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models.base import Base, BigId


class Post(Base):
    """One question posted to one channel, with the order its choices were shown in (indexes into the choices
    of the post's QuestionVersion, see PostSnapshot)."""

    __tablename__ = "posts"
    __table_args__ = (
        Index("ix_posts_channel_open", "channel_id", "closed_at", "opened_at"),
        Index("ix_posts_channel_time", "channel_id", "opened_at"),  # newest first per channel, for streaks
        Index("ix_posts_source_ref", "source_ref", "source"),  # a cohort's posts: progress, what it was asked
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
