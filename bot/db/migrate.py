"""Running Alembic migrations from the app (on start, and `quizbot db upgrade`)."""

from __future__ import annotations

import logging
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import String
from sqlalchemy.engine import Connection
from sqlalchemy.types import TypeEngine

from bot.db.database import Database
from bot.resources import migrations_dir

log = logging.getLogger(__name__)


def compare_type(
    context: MigrationContext,
    inspected_column: Any,
    metadata_column: Any,
    inspected_type: TypeEngine[Any],
    metadata_type: TypeEngine[Any],
) -> bool | None:
    """Alembic's type comparison, except that on SQLite every VARCHAR(n) and TEXT are one type (TEXT affinity,
    lengths not enforced): a widened string column changes PostgreSQL's schema only, and SQLite's tables are not
    rebuilt for it (a rebuild would cascade-delete through their foreign keys)."""
    if context.dialect.name == "sqlite" and isinstance(inspected_type, String) and isinstance(metadata_type, String):
        return False
    return None  # Alembic's own comparison


def alembic_config() -> Config:
    """An Alembic Config pointing at the migrations folder, wherever quizbot is installed."""
    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    config.set_main_option("path_separator", "os")
    return config


async def upgrade(db: Database, revision: str = "head") -> None:
    """Upgrade the database schema to `revision` (default: the newest)."""
    config = alembic_config()

    def _upgrade(connection: Connection) -> None:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)

    async with db.engine.begin() as connection:
        await connection.run_sync(_upgrade)
    log.info("database schema is at %s", revision)


async def current_revision(db: Database) -> str | None:
    """The revision the database is at (None for an empty database)."""

    def _current(connection: Connection) -> str | None:
        return MigrationContext.configure(connection).get_current_revision()

    async with db.engine.connect() as connection:
        return await connection.run_sync(_current)


def head_revision() -> str | None:
    """The newest revision in the migrations folder."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()
