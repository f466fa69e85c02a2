"""A workspace's seasons."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint, event, text
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models.base import Base, BigId

RUNNING_INDEX = Index("ix_seasons_running", "workspace_id", unique=True)
"""At most one running season a workspace: a partial unique index, `WHERE ended_at IS NULL` on both databases.

Its WHERE is not given as `sqlite_where=` / `postgresql_where=`: SQLAlchemy checks a `<dialect>_<name>` argument by
loading that dialect, so the model would import the PostgreSQL dialect (~20 ms: its package imports every DBAPI
module it supports) at every start, SQLite's included. `_running_only` gives the index its WHERE as it is created
(`Base.metadata.create_all`, `Index.create`), in the options of the dialect creating it, which both DDL compilers
read (`index.dialect_options[<dialect>]["where"]`): by then that dialect is loaded anyway. The migrations
(0007_seasons_confirmations) create it with both keyword arguments, as migration scripts load only when a migration
runs. Alembic's autogenerate (1.20) compares an index's columns and uniqueness, not its WHERE (the migration checks pass
either way); a migration written from the models by autogenerate would need the WHERE added by hand."""


@event.listens_for(RUNNING_INDEX, "before_create")
def _running_only(index: Index, connection: Any, **_: Any) -> None:
    """Before `ix_seasons_running` is created: its WHERE, in the options of the dialect creating it."""
    dialect = connection.dialect.name
    if dialect in ("sqlite", "postgresql"):
        index.dialect_options[dialect]["where"] = text("ended_at IS NULL")


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
        RUNNING_INDEX,
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
