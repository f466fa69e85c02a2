"""Logging set-up: readable text by default, one JSON object a line with QUIZBOT_LOG_FORMAT=json.

Every line goes through `RedactCapabilities` first: at DEBUG the platform libraries log what they send and
receive, and some of that is a live capability (a Slack response_url or trigger_id, a Discord interaction token)
that lets whoever reads the log answer as the bot for a while.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from datetime import UTC, datetime

CONTEXT_FIELDS = ("platform", "workspace", "channel", "post_id", "user", "schedule_id", "correct")

REDACTED = "[redacted]"

_QUOTE = r"(?:\\?[\"']|%22|%27)"
_KEYED = re.compile(
    # a key that names a capability, in a dict's repr, JSON (raw, escaped or URL-encoded), a form or `key=value`
    r"(?<![A-Za-z_])(response_url|trigger_id|token|interaction_token)"
    rf"({_QUOTE}?[\s+]*(?::|=|%3A|%3D)[\s+]*{_QUOTE}?)"
    r"(?!\[redacted\])((?:(?!%22|%27|%26|\\[\"'])[^\s\"'&,;}\]])+)",
    re.IGNORECASE,
)
_PATHS = (
    # Discord: an interaction's callback and its webhook carry the token in the path
    (re.compile(r"(/(?:interactions|webhooks)/\d+/)(?!\[redacted\])[^/\s?'\",]+"), rf"\1{REDACTED}"),
    # Slack: a response_url or an incoming webhook, wherever it is printed
    (re.compile(r"(https?://hooks\.slack\.com/)(?!\[redacted\])[^\s'\",]+"), rf"\1{REDACTED}"),
    # Slack tokens (bot, user, app-level): never logged today, and kept that way
    (re.compile(r"\b(xox[a-z]|xapp)-(?!\[redacted\])[A-Za-z0-9-]+"), rf"\1-{REDACTED}"),
)
_ANY_URL_PATH = re.compile(r"(https?://[^/\s'\",]+/)(?!\[redacted\])[^\s'\",]+")
_URL_IS_CAPABILITY = ("slack_sdk.webhook",)
"""Loggers whose every URL is a capability: slack_sdk's webhook client only ever posts to response_urls and
incoming webhooks (a loopback or proxied one is not on hooks.slack.com, so it is matched by logger)."""


def redact(text: str, *, urls: bool = False) -> str:
    """`text` with every capability value replaced by REDACTED (and, with `urls`, every URL's path)."""
    text = _KEYED.sub(rf"\1\2{REDACTED}", text)
    for pattern, replacement in _PATHS:
        text = pattern.sub(replacement, text)
    if urls:
        text = _ANY_URL_PATH.sub(rf"\1{REDACTED}", text)
    return text


class RedactCapabilities(logging.Filter):
    """Rewrites a record's message (formatted with its args first) and its traceback without capabilities.

    A handler filter, so it sees the records of every logger (the platform libraries' included) at every level.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact the record in place (once, however many handlers carry the filter); never drops it."""
        if getattr(record, "quizbot_redacted", False):
            return True
        urls = record.name.startswith(_URL_IS_CAPABILITY)
        try:
            message = record.getMessage()
        except Exception:  # args that do not fit the format: logging reports that itself, unredacted is no worse
            return True
        cleaned = redact(message, urls=urls)
        if cleaned != message or record.args:
            record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, urls=urls)
        record.quizbot_redacted = True
        return True


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
        if record.exc_text:  # formatted (and redacted) by RedactCapabilities
            data["exception"] = record.exc_text
        elif record.exc_info:
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
    handler.addFilter(RedactCapabilities())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for noisy in ("aiosqlite", "asyncio", "sqlalchemy.engine", "alembic"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLevelName(level)))
