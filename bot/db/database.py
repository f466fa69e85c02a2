"""The engine, transactions, and the mapping of driver failures to StorageUnavailable."""

from __future__ import annotations

import asyncio
import collections
import functools
import logging
import time
import weakref
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from threading import Thread
from typing import Any

import aiosqlite
from sqlalchemy import event, literal, select
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

try:  # SQLAlchemy 2.1 names it await_; 2.0 await_only (kept as an alias until 2.2)
    from sqlalchemy.util.concurrency import await_
except ImportError:  # pragma: no cover - SQLAlchemy 2.0
    from sqlalchemy.util.concurrency import await_only as await_

from bot.errors import StorageUnavailable
from bot.timeouts import DatabaseTimeouts

UNAVAILABLE = "The database is unavailable right now; nothing was recorded."

log = logging.getLogger(__name__)

ON_COMMIT = "quizbot.on_commit"
"""Key of `session.info`: callables to run once the transaction has committed (e.g. filling caches)."""

_UNAVAILABLE = (OperationalError, InterfaceError, PoolTimeout, OSError, ConnectionError, asyncio.TimeoutError)


def is_unavailable(exc: BaseException) -> bool:
    """Whether an exception means the database could not be reached or was busy (safe to retry)."""
    if isinstance(exc, _UNAVAILABLE):
        return True
    if not isinstance(exc, DBAPIError):
        return False
    # A driver error SQLAlchemy could not classify (asyncpg's base `Error`, e.g. "connection was closed in the
    # middle of operation" while connecting) is about the connection, not about a statement: a statement's own
    # problems arrive as IntegrityError, ProgrammingError and the like. Except those asyncpg's server errors that
    # SQLAlchemy leaves unclassified too, with the statement's own values to blame (`_STATEMENT_FAULTS`).
    if exc.connection_invalidated:
        return True
    return type(exc) is DBAPIError and not _statement_fault(exc)


_STATEMENT_FAULTS = ("21", "22")
"""SQLSTATE classes of a statement's own values: cardinality violation (a scalar subquery's second row) and data
exception (a value too long for its column, out of its type's range, a division by zero). Trying again cannot help.
Every other class an unclassified error may carry (a cancelled statement, a server shutting down, too many
connections) stays "unavailable"."""


def _statement_fault(exc: DBAPIError) -> bool:
    sqlstate = getattr(exc.orig, "sqlstate", None)
    return isinstance(sqlstate, str) and sqlstate[:2] in _STATEMENT_FAULTS


def describe_failure(exc: BaseException) -> str:
    """A driver failure for the log: its text, or its type when it has none (a timeout), with its cause."""
    text = str(exc).strip() or type(exc).__name__
    cause = exc.__cause__ or exc.__context__
    if cause is not None and cause is not exc and str(cause).strip() not in text:
        text += f" ({str(cause).strip() or type(cause).__name__})"
    return " ".join(text.split())


def raise_if_unavailable(exc: BaseException) -> None:
    """Raise StorageUnavailable from `exc` if it means the database could not be reached (else return)."""
    if not isinstance(exc, StorageUnavailable) and is_unavailable(exc):
        log.warning("database unavailable: %s", describe_failure(exc))
        raise StorageUnavailable(UNAVAILABLE) from exc


def _sqlite_pragmas(dbapi_connection: Any, _record: Any, *, busy_ms: int) -> None:
    # Autocommit at the driver level, so that "begin" below decides how transactions start.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={busy_ms}")
    cursor.close()


READ_ONLY = "quizbot_read_only"
"""Execution option of a connection that only reads (see `read_only_options`)."""


def read_only_options(dialect: str) -> dict[str, Any]:
    """Execution options for a unit of work that only reads (a board, a view), set when it takes its connection:
    no transaction of its own, each statement reading committed data. PostgreSQL: autocommit, so no BEGIN and
    ROLLBACK round trips; SQLite: no BEGIN IMMEDIATE, which would queue the read behind writers for the write lock."""
    if dialect == "postgresql":
        return {READ_ONLY: True, "isolation_level": "AUTOCOMMIT"}
    return {READ_ONLY: True}


def _sqlite_begin_immediate(conn: Any) -> None:
    if conn.get_execution_options().get(READ_ONLY):
        return
    # A deferred transaction that reads and then writes fails at once with SQLITE_BUSY when another
    # writer got in between (busy_timeout does not help); taking the write lock up front makes writers
    # queue on busy_timeout instead.
    conn.exec_driver_sql("BEGIN IMMEDIATE")


def _open_sqlite(dialect: Any, _record: Any, cargs: list[Any], cparams: dict[str, Any]) -> Any:
    # SQLAlchemy's own open, with the aiosqlite connection made by `_sqlite_connection`.
    return dialect.dbapi.connect(*cargs, async_creator_fn=_sqlite_connection, **cparams)


async def _sqlite_connection(*args: Any, **kwargs: Any) -> aiosqlite.Connection:
    connection = aiosqlite.connect(*args, **kwargs)
    worker: Thread = connection if isinstance(connection, Thread) else connection._thread  # before/after 0.22
    worker.daemon = True  # as SQLAlchemy's open does: a connection never closed does not keep the process alive
    try:
        opened = await connection
    except BaseException:
        # A failed open (no such folder, not a database) stops aiosqlite's worker thread with a future of this
        # loop that nobody awaits; the worker resolves it a moment later, and if the loop has closed by then (a
        # command or a test that ends on the failure) the thread dies with "Event loop is closed". Wait for it.
        await asyncio.to_thread(worker.join, _SQLITE_WORKER_STOP)
        raise
    if one_hop_supported(opened):
        setattr(opened, "cursor", functools.partial(OneHopCursor, opened))  # noqa: B010 - a method, per instance
    return opened


def one_hop_supported(connection: Any) -> bool:
    """Whether this aiosqlite connection has what `OneHopCursor` relies on (private: checked, not assumed): its
    `_execute` (run a function on the connection's thread) and `_conn` (the sqlite3 connection, on that thread)."""
    return callable(getattr(connection, "_execute", None)) and hasattr(type(connection), "_conn")


class OneHopCursor:
    """An aiosqlite cursor whose statement is one hand-off to the connection's thread: the cursor opened, the
    statement run, its rows fetched and the cursor closed there, at once.

    aiosqlite's own cursor takes a hand-off for each of those (SQLAlchemy's adapter opens a cursor, executes,
    fetches all and closes for every statement): four trips between the event loop and the thread a statement, each
    a thread woken and then the loop woken (bench section 1: about a third of a batch of clicks on SQLite). The rows
    are all fetched at once, as SQLAlchemy's adapter does anyway (it has no server-side cursors on SQLite)."""

    __slots__ = ("_connection", "_rows", "arraysize", "description", "lastrowid", "rowcount")

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self._connection = connection
        self._rows: collections.deque[Any] = collections.deque()
        self.arraysize = 1
        self.description: Any = None
        self.rowcount = -1
        self.lastrowid: int | None = None

    async def __aenter__(self) -> OneHopCursor:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    async def execute(self, sql: str, parameters: Any = None) -> OneHopCursor:
        """Run one statement and fetch all its rows: one hand-off."""
        done = await self._hand_off(sql, parameters, False)
        self.description, self.rowcount, self.lastrowid, rows = done
        self._rows = collections.deque(rows)
        return self

    async def executemany(self, sql: str, seq_of_parameters: Any) -> OneHopCursor:
        """Run one statement for each row of parameters: one hand-off."""
        done = await self._hand_off(sql, seq_of_parameters, True)
        self.description, self.rowcount, self.lastrowid, rows = done
        self._rows = collections.deque(rows)
        return self

    async def _hand_off(self, sql: str, parameters: Any, many: bool) -> tuple[Any, ...]:
        run: Callable[..., Any] = self._connection._execute  # untyped in aiosqlite
        done: tuple[Any, ...] = await run(_run_statement, self._connection, sql, parameters, many)
        return done

    async def fetchone(self) -> Any:
        """The next row, or None."""
        return self._rows.popleft() if self._rows else None

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        """The next `size` rows (`arraysize` by default)."""
        count = min(len(self._rows), self.arraysize if size is None else size)
        return [self._rows.popleft() for _ in range(count)]

    async def fetchall(self) -> list[Any]:
        """The rows left."""
        rows, self._rows = list(self._rows), collections.deque()
        return rows

    async def close(self) -> None:
        """Forget the rows left (the sqlite3 cursor was closed with its statement)."""
        self._rows.clear()


def _run_statement(connection: aiosqlite.Connection, sql: str, parameters: Any, many: bool) -> tuple[Any, ...]:
    # On the connection's thread.
    cursor = connection._conn.cursor()
    try:
        if many:
            cursor.executemany(sql, parameters)
        else:
            cursor.execute(sql, () if parameters is None else parameters)
        description = cursor.description
        rows = cursor.fetchall() if description else []
        return description, cursor.rowcount, cursor.lastrowid, rows
    finally:
        cursor.close()


_SQLITE_WORKER_STOP = 10.0
"""At most this long (seconds) for aiosqlite's worker thread to stop after a failed open: it has only a stop left to
run (a bound, not a pause; it takes microseconds)."""


def create_engine(url: str, *, echo: bool = False, timeouts: DatabaseTimeouts | None = None) -> AsyncEngine:
    """An async engine for a sqlite+aiosqlite or postgresql+asyncpg URL, tuned for each."""
    timeouts = timeouts or DatabaseTimeouts()
    if url.startswith("sqlite"):
        engine = create_async_engine(url, echo=echo)
        event.listen(engine.sync_engine, "do_connect", _open_sqlite)
        busy_ms = round(timeouts.sqlite_busy * 1000)
        event.listen(engine.sync_engine, "connect", functools.partial(_sqlite_pragmas, busy_ms=busy_ms))
        event.listen(engine.sync_engine, "begin", _sqlite_begin_immediate)
        return engine
    connect_args: dict[str, Any] = {"timeout": timeouts.connect, "command_timeout": timeouts.statement}
    if timeouts.statement is not None:
        # The server gives up too (a statement stuck on a lock is cancelled there, not left running), slightly
        # after the client so that the client's clearer timeout is what the log shows.
        connect_args["server_settings"] = {"statement_timeout": str(round(timeouts.statement * 1000) + 500)}
    engine = create_async_engine(
        url,
        echo=echo,
        pool_size=10,
        max_overflow=20,
        pool_pre_ping=True,  # a connection is checked at checkout (bounded by command_timeout) before a click uses it,
        # when it has been idle (`_ping_outside_a_transaction`)
        pool_timeout=timeouts.pool,
        connect_args=connect_args,
    )
    event.listen(engine.sync_engine.pool, "invalidate", _terminate_at_once)
    if bare_ping_supported(engine.dialect):
        engine.dialect.do_ping = _ping_outside_a_transaction  # type: ignore[method-assign]
        event.listen(engine.sync_engine.pool, "checkin", _note_checkin)
    return engine


PING_AFTER_IDLE = 2.0
"""Seconds: a pooled PostgreSQL connection checked in more recently than this is not pinged at checkout.

The ping is a round trip before every unit of work, and one more statement a batch of clicks (on this project's
loopback 0.03-0.12 ms a unit of work, measured 2026-12-06; over a network, its latency). A connection back in the
pool this recently was working then; if its server has since closed it (a restart, `pg_terminate_backend`,
`idle_session_timeout`), asyncpg has seen the socket close and the pool is told so without a round trip
(`is_closed()`), as a failed ping would. What only the ping finds is a link gone silent, and that is found
the same way, after the same statement timeout, by the statement that follows."""

_last_checkin: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()
"""When each pooled asyncpg connection (the driver's own, by weak reference) was last checked in (monotonic)."""

_monotonic = time.monotonic  # the clock of `PING_AFTER_IDLE`; tests hold it


def _note_checkin(dbapi_connection: Any, _record: Any) -> None:
    raw = getattr(dbapi_connection, "_connection", None)  # None: the connection was invalidated on its way in
    if raw is not None:
        _last_checkin[raw] = _monotonic()


_BARE_PING_NEEDS = ("_connection", "_handle_exception", "_async_ping")
"""What `_ping_outside_a_transaction` uses of SQLAlchemy's adapted asyncpg connection (private: checked, not
assumed). `_async_ping` is the BEGIN; ";" ; ROLLBACK it replaces: if that is gone, so may be the reason to."""


def bare_ping_supported(dialect: Any) -> bool:
    """Whether this asyncpg dialect's adapted connection has what the bare ping relies on; if a SQLAlchemy release
    renames or removes any of it, the engine keeps SQLAlchemy's own ping (correct, two round trips slower)."""
    if getattr(dialect, "driver", None) != "asyncpg":
        return False
    # Here, not at the top: the PostgreSQL dialect's package (~20 ms) is for a PostgreSQL engine, not every start.
    from sqlalchemy.dialects.postgresql import asyncpg as asyncpg_dialect  # noqa: PLC0415

    adapted = getattr(asyncpg_dialect, "AsyncAdapt_asyncpg_connection", None)
    return adapted is not None and all(hasattr(adapted, name) for name in _BARE_PING_NEEDS)


def _ping_outside_a_transaction(dbapi_connection: Any) -> bool:
    # SQLAlchemy's asyncpg ping wraps its ";" in BEGIN and ROLLBACK (for pgbouncer's transaction mode, which this
    # bot does not use): three round trips at every checkout, before every unit of work. The ";" alone is the ping;
    # a failure is the driver's error, which the pool reads as a disconnect (and replaces the connection) or raises.
    # A connection without the private parts used here (another SQLAlchemy) gets SQLAlchemy's own ping instead.
    #
    # A connection checked in less than PING_AFTER_IDLE ago is not pinged: only asked, locally, whether its socket
    # is still open. A closed one is reported as a failed ping is (the pool replaces it and every connection opened
    # before it: a server that closed one has likely closed them all).
    raw = getattr(dbapi_connection, "_connection", None)
    handle = getattr(dbapi_connection, "_handle_exception", None)
    if raw is None or handle is None or not hasattr(raw, "fetchrow"):
        dbapi_connection.ping()
        return True
    if raw.is_closed():
        return False
    checked_in = _last_checkin.get(raw)
    if checked_in is not None and _monotonic() - checked_in < PING_AFTER_IDLE:
        return True
    try:
        await_(raw.fetchrow(";"))
    except Exception as error:
        handle(error)
    return True


def _terminate_at_once(dbapi_connection: Any, _record: Any, _exception: BaseException | None) -> None:
    # SQLAlchemy says goodbye to an invalidated asyncpg connection gracefully, waiting up to 2 s for the server;
    # over a dead link that wait is pure delay on top of the timeout that found it dead (a click's reply, /healthz).
    # Dropping the socket first makes that goodbye return at once.
    raw = getattr(dbapi_connection, "_connection", None)
    if raw is not None and hasattr(raw, "terminate") and not raw.is_closed():
        raw.terminate()


class Database:
    """Owns the engine; hands out sessions in transactions that roll back unless they finish cleanly."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.sessions = async_sessionmaker(engine, expire_on_commit=False)
        self._warm_statements: list[tuple[str, Any]] = []

    @contextmanager
    def kept_warm(self) -> Iterator[None]:
        """PostgreSQL: the statements run inside the block (a warm-up, which reads and writes no row) are run again
        on every connection the pool opens afterwards, as it opens, in a transaction rolled back.

        asyncpg prepares a statement once a connection: a connection the pool opens later (under load, or to
        replace a lost one) would otherwise prepare them on its first use, inside a batch of clicks. It is opened
        by whatever needed it (a board, a card edit, or a batch when every other connection is busy), which then
        pays for the preparing instead. SQLite: nothing to keep warm (SQLAlchemy's compiled forms are the engine's,
        shared by its connections; SQLite prepares in microseconds)."""
        if self.dialect != "postgresql":
            yield
            return
        seen: list[tuple[str, Any]] = []

        def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, many: bool) -> None:
            if not many:
                seen.append((statement, parameters))

        event.listen(self.engine.sync_engine, "before_cursor_execute", record)
        try:
            yield
        finally:
            event.remove(self.engine.sync_engine, "before_cursor_execute", record)
        if not self._warm_statements:
            event.listen(self.engine.sync_engine.pool, "connect", self._warm_new_connection)
        self._warm_statements.extend(seen)

    def _warm_new_connection(self, dbapi_connection: Any, _record: Any) -> None:
        # Runs as the pool opens a connection, inside SQLAlchemy's greenlet (the adapted cursor awaits asyncpg).
        cursor = dbapi_connection.cursor()
        try:
            for statement, parameters in self._warm_statements:
                cursor.execute(statement, parameters)
        except Exception as exc:  # the connection stays usable, only cold; a broken one fails its first use
            log.info("could not warm a new database connection up: %s", describe_failure(exc))
        finally:
            cursor.close()
            try:
                dbapi_connection.rollback()
            except Exception:
                log.debug("rolling the warm-up of a new connection back failed", exc_info=True)

    @classmethod
    def from_url(cls, url: str, *, timeouts: DatabaseTimeouts | None = None) -> Database:
        """A Database for this URL (nothing connects until first use)."""
        return cls(create_engine(url, timeouts=timeouts))

    @property
    def dialect(self) -> str:
        """`sqlite` or `postgresql`."""
        return self.engine.dialect.name

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        """A session inside one transaction: committed when the block ends, rolled back on error.

        Driver failures (database down, connection lost, locked) surface as StorageUnavailable.
        """
        try:
            async with self.sessions() as session:
                async with session.begin():
                    yield session
                for callback in session.info.pop(ON_COMMIT, ()):
                    callback()
        except Exception as exc:
            raise_if_unavailable(exc)
            raise

    @staticmethod
    def after_commit(session: AsyncSession, callback: Callable[[], None]) -> None:
        """Run `callback` once this session's transaction has committed (never if it rolls back)."""
        session.info.setdefault(ON_COMMIT, []).append(callback)

    async def ping(self) -> None:
        """Check that the database answers; raises StorageUnavailable if not."""
        async with self.transaction() as session:
            await session.execute(select(literal(1)))

    async def dispose(self) -> None:
        """Close every pooled connection."""
        await self.engine.dispose()
