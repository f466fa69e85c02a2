"""Storage: SQLAlchemy models, the engine, transactions and migrations."""

from bot.db.database import Database
from bot.timeouts import DatabaseTimeouts

__all__ = ["Database", "DatabaseTimeouts"]
