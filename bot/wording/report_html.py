"""The words of the HTML report `quizbot report` writes (bot/report_html.py builds its markup): the title and
header line, the figures' labels, the sections' headings, the tables' column names, and the short sentences in
between. Plain text: the report escapes it where it is placed.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime

from bot.wording.i18n import percent
from bot.wording.i18n import translate as _


def page_title(title: str) -> str:
    """The browser tab's title."""
    return _("{title} · quizbot report", title=title)


def header_line(workspace: str, timezone: str, since: date | None, generated: datetime) -> str:
    """The line under the report's heading: whose report, in which timezone, since when, and when it was made."""
    return _(
        "{workspace} · times in {timezone}{since} · generated {generated}",
        workspace=workspace,
        timezone=timezone,
        since=_(" · since {since}", since=since.isoformat()) if since else "",
        generated=generated.strftime("%Y-%m-%d %H:%M UTC"),
    )


FIGURES: Mapping[str, str] = {
    "participants": "people answering",
    "answers": "answers",
    "accuracy": "accuracy",
    "points": "points",
    "members": "members",
    "curriculum": "curriculum asked",
    "review-mastered": "mastered in review",
}
"""The label of each figure at the top, by its `data-figure` name."""


def figure_label(name: str) -> str:
    """The label of the figure `name` (a key of FIGURES)."""
    return _(FIGURES[name])


HEADINGS: Mapping[str, str] = {
    "participation": "Participation over time",
    "leaderboard": "Leaderboard",
    "most-missed": "Most-missed questions",
    "questions": "Accuracy per question",
    "tags": "Accuracy per tag",
    "flagged": "Reported as wrong",
    "curriculum": "Curriculum",
    "members": "Members",
}
"""Each section's heading, by the section."""


def heading(section: str) -> str:
    """The heading of `section` (a key of HEADINGS)."""
    return _(HEADINGS[section])


COLUMNS: Mapping[str, tuple[str, ...]] = {
    "members": (
        "member",
        "cohort questions answered",
        "right",
        "last active",
        "points on cohort questions",
        "points elsewhere",
        "attention",
    ),
    "leaderboard": ("rank", "name", "points", "correct", "in a row", "days running"),
    "most-missed": ("question", "right", "missed"),
    "questions": ("question", "", "answers", "right"),
    "flagged": ("question", "flags", "right"),
    "curriculum": ("pack", "asked"),
}
"""Each table's column names, by the table (an empty name: a column without one)."""


def columns(table: str) -> tuple[str, ...]:
    """The column names of `table` (a key of COLUMNS)."""
    return tuple(_(name) if name else "" for name in COLUMNS[table])


def nothing_to_chart() -> str:
    """Instead of the charts and tables, while nobody has answered."""
    return _("No answers yet: there is nothing to chart.")


def nobody_missed() -> str:
    """Instead of the most-missed table, while every answer was right."""
    return _("Nobody has missed a question.")


def answer_label() -> str:
    """Before the right answer under a missed question."""
    return _("Answer:")


def missed_of(missed: int, answered: int) -> str:
    """`2 of 5`: how many of the answers to a question missed."""
    return _("{missed} of {answered}", missed=missed, answered=answered)


def right_of(accuracy: float, answered: int) -> str:
    """`40% of 5` for a flagged question, or `no answers`."""
    if not answered:
        return _("no answers")
    return _("{accuracy} of {answered}", accuracy=percent(accuracy), answered=answered)


def paused_mark() -> str:
    """After a flagged question's id while it is out of rotation."""
    return _(" · paused")


def no_reason() -> str:
    """A flag given without a reason."""
    return _("no reason given")
