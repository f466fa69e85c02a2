"""The scheduler's timer: an APScheduler 3.11 interval job in the bot's own event loop that calls the tick.

APScheduler is used as a timer only: schedules live in the app's tables, and its job stores must not be shared
between processes anyway.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.interval import IntervalTrigger

from bot.scheduling.fires import LOGGER_NAME

log = logging.getLogger(LOGGER_NAME)

JOB_ID = "quizbot-schedule-tick"


class Timer:
    """Runs `beat` every `interval` seconds, the first time at once, never two at a time."""

    def __init__(self, beat: Callable[[], Awaitable[None]], *, interval: float) -> None:
        self.beat = beat
        self.interval = interval
        self._scheduler: AsyncIOScheduler | None = None

    @property
    def scheduler(self) -> AsyncIOScheduler | None:
        """The running APScheduler instance (None when stopped)."""
        return self._scheduler

    @property
    def running(self) -> bool:
        """Whether the timer is started."""
        return self._scheduler is not None

    def start(self) -> None:
        """Register `beat` as an APScheduler interval job in the running event loop, first run now."""
        if self._scheduler is not None:
            return
        scheduler = AsyncIOScheduler(timezone=UTC)
        scheduler.add_job(
            self.beat,
            IntervalTrigger(seconds=self.interval, timezone=UTC),
            id=JOB_ID,
            name="quizbot schedules",
            next_run_time=datetime.now(UTC),
            coalesce=True,
            max_instances=1,
            # A loop blocked for a moment must not drop ticks (APScheduler's default grace is one second).
            misfire_grace_time=max(60, int(self.interval * 3)),
            replace_existing=True,
        )
        scheduler.start()
        self._scheduler = scheduler

    def stop(self) -> None:
        """Remove the job; a beat already running goes on (APScheduler's own shutdown runs on the loop)."""
        if self._scheduler is not None:
            self._scheduler.shutdown(wait=False)
            self._scheduler = None
