"""Holding clicks before their commit, to see what a platform is told while an answer is not yet stored."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from bot.runtime import Runtime


@contextmanager
def held_commits(
    runtime: Runtime, *, only: Callable[[dict[str, Any]], bool] = lambda click: True
) -> Iterator[asyncio.Event]:
    """Clicks reach the core's recorder but wait for the returned event before they go into a batch and commit.

    They count as pending clicks meanwhile (QuizApp.answer has accepted them), as clicks waiting on a slow
    database would. `only(click)` (the recorder's keyword arguments: post_id, user, choice_index, channel) picks
    the clicks held; the others commit at once. Nested holds apply to a click one after the other.
    """
    recorder = runtime.app.answers
    release = asyncio.Event()
    real_record = recorder.record

    async def held(**kwargs: Any) -> Any:
        if only(kwargs):
            await release.wait()
        return await real_record(**kwargs)

    recorder.record = held  # type: ignore[method-assign]
    try:
        yield release
    finally:
        recorder.record = real_record  # type: ignore[method-assign]


def metric(runtime: Runtime, name: str, platform: str) -> float:
    """The value of a per-platform counter of the runtime's metrics (0 before it was first counted)."""
    return runtime.metrics.registry.get_sample_value(name, {"platform": platform}) or 0.0
