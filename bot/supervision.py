"""Supervised adapters: one adapter that crashes is restarted with backoff while the others, the scheduler and the
process go on; what no restart can fix (a refused token, a setting) still ends the process non-zero.

The rule for telling the two apart: an adapter that fails before it was ever up (its first start) or with a
ConfigError failed for a reason of the process (credentials, settings, the platform unreachable from here), which
`quizbot run` reports as one line and exits on, so that whoever runs it sees it; an adapter that was up and then
fails (a bad frame its library choked on, a dropped connection the library gave up on) is restarted.

Each restart is one line at ERROR (the traceback at DEBUG); a process-level failure ends `serve` with
`AdapterFailed`, which `quizbot run` turns into its one explained line.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from bot.errors import ConfigError

log = logging.getLogger(__name__)

FIRST_DELAY = 1.0
MAX_DELAY = 60.0


class Supervised(Protocol):
    """An adapter as the supervisor sees it (bot.plugins.Adapter, with its optional `ready` event)."""

    name: str

    async def run(self) -> None:
        """Serve until told to stop."""
        ...


class RestartCounter(Protocol):
    """Where restarts are counted (bot.ops.metrics.Metrics)."""

    def adapter_restarted(self, adapter: str) -> None:
        """Count one restart of `adapter`."""
        ...

    def adapter_up(self, adapter: str, up: bool) -> None:
        """Whether `adapter` is serving."""
        ...


@dataclass
class AdapterStatus:
    """What /healthz shows of one adapter: `starting`, `running`, `restarting`, `stopped` or `failed`."""

    state: str = "starting"
    restarts: int = 0
    last_failure: str | None = None
    """The exception's class only (no library text: /healthz may be public); the full error is in the log."""

    def report(self) -> dict[str, object]:
        """The status as JSON-ready data."""
        data: dict[str, object] = {"state": self.state, "restarts": self.restarts}
        if self.last_failure is not None:
            data["last_failure"] = self.last_failure
        return data


class AdapterFailed(Exception):
    """An adapter's process-level failure, raised by `bot.runtime.serve` once everything else has stopped."""

    def __init__(self, adapter: str, error: Exception) -> None:
        super().__init__(f"the {adapter} adapter failed: {type(error).__name__}")
        self.adapter = adapter
        self.error = error


def overall_state(statuses: Mapping[str, AdapterStatus]) -> str:
    """The bot's state from its adapters' for /healthz: `failed` or `stopped` once one ended for good,
    `restarting` while one is down after a failure, `starting` until every adapter has been up once, then
    `running`."""
    states = {status.state for status in statuses.values()}
    for state in ("failed", "stopped", "restarting", "starting"):
        if state in states:
            return state
    return "running"


def _ready(adapter: Supervised) -> asyncio.Event | None:
    ready = getattr(adapter, "ready", None)
    return ready if isinstance(ready, asyncio.Event) else None


async def supervise(
    adapter: Supervised,
    status: AdapterStatus,
    *,
    stopping: asyncio.Event,
    metrics: RestartCounter,
    first_delay: float = FIRST_DELAY,
    max_delay: float = MAX_DELAY,
) -> None:
    """Run the adapter, restarting it with exponential backoff (and jitter) when it fails after it was up.

    Returns when the adapter returns on its own (the terminal's end of input) or the bot stops; raises the
    adapter's error when it is a process-level failure (see the module's docstring).
    """
    ever_up = False
    delay = first_delay
    while True:
        ready = _ready(adapter)
        if ready is not None:
            ready.clear()
        watch = asyncio.create_task(_mark_up(adapter, status, metrics, ready), name=f"watch-{adapter.name}")
        try:
            await adapter.run()
        except Exception as exc:
            up_this_time = status.state == "running"
            ever_up = ever_up or up_this_time
            if up_this_time:
                delay = first_delay  # it served since the last failure: start the backoff again
            metrics.adapter_up(adapter.name, False)
            status.last_failure = type(exc).__name__
            if isinstance(exc, ConfigError) or not ever_up or stopping.is_set():
                status.state = "failed"
                raise
            status.state = "restarting"
            status.restarts += 1
            metrics.adapter_restarted(adapter.name)
            wait = min(delay, max_delay) * random.uniform(0.8, 1.2)
            log.error(  # one line: the operator's log reader sees it whole; the traceback is for DEBUG
                "adapter %s failed (%s: %s); restarting it in %.1f s (restart %d)",
                adapter.name,
                type(exc).__name__,
                " ".join(str(exc).split())[:300],
                wait,
                status.restarts,
            )
            log.debug("adapter %s failed", adapter.name, exc_info=exc)
            delay = min(delay * 2, max_delay)
            try:
                await asyncio.wait_for(stopping.wait(), wait)
            except TimeoutError:
                continue
            status.state = "stopped"
            return
        else:
            metrics.adapter_up(adapter.name, False)
            status.state = "stopped"
            return
        finally:
            watch.cancel()


async def _mark_up(
    adapter: Supervised, status: AdapterStatus, metrics: RestartCounter, ready: asyncio.Event | None
) -> None:
    """Mark the adapter running once it says it is ready (at once for an adapter without a `ready` event)."""
    if ready is not None:
        await ready.wait()
    else:
        await asyncio.sleep(0)
    status.state = "running"
    metrics.adapter_up(adapter.name, True)
