"""Flags people raise on a question."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models.base import Base, BigId


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
