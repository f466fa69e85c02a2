"""Settings changed in chat (`/quiz settings`): a workspace's and a channel's own values, and every change kept."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models.base import Base, BigId


class WorkspaceSetting(Base):
    """A value a workspace sets for one key (bot/domain/settings.py `SettingKey`), as its canonical text; a key with
    no row is inherited from the environment's default."""

    __tablename__ = "workspace_settings"

    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"), primary_key=True)
    key: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(64))
    changed_by: Mapped[str] = mapped_column(String(64))
    changed_at: Mapped[datetime]


class ChannelSetting(Base):
    """A value a channel sets for one key; it wins over its workspace's."""

    __tablename__ = "channel_settings"

    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"), primary_key=True)
    key: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(64))
    changed_by: Mapped[str] = mapped_column(String(64))
    changed_at: Mapped[datetime]


class SettingChangeRow(Base):
    """One change of a setting (`/quiz settings history`): who, when, where, which key, the value before and after
    (None: not set there, inherited)."""

    __tablename__ = "setting_changes"
    __table_args__ = (Index("ix_setting_changes_workspace_id_changed_at", "workspace_id", "changed_at"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    channel_id: Mapped[int | None] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"))
    """The channel whose setting changed (None: the workspace's)."""
    key: Mapped[str] = mapped_column(String(32))
    old_value: Mapped[str | None] = mapped_column(String(64))
    new_value: Mapped[str | None] = mapped_column(String(64))
    changed_by: Mapped[str] = mapped_column(String(64))
    changed_at: Mapped[datetime]
