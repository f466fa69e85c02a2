"""Where things happen: workspaces (a Slack team, a Discord guild, the terminal's), their channels and people,
and the deliveries already seen."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models.base import Base, BigId
from bot.domain import DISPLAY_NAME_MAX


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
