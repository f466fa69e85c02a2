"""The personal home (Slack's App Home tab, `/quiz me`): a person's record in sections, and its review button."""

from __future__ import annotations

from datetime import timedelta

from bot.domain.views import HomeView
from bot.ports import Action, ActionKind, Line, Message, Page, Section
from bot.wording import me
from bot.wording.i18n import percent, plural
from bot.wording.i18n import translate as _
from bot.wording.times import duration, local_time


def review_button() -> str:
    """The label of the button that starts a review."""
    return _("Start a review")


def channel_label(line: Line) -> str:
    """A line about a channel as plain text (where the channel cannot be shown as a link)."""
    if line.channel is None:
        return line.text
    return _("#{channel}: {text}", channel=line.channel.channel_id, text=line.text)


def home_page(view: HomeView) -> Page:
    """The home: record, streaks, channels, weakest topics, review, cohorts and the next question."""
    stats = view.stats
    weakest = _weakest(view)
    # What `/quiz me` always said: the page's text starts with it (its most missed topics only when the page has
    # no weakest topics to list instead).
    record = me.stats_message(stats, missed_topics=weakest is None)
    sections: list[Section] = []
    if stats.answered == 0:
        sections.append(Section(_("Your record"), tuple(Line(text) for text in record.lines[:1])))
    else:
        sections.append(Section(_("Your record"), tuple(Line(text) for text in record.lines[:2])))
        sections.append(
            Section(
                _("Streaks"),
                (
                    Line(
                        _(
                            "Right in a row: {now} now · best {best}",
                            now=plural(stats.streak, "scheduled question"),
                            best=stats.best_streak,
                        )
                    ),
                    Line(
                        _(
                            "Days in a row with an answer: {now} now · best {best}",
                            now=plural(stats.day_streak, "day"),
                            best=stats.best_day_streak,
                        )
                    ),
                ),
            )
        )
    channels = _channels(view)
    review, actions = _review(view)
    cohorts = _cohorts(view)
    upcoming = _next_question(view)
    sections += [s for s in (channels, weakest, review, cohorts, upcoming) if s is not None]
    lines = list(record.lines)  # `/quiz me`'s text, then what the page adds to it
    for section in (channels, weakest, cohorts, upcoming):
        if section is not None:
            lines.append(section.title)
            lines.extend(_("  {line}", line=channel_label(line)) for line in section.lines)
    return Page(
        title=record.title, sections=tuple(sections), message=Message(record.title, tuple(lines)), actions=actions
    )


def _channels(view: HomeView) -> Section | None:
    if not view.channels:
        return None
    return Section(
        _("Your channels"),
        tuple(
            Line(
                _(
                    "{points} · rank {rank} of {players} · {correct} of {answered} right",
                    points=plural(c.points, "point"),
                    rank=c.rank,
                    players=c.players,
                    correct=c.correct,
                    answered=c.answered,
                ),
                channel=c.channel,
            )
            for c in view.channels
        ),
    )


def _weakest(view: HomeView) -> Section | None:
    if not view.weakest:
        return None
    return Section(
        _("Weakest topics"),
        tuple(
            Line(
                _(
                    "{tag}: {accuracy} right of {answers}",
                    tag=t.tag,
                    accuracy=percent(t.accuracy),
                    answers=plural(t.answered, "answer"),
                )
            )
            for t in view.weakest
        ),
    )


def _review(view: HomeView) -> tuple[Section | None, tuple[Action, ...]]:
    stats = view.stats
    if not (stats.review_learning or stats.review_mastered):
        return None, ()
    due = _("{count} due now", count=plural(stats.review_due, "question")) if stats.review_due else _("nothing due now")
    line = _(
        "{due} · {learning} learning · {mastered} mastered",
        due=due,
        learning=stats.review_learning,
        mastered=stats.review_mastered,
    )
    actions = (Action(ActionKind.START_REVIEW, review_button()),) if stats.review_due else ()
    return Section(_("Review"), (Line(line),)), actions


def _cohorts(view: HomeView) -> Section | None:
    if not view.cohorts:
        return None
    return Section(
        _("Your cohorts"),
        tuple(
            Line(
                _(
                    "{name}: {posted} of {total} curriculum questions asked · you answered {answered}, {correct} right",
                    name=c.name,
                    posted=c.posted,
                    total=c.total,
                    answered=c.answered,
                    correct=c.correct,
                )
            )
            for c in view.cohorts
        ),
    )


def _next_question(view: HomeView) -> Section | None:
    upcoming = view.next_question
    if upcoming is None:
        return None
    wait = max(upcoming.due - view.now, timedelta())
    wait = timedelta(minutes=round(wait.total_seconds() / 60))
    return Section(
        _("Next question"),
        (
            Line(
                _("{when} (in {wait})", when=local_time(upcoming.due, upcoming.zone), wait=duration(wait)),
                channel=upcoming.channel,
            ),
        ),
    )
