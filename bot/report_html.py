"""A Report as one self-contained HTML file: charts drawn with matplotlib (bot/charts.py, the same figures
`/quiz report` posts as images) and inlined as SVG, readable offline.

Figures the tests (and anyone scripting) can read back carry `data-figure="name"` attributes. matplotlib is
heavy to import, so only `quizbot report` imports this module. The words come from bot/wording/report_html.py;
this module writes the markup around them.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from bot.charts import is_weekly, participation_figure, question_figure, svg, tag_figure
from bot.domain.drafts import slug_of_key
from bot.domain.flags import FlaggedQuestion
from bot.domain.views import DayActivity, QuestionResult, Report, TagResult
from bot.wording import percent
from bot.wording import report_html as words
from bot.wording.cohorts import attention_flags, attention_lines, last_active
from bot.wording.reports import short_name

CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 60rem;
       color: #222; padding: 0 1rem; }
h1 { margin-bottom: .2rem; } h2 { margin-top: 2.2rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
.meta { color: #666; margin-top: 0; }
dl.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(9rem, 1fr)); gap: .8rem; }
dl.figures div { background: #f4f6f9; border-radius: 6px; padding: .6rem .8rem; }
dl.figures dt { color: #666; font-size: .85rem; } dl.figures dd { margin: 0; font-size: 1.5rem; font-weight: 600; }
table { border-collapse: collapse; width: 100%; margin: .6rem 0; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #e5e5e5; vertical-align: top; }
td.num, th.num { text-align: right; white-space: nowrap; }
.chart svg { max-width: 100%; height: auto; }
.explanation { color: #444; font-size: .92rem; }
"""


def participation_chart(days: Sequence[DayActivity], *, weekly: bool) -> str:
    """Answers (bars) and people answering (line) per day or week, as SVG."""
    return svg(participation_figure(days, weekly=weekly))


def question_chart(questions: Sequence[QuestionResult]) -> str:
    """Accuracy per question, hardest first, as SVG."""
    return svg(question_figure(questions))


def tag_chart(tags: Sequence[TagResult]) -> str:
    """Accuracy per tag, as SVG."""
    return svg(tag_figure(tags))


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _name(name: str) -> str:
    """A person's name for a table cell: shortened when very long, the whole name in its tooltip."""
    shown = short_name(name)
    if shown == name:
        return _e(name)
    return f'<span title="{_e(name)}">{_e(shown)}</span>'


def _figure(name: str, value: object) -> str:
    return f'<div><dt>{_e(words.figure_label(name))}</dt><dd data-figure="{_e(name)}">{_e(value)}</dd></div>'


def _heading(section: str) -> str:
    return f"<h2>{_e(words.heading(section))}</h2>"


def _cell(tag: str, content: str, *, num: bool) -> str:
    """One table cell; `content` is markup already (escape text before)."""
    return f"<{tag} class='num'>{content}</{tag}>" if num else f"<{tag}>{content}</{tag}>"


def _row(cells: Sequence[tuple[str, bool]], tag: str = "td") -> str:
    """A table row of (markup, numeric) cells."""
    return "<tr>" + "".join(_cell(tag, content, num=num) for content, num in cells) + "</tr>"


def _table(table: str, numeric: Sequence[bool], rows: str, *, named: bool = True) -> str:
    """A table with its header row (the columns of `table` in bot/wording/report_html.py) and its `rows`."""
    header = _row([(_e(name), num) for name, num in zip(words.columns(table), numeric, strict=True)], "th")
    opening = f"<table id='{table}'>" if named else "<table>"
    return f"{opening}{header}{rows}</table>"


def _chart(name: str, content: str) -> str:
    return f'<div class="chart" id="chart-{name}">{content}</div>'


def render_html(report: Report) -> str:
    """The whole report as one HTML document (no external files, scripts or fonts)."""
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(words.page_title(report.title))}</title><style>{CSS}</style></head><body>",
        f"<h1>{_e(report.title)}</h1>",
        '<p class="meta">'
        + _e(words.header_line(report.workspace, report.timezone, report.since, report.generated_at))
        + "</p>",
        '<dl class="figures">',
        _figure("participants", report.participants),
        _figure("answers", report.answers),
        _figure("accuracy", percent(report.accuracy)),
        _figure("points", report.points),
    ]
    if report.members is not None:
        parts.append(_figure("members", len(report.members)))
    if report.curriculum:
        asked = sum(p.posted for p in report.curriculum)
        total = sum(p.total for p in report.curriculum)
        parts.append(_figure("curriculum", f"{asked}/{total}"))
    parts.append(_figure("review-mastered", report.review_mastered))
    parts.append("</dl>")

    if not report.answers:
        parts.append(f"<p>{_e(words.nothing_to_chart())}</p>")
    else:
        weekly = is_weekly(report.days)
        parts.append(_heading("participation"))
        parts.append(_chart("participation", participation_chart(report.days, weekly=weekly)))
        parts.append(_heading("leaderboard"))
        parts.append(_leaderboard_table(report))
        parts.append(_heading("most-missed"))
        parts.append(_missed_table(report.most_missed()))
        parts.append(_heading("questions"))
        parts.append(_chart("questions", question_chart(report.questions)))
        parts.append(_questions_table(report.questions))
        if report.tags:
            parts.append(_heading("tags"))
            parts.append(_chart("tags", tag_chart(report.tags)))
    if report.flagged:
        parts.append(_heading("flagged"))
        parts.append(_flagged_table(report.flagged))
    if report.curriculum:
        parts.append(_heading("curriculum"))
        rows = "".join(
            _row([(f"{_e(p.title)} ({_e(slug_of_key(p.pack_id))})", False), (f"{p.posted}/{p.total}", True)])
            for p in report.curriculum
        )
        parts.append(_table("curriculum", (False, True), rows, named=False))
    if report.members:
        parts.append(_heading("members"))
        parts.append(_members_table(report))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _members_table(report: Report) -> str:
    """Each member: cohort questions answered of those posted, right, last active, points (on the cohort's
    questions and elsewhere), and whether they are behind or inactive; members who never answered too."""
    rules = report.cohort_rules
    rows = "".join(
        _row(
            [
                (_name(m.name), False),
                (f"{m.answered}/{report.cohort_posts}", True),
                (str(m.correct), True),
                (_e(last_active(m)), True),
                (str(m.cohort_points), True),
                (str(m.points_elsewhere), True),
                (_e(attention_flags(m)), False),
            ]
        )
        for m in report.members or ()
    )
    meaning = _e(attention_lines(report.members or (), rules, name="")[0])
    return _table("members", (False, True, True, True, True, True, False), rows) + f"<p class='meta'>{meaning}</p>"


def _leaderboard_table(report: Report) -> str:
    rows = "".join(
        _row(
            [
                (str(row.rank), True),
                (_name(row.name), False),
                (str(row.points), True),
                (f"{row.correct}/{row.answered} ({percent(row.accuracy)})", True),
                (str(row.streak), True),
                (str(row.day_streak), True),
            ]
        )
        for row in report.leaderboard.rows
    )
    return _table("leaderboard", (True, False, True, True, True, True), rows)


def _missed_table(questions: list[QuestionResult]) -> str:
    if not questions:
        return f"<p>{_e(words.nobody_missed())}</p>"
    rows = "".join(
        _row(
            [
                (
                    f"{_e(q.prompt)}<div class='explanation'><strong>{_e(words.answer_label())}</strong> "
                    f"{_e(q.correct_choice)}<br>{_e(q.explanation)}</div>",
                    False,
                ),
                (percent(q.accuracy), True),
                (_e(words.missed_of(q.missed, q.answered)), True),
            ]
        )
        for q in questions
    )
    return _table("most-missed", (False, True, True), rows)


def _questions_table(questions: Sequence[QuestionResult]) -> str:
    rows = "".join(
        _row(
            [
                (f"{_e(q.pack_title)} #{q.number}", False),
                (_e(q.prompt), False),
                (str(q.answered), True),
                (percent(q.accuracy), True),
            ]
        )
        for q in questions
    )
    return _table("questions", (False, False, True, True), rows)


def _flagged_table(questions: Sequence[FlaggedQuestion]) -> str:
    """Questions people flagged: which (pack/question ids to edit), why, and how their answers went."""
    rows = []
    for q in questions:
        reasons = "".join(
            f"<li>{_name(flag.name)}: {_e(flag.reason) if flag.reason else f'<em>{_e(words.no_reason())}</em>'}</li>"
            for flag in q.reasons
        )
        paused = _e(words.paused_mark()) if q.paused else ""
        about = f"{_e(q.prompt)}<div class='explanation'>{_e(q.pack_id)}/{_e(q.key)}{paused}<ul>{reasons}</ul></div>"
        rows.append(_row([(about, False), (str(q.flags), True), (_e(words.right_of(q.accuracy, q.answered)), True)]))
    return _table("flagged", (False, True, True), "".join(rows))
