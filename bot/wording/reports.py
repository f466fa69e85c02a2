"""`/quiz report`: the summary of a workspace or a cohort, and why a report could not be built."""

from __future__ import annotations

from dataclasses import dataclass

from bot.domain.drafts import slug_of_key
from bot.domain.views import ChartKind, Report, ReportChart
from bot.ports import Message
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


# --- charts (the HTML report's and the images `/quiz report` posts) ----------------------------------------------

ALT_TEXT_MAX = 1000
"""Slack's alt text limit for an uploaded image (Discord allows 1024)."""


@dataclass(frozen=True, slots=True)
class ChartWords:
    """The words drawn on the charts: legends, axes and the `76% of 12` bar labels."""

    answers: str
    people_answering: str
    per_day: str
    per_week: str
    percent_correct: str

    @staticmethod
    def of(accuracy: float, count: int) -> str:
        """A bar's label: `76% of 12`."""
        return _("{accuracy} of {count}", accuracy=percent(accuracy), count=count)


def chart_words() -> ChartWords:
    """The words of the charts, in the reader's language."""
    return ChartWords(
        answers=_("answers"),
        people_answering=_("people answering"),
        per_day=_("per day"),
        per_week=_("per week"),
        percent_correct=_("% correct"),
    )


def chart_title(kind: ChartKind) -> str:
    """A chart's title."""
    titles = {
        ChartKind.PARTICIPATION: _("Participation over time"),
        ChartKind.QUESTIONS: _("Accuracy per question"),
        ChartKind.TAGS: _("Accuracy per tag"),
    }
    return titles[kind]


def _alt(text: str) -> str:
    return text if len(text) <= ALT_TEXT_MAX else text[: ALT_TEXT_MAX - 1].rstrip() + "…"


def charts(report: Report) -> tuple[ReportChart, ...]:
    """The report's charts to post as images, each with a title and alt text that says what it shows.

    None for a report without answers (there is nothing to chart), as the HTML report draws none.
    """
    if not report.answers:
        return ()
    found: list[ReportChart] = []
    if report.days:
        busiest = max(report.days, key=lambda d: (d.answers, d.day))
        weekly = len(report.days) > 1 and (report.days[1].day - report.days[0].day).days == 7
        alt = _(
            "{title}: {answers} by {people} from {first} to {last}, {unit}; the busiest {period} was {busiest} with "
            "{most}.",
            title=chart_title(ChartKind.PARTICIPATION),
            answers=plural(report.answers, "answer"),
            people=plural(report.participants, "person", "people"),
            first=report.days[0].day.isoformat(),
            last=report.days[-1].day.isoformat(),
            unit=_("per week") if weekly else _("per day"),
            period=_("week of") if weekly else _("day"),
            busiest=busiest.day.isoformat(),
            most=plural(busiest.answers, "answer"),
        )
        found.append(
            ReportChart(
                ChartKind.PARTICIPATION, "participation.png", chart_title(ChartKind.PARTICIPATION), _alt(alt), report
            )
        )
    if report.questions:
        hardest = sorted(report.questions, key=lambda q: (q.accuracy, -q.answered))
        listed = "; ".join(
            _(
                "{pack} #{number} {accuracy} of {answers}",
                pack=slug_of_key(q.pack_id),
                number=q.number,
                accuracy=percent(q.accuracy),
                answers=plural(q.answered, "answer"),
            )
            for q in hardest[:8]
        )
        alt = _(
            "{title}, hardest first ({count}): {listed}{more}.",
            title=chart_title(ChartKind.QUESTIONS),
            count=plural(len(hardest), "question"),
            listed=listed,
            more=_("; and more") if len(hardest) > 8 else "",
        )
        found.append(
            ReportChart(ChartKind.QUESTIONS, "questions.png", chart_title(ChartKind.QUESTIONS), _alt(alt), report)
        )
    if report.tags:
        weakest = sorted(report.tags, key=lambda t: (t.accuracy, -t.answered, t.tag))
        listed = "; ".join(
            _(
                "{tag} {accuracy} of {answers}",
                tag=t.tag,
                accuracy=percent(t.accuracy),
                answers=plural(t.answered, "answer"),
            )
            for t in weakest[:10]
        )
        alt = _(
            "{title}, weakest first: {listed}{more}.",
            title=chart_title(ChartKind.TAGS),
            listed=listed,
            more=_("; and more") if len(weakest) > 10 else "",
        )
        found.append(ReportChart(ChartKind.TAGS, "tags.png", chart_title(ChartKind.TAGS), _alt(alt), report))
    return tuple(found)


def charts_not_posted(permission: str) -> Message:
    """`/quiz report` posted its summary, but the platform refused the charts for want of a permission."""
    return Message(
        _("The report's charts were not posted: I need the {permission} permission.", permission=permission),
        (_("The summary was posted without them. An admin can grant the permission and run `/quiz report` again."),),
    )


def charts_failed() -> Message:
    """`/quiz report` posted its summary, but the charts could not be drawn or uploaded."""
    return Message(_("The report's charts could not be posted; the summary was posted without them."))
