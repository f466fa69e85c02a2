"""On SQLite a statement is one hand-off to aiosqlite's thread (bot.db.database.OneHopCursor), whatever it returns,
and what SQLAlchemy reads of the cursor is as aiosqlite's own cursor gave it: rows, row counts, the last row id."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from bot.db import Database
from bot.errors import StorageUnavailable


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = Database.from_url(f"sqlite+aiosqlite:///{tmp_path / 'hops.db'}")
    async with database.transaction() as session:
        await session.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)"))
    try:
        yield database
    finally:
        await database.dispose()


async def _hand_offs(db: Database, work: Callable[[Any], Any]) -> tuple[int, Any]:
    """How many functions `work` (given the session) sends to the connection's thread, and what it returns."""
    async with db.transaction() as session:
        raw = await (await session.connection()).get_raw_connection()
        aiosqlite_connection = raw.driver_connection
        execute = aiosqlite_connection._execute
        sent: list[Any] = []

        async def counting(fn: Any, *args: Any, **kwargs: Any) -> Any:
            sent.append(fn)
            return await execute(fn, *args, **kwargs)

        aiosqlite_connection._execute = counting
        try:
            result = await work(session)
        finally:
            aiosqlite_connection._execute = execute
    return len(sent), result


async def test_a_statement_is_one_hand_off_and_reads_as_before(db: Database) -> None:
    async def insert(session: Any) -> Any:
        return (await session.execute(text("INSERT INTO t (v) VALUES ('a'), ('b') RETURNING id, v"))).all()

    async def update(session: Any) -> Any:
        return (await session.execute(text("UPDATE t SET v = 'c' WHERE id >= :low"), {"low": 1})).rowcount

    async def select_rows(session: Any) -> Any:
        return (await session.execute(text("SELECT id, v FROM t ORDER BY id"))).all()

    async def insert_one(session: Any) -> Any:
        return (await session.execute(text("INSERT INTO t (v) VALUES ('d')"))).lastrowid

    async def insert_many(session: Any) -> Any:
        return (await session.execute(text("INSERT INTO t (v) VALUES (:v)"), [{"v": "e"}, {"v": "f"}])).rowcount

    assert await _hand_offs(db, insert) == (1, [(1, "a"), (2, "b")])
    assert await _hand_offs(db, update) == (1, 2)
    assert await _hand_offs(db, select_rows) == (1, [(1, "c"), (2, "c")])
    assert await _hand_offs(db, insert_one) == (1, 3)
    assert await _hand_offs(db, insert_many) == (1, 2)


async def test_a_failing_statement_raises_as_before_and_the_connection_goes_on(db: Database) -> None:
    async def bad(session: Any) -> Any:
        return await session.execute(text("SELECT * FROM no_such_table"))

    with pytest.raises(StorageUnavailable) as raised:  # SQLite's OperationalError, classified as it always was
        await _hand_offs(db, bad)
    assert "no such table" in str(raised.value.__cause__)
    async with db.transaction() as session:
        assert (await session.execute(text("SELECT count(*) FROM t"))).scalar_one() == 0
