"""A Report as one self-contained HTML file: charts drawn with matplotlib (bot/charts.py, the same figures
`/quiz report` posts as images) and inlined as SVG, readable offline.

Figures the tests (and anyone scripting) can read back carry `data-figure="name"` attributes. matplotlib is
heavy to import, so only `quizbot report` imports this module.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from bot.charts import is_weekly, participation_figure, question_figure, svg, tag_figure
from bot.domain.flags import FlaggedQuestion
from bot.domain.views import DayActivity, QuestionResult, Report, TagResult
from bot.wording import percent
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


def _figure(name: str, label: str, value: object) -> str:
    return f'<div><dt>{_e(label)}</dt><dd data-figure="{_e(name)}">{_e(value)}</dd></div>'


def render_html(report: Report) -> str:
    """The whole report as one HTML document (no external files, scripts or fonts)."""
    since = f" · since {report.since.isoformat()}" if report.since else ""
    generated = report.generated_at.strftime("%Y-%m-%d %H:%M UTC")
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(report.title)} · quizbot report</title><style>{CSS}</style></head><body>",
        f"<h1>{_e(report.title)}</h1>",
        f'<p class="meta">{_e(report.workspace)} · times in {_e(report.timezone)}{_e(since)} · '
        f"generated {_e(generated)}</p>",
        '<dl class="figures">',
        _figure("participants", "people answering", report.participants),
        _figure("answers", "answers", report.answers),
        _figure("accuracy", "accuracy", percent(report.accuracy)),
        _figure("points", "points", report.points),
    ]
    if report.members is not None:
        parts.append(_figure("members", "members", len(report.members)))
    if report.curriculum:
        asked = sum(p.posted for p in report.curriculum)
        total = sum(p.total for p in report.curriculum)
        parts.append(_figure("curriculum", "curriculum asked", f"{asked}/{total}"))
    parts.append(_figure("review-mastered", "mastered in review", report.review_mastered))
    parts.append("</dl>")

    if not report.answers:
        parts.append("<p>No answers yet: there is nothing to chart.</p>")
    else:
        weekly = is_weekly(report.days)
        parts.append("<h2>Participation over time</h2>")
        parts.append(
            f'<div class="chart" id="chart-participation">{participation_chart(report.days, weekly=weekly)}</div>'
        )
        parts.append("<h2>Leaderboard</h2>")
        parts.append(_leaderboard_table(report))
        parts.append("<h2>Most-missed questions</h2>")
        parts.append(_missed_table(report.most_missed()))
        parts.append("<h2>Accuracy per question</h2>")
        parts.append(f'<div class="chart" id="chart-questions">{question_chart(report.questions)}</div>')
        parts.append(_questions_table(report.questions))
        if report.tags:
            parts.append("<h2>Accuracy per tag</h2>")
            parts.append(f'<div class="chart" id="chart-tags">{tag_chart(report.tags)}</div>')
    if report.flagged:
        parts.append("<h2>Reported as wrong</h2>")
        parts.append(_flagged_table(report.flagged))
    if report.curriculum:
        parts.append("<h2>Curriculum</h2>")
        rows = "".join(
            f"<tr><td>{_e(p.title)} ({_e(p.pack_id)})</td><td class='num'>{p.posted}/{p.total}</td></tr>"
            for p in report.curriculum
        )
        parts.append(f"<table><tr><th>pack</th><th class='num'>asked</th></tr>{rows}</table>")
    if report.members:
        parts.append("<h2>Members</h2>")
        parts.append(_members_table(report))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _members_table(report: Report) -> str:
    """Each member: cohort questions answered of those posted, right, last active, points (on the cohort's
    questions and elsewhere), and whether they are behind or inactive; members who never answered too."""
    rules = report.cohort_rules
    rows = "".join(
        f"<tr><td>{_name(m.name)}</td><td class='num'>{m.answered}/{report.cohort_posts}</td>"
        f"<td class='num'>{m.correct}</td><td class='num'>{_e(last_active(m))}</td>"
        f"<td class='num'>{m.cohort_points}</td><td class='num'>{m.points_elsewhere}</td>"
        f"<td>{_e(attention_flags(m))}</td></tr>"
        for m in report.members or ()
    )
    return (
        "<table id='members'><tr><th>member</th><th class='num'>cohort questions answered</th>"
        "<th class='num'>right</th><th class='num'>last active</th><th class='num'>points on cohort questions</th>"
        f"<th class='num'>points elsewhere</th><th>attention</th></tr>{rows}</table>"
        f"<p class='meta'>{_e(attention_lines(report.members or (), rules, name='')[0])}</p>"
    )


def _leaderboard_table(report: Report) -> str:
    rows = "".join(
        f"<tr><td class='num'>{row.rank}</td><td>{_name(row.name)}</td><td class='num'>{row.points}</td>"
        f"<td class='num'>{row.correct}/{row.answered} ({percent(row.accuracy)})</td>"
        f"<td class='num'>{row.streak}</td><td class='num'>{row.day_streak}</td></tr>"
        for row in report.leaderboard.rows
    )
    return (
        "<table id='leaderboard'><tr><th class='num'>rank</th><th>name</th><th class='num'>points</th>"
        "<th class='num'>correct</th><th class='num'>in a row</th><th class='num'>days running</th></tr>"
        f"{rows}</table>"
    )


def _missed_table(questions: list[QuestionResult]) -> str:
    if not questions:
        return "<p>Nobody has missed a question.</p>"
    rows = "".join(
        f"<tr><td>{_e(q.prompt)}<div class='explanation'><strong>Answer:</strong> {_e(q.correct_choice)}<br>"
        f"{_e(q.explanation)}</div></td><td class='num'>{percent(q.accuracy)}</td>"
        f"<td class='num'>{q.missed} of {q.answered}</td></tr>"
        for q in questions
    )
    return (
        "<table id='most-missed'><tr><th>question</th><th class='num'>right</th><th class='num'>missed</th></tr>"
        f"{rows}</table>"
    )


def _questions_table(questions: Sequence[QuestionResult]) -> str:
    rows = "".join(
        f"<tr><td>{_e(q.pack_title)} #{q.number}</td><td>{_e(q.prompt)}</td><td class='num'>{q.answered}</td>"
        f"<td class='num'>{percent(q.accuracy)}</td></tr>"
        for q in questions
    )
    return (
        "<table id='questions'><tr><th>question</th><th></th><th class='num'>answers</th>"
        f"<th class='num'>right</th></tr>{rows}</table>"
    )


def _flagged_table(questions: Sequence[FlaggedQuestion]) -> str:
    """Questions people flagged: which (pack/question ids to edit), why, and how their answers went."""
    rows = []
    for q in questions:
        reasons = "".join(
            f"<li>{_name(flag.name)}: {_e(flag.reason) if flag.reason else '<em>no reason given</em>'}</li>"
            for flag in q.reasons
        )
        right = f"{percent(q.accuracy)} of {q.answered}" if q.answered else "no answers"
        paused = " · paused" if q.paused else ""
        rows.append(
            f"<tr><td>{_e(q.prompt)}<div class='explanation'>{_e(q.pack_id)}/{_e(q.key)}{paused}"
            f"<ul>{reasons}</ul></div></td><td class='num'>{q.flags}</td><td class='num'>{right}</td></tr>"
        )
    return (
        "<table id='flagged'><tr><th>question</th><th class='num'>flags</th><th class='num'>right</th></tr>"
        f"{''.join(rows)}</table>"
    )
