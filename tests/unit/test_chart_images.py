"""`/quiz report`'s charts as PNG images (bot/charts.py, bot/chart_images.py): the HTML report's figures, drawn at
a readable chat size, each with a title and alt text that says what it shows."""

from __future__ import annotations

import dataclasses
import io
from datetime import UTC, date, datetime, timedelta

from PIL import Image

from bot.chart_images import render_charts
from bot.domain import Leaderboard
from bot.domain.views import ChartKind, DayActivity, QuestionResult, Report, TagResult
from bot.wording.reports import ALT_TEXT_MAX, charts


def question(number: int, answered: int, correct: int, tags: tuple[str, ...] = ("dp",)) -> QuestionResult:
    return QuestionResult(
        pack_id="data-parallelism",
        pack_title="Data Parallelism",
        key=f"q{number}",
        number=number,
        prompt=f"Question {number} about $gradients$ and a very long prompt " * 3,
        correct_choice="A",
        explanation="Because.",
        tags=tags,
        answered=answered,
        correct=correct,
    )


def report(*, answers: int = 30, days: int = 20, questions: int = 24) -> Report:
    start = date(2026, 11, 1)
    qs = tuple(question(n, answered=5, correct=n % 6, tags=("dp", f"t{n % 4}")) for n in range(1, questions + 1))
    return Report(
        title="Workspace Acme",
        workspace="Acme",
        timezone="UTC",
        generated_at=datetime(2026, 12, 1, tzinfo=UTC),
        since=None,
        participants=7,
        answers=answers,
        correct=answers // 2,
        points=300,
        leaderboard=Leaderboard(scope="workspace", window="all", rows=()),
        questions=qs,
        days=tuple(
            DayActivity(start + timedelta(days=i), answers=i % 5, participants=i % 3, correct=1) for i in range(days)
        ),
        tags=(TagResult("dp", 60, 30), TagResult("t1", 10, 2)),
    )


async def test_each_chart_is_a_png_at_chat_size_with_alt_text() -> None:
    wanted = charts(report())
    assert [c.kind for c in wanted] == [ChartKind.PARTICIPATION, ChartKind.QUESTIONS, ChartKind.TAGS]
    images = await render_charts(wanted)
    assert [i.filename for i in images] == ["participation.png", "questions.png", "tags.png"]
    for image in images:
        decoded = Image.open(io.BytesIO(image.png))
        decoded.load()
        assert decoded.format == "PNG" and decoded.size == image.size
        width, height = image.size
        assert width == 1080  # 9 in at 120 dpi: sharp at chat preview width, readable when opened
        assert 180 <= height <= 1500
        assert 0 < len(image.alt_text) <= ALT_TEXT_MAX
    assert images[0].alt_text.startswith(
        "Participation over time: 30 answers by 7 people from 2026-11-01 to 2026-11-20"
    )
    # The chat's per-question chart shows the hardest 15 (0.32 in a bar): not taller than a screen.
    assert images[1].size[1] < 0.32 * 24 * 120
    assert "hardest first (24 questions)" in images[1].alt_text and "; and more" in images[1].alt_text


def test_a_report_without_answers_has_no_charts() -> None:
    assert charts(report(answers=0)) == ()


def test_alt_text_is_cut_to_the_platform_limit() -> None:
    long = report()
    tags = tuple(TagResult("t" * 120 + str(i), 10, i % 10) for i in range(30))
    [*_, tag_chart] = charts(dataclasses.replace(long, tags=tags))
    assert len(tag_chart.alt_text) == ALT_TEXT_MAX and tag_chart.alt_text.endswith("…")


async def test_no_charts_draws_nothing() -> None:
    assert await render_charts(()) == []
