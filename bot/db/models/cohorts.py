"""Cohorts and their members."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import JSON, Date, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models.base import Base, BigId


class Cohort(Base):
    """A named group of a workspace (an onboarding cohort) with a start date and a curriculum of packs in order.

    `key` is the casefolded name (names are unique per workspace whatever their case); `starts_at` is the start
    date's local midnight in the workspace's timezone, as UTC: answers from then on count for the cohort.
    """

    __tablename__ = "cohorts"
    __table_args__ = (UniqueConstraint("workspace_id", "key"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(64))
    start_date: Mapped[date] = mapped_column(Date)
    starts_at: Mapped[datetime]
    packs: Mapped[list[str]] = mapped_column(JSON, default=list)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime]
    delivery: Mapped[str] = mapped_column(String(16), default="channel", server_default="channel")
    """How its schedules deliver the curriculum (bot.domain.Delivery): `channel` (one post in the schedule's
    channel) or `dm` (each member privately, at the schedule's time in their own timezone)."""


class CohortMember(Base):
    """A member of a cohort, with their totals since the cohort's start (a rollup kept like UserScore)."""

    __tablename__ = "cohort_members"
    __table_args__ = (Index("ix_cohort_members_user", "user_id"),)

    cohort_id: Mapped[int] = mapped_column(ForeignKey("cohorts.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    joined_at: Mapped[datetime]
    added_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    points: Mapped[int] = mapped_column(Integer, default=0)
    correct: Mapped[int] = mapped_column(Integer, default=0)
    answered: Mapped[int] = mapped_column(Integer, default=0)
