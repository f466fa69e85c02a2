"""Running Alembic migrations from the app (on start, and `quizbot db upgrade`).

Alembic (with Mako and Pygments behind it) is imported only when a migration runs or the revisions cannot be read
plainly: reading the stored revision and the newest one (each start, /healthz, `quizbot doctor`) needs neither.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import String, inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.types import TypeEngine

from bot.db.database import Database
from bot.errors import DatabaseNotReady
from bot.resources import migrations_dir

if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.runtime.migration import MigrationContext

log = logging.getLogger(__name__)

VERSION_TABLE = "alembic_version"
"""Where Alembic keeps the revision a database is at (its default; migrations/env.py does not change it)."""


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
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    config.set_main_option("path_separator", "os")
    return config


async def upgrade(db: Database, revision: str = "head") -> None:
    """Upgrade the database schema to `revision` (default: the newest).

    A database already at the newest revision is left as it is without starting Alembic (which would find
    nothing to run)."""
    async with db.engine.connect() as connection:
        stored = await connection.run_sync(_stored_revisions)
    if revision == "head" and (head := _plain_head()) is not None and stored == [head]:
        log.info("database schema is at %s", revision)
        return

    from alembic import command

    for current in stored:
        if not is_known_revision(current):  # Alembic would say only "Can't locate revision identified by ..."
            raise DatabaseNotReady("newer_schema", current=current, head=head_revision())
    config = alembic_config()

    def _upgrade(connection: Connection) -> None:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)

    async with db.engine.begin() as connection:
        await connection.run_sync(_upgrade)
    log.info("database schema is at %s", revision)


def _stored_revisions(connection: Connection) -> list[str]:
    """The revisions in the version table (none when it does not exist), as Alembic reads them."""
    if not inspect(connection).has_table(VERSION_TABLE):
        return []
    return [row[0] for row in connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}"))]


async def current_revision(db: Database) -> str | None:
    """The revision the database is at (None for an empty database)."""

    def _current(connection: Connection) -> str | None:
        stored = _stored_revisions(connection)
        if len(stored) <= 1:
            return stored[0] if stored else None
        from alembic.runtime.migration import MigrationContext

        return MigrationContext.configure(connection).get_current_revision()  # raises: more than one head

    async with db.engine.connect() as connection:
        return await connection.run_sync(_current)


def is_known_revision(revision: str) -> bool:
    """Whether `revision` is one of this quizbot's migrations: False for one that a newer quizbot wrote (the
    database was upgraded by a newer version, then this older one started on it)."""
    from alembic.script import ScriptDirectory
    from alembic.util import CommandError

    try:
        return ScriptDirectory.from_config(alembic_config()).get_revision(revision) is not None
    except CommandError:
        return False


def head_revision() -> str | None:
    """The newest revision in the migrations folder."""
    head = _plain_head()
    if head is not None:
        return head
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


_ASSIGNMENT = re.compile(
    r"^(?P<name>revision|down_revision|branch_labels|depends_on)\s*(?::[^=\n]*)?=\s*(?P<value>.*?)\s*$", re.MULTILINE
)
_QUOTED = re.compile(r"""^(['"])(?P<text>[\w-]+)\1$""")


def _plain_head(versions: Path | None = None) -> str | None:
    """The head of a plain linear history, read from each revision file's `revision = "..."` and
    `down_revision = "..." | None` lines without importing it; None when the files are anything else (a branch,
    a merge, a label, a dependency, a line this does not recognise), for Alembic to read instead."""
    folder = versions or migrations_dir() / "versions"
    parents: dict[str, str | None] = {}
    try:
        for file in sorted(folder.glob("*.py")):
            if file.name.startswith((".#", "__init__")):
                continue
            found: dict[str, list[str]] = {}
            for match in _ASSIGNMENT.finditer(file.read_text(encoding="utf-8")):
                found.setdefault(match["name"], []).append(match["value"])
            if found.get("branch_labels", ["None"]) != ["None"] or found.get("depends_on", ["None"]) != ["None"]:
                return None
            revisions, downs = found.get("revision", []), found.get("down_revision", [])
            if len(revisions) != 1 or len(downs) != 1 or (own := _QUOTED.match(revisions[0])) is None:
                return None
            parent = _QUOTED.match(downs[0])
            if (parent is None and downs[0] != "None") or own["text"] in parents:
                return None
            parents[own["text"]] = parent["text"] if parent is not None else None
    except (OSError, UnicodeDecodeError):
        return None
    heads = parents.keys() - set(parents.values())
    if len(heads) != 1:
        return None
    (head,) = heads
    walked: list[str] = []  # the chain from the head down to the one root must pass every revision once
    revision: str | None = head
    while revision is not None and revision in parents and len(walked) <= len(parents):
        walked.append(revision)
        revision = parents[revision]
    return head if revision is None and len(walked) == len(parents) else None
