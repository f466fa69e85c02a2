"""The redaction of capabilities in the bot's log, in both formats, at every level, in args and tracebacks."""

from __future__ import annotations

import io
import json
import logging

import pytest

from bot.logs import JsonFormatter
from tests.log_capture import debug_log

__all__ = ["debug_log"]

URL = "https://hooks.slack.com/actions/T0001/1234567890/AbCdEfGhIjKlMnOp"


@pytest.mark.parametrize("level", [logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR])
def test_a_response_url_in_args_is_redacted_and_the_line_kept(debug_log: io.StringIO, level: int) -> None:
    logging.getLogger("slack_bolt.App").log(level, "posting to %s for %s", URL, {"trigger_id": "1.2.3abc"})
    [line] = debug_log.getvalue().splitlines()
    assert line.endswith("posting to https://hooks.slack.com/[redacted] for {'trigger_id': '[redacted]'}")


def test_a_traceback_and_a_json_line_carry_no_capability(debug_log: io.StringIO) -> None:
    handler = logging.getLogger().handlers[0]
    handler.setFormatter(JsonFormatter())
    try:
        raise RuntimeError(f"could not post to {URL}")
    except RuntimeError:
        logging.getLogger("adapters.slack.listeners").exception("reply failed: %s", f"response_url={URL}")
    [line] = debug_log.getvalue().splitlines()
    data = json.loads(line)
    assert data["message"] == "reply failed: response_url=[redacted]"
    assert "could not post to https://hooks.slack.com/[redacted]" in data["exception"]
    assert "AbCdEfGhIjKlMnOp" not in line
