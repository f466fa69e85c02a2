"""Time, injectable so tests control it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    """Tells the current time as an aware UTC datetime."""

    def now(self) -> datetime:
        """The current time."""
        ...


class SystemClock:
    """The real clock."""

    def now(self) -> datetime:
        """The current time in UTC."""
        return datetime.now(UTC)


class ManualClock:
    """A clock that moves only when told to (tests)."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 5, 9, 0, tzinfo=UTC)

    def now(self) -> datetime:
        """The time the clock was set to."""
        return self._now

    def advance(self, delta: timedelta | float) -> None:
        """Move the clock forward by a timedelta or a number of seconds."""
        self._now += delta if isinstance(delta, timedelta) else timedelta(seconds=delta)

    def set(self, when: datetime) -> None:
        """Set the clock to an aware datetime."""
        self._now = when
