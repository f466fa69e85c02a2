"""INSERT .. ON CONFLICT DO UPDATE in the session's dialect: one statement, safe under concurrent writers."""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import Base


def upsert(
    session: AsyncSession, model: type[Base], values: dict[str, Any], keys: list[str], on_conflict: dict[str, Any]
) -> Any:
    """INSERT .. ON CONFLICT (keys) DO UPDATE SET on_conflict, in the session's dialect (one statement).

    Values of `on_conflict` may be callables of (table, excluded) for updates that read the current row.
    """
    table = cast(Table, model.__table__)
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    statement = insert(table).values(**values)
    changes = {
        name: change(table, statement.excluded) if callable(change) else change for name, change in on_conflict.items()
    }
    return statement.on_conflict_do_update(index_elements=keys, set_=changes)


async def add_to_totals(
    session: AsyncSession, model: type[Base], values: dict[str, Any], keys: list[str], add: dict[str, int]
) -> None:
    """INSERT the row, or add `add` to its counters when a row with the same `keys` exists (one statement)."""
    changes = {name: (lambda table, excluded, name=name: table.c[name] + excluded[name]) for name in add}
    await session.execute(upsert(session, model, {**values, **add}, keys, changes))
