"""INSERT .. ON CONFLICT DO UPDATE in the session's dialect: one statement, safe under concurrent writers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import Table
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import Base
from bot.service.directory import dialect_insert

COUNTERS = ("points", "correct", "answered")


async def add_to_totals_many(
    session: AsyncSession, model: type[Base], rows: list[dict[str, Any]], keys: list[str], counters: Sequence[str]
) -> None:
    """INSERT each row, or add its `counters` to the existing row with the same `keys` (one executemany).

    Each key may appear once in `rows` (sum them first): one INSERT may not update the same row twice.
    """
    if not rows:
        return
    table = cast(Table, model.__table__)
    statement = dialect_insert(session, model)
    changes = {name: table.c[name] + statement.excluded[name] for name in counters}
    await session.execute(statement.on_conflict_do_update(index_elements=keys, set_=changes), rows)
