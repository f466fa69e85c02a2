"""Leaderboard windows and scopes, and where a window starts in a workspace's timezone (pure rules).

Adding a window: a member here, its start in `window_start`, its words in bot/wording/boards.py.
"""

from __future__ import annotations

import enum
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo


class Window(enum.StrEnum):
    """A leaderboard time window, in the workspace's timezone."""

    WEEK = "week"
    MONTH = "month"
    ALL = "all"


class Scope(enum.StrEnum):
    """Whose answers a leaderboard counts: a channel, the workspace, one cohort's members, or cohort vs cohort."""

    CHANNEL = "channel"
    WORKSPACE = "workspace"
    COHORT = "cohort"
    COHORTS = "cohorts"


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
