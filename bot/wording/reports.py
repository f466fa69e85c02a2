"""`/quiz report`: the summary of a workspace or a cohort, and why a report could not be built."""

from __future__ import annotations

from bot.ports import Message
from bot.service.views import Report
from bot.wording.cohorts import attention_lines, member_lines
from bot.wording.flags import report_lines
from bot.wording.i18n import how_often, percent, plural, shorten
from bot.wording.i18n import translate as _


def summary_message(report: Report, *, cohort: str | None = None) -> Message:
    """`/quiz report`: participation, accuracy, leaders, most-missed questions, and how to get the charts."""
    if report.since:
        title = _("Report: {title} since {since}", title=report.title, since=report.since.isoformat())
    else:
        title = _("Report: {title}", title=report.title)
    if not report.answers:
        return Message(title, (_("No answers yet."),))
    lines = [
        _(
            "{people} answered {times} · accuracy {accuracy} · {points}",
            people=plural(report.participants, "person", "people"),
            times=how_often(report.answers),
            accuracy=percent(report.accuracy),
            points=plural(report.points, "point"),
        ),
    ]
    if report.curriculum:
        asked = sum(p.posted for p in report.curriculum)
        total = sum(p.total for p in report.curriculum)
        lines.append(_("Curriculum: {asked} of {questions} asked", asked=asked, questions=plural(total, "question")))
    if report.members:
        lines += member_lines(report.members, posts=report.cohort_posts)
        lines += attention_lines(report.members, report.cohort_rules, name=cohort or "")[:1]
    scored = [row for row in report.leaderboard.rows if row.points > 0]  # nobody leads with 0 points
    if scored:
        leaders = ", ".join(
            _("{rank}. {name} ({points})", rank=row.rank, name=short_name(row.name), points=row.points)
            for row in scored[:3]
        )
        lines.append(_("Leaders: {leaders}", leaders=leaders))
    missed = report.most_missed(3)
    if missed:
        lines.append(_("Most missed:"))
        lines += [
            _(
                "  {accuracy} right ({answers}): {prompt}",
                accuracy=percent(q.accuracy),
                answers=plural(q.answered, "answer"),
                prompt=_short(q.prompt),
            )
            for q in missed
        ]
    lines += report_lines(report.flagged)
    if report.review_learning or report.review_mastered:
        lines.append(
            _(
                "Review: {learning} being learned · {mastered} mastered",
                learning=plural(report.review_learning, "question"),
                mastered=report.review_mastered,
            )
        )
    if cohort:
        lines.append(_("Charts and explanations: `quizbot report --cohort {cohort} --out report.html`", cohort=cohort))
    else:
        lines.append(_("Charts and explanations: `quizbot report --out report.html`"))
    return Message(title, tuple(lines))


def _short(text: str, width: int = 90) -> str:
    return shorten(text, width)


NAME_WIDTH = 40
"""How much of a person's name a report's tables and lines show (display names may be 200 characters)."""


def short_name(name: str, width: int = NAME_WIDTH) -> str:
    """A name shortened for a report table or line: `Alexandra Konstantinopoulou-Va…`."""
    return _short(name, width)


def no_answers_yet() -> Message:
    """`/quiz report` in a workspace that has no answers."""
    return Message(_("Report: no answers yet."), (_("Post a question with `/quiz now`."),))


def report_title(*, cohort: str | None, workspace: str) -> str:
    """What a report is about: `Cohort spring` or `Workspace Acme`."""
    return _("Cohort {name}", name=cohort) if cohort else _("Workspace {name}", name=workspace)


def no_match(*, cohort: str | None, known: list[str]) -> str:
    """`quizbot report` names a workspace or cohort the database does not have: the ones it has.

    `known` lists workspaces (`slack:T1`), or for a cohort the cohorts (`spring (slack:T1)`)."""
    there = ", ".join(known) or _("none yet")
    if cohort:
        return _("No cohort {cohort!r} matches. Cohorts in this database: {known}.", cohort=cohort, known=there)
    return _("No workspace matches. Workspaces in this database: {known}.", known=there)


def several_match(choices: list[str]) -> str:
    """`quizbot report` matches more than one workspace: the options that pick each."""
    return _("Several workspaces match; pick one with {choices}.", choices=", ".join(choices))


def unknown_workspace(platform: str, workspace: str) -> str:
    """A workspace with no row in the database (no answers were ever recorded there)."""
    return _("No workspace {platform}:{workspace} in this database.", platform=platform, workspace=workspace)
