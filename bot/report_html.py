"""A Report as one self-contained HTML file: charts drawn with matplotlib and inlined as SVG, readable offline.

Figures the tests (and anyone scripting) can read back carry `data-figure="name"` attributes. matplotlib is
heavy to import, so only `quizbot report` imports this module.
"""

from __future__ import annotations

import html
import io
from collections.abc import Sequence
from datetime import date

import matplotlib

matplotlib.use("Agg")  # no display: figures are only ever written to strings

from matplotlib.figure import Figure

from bot.domain.flags import FlaggedQuestion
from bot.service.views import DayActivity, QuestionResult, Report, TagResult
from bot.wording import percent
from bot.wording.cohorts import attention_flags, attention_lines, last_active
from bot.wording.reports import short_name

EPOCH = date(1970, 1, 1).toordinal()
BAR = "#3b6ea8"
LINE = "#d1495b"
GOOD, FAIR, POOR = "#2e8b57", "#e0a100", "#c0392b"

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


def _matplotlib_figure(width: float, height: float) -> Figure:
    return Figure(figsize=(width, height), layout="constrained")


def _svg(figure: Figure) -> str:
    buffer = io.StringIO()
    # Text stays text (small, searchable); a fixed hash salt keeps the output the same for the same data.
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "quizbot"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def _label(text: str, width: int = 48) -> str:
    """Plain text for a matplotlib label: shortened, and `$` escaped so it is not read as math."""
    flat = " ".join(text.split())
    if len(flat) > width:
        flat = flat[: width - 1].rstrip() + "…"
    return flat.replace("$", r"\$")


def participation_chart(days: Sequence[DayActivity], *, weekly: bool) -> str:
    """Answers (bars) and people answering (line) per day or week, as SVG."""
    figure = _matplotlib_figure(9, 3.2)
    axes = figure.add_subplot()
    # matplotlib's date numbers: days since its default epoch, 1970-01-01.
    xs = [float(d.day.toordinal() - EPOCH) for d in days]
    axes.bar(xs, [d.answers for d in days], width=5 if weekly else 0.8, color=BAR, label="answers")
    axes.plot(xs, [d.participants for d in days], color=LINE, marker="o", markersize=3, label="people answering")
    axes.xaxis_date()
    axes.set_ylabel("per week" if weekly else "per day")
    axes.legend(loc="lower left", bbox_to_anchor=(0, 1), ncols=2, frameon=False)
    axes.spines[["top", "right"]].set_visible(False)
    figure.autofmt_xdate()
    return _svg(figure)


def _accuracy_bars(labels: list[str], values: list[float], counts: list[int], title: str) -> str:
    figure = _matplotlib_figure(9, max(1.6, 0.32 * len(labels) + 0.9))
    axes = figure.add_subplot()
    colours = [GOOD if v >= 0.75 else FAIR if v >= 0.5 else POOR for v in values]
    positions = list(range(len(labels)))
    axes.barh(positions, [v * 100 for v in values], color=colours)
    axes.set_yticks(positions, labels=labels)
    axes.invert_yaxis()
    axes.set_xlim(0, 100)
    axes.set_xlabel("% correct")
    axes.set_title(title, loc="left")
    for position, value, count in zip(positions, values, counts, strict=True):
        label = f"{percent(value)} of {count}"
        if value >= 0.85:  # no room after the bar: write inside it
            axes.text(value * 100 - 1, position, label, va="center", ha="right", fontsize=8, color="white")
        else:
            axes.text(value * 100 + 1, position, label, va="center", fontsize=8)
    axes.spines[["top", "right"]].set_visible(False)
    return _svg(figure)


def question_chart(questions: Sequence[QuestionResult]) -> str:
    """Accuracy per question, hardest first, as SVG."""
    ordered = sorted(questions, key=lambda q: (q.accuracy, -q.answered))
    labels = [_label(f"{q.pack_id} #{q.number}: {q.prompt}") for q in ordered]
    return _accuracy_bars(labels, [q.accuracy for q in ordered], [q.answered for q in ordered], "Accuracy per question")


def tag_chart(tags: Sequence[TagResult]) -> str:
    """Accuracy per tag, as SVG."""
    ordered = sorted(tags, key=lambda t: (t.accuracy, -t.answered, t.tag))
    return _accuracy_bars(
        [_label(t.tag) for t in ordered],
        [t.accuracy for t in ordered],
        [t.answered for t in ordered],
        "Accuracy per tag",
    )


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
        weekly = len(report.days) > 1 and (report.days[1].day - report.days[0].day).days == 7
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
