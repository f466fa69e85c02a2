"""Benchmark: `/quiz report`'s chart images. The first report's cost (importing matplotlib in the worker thread)
and each later report's, as a ratio to the reference measured in the same run: drawing the same three figures as
SVG, which `quizbot report` (the HTML report) already does.

    python -m bench.chart_images [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from datetime import UTC, date, datetime, timedelta

from bot import charts as drawing
from bot.chart_images import render_charts
from bot.domain import Leaderboard
from bot.domain.views import DayActivity, QuestionResult, Report
from bot.service.report import tag_results
from bot.wording.reports import charts

COLD = """
import asyncio, time
started = time.perf_counter()
from bench.chart_images import sample
from bot.chart_images import render_charts
from bot.wording.reports import charts
asyncio.run(render_charts(charts(sample())))
print(time.perf_counter() - started)
"""


def sample(questions: int = 16, days: int = 60) -> Report:
    """A report of two packs' worth of questions over two months."""
    start = date(2026, 10, 1)
    qs = tuple(
        QuestionResult(
            pack_id="data-parallelism",
            pack_title="Data Parallelism",
            key=f"q{n}",
            number=n,
            prompt=f"Which statement about gradient all-reduce number {n} holds at scale?",
            correct_choice="A",
            explanation="",
            tags=("ddp", f"topic-{n % 5}"),
            answered=10 + n,
            correct=n % 9,
        )
        for n in range(1, questions + 1)
    )
    activity = tuple(DayActivity(start + timedelta(days=i), 5 + i % 7, 3 + i % 4, 2) for i in range(days))
    return Report(
        title="Workspace Acme",
        workspace="Acme",
        timezone="UTC",
        generated_at=datetime(2026, 12, 1, tzinfo=UTC),
        since=None,
        participants=20,
        answers=sum(q.answered for q in qs),
        correct=sum(q.correct for q in qs),
        points=0,
        leaderboard=Leaderboard("workspace", "all", ()),
        questions=qs,
        days=activity,
        tags=tag_results(qs),
    )


def first_report() -> float:
    """Seconds to draw the first report's charts in a fresh process (matplotlib is imported then)."""
    return float(subprocess.run([sys.executable, "-c", COLD], capture_output=True, text=True, check=True).stdout)


async def main(repeat: int, cold: float) -> None:
    """Print the cold first report and the warm ratios."""
    report = sample()
    wanted = charts(report)
    png, svg = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        images = await render_charts(wanted)
        png.append(time.perf_counter() - started)
        started = time.perf_counter()
        drawing.svg(drawing.participation_figure(report.days, weekly=False))
        drawing.svg(drawing.question_figure(report.questions))
        drawing.svg(drawing.tag_figure(report.tags))
        svg.append(time.perf_counter() - started)
    ratio = statistics.median(p / s for p, s in zip(png, svg, strict=True))
    print(f"first report, fresh process (imports matplotlib): {cold:.2f} s")
    print(
        f"later reports: 3 PNGs {statistics.median(png):.2f} s, the HTML report's 3 SVGs {statistics.median(svg):.2f} s"
    )
    print(f"PNG / SVG (same figures, same run, median of {repeat}): {ratio:.2f}")
    print("images:", [(i.filename, i.size, len(i.png)) for i in images])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.repeat, first_report()))
