"""Roles granted in chat, per workspace."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models.base import Base, BigId


class WorkspaceRole(Base):
    """A role (`admin` or `lead`) granted in a workspace to a person or to a platform role (`/quiz role grant`).

    The subject is kept by its platform id (`subject_id`, of kind `subject`: `user` or `platform-role`), so a person
    may be granted a role before the bot has seen them; one role per subject (granting another replaces it).
    Platform admins (and the bootstrap admins of the environment) are admins without a row.
    """

    __tablename__ = "workspace_roles"
    __table_args__ = (UniqueConstraint("workspace_id", "subject", "subject_id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    subject: Mapped[str] = mapped_column(String(16))
    subject_id: Mapped[str] = mapped_column(String(64))
    subject_name: Mapped[str] = mapped_column(String(200), default="")
    role: Mapped[str] = mapped_column(String(16))
    granted_by: Mapped[str] = mapped_column(String(64))
    granted_at: Mapped[datetime]
