"""The pool's ping at checkout on PostgreSQL: a bare ";" (no BEGIN/ROLLBACK around it) through SQLAlchemy's private
asyncpg adapter, used only while that adapter has what it relies on, and SQLAlchemy's own ping otherwise."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.dialects.postgresql.asyncpg import AsyncAdapt_asyncpg_connection, PGDialect_asyncpg

from bot.db import Database
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


@pytest.mark.postgres
async def test_a_connection_whose_backend_died_is_replaced_at_checkout(postgres_template: str) -> None:
    db = Database.from_url(postgres_template)
    try:
        async with db.transaction() as session:
            pid = (await session.execute(text("SELECT pg_backend_pid()"))).scalar_one()
        killer = Database.from_url(postgres_template)
        try:
            async with killer.transaction() as session:
                await session.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        finally:
            await killer.dispose()
        # The pooled connection is dead; the bare ping finds out at checkout and the pool connects afresh.
        async with db.transaction() as session:
            again = (await session.execute(text("SELECT pg_backend_pid()"))).scalar_one()
        assert again != pid
    finally:
        await db.dispose()
