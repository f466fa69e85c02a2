"""What an operator reads when the database is not there: one line that names QUIZBOT_DATABASE_URL (password
masked) or the SQLite path, what is wrong and what to do, instead of a driver traceback. This module finds the
cause; DatabaseNotReady carries the key of its words in bot/wording/database.py and their values.

`explain` turns a driver failure into DatabaseNotReady; `database_errors` does it around a block; the `require_*`
checks run before connecting, so a command that only reads never creates a SQLite file.
"""

from __future__ import annotations

import errno
import socket
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from bot.db.database import Database
from bot.db.migrate import current_revision, head_revision, is_known_revision
from bot.errors import DatabaseNotReady

SETTING = "QUIZBOT_DATABASE_URL"
_INVALID_CATALOG = "3D000"  # database does not exist
_AUTH_FAILED = {"28000", "28P01"}  # role does not exist / password authentication failed


def _parsed(url: str) -> URL | None:
    try:
        return make_url(url)
    except ArgumentError:
        return None


def masked_url(url: str) -> str:
    """The URL as it can be printed: any password replaced by ***."""
    parsed = _parsed(url)
    return parsed.render_as_string(hide_password=True) if parsed is not None else url


def sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL (relative to the working folder, as SQLite opens it); None for other databases
    and for in-memory ones."""
    parsed = _parsed(url)
    if parsed is None or not parsed.drivername.startswith("sqlite"):
        return None
    name = parsed.database or ""
    if not name or name == ":memory:" or name.startswith("file:") or parsed.query.get("mode") == "memory":
        return None
    return Path(name)


def _named(url: str) -> str:
    return f"{SETTING}={masked_url(url)}"


def require_sqlite_folder(url: str) -> None:
    """Refuse a SQLite file in a folder that does not exist (SQLite would only say "unable to open")."""
    path = sqlite_file(url)
    if path is None:
        return
    folder = path.absolute().parent
    if not folder.is_dir():
        raise DatabaseNotReady("sqlite_folder_missing", folder=folder, path=path, named=_named(url), setting=SETTING)


def require_existing(url: str) -> None:
    """For commands that only read: a SQLite database must already exist, so it is never created by reading."""
    require_sqlite_folder(url)
    path = sqlite_file(url)
    if path is not None and not path.exists():
        raise DatabaseNotReady("no_database", path=path.absolute(), named=_named(url), setting=SETTING)


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _server(parsed: URL) -> str:
    return f"{parsed.host or 'localhost'}:{parsed.port or 5432}"


def first_line(exc: BaseException) -> str:
    """The first line of the exception's text, or its type's name when it has none."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def explain(url: str, exc: BaseException) -> DatabaseNotReady | None:
    """An operator's explanation of a failure to reach or open the database, or None if it is something else."""
    for cause in _chain(exc):
        if isinstance(cause, DatabaseNotReady):
            return cause
    parsed = _parsed(url)
    if parsed is None:
        return None
    path = sqlite_file(url)
    if parsed.drivername.startswith("sqlite"):
        for cause in _chain(exc):
            if isinstance(cause, sqlite3.DatabaseError) and not isinstance(
                cause, sqlite3.IntegrityError | sqlite3.ProgrammingError
            ):  # unable to open, not a database, locked, read-only
                where = str(path.absolute()) if path is not None else masked_url(url)
                return DatabaseNotReady(
                    "sqlite_cannot_open", where=where, reason=first_line(cause), setting=SETTING, url=masked_url(url)
                )
        return None
    server = _server(parsed)
    for cause in _chain(exc):
        sqlstate = getattr(cause, "sqlstate", None)
        if sqlstate == _INVALID_CATALOG:
            name = parsed.database or ""
            return DatabaseNotReady(
                "postgres_no_database",
                name=name,
                server=server,
                named=_named(url),
                host=parsed.host or "localhost",
                port=parsed.port or 5432,
                user=parsed.username,
                setting=SETTING,
            )
        if sqlstate in _AUTH_FAILED:
            return DatabaseNotReady(
                "postgres_refused_user",
                server=server,
                user=parsed.username,
                reason=first_line(cause),
                setting=SETTING,
                url=masked_url(url),
            )
        if isinstance(cause, socket.gaierror):
            return DatabaseNotReady(
                "postgres_unknown_host", host=parsed.host, reason=cause.strerror, setting=SETTING, url=masked_url(url)
            )
        if isinstance(cause, ConnectionRefusedError) or (
            isinstance(cause, OSError) and cause.errno == errno.ECONNREFUSED
        ):
            return DatabaseNotReady("postgres_refused", server=server, setting=SETTING, url=masked_url(url))
        if isinstance(cause, TimeoutError):
            return DatabaseNotReady("postgres_timed_out", server=server, setting=SETTING, url=masked_url(url))
        if isinstance(cause, OSError):
            return DatabaseNotReady(
                "postgres_unreachable",
                server=server,
                reason=cause.strerror or first_line(cause),
                setting=SETTING,
                url=masked_url(url),
            )
    return None


@contextmanager
def database_errors(url: str) -> Iterator[None]:
    """Turn a failure to reach or open the database inside the block into DatabaseNotReady (others pass)."""
    try:
        yield
    except DatabaseNotReady:
        raise
    except Exception as exc:
        problem = explain(url, exc)
        if problem is None:
            raise
        raise problem from exc


async def require_schema(db: Database, url: str) -> None:
    """Refuse a database that is unreachable or not at the newest schema, saying how to fix it."""
    with database_errors(url):
        current = await current_revision(db)
    head = head_revision()
    if current == head:
        return
    if current is not None and not is_known_revision(current):
        raise DatabaseNotReady("newer_schema", current=current, head=head)
    raise DatabaseNotReady("not_at_newest", url=masked_url(url), current=current, head=head)
