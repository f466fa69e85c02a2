"""What the scheduler ends when its time is up: posts whose `closes_at` passed, seasons whose `ends_at` passed.

Each end is a conditional update (`closed_at IS NULL`, `ended_at IS NULL`): however many replicas tick at once,
one ends each post or season, and only that one reveals or announces it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select, update

from bot.db.models import Post, Season, Workspace
from bot.db.rows import rows_changed
from bot.domain import ChannelRef
from bot.service.repositories.base import Repository
from bot.service.repositories.lookups import CHANNEL_REF_COLUMNS, channel_ref_of, joined_to_channel


class Deadlines(Repository):
    """Closing due posts and ending due seasons, one replica each."""

    async def close_due_posts(
        self, now: datetime, platforms: Sequence[str], *, limit: int
    ) -> list[tuple[int, ChannelRef]]:
        """Close the sent posts (of these platforms) whose close time has passed; (id, channel) of those closed here."""
        rows = (
            await self._session.execute(
                joined_to_channel(select(Post.id, Post.closes_at, *CHANNEL_REF_COLUMNS), Post.channel_id)
                .where(
                    Post.closed_at.is_(None),
                    Post.closes_at.is_not(None),
                    Post.closes_at <= now,
                    Post.message_ref.is_not(None),
                    Workspace.platform.in_(list(platforms)),
                )
                # By id among equal close times, so that replicas closing the same posts lock them in one order.
                .order_by(Post.closes_at, Post.id)
                .limit(limit)
            )
        ).all()
        closed = []
        for row in rows:
            # Whoever closes the post reveals it: one replica, once.
            if rows_changed(
                await self._session.execute(
                    update(Post).where(Post.id == row.id, Post.closed_at.is_(None)).values(closed_at=row.closes_at)
                )
            ):
                closed.append((int(row.id), channel_ref_of(row)))
        return closed

    async def end_due_seasons(self, now: datetime, platforms: Sequence[str], *, limit: int) -> list[int]:
        """End the seasons (of workspaces on these platforms) whose `ends_at` has passed; ids of those ended here."""
        rows = (
            await self._session.execute(
                select(Season.id, Season.ends_at)
                .join(Workspace, Workspace.id == Season.workspace_id)
                .where(
                    Season.ended_at.is_(None),
                    Season.ends_at.is_not(None),
                    Season.ends_at <= now,
                    Workspace.platform.in_(list(platforms)),
                )
                .order_by(Season.ends_at, Season.id)
                .limit(limit)
            )
        ).all()
        ended = []
        for row in rows:
            # It ends at its planned end, not at this tick: the season's board counts up to `until`, whenever the
            # tick that noticed came.
            if rows_changed(
                await self._session.execute(
                    update(Season).where(Season.id == row.id, Season.ended_at.is_(None)).values(ended_at=row.ends_at)
                )
            ):
                ended.append(int(row.id))
        return ended
