"""How far this host's clock is from the platforms', measured from the `Date` header of their HTTP responses.

Slack refuses every request whose signature timestamp is more than five minutes from its own clock (a 401 that
slack-bolt logs as a warning), so a host whose clock drifted that far serves nothing while looking healthy. Every
response from Slack's Web API and Discord's REST API carries `Date`: the adapters hand each to `ClockSkew.observe`
(through an aiohttp trace, `trace_config`), which keeps the latest offset per platform; past `SKEW_LIMIT` it is
logged as an ERROR (at most once per `LOG_EVERY`), shown in /healthz (`degraded`) and by `quizbot doctor`.

An offset is measured against the middle of the request's round trip, so it is off by at most half of it and the
header's one-second resolution; answers slower than `MAX_ROUND_TRIP` are not used.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime
from types import SimpleNamespace
from typing import Any

import aiohttp

from bot.clock import Clock, SystemClock
from bot.wording import clock as clock_words

log = logging.getLogger(__name__)

SKEW_LIMIT = 60.0
"""Seconds off past which the host's clock is reported: Slack refuses requests five minutes off; this tells first."""
LOG_EVERY = 600.0
"""Seconds between two ERROR lines about the same skew."""
MAX_ROUND_TRIP = 10.0
"""Seconds: a response slower than this says too little about when its `Date` was written."""


def date_offset(header: str | None, at: datetime) -> float | None:
    """Seconds the clock that wrote the HTTP `Date` header `header` is ahead of `at` (negative: behind)."""
    if not header:
        return None
    try:
        stamped = parsedate_to_datetime(header)
    except (TypeError, ValueError, IndexError):
        return None
    if stamped.tzinfo is None:
        return None
    return (stamped - at).total_seconds()


class ClockSkew:
    """The latest offset of each platform's clock from this host's (seconds; positive: the platform is ahead)."""

    def __init__(self, clock: Clock | None = None, *, limit: float = SKEW_LIMIT, log_every: float = LOG_EVERY) -> None:
        self.clock = clock or SystemClock()
        self.limit = limit
        self.log_every = log_every
        self.offsets: dict[str, float] = {}
        self._logged_at: float | None = None

    def observe(self, platform: str, header: str | None, *, at: datetime | None = None) -> float | None:
        """Note the `Date` header of a response from `platform`, written at about `at` (default: now)."""
        offset = date_offset(header, at or self.clock.now())
        if offset is None:
            return None
        self.offsets[platform] = offset
        if abs(offset) > self.limit:
            now = time.monotonic()
            if self._logged_at is None or now - self._logged_at >= self.log_every:
                self._logged_at = now
                log.error(clock_words.skew_log(platform, offset), extra={"platform": platform})
        return offset

    def worst(self) -> tuple[str, float] | None:
        """The platform whose clock is furthest from this host's, and by how much, when past the limit."""
        over = [(platform, offset) for platform, offset in self.offsets.items() if abs(offset) > self.limit]
        return max(over, key=lambda item: abs(item[1])) if over else None

    def report(self) -> dict[str, Any] | None:
        """What /healthz says of the clock when it is past the limit (None: within it, or not measured yet)."""
        worst = self.worst()
        if worst is None:
            return None
        platform, offset = worst
        return {
            "offset_seconds": round(-offset),
            "compared_with": platform,
            "problem": clock_words.skew_problem(platform, offset),
            "fix": clock_words.SKEW_FIX,
        }

    def trace_config(self, platform: str) -> aiohttp.TraceConfig:
        """An aiohttp trace that hands every response's `Date` from `platform` to `observe`."""
        trace = aiohttp.TraceConfig()

        async def started(_session: aiohttp.ClientSession, context: SimpleNamespace, _params: Any) -> None:
            context.quizbot_sent = (time.monotonic(), self.clock.now())

        async def ended(
            _session: aiohttp.ClientSession, context: SimpleNamespace, params: aiohttp.TraceRequestEndParams
        ) -> None:
            sent = getattr(context, "quizbot_sent", None)
            if sent is None:
                return
            round_trip = time.monotonic() - sent[0]
            if round_trip <= MAX_ROUND_TRIP:
                middle = sent[1] + timedelta(seconds=round_trip / 2)
                self.observe(platform, params.response.headers.get("Date"), at=middle)

        trace.on_request_start.append(started)
        trace.on_request_end.append(ended)
        return trace


PROBE_SECONDS = 5.0
"""How long `quizbot doctor` waits for a platform's answer."""


async def probe(platform: str, url: str, *, clock: Clock | None = None) -> float | None:
    """One request to `url` (a platform endpoint that needs no token): the offset of the platform's clock from this
    host's, or None when it could not be asked."""
    skew = ClockSkew(clock)
    try:
        async with (
            aiohttp.ClientSession(
                trace_configs=[skew.trace_config(platform)], timeout=aiohttp.ClientTimeout(total=PROBE_SECONDS)
            ) as session,
            session.get(url) as response,
        ):
            await response.read()
    except (aiohttp.ClientError, TimeoutError, OSError) as exc:
        log.info("could not ask %s for its time: %s", platform, exc)
        return None
    return skew.offsets.get(platform)
