"""Places: the workspaces and channels the bot has seen, by their platform ids."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import Channel, User, Workspace
from bot.domain import ChannelRef, UserRef
from bot.service.repositories.directory import Directory
from bot.service.repositories.lookups import (
    CHANNEL_REF_COLUMNS,
    WorkspaceRow,
    channel_ref_of,
    joined_to_channel,
    workspace_row,
)


class Places:
    """The workspace, channel and user rows behind platform ids, within one unit of work (a repository)."""

    def __init__(self, session: AsyncSession, directory: Directory) -> None:
        self._session = session
        self._directory = directory

    async def workspace(self, platform: str, external_id: str) -> WorkspaceRow | None:
        """A workspace's row id and timezone, or None if it has never been seen (nothing is created)."""
        return await workspace_row(self._session, platform, external_id)

    async def workspace_id(self, platform: str, external_id: str, now: datetime) -> int:
        """The row id of a workspace, created on first sight."""
        return await self._directory.workspace_id(self._session, platform, external_id, now)

    async def channel_id(self, ref: ChannelRef, now: datetime) -> int:
        """The row id of a channel, created on first sight."""
        return await self._directory.channel_id(self._session, ref, now)

    async def user_id(self, ref: UserRef, now: datetime) -> int:
        """The row id of a user, created on first sight; the display name is kept current."""
        return await self._directory.user_id(self._session, ref, now)

    async def lock_channel(self, channel_row: int) -> None:
        """Hold a channel's row until the transaction ends, so that a check and the write it allows are one step per
        channel (`/quiz now`'s limits; PostgreSQL: FOR UPDATE; SQLite's write transactions are serial already)."""
        await self._session.execute(select(Channel.id).where(Channel.id == channel_row).with_for_update())

    async def remember_timezone(self, user_row: int, timezone: str) -> None:
        """Cache the timezone a user's platform profile gives ("" when it gives none)."""
        await self._session.execute(update(User).where(User.id == user_row).values(timezone=timezone[:64]))

    async def workspace_ref(self, workspace: int) -> tuple[str, str]:
        """The platform and platform id of a workspace's row."""
        row = (
            await self._session.execute(
                select(Workspace.platform, Workspace.external_id).where(Workspace.id == workspace)
            )
        ).one()
        return row.platform, row.external_id

    async def channel_ref(self, channel_row: int) -> ChannelRef:
        """The platform ids of a channel's row: the one join from a channel row to its platform and workspace ids
        (queries that select many channels use CHANNEL_REF_COLUMNS and `channel_ref_of`, repositories/lookups.py)."""
        query = joined_to_channel(select(*CHANNEL_REF_COLUMNS)).where(Channel.id == channel_row)
        return channel_ref_of((await self._session.execute(query)).one())
