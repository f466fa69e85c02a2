"""The leaderboards' rollups of `answers` (all-time per workspace and per channel, per period per workspace) and
the indexes every board reads them through."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models.base import Base


class UserScore(Base):
    """A user's all-time totals in their workspace: a rollup of `answers` kept in the answer's own transaction.

    The all-time workspace board is then an index scan of this table instead of an aggregate of every answer.
    """

    __tablename__ = "user_scores"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    points: Mapped[int] = mapped_column(Integer, default=0)
    correct: Mapped[int] = mapped_column(Integer, default=0)
    answered: Mapped[int] = mapped_column(Integer, default=0)


class ChannelScore(Base):
    """A user's all-time totals in one channel (same rollup as UserScore, for the channel board)."""

    __tablename__ = "channel_scores"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    channel_id: Mapped[int] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"), primary_key=True)
    points: Mapped[int] = mapped_column(Integer, default=0)
    correct: Mapped[int] = mapped_column(Integer, default=0)
    answered: Mapped[int] = mapped_column(Integer, default=0)


class PeriodScore(Base):
    """A user's totals in one period of a windowed board of their workspace (this week, this month), a rollup kept
    like UserScore, so the workspace's week and month boards are an index scan instead of a sum over the window's
    answers (a channel's boards sum its answers: a twentieth of the workspace's in the benchmark, and a second
    rollup per answer cost the answer path more than it saved there).

    `period` is the window (bot.domain.windows.Window value), `period_start` where that period starts in the
    workspace's timezone (window_start of the answer's time), in UTC. Boards read the rows of the period containing
    now; they fall back to summing answers if rows of the same period keyed in another timezone exist (the
    workspace's timezone was changed), so a board is always exact. A season's rows have `period` `season:<season
    id>` and `period_start` the season's `starts_at` (service/repositories/scores.py `season_period`): keyed by the
    season itself, no timezone in it.
    """

    __tablename__ = "period_scores"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    period: Mapped[str] = mapped_column(String(16), primary_key=True)
    period_start: Mapped[datetime] = mapped_column(primary_key=True)
    workspace_id: Mapped[int] = mapped_column(ForeignKey("workspaces.id", ondelete="CASCADE"))
    points: Mapped[int] = mapped_column(Integer, default=0)
    correct: Mapped[int] = mapped_column(Integer, default=0)
    answered: Mapped[int] = mapped_column(Integer, default=0)


def _board_order(rollup: type[UserScore] | type[ChannelScore] | type[PeriodScore]) -> tuple[Any, ...]:
    """A rollup's columns in the order every board ranks them (bot.domain.ranking): points and correct answers most
    first, answers fewest first, then the user; a board index in this order is read from its top, nothing sorted."""
    return (rollup.points.desc(), rollup.correct.desc(), rollup.answered, rollup.user_id)


Index("ix_user_scores_board", UserScore.workspace_id, *_board_order(UserScore))
Index("ix_channel_scores_board", ChannelScore.channel_id, *_board_order(ChannelScore))
Index(
    "ix_period_scores_board",
    PeriodScore.workspace_id,
    PeriodScore.period,
    PeriodScore.period_start,
    *_board_order(PeriodScore),
)
