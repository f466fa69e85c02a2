"""How long the bot waits on the database: a leaf module, so that settings can name it without loading SQLAlchemy."""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class DatabaseTimeouts:
    """How long the bot waits on the database before it gives up and says so (seconds).

    Short on purpose: a click must learn that the database is gone within the platform's acknowledgement window
    (~2-3 s), and /healthz must turn 503 within seconds of a silent partition (sockets open, nothing answering),
    instead of waiting for TCP to notice (minutes). The settings `QUIZBOT_DATABASE_*_TIMEOUT` set them.
    """

    connect: float = 1.0
    """Opening a PostgreSQL connection (TCP, TLS, authentication)."""
    statement: float | None = 1.5
    """One PostgreSQL statement: the client-side `command_timeout` (which also bounds the pool's pre-ping) and
    the server-side `statement_timeout`. None: no limit."""
    pool: float = 1.0
    """Waiting for a free pooled PostgreSQL connection when all are busy."""
    sqlite_busy: float = 15.0
    """SQLite's `busy_timeout`: how long a writer queues for the file's write lock. Longer than a statement on
    PostgreSQL because there is no network to lose: the wait is other writers of this process (a 200-channel
    fan-out, a click burst) or of another (`quizbot content import`), and failing sooner turns a queue into
    refused clicks and deferred posts."""

    def unbounded_statements(self) -> DatabaseTimeouts:
        """The same, with no limit on a statement: for migrations, which may rewrite big tables."""
        return replace(self, statement=None)
