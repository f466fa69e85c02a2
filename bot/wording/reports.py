"""`/quiz report`: the summary of a workspace or a cohort."""

from __future__ import annotations

from bot.ports import Message
from bot.service.report import Report
from bot.wording.flags import report_lines
from bot.wording.i18n import percent, plural


def summary_message(report: Report, *, cohort: str | None = None) -> Message:
    """`/quiz report`: participation, accuracy, leaders, most-missed questions, and how to get the charts."""
    since = f" since {report.since.isoformat()}" if report.since else ""
    title = f"Report: {report.title}{since}"
    if not report.answers:
        return Message(title, ("No answers yet.",))
    lines = [
        f"{report.participants} people answered {report.answers} times · accuracy {percent(report.accuracy)} · "
        f"{report.points} points",
    ]
    if report.curriculum:
        asked = sum(p.posted for p in report.curriculum)
        total = sum(p.total for p in report.curriculum)
        lines.append(f"Curriculum: {asked} of {total} questions asked")
    if report.leaderboard.rows:
        leaders = ", ".join(f"{row.rank}. {row.name} ({row.points})" for row in report.leaderboard.rows[:3])
        lines.append(f"Leaders: {leaders}")
    missed = report.most_missed(3)
    if missed:
        lines.append("Most missed:")
        lines += [f"  {percent(q.accuracy)} right ({plural(q.answered, 'answer')}): {_short(q.prompt)}" for q in missed]
    lines += report_lines(report.flagged)
    if report.review_learning or report.review_mastered:
        lines.append(f"Review: {report.review_learning} questions being learned · {report.review_mastered} mastered")
    option = f" --cohort {cohort}" if cohort else ""
    lines.append(f"Charts and explanations: `quizbot report{option} --out report.html`")
    return Message(title, tuple(lines))


def _short(text: str, width: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


def no_answers_yet() -> Message:
    """`/quiz report` in a workspace that has no answers."""
    return Message("Report: no answers yet.", ("Post a question with `/quiz now`.",))
