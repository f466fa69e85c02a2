"""Leaderboard windows and scopes, and where a window starts in a workspace's timezone (pure rules).

Adding a window: a member here, its start in `window_start`, its words in bot/wording/boards.py.
A window is a bounded range [start, end) (`Span`): week and month end now, a season at its end (or now while it
runs), all time has neither bound. A season's bounds are data (the `seasons` table), so `window_span` is given them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo


class Window(enum.StrEnum):
    """A leaderboard time window, in the workspace's timezone."""

    WEEK = "week"
    MONTH = "month"
    SEASON = "season"
    ALL = "all"


class Scope(enum.StrEnum):
    """Whose answers a leaderboard counts: a channel, the workspace, one cohort's members, or cohort vs cohort."""

    CHANNEL = "channel"
    WORKSPACE = "workspace"
    COHORT = "cohort"
    COHORTS = "cohorts"


@dataclass(frozen=True, slots=True)
class Span:
    """The answers a window counts: answered at or after `start` and before `end` (None: unbounded that side)."""

    start: datetime | None = None
    end: datetime | None = None

    @property
    def bounded(self) -> bool:
        """Whether the span has a start, so boards sum answers in it rather than read the all-time rollups."""
        return self.start is not None


def window_span(window: Window, now: datetime, timezone: str, *, season: Span | None = None) -> Span:
    """The range of a window: from its start in the workspace's timezone; a season's own range is passed in."""
    if window is Window.SEASON:
        if season is None:
            raise ValueError("the season window needs the season's span")
        return season
    return Span(start=window_start(window, now, timezone))


def window_start(window: Window, now: datetime, timezone: str) -> datetime | None:
    """Start of the window containing `now`, in the workspace's timezone (weeks start on Monday), as UTC."""
    if window is Window.ALL:
        return None
    local = now.astimezone(ZoneInfo(timezone))
    midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
    if window is Window.WEEK:
        start = midnight - timedelta(days=local.weekday())
    elif window is Window.MONTH:
        start = midnight.replace(day=1)
    else:  # a new window must say where it starts; never fall back to another window's start
        raise ValueError(f"no start is defined for the {window.value} window")
    # Re-attach the zone so a DST change inside the window yields that day's true UTC offset.
    start = start.replace(tzinfo=None).replace(tzinfo=ZoneInfo(timezone))
    return start.astimezone(UTC)
