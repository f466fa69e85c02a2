"""Small shared reads: a workspace by its platform id, a cohort by name, and local dates in a workspace's timezone;
and the pieces of statements several repositories share (`one_of`, `joined_to_channel`)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any, NamedTuple, TypeVarTuple, cast
from zoneinfo import ZoneInfo

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    ScalarSelect,
    Select,
    String,
    any_,
    bindparam,
    func,
    literal_column,
    select,
)
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.expression import TableValuedAlias
from sqlalchemy.types import TypeEngine

from bot.db.models import Channel, Cohort, Season, Workspace
from bot.domain import ChannelRef
from bot.domain.windows import Span
from bot.errors import NoSeasonRunning, UnknownCohort, UnknownSeason
from bot.wording import cohorts as cohort_words
from bot.wording import seasons as season_words


def local_midnight(day: date, timezone: str) -> datetime:
    """The UTC instant at which `day` begins in `timezone`."""
    return datetime(day.year, day.month, day.day, tzinfo=ZoneInfo(timezone)).astimezone(UTC)


def local_date(instant: datetime, timezone: str) -> date:
    """The calendar date of an instant in `timezone`."""
    return instant.astimezone(ZoneInfo(timezone)).date()


class WorkspaceRow(NamedTuple):
    """A workspace's row id and timezone."""

    id: int
    timezone: str


async def workspace_row(session: AsyncSession, platform: str, external_id: str) -> WorkspaceRow | None:
    """(row id, timezone) of a workspace, or None if it has never been seen."""
    row = (
        await session.execute(
            select(Workspace.id, Workspace.timezone).where(
                Workspace.platform == platform, Workspace.external_id == external_id
            )
        )
    ).first()
    return WorkspaceRow(int(row.id), row.timezone) if row else None


async def channel_row(session: AsyncSession, workspace: int, channel: ChannelRef) -> int | None:
    """The row id of a channel of a workspace, or None if it has never been seen."""
    found = (
        await session.execute(
            select(Channel.id).where(Channel.workspace_id == workspace, Channel.external_id == channel.channel_id)
        )
    ).scalar()
    return int(found) if found is not None else None


async def find_cohort(session: AsyncSession, workspace: int | None, name: str) -> Cohort:
    """The cohort of this name (any case) in a workspace, or UnknownCohort naming the cohorts there are."""
    found = None
    if workspace is not None:
        found = (
            await session.execute(select(Cohort).where(Cohort.workspace_id == workspace, Cohort.key == name.casefold()))
        ).scalar()
    if found is not None:
        return found
    names = []
    if workspace is not None:
        names = list(
            (
                await session.execute(select(Cohort.name).where(Cohort.workspace_id == workspace).order_by(Cohort.key))
            ).scalars()
        )
    raise UnknownCohort(cohort_words.unknown_cohort(name, names))


async def running_season(session: AsyncSession, workspace: int | None) -> Season | None:
    """The season running in a workspace (at most one), if any."""
    if workspace is None:
        return None
    return (
        await session.execute(select(Season).where(Season.workspace_id == workspace, Season.ended_at.is_(None)))
    ).scalar()


async def find_season(session: AsyncSession, workspace: int | None, name: str | None) -> Season:
    """The season of this name (any case), or the running one when `name` is None; NotFound says what there is."""
    if name is None:
        running = await running_season(session, workspace)
        if running is None:
            raise NoSeasonRunning(season_words.none_running())
        return running
    found = None
    if workspace is not None:
        found = (
            await session.execute(select(Season).where(Season.workspace_id == workspace, Season.key == name.casefold()))
        ).scalar()
    if found is not None:
        return found
    names: list[str] = []
    if workspace is not None:
        names = list(
            (
                await session.execute(
                    select(Season.name).where(Season.workspace_id == workspace).order_by(Season.starts_at.desc())
                )
            ).scalars()
        )
    raise UnknownSeason(season_words.unknown_season(name, names))


def season_span(season: Season) -> Span:
    """The answers a season counts: from its start until it ended (or its planned end; open while it runs)."""
    return Span(start=season.starts_at, end=season.ended_at or season.ends_at)


_Ts = TypeVarTuple("_Ts")


# --- the one join from a channel row to the platform's ids -----------------------------------------------------

CHANNEL_REF_COLUMNS = (
    Workspace.platform.label("platform"),
    Workspace.external_id.label("workspace"),
    Channel.external_id.label("channel"),
)
"""Select these (with `joined_to_channel`) to rebuild a ChannelRef with `channel_ref_of(row)`."""


def joined_to_channel(query: Select[*_Ts], channel_row: Any = None) -> Select[*_Ts]:
    """`query` joined to the channel that `channel_row` (a column holding a channel's row id) names, or selecting
    from channels when None, and to its workspace, so CHANNEL_REF_COLUMNS and `in_channel` can be used on it."""
    query = query.select_from(Channel) if channel_row is None else query.join(Channel, Channel.id == channel_row)
    return query.join(Workspace, Workspace.id == Channel.workspace_id)


def in_workspace(ref: ChannelRef) -> list[ColumnElement[bool]]:
    """Conditions matching the workspace of a channel's platform ids (on a query made with `joined_to_channel`)."""
    return [Workspace.platform == ref.platform, Workspace.external_id == ref.workspace_id]


def in_channel(ref: ChannelRef) -> list[ColumnElement[bool]]:
    """Conditions matching the channel of these platform ids (on a query made with `joined_to_channel`)."""
    return [*in_workspace(ref), Channel.external_id == ref.channel_id]


def channel_ref_of(row: Any) -> ChannelRef:
    """The ChannelRef of a row that selected CHANNEL_REF_COLUMNS."""
    return ChannelRef(platform=row.platform, workspace_id=row.workspace, channel_id=row.channel)


def one_of(column: Any, dialect: str, name: str = "ids", item: TypeEngine[Any] | None = None) -> ColumnElement[bool]:
    """Rows whose `column` is one of the `name` parameter (a list of ids, or of `item`s): one array parameter on
    PostgreSQL, so the statement has one text whatever the list's length (asyncpg prepares it once); a list of
    parameters on SQLite."""
    if dialect == "postgresql":
        array = postgresql_array(item if item is not None else BigInteger())
        return cast(ColumnElement[bool], column == any_(bindparam(name, type_=array)))
    return cast(ColumnElement[bool], column.in_(bindparam(name, expanding=True)))


def postgresql_array(item: TypeEngine[Any]) -> TypeEngine[Any]:
    """PostgreSQL's ARRAY of `item`, for an array parameter. The dialect is imported here, as the first PostgreSQL
    statement is built: its package (~20 ms, every DBAPI module it supports) is not loaded at start-up on SQLite."""
    from sqlalchemy.dialects.postgresql import ARRAY  # noqa: PLC0415

    return ARRAY(item)


def json_rows(name: str) -> TableValuedAlias:
    """SQLite: the parameter `name`, one JSON array, as a table of its elements (column `value`): one statement text
    and one parameter whatever the array's length (SQLAlchemy expands a list a value at each execution)."""
    return func.json_each(bindparam(name, type_=String())).table_valued("value")


def json_item(value: Any, index: int) -> ColumnElement[Any]:
    """SQLite: the `index`-th element of a JSON array (a row of `json_rows`)."""
    return func.json_extract(value, literal_column(f"'$[{index}]'"))


def among_rows(column: Any, rows: Select[Any] | ScalarSelect[Any]) -> ColumnElement[bool]:
    """PostgreSQL: rows whose `column` is one of the values a one-column subquery selects, as `column =
    ANY(ARRAY(rows))` (`one_of`'s array, filled by the subquery): the subquery runs once into an array and the
    rows are looked up by `column`'s index, where `IN (rows)` or a join of a few hundred rows is planned as a hash
    over the whole table. Other dialects keep their own forms (SQLite looks each row up by its key already)."""
    found = rows if isinstance(rows, ScalarSelect) else rows.scalar_subquery()
    return cast(ColumnElement[bool], column == any_(func.array(found)))
