"""Logging set-up: readable text by default, one JSON object a line with QUIZBOT_LOG_FORMAT=json."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime

CONTEXT_FIELDS = ("platform", "workspace", "channel", "post_id", "user", "schedule_id", "correct")


class JsonFormatter(logging.Formatter):
    """Formats records as JSON, keeping the quiz context fields passed with `extra=`."""

    def format(self, record: logging.LogRecord) -> str:
        """One JSON object for one record."""
        data: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in CONTEXT_FIELDS:
            if hasattr(record, name):
                data[name] = getattr(record, name)
        if record.exc_info:
            data["exception"] = self.formatException(record.exc_info)
        return json.dumps(data, default=str)


class TextFormatter(logging.Formatter):
    """`time level logger: message key=value ...`."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)-7s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        """The message with the quiz context fields appended."""
        text = super().format(record)
        context = " ".join(f"{name}={getattr(record, name)}" for name in CONTEXT_FIELDS if hasattr(record, name))
        return f"{text} [{context}]" if context else text


def configure_logging(level: str = "INFO", fmt: str = "text") -> None:
    """Send logs to stderr in the chosen format (stdout belongs to the terminal adapter)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for noisy in ("aiosqlite", "asyncio", "sqlalchemy.engine", "alembic"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLevelName(level)))
