"""The bot's own logging set-up (bot/logs.py) at DEBUG, writing into a buffer a test reads, then put back."""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import Iterator

import pytest
from _pytest.logging import LogCaptureHandler

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
    [ours] = root.handlers
    try:
        yield buffer
    finally:
        # pytest adds and removes a capturing handler around each phase: keep the one it holds now, never bring
        # back the setup phase's (already retired) one, and put back every other handler that was there before.
        now = [handler for handler in root.handlers if handler is not ours]
        root.handlers[:] = now + [h for h in handlers if not isinstance(h, LogCaptureHandler) and h not in now]
        root.setLevel(level)
        for name, old in quieted.items():
            logging.getLogger(name).setLevel(old)
