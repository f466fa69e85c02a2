"""The pool's ping at checkout on PostgreSQL: a bare ";" (no BEGIN/ROLLBACK around it) through SQLAlchemy's private
asyncpg adapter, used only while that adapter has what it relies on, and SQLAlchemy's own ping otherwise; sent only
to a connection idle for PING_AFTER_IDLE, a closed socket being found without it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.dialects.postgresql.asyncpg import AsyncAdapt_asyncpg_connection, PGDialect_asyncpg

from bot.db import Database, database
from bot.db.database import _ping_outside_a_transaction, bare_ping_supported, create_engine

PG_URL = "postgresql+asyncpg://nobody@127.0.0.1:1/none"  # never connected to: only the engine's set-up is looked at


def test_the_bare_ping_replaces_sqlalchemys_while_the_adapter_has_what_it_uses() -> None:
    engine = create_engine(PG_URL)
    assert bare_ping_supported(engine.dialect)
    assert engine.dialect.do_ping is _ping_outside_a_transaction


def test_sqlalchemys_own_ping_is_kept_when_the_adapter_lacks_what_the_bare_ping_uses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # As if a SQLAlchemy release dropped the BEGIN-wrapped ping the bare one replaces (or renamed its parts).
    monkeypatch.delattr(AsyncAdapt_asyncpg_connection, "_async_ping")
    engine = create_engine(PG_URL)
    assert not bare_ping_supported(engine.dialect)
    assert engine.dialect.do_ping.__func__ is PGDialect_asyncpg.do_ping  # type: ignore[attr-defined]


def test_sqlite_keeps_its_own_ping(tmp_path: Any) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path}/x.db")
    assert not bare_ping_supported(engine.dialect)
    assert engine.dialect.do_ping is not _ping_outside_a_transaction


def test_a_connection_without_the_private_parts_is_pinged_the_public_way() -> None:
    class Adapted:
        """An adapted connection of another SQLAlchemy: a public ping(), none of the private parts."""

        def __init__(self) -> None:
            self.pings = 0

        def ping(self) -> None:
            self.pings += 1

    connection = Adapted()
    assert _ping_outside_a_transaction(connection) is True
    assert connection.pings == 1


class HeldClock:
    """The clock of PING_AFTER_IDLE, moved by the test only."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now

    def idle(self) -> None:
        """As if every pooled connection had been idle for longer than PING_AFTER_IDLE."""
        self.now += database.PING_AFTER_IDLE + 1


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> HeldClock:
    held = HeldClock()
    monkeypatch.setattr(database, "_monotonic", held)
    return held


@pytest.fixture
def pings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every bare ping (";") sent by any asyncpg connection."""
    sent: list[str] = []
    fetchrow = asyncpg.connection.Connection.fetchrow

    async def counting(self: Any, query: str, *args: Any, **kwargs: Any) -> Any:
        if query == ";":
            sent.append(query)
        return await fetchrow(self, query, *args, **kwargs)

    monkeypatch.setattr(asyncpg.connection.Connection, "fetchrow", counting)
    return sent


@pytest.fixture
async def db(postgres_template: str) -> AsyncIterator[Database]:
    database = Database.from_url(postgres_template)
    try:
        yield database
    finally:
        await database.dispose()


async def backend_pid(db: Database) -> int:
    async with db.transaction() as session:
        pid: int = (await session.execute(text("SELECT pg_backend_pid()"))).scalar_one()
    return pid


async def terminate(postgres_template: str, pid: int) -> None:
    killer = Database.from_url(postgres_template)
    try:
        async with killer.transaction() as session:
            # With a timeout, pg_terminate_backend waits until the backend has gone (its socket closed).
            await session.execute(text("SELECT pg_terminate_backend(:pid, 10000)"), {"pid": pid})
    finally:
        await killer.dispose()


@pytest.mark.postgres
async def test_a_connection_whose_backend_died_is_replaced_at_checkout(
    postgres_template: str, db: Database, clock: HeldClock
) -> None:
    pid = await backend_pid(db)
    await terminate(postgres_template, pid)
    clock.idle()
    # The pooled connection is dead; the bare ping finds out at checkout and the pool connects afresh.
    again = await backend_pid(db)
    assert again != pid


@pytest.mark.postgres
async def test_a_connection_back_in_the_pool_within_the_idle_bound_is_not_pinged(
    db: Database, clock: HeldClock, pings: list[str]
) -> None:
    first = await backend_pid(db)  # a fresh connection: never pinged
    assert await backend_pid(db) == first
    assert pings == []  # checked in just before: no round trip
    clock.idle()
    assert await backend_pid(db) == first
    assert pings == [";"]  # idle past the bound: pinged once, and kept
    assert await backend_pid(db) == first
    assert pings == [";"]


@pytest.mark.postgres
async def test_a_recent_connection_the_server_closed_is_replaced_at_checkout_without_a_ping(
    postgres_template: str, db: Database, clock: HeldClock, pings: list[str]
) -> None:
    async with db.transaction() as session:
        pid = (await session.execute(text("SELECT pg_backend_pid()"))).scalar_one()
        raw = (await (await session.connection()).get_raw_connection()).driver_connection
    assert raw is not None
    await terminate(postgres_template, pid)
    for _ in range(1000):  # the test holds the gate: until asyncpg has read the close (10 s at most)
        if raw.is_closed():
            break
        await asyncio.sleep(0.01)
    assert raw.is_closed()
    again = await backend_pid(db)  # the clock has not moved: the socket's state, not a ping, says it is gone
    assert again != pid
    assert pings == []
