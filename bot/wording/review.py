"""Replies to `/quiz review`: the question out for review, nothing due, and the result of an answer."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.domain.leitner import BOX_INTERVALS, LAST_BOX
from bot.ports import Message
from bot.service.review import NothingDue, ReviewQuestion, ReviewResult
from bot.wording.answers import verdict
from bot.wording.cards import CHOICE_MARKS


def _in(delta: timedelta) -> str:
    """`in 8 minutes`, `in 5 hours`, `in 3 days`."""
    minutes = max(1, round(delta.total_seconds() / 60))
    if minutes < 90:
        return f"in {minutes} minute{'s' if minutes != 1 else ''}"
    hours = round(minutes / 60)
    if hours < 36:
        return f"in {hours} hours"
    return f"in {round(hours / 24)} days"


def question_message(question: ReviewQuestion) -> Message:
    """A review question with numbered choices and how to answer (plain text, so every adapter can show it)."""
    lines = [f"  {CHOICE_MARKS[i]}. {choice}" for i, choice in enumerate(question.choices)]
    lines.append("Answer with `/quiz review N`, e.g. `/quiz review 2`.")
    if question.due_after:
        lines.append(f"{question.due_after} more due after this one.")
    return Message(
        title=f"Review · {question.pack_title} · box {question.box} of {LAST_BOX}: {question.prompt}",
        lines=tuple(lines),
    )


def nothing_due_message(nothing: NothingDue, *, now: datetime) -> Message:
    """Nothing due: when the next question comes back, and how much is mastered."""
    if nothing.next_due_at is None and nothing.mastered:
        title = "Nothing to review: you have mastered every question you missed."
    elif nothing.next_due_at is None:
        title = "Nothing to review: questions you get wrong come back here."
    else:
        title = f"Nothing due for review; the next question comes back {_in(nothing.next_due_at - now)}."
    lines = (
        [f"Waiting: {nothing.waiting} · mastered: {nothing.mastered}"] if nothing.waiting or nothing.mastered else []
    )
    return Message(title=title, lines=tuple(lines))


def result_message(result: ReviewResult) -> Message:
    """Right or wrong, the explanation, and when the question comes back (or that it is retired)."""
    title = verdict(correct=result.correct, chosen=result.chosen, correct_choice=result.correct_choice)
    placement = result.placement
    if placement.retired:
        where = "Mastered: this question leaves your review."
    elif result.correct:
        where = f"Moved to box {placement.box} of {LAST_BOX}; it comes back {_in(BOX_INTERVALS[placement.box - 1])}."
    else:
        where = f"Back to box 1; it comes back {_in(BOX_INTERVALS[0])}."
    more = f"{result.due_now} more due now: `/quiz review`." if result.due_now else "Nothing else is due now."
    return Message(title=title, lines=(result.explanation, where, more))
