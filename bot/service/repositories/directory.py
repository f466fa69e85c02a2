"""Finding or creating the workspace, channel and user rows behind platform ids, safely under races."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import ColumnElement, Table, select, update
from sqlalchemy.dialects import sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.database import Database
from bot.db.models import Base, Channel, User, Workspace
from bot.domain import ChannelRef, UserRef

if TYPE_CHECKING:
    from sqlalchemy.dialects import postgresql


def insert_for(dialect: str, model: type[Base]) -> postgresql.Insert | sqlite.Insert:
    """An INSERT into the model's table in the named dialect (both have ON CONFLICT clauses): for a statement
    built once per dialect.

    PostgreSQL's is imported here, as it is first built: the dialect's package (~20 ms, every DBAPI module it
    supports) is not loaded at start-up on SQLite."""
    table = cast(Table, model.__table__)
    if dialect != "postgresql":
        return sqlite.insert(table)
    from sqlalchemy.dialects import postgresql  # noqa: PLC0415

    return postgresql.insert(table)


def dialect_insert(session: AsyncSession, model: type[Base]) -> postgresql.Insert | sqlite.Insert:
    """An INSERT into the model's table in the session's dialect (both have ON CONFLICT clauses)."""
    return insert_for(session.get_bind().dialect.name, model)


def insert_ignoring_conflict(
    session: AsyncSession, model: type[Base], values: dict[str, Any] | None, keys: list[str]
) -> postgresql.Insert | sqlite.Insert:
    """An INSERT that skips rows conflicting on `keys` (ON CONFLICT DO NOTHING).

    With `values=None` the statement takes its rows as execute() parameters: a list of rows then runs as one
    executemany, which SQLAlchemy batches into multi-row INSERTs from a cached compilation (RETURNING included).
    """
    statement = dialect_insert(session, model)
    if values is not None:
        statement = statement.values(values)
    return statement.on_conflict_do_nothing(index_elements=keys)


async def find_or_insert(
    session: AsyncSession, model: type[Workspace | Channel | User], values: dict[str, Any], keys: list[str]
) -> int:
    """The id of the row whose `keys` columns equal `values`, inserting it first if missing (race-safe)."""
    match: list[ColumnElement[bool]] = [getattr(model, key) == values[key] for key in keys]
    found = (await session.execute(select(model.id).where(*match))).scalar()
    if found is not None:
        return int(found)
    statement = insert_ignoring_conflict(session, model, values, keys).returning(model.id)
    inserted = (await session.execute(statement)).scalar()
    if inserted is not None:
        return int(inserted)
    # Another transaction inserted it between our read and our insert.
    return int((await session.execute(select(model.id).where(*match))).scalar_one())


class Directory:
    """Maps platform ids to row ids. Workspace and channel ids are cached once committed (never renumbered)."""

    def __init__(self, *, default_timezone: str) -> None:
        self.default_timezone = default_timezone
        self._workspaces: dict[tuple[str, str], int] = {}
        self._channels: dict[tuple[str, str, str], int] = {}
        self._enterprises: dict[tuple[str, str], str] = {}

    def forget(self) -> None:
        """Drop the cache (after rows were deleted)."""
        self._workspaces.clear()
        self._channels.clear()
        self._enterprises.clear()

    async def workspace_id(
        self, session: AsyncSession, platform: str, external_id: str, now: datetime, *, enterprise_id: str | None = None
    ) -> int:
        """The row id of a workspace, created on first sight; `enterprise_id` (when the platform names one) is
        recorded on it."""
        key = (platform, external_id)
        row_id = self._workspaces.get(key)
        if row_id is None:
            values = {
                "platform": platform,
                "external_id": external_id,
                "name": "",
                "timezone": self.default_timezone,
                "created_at": now,
                "enterprise_id": enterprise_id,
            }
            found = row_id = await find_or_insert(session, Workspace, values, ["platform", "external_id"])
            Database.after_commit(session, lambda: self._workspaces.__setitem__(key, found))
        if enterprise_id is not None and self._enterprises.get(key) != enterprise_id:
            await self._record_enterprise(session, key, row_id, enterprise_id)
        return row_id

    async def _record_enterprise(
        self, session: AsyncSession, key: tuple[str, str], row_id: int, enterprise_id: str
    ) -> None:
        """Keep a workspace's organisation as its platform last named it: read first, written only when it
        changed (once per workspace, in practice), and cached once committed (never from a rolled-back one)."""
        stored = (await session.execute(select(Workspace.enterprise_id).where(Workspace.id == row_id))).scalar()
        if stored != enterprise_id:
            await session.execute(update(Workspace).where(Workspace.id == row_id).values(enterprise_id=enterprise_id))
        Database.after_commit(session, lambda: self._enterprises.__setitem__(key, enterprise_id))

    async def channel_id(self, session: AsyncSession, ref: ChannelRef, now: datetime) -> int:
        """The row id of a channel, created on first sight (its workspace's organisation recorded, when known)."""
        key = (ref.platform, ref.workspace_id, ref.channel_id)
        known = ref.enterprise_id is None or self._enterprises.get(key[:2]) == ref.enterprise_id
        if key in self._channels and known:
            return self._channels[key]
        workspace = await self.workspace_id(
            session, ref.platform, ref.workspace_id, now, enterprise_id=ref.enterprise_id
        )
        if key in self._channels:
            return self._channels[key]
        values = {"workspace_id": workspace, "external_id": ref.channel_id, "name": "", "created_at": now}
        row_id = await find_or_insert(session, Channel, values, ["workspace_id", "external_id"])
        Database.after_commit(session, lambda: self._channels.__setitem__(key, row_id))
        return row_id

    async def user_id(self, session: AsyncSession, ref: UserRef, now: datetime) -> int:
        """The row id of a user, created on first sight; the display name is kept current."""
        workspace = await self.workspace_id(session, ref.platform, ref.workspace_id, now)
        values = {
            "workspace_id": workspace,
            "external_id": ref.user_id,
            "display_name": ref.display_name or ref.user_id,
            "created_at": now,
        }
        row_id = await find_or_insert(session, User, values, ["workspace_id", "external_id"])
        if ref.display_name:
            user = await session.get(User, row_id)
            if user is not None and user.display_name != ref.display_name:
                user.display_name = ref.display_name
        return row_id
