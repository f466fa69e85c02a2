"""Seasons: a workspace's named windows of answers, at most one running at a time."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, select, update
from sqlalchemy.exc import IntegrityError

from bot.db.models import Answer, Channel, Season
from bot.db.rows import rows_changed
from bot.domain import ChannelRef
from bot.domain.windows import Span
from bot.service.repositories.base import Repository
from bot.service.repositories.lookups import CHANNEL_REF_COLUMNS, channel_ref_of, joined_to_channel, running_season


class Seasons(Repository):
    """A workspace's seasons: started, ended once, listed."""

    async def get(self, season_id: int) -> Season | None:
        """The season of this id, if there is one."""
        return await self._session.get(Season, season_id)

    async def running(self, workspace: int | None) -> Season | None:
        """The season running in a workspace (at most one), if any."""
        return await running_season(self._session, workspace)

    async def name_taken(self, workspace: int, name: str) -> bool:
        """Whether a season of the workspace already has this name (any case)."""
        same_name = select(Season.id).where(Season.workspace_id == workspace, Season.key == name.casefold())
        return (await self._session.execute(same_name)).scalar() is not None

    async def add(self, season: Season) -> bool:
        """Insert a season; False if another one took its place first (one running per workspace, names unique)."""
        self._session.add(season)
        try:
            await self._session.flush()
        except IntegrityError:
            return False
        return True

    async def end(self, season_id: int, ended_at: datetime, ended_by: int | None) -> bool:
        """End a running season; False if it has already ended (the ticker or another admin got there first)."""
        changed = await self._session.execute(
            update(Season)
            .where(Season.id == season_id, Season.ended_at.is_(None))
            .values(ended_at=ended_at, ended_by=ended_by)
            .execution_options(synchronize_session=False)
        )
        return rows_changed(changed) > 0

    async def of_workspace(self, workspace: int) -> list[Season]:
        """The workspace's seasons: the running one first, then the others, newest first."""
        query = (
            select(Season)
            .where(Season.workspace_id == workspace)
            .order_by(Season.ended_at.is_not(None), Season.starts_at.desc())
        )
        return list((await self._session.execute(query)).scalars().all())

    async def channels_with_answers(self, workspace: int, span: Span) -> list[ChannelRef]:
        """The workspace's channels that had answers within `span`, in the order they were first seen."""
        answered_here = select(Answer.id).where(Answer.channel_id == Channel.id, *_in_span(span)).exists()
        query = (
            joined_to_channel(select(*CHANNEL_REF_COLUMNS))
            .where(Channel.workspace_id == workspace, answered_here)
            .order_by(Channel.id)
        )
        return [channel_ref_of(row) for row in await self._session.execute(query)]


def _in_span(span: Span) -> list[ColumnElement[bool]]:
    """The conditions on `answers.answered_at` of a span (as the read side's `stats.in_span`)."""
    conditions = [Answer.answered_at >= span.start] if span.start is not None else []
    if span.end is not None:
        conditions.append(Answer.answered_at < span.end)
    return conditions
