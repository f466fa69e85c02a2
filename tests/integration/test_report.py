"""Reports: the HTML file with charts (parsed back), `quizbot report` through the CLI, and `/quiz report` in chat."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path

import pytest

from bot.clock import ManualClock
from bot.domain import ChannelRef, QuestionCard, UserRef
from bot.domain.views import TagResult
from bot.report_html import render_html, tag_chart
from bot.runtime import Runtime
from bot.service.facade import Invocation
from tests.conftest import make_user, use_patient_database
from tests.scoring_helpers import answer, post


class ReportPage(HTMLParser):
    """What a reader of the report sees: figures, charts, and the text of each table by id."""

    def __init__(self) -> None:
        super().__init__()
        self.figures: dict[str, str] = {}
        self.charts: list[str] = []
        self.tables: dict[str, list[list[str]]] = {}
        self.tags: list[str] = []
        self._figure: str | None = None
        self._table: str | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.tags.append(tag)
        if "data-figure" in attributes:
            self._figure = attributes["data-figure"]
        if tag == "div" and (attributes.get("id") or "").startswith("chart-"):
            self.charts.append(attributes["id"] or "")
        if tag == "table":
            self._table = attributes.get("id") or f"table-{len(self.tables)}"
            self.tables[self._table] = []
        if tag == "tr" and self._table:
            self.tables[self._table].append([])
        if tag in {"td", "th"}:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._table = None
        if tag in {"td", "th"} and self._cell is not None and self._table:
            self.tables[self._table][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._figure is not None:
            self.figures[self._figure] = data
            self._figure = None
        if self._cell is not None:
            self._cell.append(data)


def read(html: str) -> ReportPage:
    page = ReportPage()
    page.feed(html)
    return page


async def cohort_with_answers(runtime: Runtime, channel: ChannelRef, clock: ManualClock) -> list[QuestionCard]:
    """Cohort spring (ann, ben, and <b>eve</b> who never answers) over two curriculum questions, plus an outsider."""
    lead = make_user("lead")
    await runtime.app.handle_command(Invocation(channel, lead, "cohort create spring packs:data-parallelism"))
    for name in ("ann", "ben", "<b>eve</b>"):
        await runtime.app.handle_command(Invocation(channel, make_user(name), "cohort join spring"))
    cards = []
    for right in ({"ann": True, "ben": False, "outsider": True}, {"ann": False, "ben": False}):
        posted = await runtime.app.cohorts.post_next_question(channel, cohort_id=1)
        assert posted is not None
        cards.append(posted.card)
        for name, ok in right.items():
            await answer(runtime, posted.card, name, right=ok)
        await runtime.app.reveal(posted.card.post_id)
        clock.advance(timedelta(days=1))
    return cards


async def test_the_cohort_report_shows_the_figures_charts_and_explanations(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    _first, second = await cohort_with_answers(runtime, channel, clock)
    report = await runtime.app.reports.build(platform="fake", workspace="W1", cohort="spring")
    page = read(render_html(report))

    assert page.figures == {
        "participants": "2",
        "answers": "4",
        "accuracy": "25%",
        "points": "20",
        "members": "3",
        "curriculum": "2/8",
        "review-mastered": "0",
    }
    assert page.charts == ["chart-participation", "chart-questions", "chart-tags"]
    assert page.tags.count("svg") == 3
    assert page.tables["leaderboard"][1:] == [
        ["1", "ann", "20", "1/2 (50%)", "0", "2"],
        ["2", "ben", "0", "0/2 (0%)", "0", "2"],
    ]
    missed = page.tables["most-missed"]
    pack = runtime.catalog.get("data-parallelism")
    hardest = next(q for q in pack.questions if q.prompt == second.prompt)
    assert missed[1][0].startswith(" ".join(hardest.prompt.split()))
    assert " ".join(hardest.explanation.split()) in missed[1][0]
    assert missed[1][1:] == ["0%", "2 of 2"]
    assert missed[2][1:] == ["50%", "1 of 2"]
    assert [row[0] for row in page.tables["members"][1:]] == ["ann", "ben", "<b>eve</b>"]
    assert "outsider" not in str(page.tables)
    assert "<b>" not in render_html(report).split("<body>", 1)[1].replace("<b>eve</b>", "")  # escaped, not markup
    assert page.tags.count("b") == 0


async def test_the_workspace_report_and_an_empty_one(runtime: Runtime, channel: ChannelRef, clock: ManualClock) -> None:
    await cohort_with_answers(runtime, channel, clock)
    report = await runtime.app.reports.build(platform="fake", workspace="W1")
    page = read(render_html(report))
    assert (page.figures["participants"], page.figures["answers"]) == ("3", "5")
    assert "members" not in page.figures
    assert report.title == "Workspace W1"

    await answer(runtime, await post(runtime, ChannelRef("fake", "W2", "C9")), make_user("zoe", "W2"), right=True)
    await runtime.app.handle_command(
        Invocation(ChannelRef("fake", "W3", "C1"), make_user("x", "W3"), "cohort create q")
    )
    empty = read(render_html(await runtime.app.reports.build(platform="fake", workspace="W3", cohort="q")))
    assert empty.figures["answers"] == "0"
    assert empty.charts == []


def test_chart_labels_are_text_not_math() -> None:
    svg = tag_chart([TagResult("cost in $ per GPU", 4, 1), TagResult("$x$", 2, 2)])
    assert "cost in $ per GPU" in svg
    assert "$x$" in svg


async def test_quizbot_report_through_the_cli(
    runtime: Runtime,
    channel: ChannelRef,
    clock: ManualClock,
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from bot.cli import main

    await cohort_with_answers(runtime, channel, clock)
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", database_url)
    use_patient_database(monkeypatch)
    out = tmp_path / "spring.html"
    assert await asyncio.to_thread(main, ["report", "--cohort", "SPRING", "--out", str(out)]) == 0
    assert f"wrote {out}: Cohort spring, 4 answers by 2 people" in capsys.readouterr().out
    assert read(out.read_text(encoding="utf-8")).figures["answers"] == "4"

    whole = tmp_path / "workspace.html"
    assert await asyncio.to_thread(main, ["report", "--workspace", "W1", "-o", str(whole)]) == 0
    assert read(whole.read_text(encoding="utf-8")).figures["answers"] == "5"

    assert await asyncio.to_thread(main, ["report", "--cohort", "autumn"]) == 2
    assert "No cohort 'autumn' matches. Cohorts in this database: spring (fake:W1)." in capsys.readouterr().err
    await answer(runtime, await post(runtime, ChannelRef("fake", "W2", "C1")), make_user("zoe", "W2"), right=True)
    assert await asyncio.to_thread(main, ["report", "--out", str(tmp_path / "x.html")]) == 2
    assert "Several workspaces match" in capsys.readouterr().err


async def test_quiz_report_in_chat_is_a_short_summary(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    nothing = await runtime.app.handle_command(Invocation(channel, make_user("ann"), "report"))
    assert nothing.message.title == "Report: no answers yet."
    await cohort_with_answers(runtime, channel, clock)
    reply = await runtime.app.handle_command(Invocation(channel, make_user("lead"), "report cohort spring"))
    assert not reply.private
    text = reply.message.text
    assert reply.message.title.startswith("Report: Cohort spring since ")
    assert "2 people answered 4 times · accuracy 25% · 20 points" in text
    assert "Curriculum: 2 of 8 questions asked" in text
    assert "Leaders: 1. ann (20)" in text
    assert "ben (0)" not in text  # nobody leads with 0 points
    assert "0% right (2 answers)" in text
    assert "`quizbot report --cohort spring --out report.html`" in text
    workspace = await runtime.app.handle_command(Invocation(channel, make_user("lead"), "report"))
    assert "3 people answered 5 times" in workspace.message.text


async def test_a_still_open_question_is_not_among_the_most_missed(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    closed = await post(runtime, channel)
    await answer(runtime, closed, "ann", right=False)
    await runtime.app.reveal(closed.post_id)
    still_open = await post(runtime, channel)
    await answer(runtime, still_open, "ann", right=False)
    await answer(runtime, still_open, "ben", right=False)

    report = await runtime.app.reports.build(platform="fake", workspace="W1")
    assert [q.prompt for q in report.most_missed()] == [closed.prompt]
    page = read(render_html(report))
    missed = " ".join(row[0] for row in page.tables["most-missed"][1:])
    assert " ".join(still_open.prompt.split()) not in missed
    assert " ".join(closed.prompt.split()) in missed
    text = (await runtime.app.handle_command(Invocation(channel, make_user("ann"), "report"))).message.text
    assert " ".join(closed.prompt.split())[:40] in text
    assert " ".join(still_open.prompt.split())[:40] not in text


async def test_report_tables_and_lines_shorten_very_long_names(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    long_name = "Maximiliana " + "Konstantinopoulou-" * 9 + "Vandermeer"  # 184 characters (the column holds 200)
    await runtime.app.handle_command(Invocation(channel, make_user("lead"), "cohort create spring"))
    who = UserRef("fake", "W1", "U-long", long_name)
    await runtime.app.handle_command(Invocation(channel, who, "cohort join spring"))
    card = await post(runtime, channel)
    await answer(runtime, card, who, right=True)

    text = (await runtime.app.handle_command(Invocation(channel, who, "report cohort spring"))).message.text
    assert long_name not in text
    shown = long_name[:39] + "…"  # 40 characters in all
    assert f"Leaders: 1. {shown} (20)" in text

    html = render_html(await runtime.app.reports.build(platform="fake", workspace="W1", cohort="spring"))
    page = read(html)
    assert page.tables["leaderboard"][1][1] == shown
    assert page.tables["members"][1][0] == shown
    assert f'title="{long_name}"' in html  # the whole name is still there, as the tooltip


async def test_quiz_report_for_a_cohort_that_does_not_exist_lists_the_cohorts(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await cohort_with_answers(runtime, channel, clock)
    reply = await runtime.app.handle_command(Invocation(channel, make_user("ann"), "report cohort autumn"))
    assert not reply.ok
    assert "No cohort named `autumn`. Cohorts here: spring." in reply.message.title
    assert "W1" not in reply.message.text
