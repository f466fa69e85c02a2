"""Settings changed in chat (`uow.settings`): a workspace's and a channel's own values, and their history; and the
census `quizbot doctor` reads."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.db import Database
from bot.db.models import Channel, ChannelSetting, SettingChangeRow, Workspace, WorkspaceSetting
from bot.domain import ChannelRef
from bot.domain.settings import Overrides, SettingChange, SettingKey, SettingScope
from bot.service.repositories.base import Repository
from bot.service.repositories.directory import insert_ignoring_conflict

HISTORY_LIMIT = 20
"""Changes `/quiz settings history` shows, newest first."""


def _keyed(rows: object) -> dict[SettingKey, str]:
    known = {key.value: key for key in SettingKey}
    return {known[key]: value for key, value in rows if key in known}  # type: ignore[attr-defined]


class SettingsStore(Repository):
    """The settings a workspace and its channels set (a repository over `workspace_settings`, `channel_settings` and
    `setting_changes`)."""

    async def overrides(self, where: ChannelRef) -> Overrides:
        """What the channel's workspace and the channel itself set (nothing is created for a place never seen)."""
        workspace = (
            await self._session.execute(
                select(WorkspaceSetting.key, WorkspaceSetting.value)
                .join(Workspace, Workspace.id == WorkspaceSetting.workspace_id)
                .where(Workspace.platform == where.platform, Workspace.external_id == where.workspace_id)
            )
        ).all()
        channel = (
            await self._session.execute(
                select(ChannelSetting.key, ChannelSetting.value)
                .join(Channel, Channel.id == ChannelSetting.channel_id)
                .join(Workspace, Workspace.id == Channel.workspace_id)
                .where(
                    Workspace.platform == where.platform,
                    Workspace.external_id == where.workspace_id,
                    Channel.external_id == where.channel_id,
                )
            )
        ).all()
        return Overrides(workspace=_keyed(workspace), channel=_keyed(channel))

    async def change(
        self, workspace: int, channel: int | None, key: SettingKey, value: str | None, *, by: str, now: datetime
    ) -> str | None:
        """Set a key in the workspace (`channel` None) or in one channel, or clear it there (`value` None); returns
        the value it had there before. A change that changes something is kept in the history."""
        by = by[:64]
        row = await self._row(workspace, channel, key)
        if row is None and value is not None:
            # Insert, unless another request set the key first (ON CONFLICT DO NOTHING waits for it to commit):
            # then change its row like any other, and the history says what it had set.
            fields = {"key": key.value, "value": value, "changed_by": by, "changed_at": now}
            model, place = (
                (WorkspaceSetting, {"workspace_id": workspace})
                if channel is None
                else (ChannelSetting, {"channel_id": channel})
            )
            statement = insert_ignoring_conflict(self._session, model, place | fields, [*place, "key"])
            if (await self._session.execute(statement.returning(model.key))).scalar() is not None:
                before = None
                self._add_change(workspace, channel, key, before=before, value=value, by=by, now=now)
                await self._session.flush()
                return before
            row = await self._row(workspace, channel, key)
        before = row.value if row is not None else None
        if before == value:
            return before
        if row is not None and value is None:
            await self._session.delete(row)
        elif row is not None and value is not None:
            row.value, row.changed_by, row.changed_at = value, by, now
        self._add_change(workspace, channel, key, before=before, value=value, by=by, now=now)
        await self._session.flush()
        return before

    async def _row(
        self, workspace: int, channel: int | None, key: SettingKey
    ) -> WorkspaceSetting | ChannelSetting | None:
        """The scope's row of a key, locked until the transaction ends (PostgreSQL: FOR UPDATE; SQLite's write
        transactions are serial already), read afresh rather than from the session's identity map."""
        model: type[WorkspaceSetting] | type[ChannelSetting]
        if channel is None:
            model, where = WorkspaceSetting, WorkspaceSetting.workspace_id == workspace
        else:
            model, where = ChannelSetting, ChannelSetting.channel_id == channel
        query = (
            select(model)
            .where(where, model.key == key.value)
            .with_for_update()
            .execution_options(populate_existing=True)
        )
        row = (await self._session.execute(query)).scalar()
        return row if isinstance(row, WorkspaceSetting | ChannelSetting) else None

    def _add_change(
        self,
        workspace: int,
        channel: int | None,
        key: SettingKey,
        *,
        before: str | None,
        value: str | None,
        by: str,
        now: datetime,
    ) -> None:
        """Keep a change in the history."""
        self._session.add(
            SettingChangeRow(
                workspace_id=workspace,
                channel_id=channel,
                key=key.value,
                old_value=before,
                new_value=value,
                changed_by=by,
                changed_at=now,
            )
        )

    async def history(self, workspace: int, limit: int = HISTORY_LIMIT) -> list[SettingChange]:
        """The workspace's latest changes (its own and its channels'), newest first."""
        rows = (
            await self._session.execute(
                select(SettingChangeRow, Channel.external_id)
                .outerjoin(Channel, Channel.id == SettingChangeRow.channel_id)
                .where(SettingChangeRow.workspace_id == workspace)
                .order_by(SettingChangeRow.changed_at.desc(), SettingChangeRow.id.desc())
                .limit(limit)
            )
        ).all()
        known = {key.value: key for key in SettingKey}
        return [
            SettingChange(
                at=row.changed_at,
                by=row.changed_by,
                scope=SettingScope.WORKSPACE if row.channel_id is None else SettingScope.CHANNEL,
                channel=channel,
                key=known[row.key],
                old=row.old_value,
                new=row.new_value,
            )
            for row, channel in rows
            if row.key in known
        ]


# --- the doctor's census ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SettingsCensus:
    """How many workspaces and channels set each key (`quizbot doctor`), and, for one workspace when asked, what it
    and each of its channels set."""

    workspaces: Counter[SettingKey] = field(default_factory=Counter)
    channels: Counter[SettingKey] = field(default_factory=Counter)
    workspace: Overrides | None = None
    """The asked-for workspace's own values (None: none asked, or not found)."""
    channel_values: dict[str, dict[SettingKey, str]] = field(default_factory=dict)
    """Its channels' own values, by the channel's platform id."""


async def settings_census(db: Database, workspace: tuple[str, str] | None = None) -> SettingsCensus:
    """Count the overrides of each key over the whole database; with `workspace` (platform, platform id), also read
    that workspace's own values and its channels'. Read only, on a connection of its own (the doctor's)."""
    async with db.engine.connect() as connection:
        return await _census(connection, workspace)


async def _census(connection: AsyncConnection, workspace: tuple[str, str] | None) -> SettingsCensus:
    known = {key.value: key for key in SettingKey}
    counts: list[Counter[SettingKey]] = []
    for model in (WorkspaceSetting, ChannelSetting):
        rows = (await connection.execute(select(model.key, func.count()).group_by(model.key))).all()
        counts.append(Counter({known[key]: count for key, count in rows if key in known}))
    census = SettingsCensus(workspaces=counts[0], channels=counts[1])
    if workspace is None:
        return census
    platform, external = workspace
    found = (
        await connection.execute(
            select(Workspace.id).where(Workspace.platform == platform, Workspace.external_id == external)
        )
    ).scalar_one_or_none()
    if found is None:
        return census
    own = _keyed(
        (
            await connection.execute(
                select(WorkspaceSetting.key, WorkspaceSetting.value).where(WorkspaceSetting.workspace_id == found)
            )
        ).all()
    )
    channels: dict[str, dict[SettingKey, str]] = {}
    channel_rows = (
        await connection.execute(
            select(Channel.external_id, ChannelSetting.key, ChannelSetting.value)
            .join(Channel, Channel.id == ChannelSetting.channel_id)
            .where(Channel.workspace_id == found)
            .order_by(Channel.external_id)
        )
    ).all()
    for channel, key, value in channel_rows:
        if key in known:
            channels.setdefault(channel, {})[known[key]] = value
    return SettingsCensus(census.workspaces, census.channels, Overrides(workspace=own), channels)
