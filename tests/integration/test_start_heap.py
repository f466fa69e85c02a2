"""`quizbot run` settles the heap once start-up is done (bot.cli_commands.settle_heap): the collector, off during
start-up, is back on, and what start-up built is frozen out of its sight, so the first full collection (70-87 ms
measured inside the first click batch, bench section 1) does not walk it."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

import bot.runtime
from bot.cli_commands import run_bot, settle_heap
from tests.conftest import SEED_CONTENT, patient_settings


@pytest.fixture
def restored_collector() -> Iterator[None]:
    """The test process's collector as it was, whatever run_bot did to it."""
    enabled = gc.isenabled()
    try:
        yield
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()
        else:
            gc.disable()


async def test_run_freezes_what_start_up_built_and_turns_the_collector_back_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, restored_collector: None
) -> None:
    seen: dict[str, Any] = {}

    async def serve(runtime: bot.runtime.Runtime, adapters: Sequence[Any]) -> None:
        """Instead of serving: what the collector looks like when the bot would start serving."""
        seen["enabled"] = gc.isenabled()
        seen["frozen"] = gc.get_freeze_count()
        seen["runtime_frozen"] = not any(obj is runtime for obj in gc.get_objects())
        await runtime.aclose()

    gc.unfreeze()
    monkeypatch.setattr(bot.runtime, "serve", serve)
    settings = patient_settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'quiz.db'}", adapters=["console"], content_dir=SEED_CONTENT
    )
    await run_bot(settings)

    assert seen["enabled"] is True
    assert seen["frozen"] > 10_000  # start-up's objects: modules, the packs, the wiring
    assert seen["runtime_frozen"] is True  # gc.get_objects() lists only what the collector still tracks


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_settling_collects_the_young_generations_and_does_not_walk_the_old(restored_collector: None) -> None:
    """What was imported before the collector went off is in the oldest generation, its garbage collected as it
    went; settling looks in the young ones only (a full collection walked every object again: bench section 9)."""
    gc.disable()
    made_with_the_collector_off = [[n] for n in range(1_000)]
    garbage = _Cycle()
    dropped = weakref.ref(garbage)
    del garbage
    full_collections = gc.get_stats()[2]["collections"]
    young_collections = gc.get_stats()[1]["collections"]

    settle_heap()

    assert gc.get_stats()[2]["collections"] == full_collections
    assert gc.get_stats()[1]["collections"] == young_collections + 1
    assert dropped() is None  # start-up's garbage is collected
    assert gc.isenabled() is True
    assert not any(obj is made_with_the_collector_off for obj in gc.get_objects())  # frozen
