"""A workspace's seasons."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models.base import Base, BigId


class Season(Base):
    """A named stretch of time in a workspace whose answers make a board of their own (`/quiz season start`).

    The season's window is [starts_at, ended_at): `ends_at` is the planned end (`until:`, the local midnight after
    that date), `ended_at` when it really ended (by `/quiz season end`, or the ticker once `ends_at` passed), NULL
    while it runs. At most one season runs per workspace (a partial unique index). Ending is a conditional update
    (`ended_at IS NULL`), so whoever ends it, once, posts the final boards. `key` is the casefolded name.
    A season's totals per user are rollup rows of `period_scores` (period `season:<id>`, period_start `starts_at`),
    kept by the click path and settled when the season starts or ends (service/repositories/seasons.py).
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
