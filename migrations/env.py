"""Alembic environment: runs migrations on a connection handed in by the app, or on QUIZBOT_DATABASE_URL."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from bot.db.migrate import compare_type
from bot.db.models import Base

target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=compare_type,
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_from_settings() -> None:
    from bot.config import load_settings
    from bot.db.database import create_engine

    engine = create_engine(load_settings().database_url)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_run)
            await connection.commit()
    finally:
        await engine.dispose()


connection = context.config.attributes.get("connection")
if context.is_offline_mode():
    raise SystemExit("offline (--sql) migrations are not supported; run them against a database")
if connection is not None:
    _run(connection)
else:
    asyncio.run(_run_from_settings())
