"""The scheduler's timer on the event loop's monotonic clock: beats never overlap, an overrun is not caught up,
a failure neither stops it nor passes silently, and stop lets a running beat finish."""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable

import pytest

from bot.scheduling.timer import Timer

INTERVAL = 0.05


HANG = 60.0
"""How long a test waits for the timer: a bound that fails a hang, not a speed check (a loaded machine may take
seconds for beats due every 50 ms)."""


async def wait_for(condition: Callable[[], bool], seconds: float = HANG) -> None:
    async with asyncio.timeout(seconds):
        while not condition():  # noqa: ASYNC110 - polls the timer
            await asyncio.sleep(0.005)


class Recording(Timer):
    """A timer that notes, for each wait, when the next beat was due and the loop's time as the wait began."""

    def __init__(self, beat: Callable[[], Awaitable[None]], *, interval: float) -> None:
        super().__init__(beat, interval=interval)
        self.waits: list[tuple[float, float]] = []

    async def _stopped_before(self, due: float) -> bool:
        self.waits.append((due, asyncio.get_running_loop().time()))
        return await super()._stopped_before(due)


async def test_beats_come_every_interval_never_two_at_a_time_and_an_overrun_is_not_caught_up() -> None:
    interval = 0.1
    loop = asyncio.get_running_loop()
    starts: list[float] = []
    slow_ended = 0.0
    running = 0
    overlapped = False

    async def beat() -> None:
        nonlocal running, overlapped, slow_ended
        starts.append(loop.time())
        running += 1
        overlapped = overlapped or running > 1
        if len(starts) == 2:
            await asyncio.sleep(interval * 5)  # one slow tick
            slow_ended = loop.time()
        running -= 1

    timer = Recording(beat, interval=interval)
    timer.start()
    try:
        await wait_for(lambda: len(starts) >= 6)
    finally:
        await timer.stop()
    assert not overlapped
    # Read from the timer's own due times, not from a stopwatch: a loaded machine may start a beat late, never early
    # (a beat 10 ms late made the stopwatch gap to the next, on time, one less than 0.9 intervals).
    dues = [due for due, _ in timer.waits[: len(starts)]]
    assert all(start >= due for start, due in zip(starts, dues, strict=True))  # never early
    gaps = [b - a for a, b in itertools.pairwise(dues)]
    assert gaps[0] >= interval * 0.9
    # The slow beat took five intervals; the next one is due as it ends, and starts without waiting (the four
    # missed beats are not run) ...
    assert gaps[1] >= interval * 5
    due, waited_from = timer.waits[2]  # the wait after the first beat, the slow one, the next
    assert due >= slow_ended  # not slow_ended's predecessor + interval: no catching up
    assert waited_from >= due  # due already: no wait
    assert all(gap >= interval * 0.9 for gap in gaps[2:])  # ... and then one every interval again


async def test_a_failing_beat_is_logged_and_the_timer_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    beats = 0

    async def beat() -> None:
        nonlocal beats
        beats += 1
        if beats == 1:
            raise RuntimeError("boom")

    timer = Timer(beat, interval=INTERVAL)
    with caplog.at_level(logging.ERROR, logger="bot.scheduling.ticker"):
        timer.start()
        try:
            await wait_for(lambda: beats >= 3)
        finally:
            await timer.stop()
    assert "a schedule timer beat failed" in caplog.text


class BreaksOnce(Timer):
    """A timer whose loop itself fails once (a bug in the timer, not in the tick)."""

    broke = False

    async def _stopped_before(self, due: float) -> bool:
        if not self.broke and self.running:
            self.broke = True
            raise RuntimeError("timer bug")
        return await super()._stopped_before(due)


async def test_a_timer_whose_loop_fails_is_restarted_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    beats = 0

    async def beat() -> None:
        nonlocal beats
        beats += 1

    timer = BreaksOnce(beat, interval=INTERVAL)
    with caplog.at_level(logging.ERROR, logger="bot.scheduling.ticker"):
        timer.start()
        try:
            await wait_for(lambda: beats >= 2)
            assert timer.running
        finally:
            await timer.stop()
    assert "the schedule timer failed (timer bug); restarting it" in caplog.text


async def test_stop_lets_a_running_beat_finish_and_no_beat_comes_after() -> None:
    entered = asyncio.Event()
    finished = 0
    beats = 0

    async def beat() -> None:
        nonlocal beats, finished
        beats += 1
        entered.set()
        await asyncio.sleep(INTERVAL * 2)
        finished += 1

    timer = Timer(beat, interval=INTERVAL)
    timer.start()
    await asyncio.wait_for(entered.wait(), HANG)
    await timer.stop()
    assert (beats, finished) == (1, 1)
    assert not timer.running
    await asyncio.sleep(INTERVAL * 3)
    assert beats == 1
    timer.start()  # and it can be started again
    try:
        await wait_for(lambda: beats >= 2)
    finally:
        await timer.stop()
