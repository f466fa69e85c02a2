"""The scheduler's timer: a task in the bot's own event loop that calls the tick every few seconds of monotonic time.

It waits on the event loop's clock (`loop.time()`, which is `time.monotonic()`), never on the wall clock. APScheduler's
IntervalTrigger, the timer before, keeps its next run as a wall-clock datetime: after the system clock jumped back an
hour it re-armed for about 3,600 s, and for that hour nothing was posted or revealed. Here a wall-clock jump either
way changes nothing about when the next tick runs; what a tick does with the wall clock (slots keyed by local
calendar time, one claim per slot) is the tick's business.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from bot.scheduling.fires import LOGGER_NAME

log = logging.getLogger(LOGGER_NAME)

TIMER_NAME = "quizbot-schedule-tick"


class Timer:
    """Calls `beat` at once, then every `interval` seconds of monotonic time; never two beats at a time.

    A beat that overruns the interval is followed by the next one at once; missed beats are not caught up. The loop
    runs in a task supervised by a done-callback: should it fail, the failure is logged and the loop restarted, so
    scheduled questions do not stop silently.
    """

    def __init__(self, beat: Callable[[], Awaitable[None]], *, interval: float, name: str = TIMER_NAME) -> None:
        self.beat = beat
        self.interval = interval
        self.name = name
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()

    @property
    def running(self) -> bool:
        """Whether the loop is running (started and not stopped)."""
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        """Start the loop in the running event loop; the first beat is now."""
        if self.running:
            return
        self._stop = asyncio.Event()
        self._launch(delay=0.0)

    async def stop(self) -> None:
        """Stop the loop; a beat that is running finishes first."""
        self._stop.set()
        task = self._task
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)

    def _launch(self, *, delay: float) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(delay), name=self.name)
        self._task.add_done_callback(self._ended)

    async def _run(self, delay: float) -> None:
        loop = asyncio.get_running_loop()
        due = loop.time() + delay
        while not await self._stopped_before(due):
            try:
                await self.beat()
            except Exception:  # the tick logs its own failures; this only keeps the timer alive
                log.exception("a schedule timer beat failed")
            due = max(due + self.interval, loop.time())

    async def _stopped_before(self, due: float) -> bool:
        """Wait until the loop's clock reaches `due`; True if told to stop first."""
        wait = due - asyncio.get_running_loop().time()
        if wait <= 0:
            await asyncio.sleep(0)  # a beat that overran still lets the loop run other tasks first
            return self._stop.is_set()
        try:
            async with asyncio.timeout(wait):
                await self._stop.wait()
        except TimeoutError:
            return self._stop.is_set()
        return True

    def _ended(self, task: asyncio.Task[None]) -> None:
        if task is not self._task:
            return
        if task.cancelled():
            if not self._stop.is_set():
                log.warning("the schedule timer was cancelled; no scheduled questions until the bot restarts")
            return
        exc = task.exception()
        if not isinstance(exc, Exception) or self._stop.is_set():
            return
        log.error("the schedule timer failed (%s); restarting it", exc, exc_info=exc)
        self._launch(delay=self.interval)
