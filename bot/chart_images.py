"""A report's charts as PNG images for chat: drawn off the event loop, one at a time, matplotlib loaded on first use.

Adapters that post `/quiz report`'s charts (Slack's file upload, Discord's attachments, the terminal's folder)
call `render_charts`; the drawing itself is bot/charts.py, the same figures as the HTML report.
"""

from __future__ import annotations

import asyncio
import struct
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from bot.service.views import ReportChart

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


def _draw(charts: Sequence[ReportChart]) -> list[ChartImage]:
    from bot.charts import render_png  # matplotlib: loaded by the first report that is charted, in this thread

    with _drawing:
        return [ChartImage(c.filename, c.title, c.alt_text, render_png(c)) for c in charts]


async def render_charts(charts: Sequence[ReportChart]) -> list[ChartImage]:
    """The charts as PNG images, drawn in a worker thread so the event loop keeps serving clicks."""
    if not charts:
        return []
    return await asyncio.to_thread(_draw, charts)
