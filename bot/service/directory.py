"""The name the runtime, the CLI, bot/scheduling and bench/ import the directory by; it lives, with its SQL, in
repositories/directory.py (the session is private to repositories and views)."""

from bot.service.repositories.directory import (
    Directory,
    dialect_insert,
    find_or_insert,
    insert_for,
    insert_ignoring_conflict,
)

__all__ = ["Directory", "dialect_insert", "find_or_insert", "insert_for", "insert_ignoring_conflict"]
