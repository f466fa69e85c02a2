"""The bot's own logging set-up (bot/logs.py) at DEBUG, writing into a buffer a test reads, then put back."""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import Iterator

import pytest

from bot.logs import configure_logging

QUIETED = ("aiosqlite", "asyncio", "sqlalchemy.engine", "alembic", "apscheduler")


@pytest.fixture
def debug_log(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    """`configure_logging("DEBUG")` as `quizbot run` calls it, its stderr a StringIO; the logging state is restored."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    quieted = {name: logging.getLogger(name).level for name in QUIETED}
    buffer = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buffer)
    configure_logging("DEBUG", "text")
    try:
        yield buffer
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        for name, old in quieted.items():
            logging.getLogger(name).setLevel(old)
