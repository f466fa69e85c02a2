"""What an operator reads when the database is not there: one line that names QUIZBOT_DATABASE_URL (password
masked) or the SQLite path, what is wrong and what to do, instead of a driver traceback.

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
from bot.db.migrate import current_revision, head_revision
from bot.errors import DatabaseNotReady

SETTING = "QUIZBOT_DATABASE_URL"
UPGRADE = "run `quizbot db upgrade`"
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
        raise DatabaseNotReady(
            f"the folder {folder} of the SQLite database {path} does not exist ({_named(url)})",
            f"create the folder, or point {SETTING} at a file in an existing one",
        )


def require_existing(url: str) -> None:
    """For commands that only read: a SQLite database must already exist, so it is never created by reading."""
    require_sqlite_folder(url)
    path = sqlite_file(url)
    if path is not None and not path.exists():
        raise DatabaseNotReady(
            f"there is no database at {path.absolute()} ({_named(url)})", f"{UPGRADE} to create it, or fix {SETTING}"
        )


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _server(parsed: URL) -> str:
    return f"{parsed.host or 'localhost'}:{parsed.port or 5432}"


def _first_line(exc: BaseException) -> str:
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
    check = f"check {SETTING} ({masked_url(url)})"
    path = sqlite_file(url)
    if parsed.drivername.startswith("sqlite"):
        for cause in _chain(exc):
            if isinstance(cause, sqlite3.DatabaseError) and not isinstance(
                cause, sqlite3.IntegrityError | sqlite3.ProgrammingError
            ):  # unable to open, not a database, locked, read-only
                where = str(path.absolute()) if path is not None else masked_url(url)
                return DatabaseNotReady(
                    f"cannot open the SQLite database {where}: {_first_line(cause)}",
                    f"{check}, that its folder exists and that this user may write there",
                )
        return None
    server = _server(parsed)
    for cause in _chain(exc):
        sqlstate = getattr(cause, "sqlstate", None)
        if sqlstate == _INVALID_CATALOG:
            name = parsed.database or ""
            user = f" -U {parsed.username}" if parsed.username else ""
            return DatabaseNotReady(
                f'database "{name}" does not exist on the PostgreSQL server at {server} ({_named(url)})',
                f"create it (createdb -h {parsed.host or 'localhost'} -p {parsed.port or 5432}{user} {name})"
                f" or fix the name in {SETTING}, then {UPGRADE}",
            )
        if sqlstate in _AUTH_FAILED:
            return DatabaseNotReady(
                f"the PostgreSQL server at {server} refused user {parsed.username!r}: {_first_line(cause)}",
                f"fix the user or password in {SETTING} ({masked_url(url)})",
            )
        if isinstance(cause, socket.gaierror):
            return DatabaseNotReady(
                f"cannot connect to PostgreSQL: the host {parsed.host!r} is unknown ({cause.strerror})",
                f"fix the host in {SETTING} ({masked_url(url)})",
            )
        if isinstance(cause, ConnectionRefusedError) or (
            isinstance(cause, OSError) and cause.errno == errno.ECONNREFUSED
        ):
            return DatabaseNotReady(
                f"cannot connect to PostgreSQL at {server}: connection refused (nothing listens there)",
                f"{check}, and that the server runs and listens on that host and port",
            )
        if isinstance(cause, TimeoutError):
            return DatabaseNotReady(
                f"cannot connect to PostgreSQL at {server}: no answer in time",
                f"{check}, that the server runs and that no firewall is in the way",
            )
        if isinstance(cause, OSError):
            return DatabaseNotReady(
                f"cannot connect to PostgreSQL at {server}: {cause.strerror or _first_line(cause)}",
                f"{check}, and that the server runs and listens on that host and port",
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
    state = "empty (no quizbot schema yet)" if current is None else f"at revision {current}, the newest is {head}"
    raise DatabaseNotReady(f"the database at {masked_url(url)} is {state}", UPGRADE)
