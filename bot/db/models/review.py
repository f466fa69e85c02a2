"""A person's review of the questions they missed: the items, what each showed, and the answers."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models.base import Base, BigId


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
