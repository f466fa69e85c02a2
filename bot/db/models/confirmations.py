"""Actions waiting for their confirmation click."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models.base import Base


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
