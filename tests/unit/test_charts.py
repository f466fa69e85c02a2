"""The participation chart's time axis follows the span of the data (bot/charts.py; issue 25): the first day's report
drew one bar 20 hours wide filling the chart, on hourly ticks."""

from __future__ import annotations

from datetime import date, timedelta
from itertools import pairwise

import pytest
from matplotlib.axes import Axes
from matplotlib.patches import Rectangle

from bot.charts import MIN_WINDOW_BINS, bin_days, participation_figure
from bot.domain.views import DayActivity

START = date(2026, 3, 2)  # a Monday


def activity(count: int, step: int) -> list[DayActivity]:
    """`count` bins `step` days apart from START, with some answers in each."""
    return [
        DayActivity(day=START + timedelta(days=i * step), answers=3 + i % 5, participants=2, correct=1)
        for i in range(count)
    ]


def drawn_axes(days: list[DayActivity]) -> Axes:
    drawn = participation_figure(days, weekly=bin_days(days) == 7)
    drawn.canvas.draw()  # ticks and limits as they are drawn
    [axes, *_] = drawn.axes
    return axes


def bars(axes: Axes) -> list[Rectangle]:
    return [patch for patch in axes.patches if isinstance(patch, Rectangle)]


@pytest.mark.parametrize(
    ("count", "step", "least_tick_gap"),
    [(1, 1, 1), (7, 1, 1), (53, 7, 28)],
    ids=["one day", "a week", "a year in weeks"],
)
def test_bins_and_ticks_follow_the_span(count: int, step: int, least_tick_gap: int) -> None:
    days = activity(count, step)
    assert bin_days(days) == step
    axes = drawn_axes(days)
    low, high = axes.get_xlim()
    assert high - low >= MIN_WINDOW_BINS * step  # the first day is one bar among a week, not a bar filling the chart
    drawn_bars = bars(axes)
    assert len(drawn_bars) == count
    for bar in drawn_bars:
        assert bar.get_width() == pytest.approx(0.8 * step)  # as wide as its bin (a day, a week), whatever the span
        assert low <= bar.get_x() and bar.get_x() + bar.get_width() <= high
    ticks = [tick for tick in axes.get_xticks() if low <= tick <= high]
    assert len(ticks) >= 2
    assert all(tick == int(tick) for tick in ticks), ticks  # on midnights: never hours
    assert min(b - a for a, b in pairwise(ticks)) >= least_tick_gap, ticks


def test_a_year_of_days_keeps_its_ticks_to_months() -> None:
    axes = drawn_axes(activity(365, 1))
    ticks = list(axes.get_xticks())
    assert len(ticks) <= 12 and min(b - a for a, b in pairwise(ticks)) >= 28
