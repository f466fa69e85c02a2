"""A report's charts as PNG images for chat: drawn in a separate process, matplotlib loaded there on first use.

Adapters that post `/quiz report`'s charts (Slack's file upload, Discord's attachments) call `render_charts`; the
drawing itself is bot/charts.py, the same figures as the HTML report. Drawing takes seconds of pure-Python CPU
(matplotlib): in a thread it would hold the GIL against the event loop and delay clicks and commands being answered
meanwhile, so it runs in one worker process (spawned on the first charted report, kept for the next ones). Where a
process cannot be started, a worker thread draws instead.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import struct
import threading
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from bot.domain.views import ReportChart

log = logging.getLogger(__name__)

_drawing = threading.Lock()
"""matplotlib's font cache and rc parameters are process-wide: one chart is drawn at a time."""


@dataclass(frozen=True, slots=True)
class ChartImage:
    """A chart drawn as a PNG, with what a platform needs to post it: file name, title, alt text and size."""

    filename: str
    title: str
    alt_text: str
    png: bytes

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels, read from the PNG's header."""
        width, height = struct.unpack(">II", self.png[16:24])
        return int(width), int(height)


def draw(charts: Sequence[ReportChart]) -> list[ChartImage]:
    """The charts as PNGs, drawn here and now (in the worker process, or a thread)."""
    from bot.charts import render_png  # matplotlib: loaded by the first report that is charted

    with _drawing:
        return [ChartImage(c.filename, c.title, c.alt_text, render_png(c)) for c in charts]


class _Worker:
    """The one drawing process of the bot, started on first use (spawned: never a fork of a running event loop)."""

    def __init__(self) -> None:
        self.pool: ProcessPoolExecutor | None = None

    def executor(self) -> ProcessPoolExecutor:
        """The drawing process (started now if it is not running)."""
        if self.pool is None:
            self.pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        return self.pool

    def discard(self) -> None:
        """Forget a process that failed; the next report starts another."""
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool = None


_worker = _Worker()


async def render_charts(charts: Sequence[ReportChart]) -> list[ChartImage]:
    """The charts as PNG images, drawn in the worker process so the event loop keeps serving clicks."""
    if not charts:
        return []
    wanted = tuple(charts)
    try:
        return await asyncio.get_running_loop().run_in_executor(_worker.executor(), draw, wanted)
    except (BrokenProcessPool, OSError, RuntimeError) as exc:  # no process could be started, or it died
        log.warning("charts drawn in a thread: the drawing process is unavailable (%s)", exc)
        _worker.discard()
        return await asyncio.to_thread(draw, wanted)
