"""The adapter supervisor's rules: restart what failed while serving, give up on what never started or was refused."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.errors import ConfigError
from bot.supervision import AdapterStatus, overall_state, supervise

HANG = 60.0
"""How long a test waits for the supervisor: a bound that fails a hang, not a speed check."""


class Counts:
    def __init__(self) -> None:
        self.restarts: list[str] = []
        self.up: list[tuple[str, bool]] = []
        self.restarted = asyncio.Event()

    def adapter_restarted(self, adapter: str) -> None:
        self.restarts.append(adapter)
        self.restarted.set()

    def adapter_up(self, adapter: str, up: bool) -> None:
        self.up.append((adapter, up))


class Scripted:
    """An adapter whose runs follow a script: "crash" (after being ready), "refuse" (ConfigError after being
    ready), "never" (fails before ready), "end" (returns on its own)."""

    name = "scripted"

    def __init__(self, *script: str) -> None:
        self.script = list(script)
        self.ready = asyncio.Event()
        self.runs = 0

    async def run(self) -> None:
        self.runs += 1
        step = self.script.pop(0)
        if step == "never":
            raise OSError("cannot reach the platform")
        self.ready.set()
        await asyncio.sleep(0.01)  # serving
        if step == "crash":
            raise KeyError("name")
        if step == "refuse":
            raise ConfigError("the platform refused the token")


async def _supervise(adapter: Scripted, status: AdapterStatus, counts: Counts) -> None:
    await supervise(adapter, status, stopping=asyncio.Event(), metrics=counts, first_delay=0.001, max_delay=0.01)


async def test_an_adapter_that_fails_while_serving_is_restarted_until_it_ends() -> None:
    adapter, status, counts = Scripted("crash", "crash", "end"), AdapterStatus(), Counts()
    await _supervise(adapter, status, counts)
    assert adapter.runs == 3
    assert status.restarts == 2 and counts.restarts == ["scripted", "scripted"]
    assert status.state == "stopped" and status.last_failure == "KeyError"
    assert ("scripted", True) in counts.up and counts.up[-1] == ("scripted", False)


async def test_a_restart_that_cannot_reach_the_platform_is_retried_once_it_had_been_up() -> None:
    adapter, status, counts = Scripted("crash", "never", "never", "end"), AdapterStatus(), Counts()
    await _supervise(adapter, status, counts)
    assert adapter.runs == 4 and status.restarts == 3


async def test_an_adapter_that_never_started_ends_the_process() -> None:
    adapter, status = Scripted("never", "end"), AdapterStatus()
    with pytest.raises(OSError, match="cannot reach"):
        await _supervise(adapter, status, Counts())
    assert adapter.runs == 1 and status.state == "failed" and status.restarts == 0


async def test_a_refusal_ends_the_process_even_after_it_served() -> None:
    adapter, status = Scripted("crash", "refuse", "end"), AdapterStatus()
    with pytest.raises(ConfigError):
        await _supervise(adapter, status, Counts())
    assert adapter.runs == 2 and status.state == "failed" and status.restarts == 1


async def test_a_stop_during_the_backoff_ends_the_supervisor_without_a_restart() -> None:
    adapter, status, stopping, counts = Scripted("crash", "end"), AdapterStatus(), asyncio.Event(), Counts()
    task = asyncio.create_task(supervise(adapter, status, stopping=stopping, metrics=counts, first_delay=30))
    await asyncio.wait_for(counts.restarted.wait(), HANG)
    assert status.state == "restarting"
    stopping.set()
    await asyncio.wait_for(task, HANG)
    assert adapter.runs == 1 and status.state == "stopped"


async def test_each_restart_is_one_line_at_error_without_a_traceback(caplog: pytest.LogCaptureFixture) -> None:
    adapter, status, counts = Scripted("crash", "crash", "end"), AdapterStatus(), Counts()
    with caplog.at_level(logging.DEBUG, logger="bot.supervision"):
        await _supervise(adapter, status, counts)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 2
    for record in errors:
        assert record.exc_info is None  # the traceback is a DEBUG record of its own
        assert "\n" not in record.getMessage()
        assert record.getMessage().startswith("adapter scripted failed (KeyError: 'name'); restarting it in")
    assert any(r.levelno == logging.DEBUG and r.exc_info for r in caplog.records)


def _statuses(*states: str) -> dict[str, AdapterStatus]:
    return {f"a{n}": AdapterStatus(state=state) for n, state in enumerate(states)}


@pytest.mark.parametrize(
    ("states", "overall"),
    [
        (("starting", "starting"), "starting"),
        (("running", "starting"), "starting"),  # not every adapter is up yet
        (("running", "running"), "running"),
        (("running", "restarting"), "restarting"),
        (("restarting", "starting"), "restarting"),
        (("running", "failed"), "failed"),
        (("stopped", "running"), "stopped"),
    ],
)
def test_the_overall_state_is_the_least_ready_adapters(states: tuple[str, ...], overall: str) -> None:
    assert overall_state(_statuses(*states)) == overall
