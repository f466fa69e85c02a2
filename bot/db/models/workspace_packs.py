"""A workspace's own packs (written and reviewed in chat, or uploaded) and the drafts waiting for review."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models.base import Base, BigId


class WorkspacePackRow(Base):
    """A pack that belongs to one workspace: its slug there, and the `packs` row holding it.

    The pack's title, description and questions are an ordinary PackRow and QuestionRows (stored under the
    qualified id `<workspace row>:<slug>`, bot.domain.drafts.workspace_pack_key), so posts, versions, rotation,
    flags and review read them as they read a shipped pack's. Content sync leaves these packs alone.
    """

    __tablename__ = "workspace_packs"
    __table_args__ = (UniqueConstraint("workspace_id", "slug"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    slug: Mapped[str] = mapped_column(String(64))
    pack_id: Mapped[str] = mapped_column(ForeignKey("packs.id", ondelete="CASCADE"), unique=True)
    created_by: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime]


class DraftRow(Base):
    """A question waiting in a workspace's review queue (`/quiz drafts`), or decided there.

    `correct_index` is None and `explanation` "" while the source did not say (an uploaded question): a lead
    completes it (Edit) before approving. Once approved, `question_key` is the question it became in the pack.
    """

    __tablename__ = "question_drafts"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"), index=True)
    pack_slug: Mapped[str] = mapped_column(String(64))
    prompt: Mapped[str] = mapped_column(Text)
    choices: Mapped[list[str]] = mapped_column(JSON)
    correct_index: Mapped[int | None] = mapped_column(Integer, nullable=True)
    explanation: Mapped[str] = mapped_column(Text, default="")
    references: Mapped[list[str]] = mapped_column(JSON, default=list)
    tags: Mapped[list[str]] = mapped_column(JSON, default=list)
    difficulty: Mapped[str | None] = mapped_column(String(16), nullable=True)
    extra: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True, default=None)
    """Anything else the source carried (an uploaded question's images), kept as a pack file writes it."""
    author_id: Mapped[str] = mapped_column(String(64))
    author_name: Mapped[str] = mapped_column(String(200), default="")
    origin: Mapped[str] = mapped_column(String(16), default="written")
    status: Mapped[str] = mapped_column(String(16), default="pending")
    created_at: Mapped[datetime]
    decided_by: Mapped[str | None] = mapped_column(String(200), nullable=True)
    decided_at: Mapped[datetime | None] = mapped_column(nullable=True)
    reason: Mapped[str] = mapped_column(Text, default="")
    question_key: Mapped[str | None] = mapped_column(String(64), nullable=True)
