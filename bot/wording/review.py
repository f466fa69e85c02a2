"""Replies to `/quiz review`: the question out for review, nothing due, and the result of an answer."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.domain.leitner import BOX_INTERVALS, LAST_BOX
from bot.domain.views import NothingDue, ReviewQuestion, ReviewResult
from bot.ports import Message
from bot.wording.answers import verdict
from bot.wording.cards import CHOICE_MARKS
from bot.wording.i18n import plural
from bot.wording.i18n import translate as _


def _in(delta: timedelta) -> str:
    """`in 8 minutes`, `in 5 hours`, `in 3 days`."""
    minutes = max(1, round(delta.total_seconds() / 60))
    if minutes < 90:
        return _("in {duration}", duration=plural(minutes, "minute"))
    hours = round(minutes / 60)
    if hours < 36:
        return _("in {duration}", duration=plural(hours, "hour"))
    return _("in {duration}", duration=plural(round(hours / 24), "day"))


def question_message(question: ReviewQuestion) -> Message:
    """A review question with numbered choices and how to answer (plain text, so every adapter can show it)."""
    lines = [_("  {mark}. {choice}", mark=CHOICE_MARKS[i], choice=choice) for i, choice in enumerate(question.choices)]
    lines.append(_("Answer with `/quiz review N`, e.g. `/quiz review 2`."))
    if question.due_after:
        lines.append(_("{count} more due after this one.", count=question.due_after))
    return Message(
        title=_(
            "Review · {pack} · box {box} of {last_box}: {prompt}",
            pack=question.pack_title,
            box=question.box,
            last_box=LAST_BOX,
            prompt=question.prompt,
        ),
        lines=tuple(lines),
    )


def nothing_due_message(nothing: NothingDue, *, now: datetime) -> Message:
    """Nothing due: when the next question comes back, and how much is mastered."""
    if nothing.next_due_at is None and nothing.mastered:
        title = _("Nothing to review: you have mastered every question you missed.")
    elif nothing.next_due_at is None:
        title = _("Nothing to review: questions you get wrong come back here.")
    else:
        title = _("Nothing due for review; the next question comes back {when}.", when=_in(nothing.next_due_at - now))
    lines = (
        [_("Waiting: {waiting} · mastered: {mastered}", waiting=nothing.waiting, mastered=nothing.mastered)]
        if nothing.waiting or nothing.mastered
        else []
    )
    return Message(title=title, lines=tuple(lines))


def result_message(result: ReviewResult) -> Message:
    """Right or wrong, the explanation, and when the question comes back (or that it is retired)."""
    title = verdict(correct=result.correct, chosen=result.chosen, correct_choice=result.correct_choice)
    placement = result.placement
    if placement.retired:
        where = _("Mastered: this question leaves your review.")
    elif result.correct:
        where = _(
            "Moved to box {box} of {last_box}; it comes back {when}.",
            box=placement.box,
            last_box=LAST_BOX,
            when=_in(BOX_INTERVALS[placement.box - 1]),
        )
    else:
        where = _("Back to box 1; it comes back {when}.", when=_in(BOX_INTERVALS[0]))
    more = (
        _("{count} more due now: `/quiz review`.", count=result.due_now)
        if result.due_now
        else _("Nothing else is due now.")
    )
    return Message(title=title, lines=(result.explanation, where, more))


def no_review_pending() -> str:
    """`/quiz review N` when no review question is out."""
    return _("No review question is waiting for your answer. Type `/quiz review` for one.")


def pick_a_number(count: int) -> str:
    """`/quiz review N` with N outside the shown choices."""
    return _("Pick a number from 1 to {count}.", count=count)
