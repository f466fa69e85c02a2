"""The report's charts, drawn with matplotlib: as SVG for the HTML report, as PNG for chat (`/quiz report`).

One figure per chart, built by the same functions for both, so the images posted in a channel are the charts of
the HTML report. matplotlib is heavy to import (about half a second): only `bot/report_html.py` and, on the first
`/quiz report`, `bot/chart_images.py` (in its drawing process) import this module. Figures are built with the object
API (no pyplot, no global figure state); callers still draw one at a time (chart_images holds a lock).
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from datetime import date
from itertools import pairwise

import matplotlib

matplotlib.use("Agg")  # no display: figures are only ever written to strings and bytes

from matplotlib.axes import Axes
from matplotlib.dates import AutoDateLocator, ConciseDateFormatter, DateLocator, DayLocator
from matplotlib.figure import Figure

from bot.domain.views import ChartKind, DayActivity, QuestionResult, ReportChart, TagResult
from bot.wording.reports import chart_title, chart_words

EPOCH = date(1970, 1, 1).toordinal()
BAR = "#3b6ea8"
LINE = "#d1495b"
GOOD, FAIR, POOR = "#2e8b57", "#e0a100", "#c0392b"

CHAT_DPI = 120
"""PNG resolution for chat: a 9-inch-wide figure is 1080 px, which Slack and Discord show sharp at their preview
width (about 360-550 px) and full size on click, with 8-10 pt text still readable."""
MIN_WINDOW_BINS = 7
"""The participation chart shows at least this many bins (days or weeks) along its time axis: the first day's report
is one bar in a week, on day ticks, not one bar filling the chart on hourly ticks."""
DAY_TICKS_UP_TO = 31
"""Up to this many days in view, ticks fall on days (every day, or every few); beyond, months or years."""
CHAT_QUESTIONS = 15
"""The per-question chart in chat shows the hardest this many questions (the HTML report shows all)."""


def figure(width: float, height: float) -> Figure:
    """A blank figure of `width` x `height` inches with constrained layout."""
    return Figure(figsize=(width, height), layout="constrained")


def svg(drawn: Figure) -> str:
    """The figure as an inline `<svg>` element."""
    buffer = io.StringIO()
    # Text stays text (small, searchable); a fixed hash salt keeps the output the same for the same data.
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "quizbot"}):
        drawn.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def png(drawn: Figure, *, dpi: int = CHAT_DPI) -> bytes:
    """The figure as PNG bytes on a white background (chat clients in dark mode would show transparency black)."""
    buffer = io.BytesIO()
    drawn.savefig(buffer, format="png", dpi=dpi, facecolor="white", metadata={"Software": None})
    return buffer.getvalue()


def label(text: str, width: int = 48) -> str:
    """Plain text for a matplotlib label: shortened, and `$` escaped so it is not read as math."""
    flat = " ".join(text.split())
    if len(flat) > width:
        flat = flat[: width - 1].rstrip() + "…"
    return flat.replace("$", r"\$")


def bin_days(days: Sequence[DayActivity]) -> int:
    """How many days one bar stands for: the spacing of the data (a day; a week when a long report folds its days),
    so a bar is as wide as its bin whatever the span."""
    if len(days) < 2:
        return 1
    return max(1, min((later.day - earlier.day).days for earlier, later in pairwise(days)))


def _time_axis(axes: Axes, xs: Sequence[float], bin_width: int) -> None:
    """The x axis of a chart over time: at least MIN_WINDOW_BINS bins in view (the data centred in it), with ticks
    on days for a short span and on months or years beyond, never finer than a day."""
    first, last = min(xs) - bin_width / 2, max(xs) + bin_width / 2
    pad = max(0.0, (MIN_WINDOW_BINS * bin_width - (last - first)) / 2)
    low, high = first - pad, last + pad
    axes.set_xlim(low, high)
    span = high - low
    locator: DateLocator
    if span <= DAY_TICKS_UP_TO:
        locator = DayLocator(interval=max(1, math.ceil(span / 10)))  # type: ignore[no-untyped-call]
    else:
        locator = AutoDateLocator(minticks=3, maxticks=10, interval_multiples=True)  # type: ignore[no-untyped-call]
    axes.xaxis.set_major_locator(locator)
    axes.xaxis.set_major_formatter(ConciseDateFormatter(locator))  # type: ignore[no-untyped-call]


def participation_figure(days: Sequence[DayActivity], *, weekly: bool, title: str | None = None) -> Figure:
    """Answers (bars) and people answering (line) per day or week; the bars' width and the axis's ticks follow the
    span of the data (bin_days, _time_axis)."""
    words = chart_words()
    drawn = figure(9, 3.2 if title is None else 3.6)
    axes = drawn.add_subplot()
    # matplotlib's date numbers: days since its default epoch, 1970-01-01.
    xs = [float(d.day.toordinal() - EPOCH) for d in days]
    bin_width = bin_days(days)
    axes.bar(xs, [d.answers for d in days], width=0.8 * bin_width, color=BAR, label=words.answers)
    axes.plot(xs, [d.participants for d in days], color=LINE, marker="o", markersize=3, label=words.people_answering)
    axes.xaxis_date()
    if xs:
        _time_axis(axes, xs, bin_width)
    axes.set_ylabel(words.per_week if weekly else words.per_day)
    axes.legend(loc="lower left", bbox_to_anchor=(0, 1), ncols=2, frameon=False)
    axes.spines[["top", "right"]].set_visible(False)
    if title is not None:
        drawn.suptitle(label(title, 80), x=0.01, ha="left")
    drawn.autofmt_xdate()
    return drawn


def accuracy_figure(labels: list[str], values: list[float], counts: list[int], title: str) -> Figure:
    """Horizontal bars of % correct, one per label, coloured good/fair/poor, each labelled `76% of 12`."""
    words = chart_words()
    drawn = figure(9, max(1.6, 0.32 * len(labels) + 0.9))
    axes = drawn.add_subplot()
    colours = [GOOD if v >= 0.75 else FAIR if v >= 0.5 else POOR for v in values]
    positions = list(range(len(labels)))
    axes.barh(positions, [v * 100 for v in values], color=colours)
    axes.set_yticks(positions, labels=labels)
    axes.invert_yaxis()
    axes.set_xlim(0, 100)
    axes.set_xlabel(words.percent_correct)
    axes.set_title(title, loc="left")
    for position, value, count in zip(positions, values, counts, strict=True):
        text = words.of(value, count)
        if value >= 0.85:  # no room after the bar: write inside it
            axes.text(value * 100 - 1, position, text, va="center", ha="right", fontsize=8, color="white")
        else:
            axes.text(value * 100 + 1, position, text, va="center", fontsize=8)
    axes.spines[["top", "right"]].set_visible(False)
    return drawn


def question_figure(questions: Sequence[QuestionResult], *, limit: int | None = None) -> Figure:
    """Accuracy per question, hardest first (only the hardest `limit` when given)."""
    ordered = sorted(questions, key=lambda q: (q.accuracy, -q.answered))[:limit]
    labels = [label(f"{q.pack_id} #{q.number}: {q.prompt}") for q in ordered]
    return accuracy_figure(
        labels, [q.accuracy for q in ordered], [q.answered for q in ordered], chart_title(ChartKind.QUESTIONS)
    )


def tag_figure(tags: Sequence[TagResult]) -> Figure:
    """Accuracy per tag, weakest first."""
    ordered = sorted(tags, key=lambda t: (t.accuracy, -t.answered, t.tag))
    return accuracy_figure(
        [label(t.tag) for t in ordered],
        [t.accuracy for t in ordered],
        [t.answered for t in ordered],
        chart_title(ChartKind.TAGS),
    )


def is_weekly(days: Sequence[DayActivity]) -> bool:
    """Whether a report's activity is per week (long reports fold days into weeks)."""
    return len(days) > 1 and (days[1].day - days[0].day).days == 7


def render_png(chart: ReportChart) -> bytes:
    """One chart of a report as a PNG at chat size."""
    report = chart.report
    if chart.kind is ChartKind.PARTICIPATION:
        drawn = participation_figure(report.days, weekly=is_weekly(report.days), title=chart.title)
    elif chart.kind is ChartKind.QUESTIONS:
        drawn = question_figure(report.questions, limit=CHAT_QUESTIONS)
    else:
        drawn = tag_figure(report.tags)
    return png(drawn)
