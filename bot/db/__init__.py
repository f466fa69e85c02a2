"""Storage: SQLAlchemy models, the engine, transactions and migrations."""

from bot.db.database import Database

__all__ = ["Database"]
