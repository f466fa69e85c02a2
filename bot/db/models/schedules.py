"""Schedules and their fires: a channel's (or a cohort's) schedule, each fire slot's claim, and each member's
private fire."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models.base import Base, BigId


class Schedule(Base):
    """A channel's rule for posting questions (`weekdays 09:30` in Europe/Helsinki), and when it fires next.

    `rule` holds five cron fields (see bot.domain.schedules). `next_fire_at` is the UTC instant of the next fire and
    `next_slot` its local slot key; the ticker advances both with a conditional update, so replicas agree.
    """

    __tablename__ = "schedules"
    __table_args__ = (Index("ix_schedules_due", "enabled", "next_fire_at"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"), index=True)
    rule: Mapped[str] = mapped_column(String(200))
    timezone: Mapped[str] = mapped_column(String(64))
    pack_ids: Mapped[list[str]] = mapped_column(JSON, default=list)
    close_after_seconds: Mapped[int | None] = mapped_column(Integer)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    paused_reason: Mapped[str | None] = mapped_column(String(300))
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime]
    next_fire_at: Mapped[datetime | None]
    next_slot: Mapped[str | None] = mapped_column(String(16))
    cohort_id: Mapped[int | None] = mapped_column(BigId, index=True)
    """A cohort schedule: each fire posts the cohort's next curriculum question (instead of drawing from
    `pack_ids`); None for a pack schedule. No foreign key (SQLite would rebuild `schedules`, cascading into its
    fires): deleting a cohort deletes its schedules itself (repositories.Cohorts.remove)."""


class ScheduleFire(Base):
    """One fire slot of a schedule, claimed by a unique insert before anything is posted.

    (schedule_id, slot_key) is unique, so each slot posts at most once across replicas. `attempts` fences the
    claim: a replica that takes over an expired claim bumps it, and the old owner's lease renewal then fails.
    """

    __tablename__ = "schedule_fires"
    __table_args__ = (
        UniqueConstraint("schedule_id", "slot_key"),
        Index("ix_schedule_fires_status_claimed", "status", "claimed_at"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    schedule_id: Mapped[int] = mapped_column(ForeignKey("schedules.id", ondelete="CASCADE"))
    slot_key: Mapped[str] = mapped_column(String(16))
    due_at: Mapped[datetime]
    status: Mapped[str] = mapped_column(String(16))
    claimed_at: Mapped[datetime]
    claimed_by: Mapped[str] = mapped_column(String(100))
    attempts: Mapped[int] = mapped_column(Integer, default=1)
    post_id: Mapped[int | None] = mapped_column(ForeignKey("posts.id", ondelete="SET NULL"))
    detail: Mapped[str | None] = mapped_column(String(300))
    finished_at: Mapped[datetime | None]


class MemberFire(Base):
    """One member's fire slot of a privately delivered cohort schedule, claimed by a unique insert before sending.

    (schedule_id, user_id, slot_key) is unique: each member gets each slot at most once across replicas; `slot_key`
    is the slot in the member's own timezone. Leases, fencing by `attempts` and recovery work as for
    ScheduleFire (bot/scheduling/leases.py, delivery.py).
    """

    __tablename__ = "member_fires"
    __table_args__ = (
        UniqueConstraint("schedule_id", "user_id", "slot_key"),
        Index("ix_member_fires_status_claimed", "status", "claimed_at"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    schedule_id: Mapped[int] = mapped_column(ForeignKey("schedules.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    slot_key: Mapped[str] = mapped_column(String(16))
    due_at: Mapped[datetime]
    status: Mapped[str] = mapped_column(String(16))
    claimed_at: Mapped[datetime]
    claimed_by: Mapped[str] = mapped_column(String(100))
    attempts: Mapped[int] = mapped_column(Integer, default=1)
    post_id: Mapped[int | None] = mapped_column(ForeignKey("posts.id", ondelete="SET NULL"))
    detail: Mapped[str | None] = mapped_column(String(300))
    finished_at: Mapped[datetime | None]
