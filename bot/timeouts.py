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
    """One statement: PostgreSQL's client-side `command_timeout` (which also bounds the pool's pre-ping) and
    server-side `statement_timeout`; SQLite's `busy_timeout` (waiting for another writer). None: no limit."""
    pool: float = 1.0
    """Waiting for a free pooled PostgreSQL connection when all are busy."""

    def unbounded_statements(self) -> DatabaseTimeouts:
        """The same, with no limit on a statement: for migrations, which may rewrite big tables."""
        return replace(self, statement=None)
