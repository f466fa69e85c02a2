"""Read models: leaderboards and a user's stats, written as queries for speed rather than repository methods."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Select, and_, case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.commands import Scope, Window
from bot.db import Database
from bot.db.models import Answer, Channel, Post, QuestionRow, User, Workspace
from bot.domain import ChannelRef, Leaderboard, LeaderboardRow, UserRef, UserStats


def window_start(window: Window, now: datetime, timezone: str) -> datetime | None:
    """Start of the window containing `now`, in the workspace's timezone (weeks start on Monday), as UTC."""
    if window is Window.ALL:
        return None
    local = now.astimezone(ZoneInfo(timezone))
    midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
    start = midnight - timedelta(days=local.weekday()) if window is Window.WEEK else midnight.replace(day=1)
    # Re-attach the zone so a DST change inside the window yields that day's true UTC offset.
    start = start.replace(tzinfo=None).replace(tzinfo=ZoneInfo(timezone))
    return start.astimezone(UTC)


def rank_rows(rows: list[tuple[str, int, int, int]]) -> list[LeaderboardRow]:
    """Rank (name, points, correct, answered) rows: by points, then correct answers, then fewer answers.

    Equal on all three share a rank (1, 1, 3); within a rank, names sort alphabetically so the order is stable.
    """
    ordered = sorted(rows, key=lambda r: (-r[1], -r[2], r[3], r[0].casefold(), r[0]))
    ranked: list[LeaderboardRow] = []
    for index, (name, points, correct, answered) in enumerate(ordered):
        tied = ranked and (ranked[-1].points, ranked[-1].correct, ranked[-1].answered) == (
            points,
            correct,
            answered,
        )
        rank = ranked[-1].rank if tied else index + 1
        ranked.append(LeaderboardRow(rank=rank, name=name, points=points, correct=correct, answered=answered))
    return ranked


class Stats:
    """Leaderboards and per-user stats."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def _workspace(self, session: AsyncSession, platform: str, external_id: str) -> tuple[int, str] | None:
        row = (
            await session.execute(
                select(Workspace.id, Workspace.timezone).where(
                    Workspace.platform == platform, Workspace.external_id == external_id
                )
            )
        ).first()
        return (int(row.id), row.timezone) if row else None

    @staticmethod
    def _totals(workspace: int, start: datetime | None) -> Select[int, int, Any, int]:
        conditions = [Answer.workspace_id == workspace]
        if start is not None:
            conditions.append(Answer.answered_at >= start)
        return (
            select(
                Answer.user_id,
                func.sum(Answer.points).label("points"),
                func.sum(case((Answer.is_correct, 1), else_=0)).label("correct"),
                func.count(Answer.id).label("answered"),
            )
            .where(and_(*conditions))
            .group_by(Answer.user_id)
        )

    async def leaderboard(
        self, channel: ChannelRef, *, window: Window, scope: Scope, now: datetime, limit: int = 10
    ) -> Leaderboard:
        """The top of the leaderboard for a channel or its workspace, in a window."""
        async with self.db.transaction() as session:
            workspace = await self._workspace(session, channel.platform, channel.workspace_id)
            if workspace is None:
                return Leaderboard(scope=scope.value, window=window.value, rows=())
            workspace_row, tz = workspace
            totals = self._totals(workspace_row, window_start(window, now, tz))
            if scope is Scope.CHANNEL:
                totals = totals.join(Channel, Channel.id == Answer.channel_id).where(
                    Channel.external_id == channel.channel_id
                )
            sub = totals.subquery()
            rows = (
                await session.execute(
                    select(User.display_name, sub.c.points, sub.c.correct, sub.c.answered)
                    .join(sub, sub.c.user_id == User.id)
                    .order_by(sub.c.points.desc(), sub.c.correct.desc(), sub.c.answered, User.display_name)
                    .limit(limit * 3)  # ties at the cut are ranked in Python; read a margin
                )
            ).all()
        ranked = rank_rows([(r.display_name, int(r.points), int(r.correct), int(r.answered)) for r in rows])
        return Leaderboard(scope=scope.value, window=window.value, rows=tuple(ranked[:limit]))

    async def user_stats(self, user: UserRef, *, now: datetime) -> UserStats:
        """A user's all-time record in their workspace: answers, accuracy, points, rank, most-missed tags."""
        async with self.db.transaction() as session:
            workspace = await self._workspace(session, user.platform, user.workspace_id)
            empty = UserStats(name=user.display_name, answered=0, correct=0, points=0, rank=None)
            if workspace is None:
                return empty
            workspace_row, _tz = workspace
            user_row = (
                await session.execute(
                    select(User.id).where(User.workspace_id == workspace_row, User.external_id == user.user_id)
                )
            ).scalar()
            if user_row is None:
                return empty
            totals = self._totals(workspace_row, None).subquery()
            mine = (await session.execute(select(totals).where(totals.c.user_id == user_row))).first()
            if mine is None:
                return empty
            ahead = (
                await session.execute(
                    select(func.count())
                    .select_from(totals)
                    .where(
                        (totals.c.points > mine.points)
                        | ((totals.c.points == mine.points) & (totals.c.correct > mine.correct))
                        | (
                            (totals.c.points == mine.points)
                            & (totals.c.correct == mine.correct)
                            & (totals.c.answered < mine.answered)
                        )
                    )
                )
            ).scalar_one()
            missed = (
                await session.execute(
                    select(QuestionRow.tags)
                    .join(Post, Post.question_id == QuestionRow.id)
                    .join(Answer, Answer.post_id == Post.id)
                    .where(Answer.user_id == user_row, Answer.is_correct.is_(False))
                )
            ).scalars()
            tags = Counter(tag for row in missed for tag in (row or []))
        return UserStats(
            name=user.display_name,
            answered=int(mine.answered),
            correct=int(mine.correct),
            points=int(mine.points),
            rank=int(ahead) + 1,
            missed_tags=tuple(sorted(tags.items(), key=lambda item: (-item[1], item[0]))[:3]),
        )
