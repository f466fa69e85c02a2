"""`/quiz me`: a person's own record."""

from __future__ import annotations

from bot.domain import UserStats
from bot.ports import Message
from bot.wording.i18n import percent, plural
from bot.wording.i18n import translate as _


def stats_message(stats: UserStats, *, missed_topics: bool = True) -> Message:
    """A user's own record; with `missed_topics`, its most missed topics too (the home page lists its weakest
    topics instead)."""
    cohorts = (_("Cohorts: {names}", names=", ".join(stats.cohorts)),) if stats.cohorts else ()
    if stats.answered == 0:
        return Message(
            title=_("{name}: no answers yet.", name=stats.name) if stats.name else _("No answers yet."),
            lines=(_("Answer a question to get on the board."), *cohorts),
        )
    lines = [
        _(
            "Answered: {answered} · correct: {correct} · accuracy: {accuracy}",
            answered=stats.answered,
            correct=stats.correct,
            accuracy=percent(stats.accuracy),
        ),
        _("Points: {points} · rank: {rank}", points=stats.points, rank=stats.rank),
        _(
            "Streaks: {questions} right in a row (best {best}) · {days} in a row with an answer (best {best_days})",
            questions=plural(stats.streak, "scheduled question"),
            best=stats.best_streak,
            days=plural(stats.day_streak, "day"),
            best_days=stats.best_day_streak,
        ),
    ]
    if stats.review_learning or stats.review_mastered:
        due = (
            _("{count} due now (`/quiz review`)", count=stats.review_due) if stats.review_due else _("nothing due now")
        )
        lines.append(
            _(
                "Review: {due} · {learning} learning · {mastered} mastered",
                due=due,
                learning=stats.review_learning,
                mastered=stats.review_mastered,
            )
        )
    lines.extend(cohorts)
    if missed_topics and stats.missed_tags:
        missed = ", ".join(f"{tag} ({n})" for tag, n in stats.missed_tags)
        lines.append(_("Most missed topics: {topics}", topics=missed))
    title = _("Your quiz record, {name}", name=stats.name) if stats.name else _("Your quiz record")
    return Message(title=title, lines=tuple(lines))
