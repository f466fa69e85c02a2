"""ClockSkew: the offset from a `Date` header, the worst platform past the limit, one ERROR line per period."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import pytest

from bot.clock import ManualClock
from bot.clock_skew import ClockSkew, date_offset

NOON = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_the_offset_is_the_platforms_clock_minus_this_hosts() -> None:
    assert date_offset("Tue, 01 Dec 2026 12:10:00 GMT", NOON) == 600.0
    assert date_offset("Tue, 01 Dec 2026 11:59:30 GMT", NOON) == -30.0
    assert date_offset("not a date", NOON) is None
    assert date_offset("", NOON) is None
    assert date_offset(None, NOON) is None


def test_past_the_limit_it_is_reported_and_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    skew = ClockSkew(ManualClock(NOON))
    with caplog.at_level(logging.ERROR, logger="bot.clock_skew"):
        skew.observe("discord", "Tue, 01 Dec 2026 12:00:01 GMT")
        assert skew.report() is None  # a second is nothing
        for _ in range(5):
            skew.observe("slack", "Tue, 01 Dec 2026 12:10:00 GMT")
    report = skew.report()
    assert report is not None
    assert report["offset_seconds"] == -600 and report["compared_with"] == "slack"
    assert report["problem"].startswith("this host's clock is 10 minutes behind Slack's (-600 s)")
    assert [r.levelname for r in caplog.records] == ["ERROR"]
    skew.observe("slack", "Tue, 01 Dec 2026 12:00:00 GMT")  # the clock was set right
    assert skew.report() is None
