"""Review of missed questions on a Leitner schedule.

A question a user answers wrong in the channel goes into box 1 of their review, due a few minutes later.
`/quiz review` privately asks the question that has been due longest; `/quiz review N` answers it. Right moves it
up a box, due again after a longer interval; wrong sends it back to box 1; right in the last box retires it
(mastered). Review answers live in `review_answers`: they count for mastery, never for a leaderboard.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import Select, Table, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.clock import Clock
from bot.commands import AnswerReview, StartReview
from bot.db import Database
from bot.db.models import PackRow, QuestionRow, ReviewAnswer, ReviewItem
from bot.domain import UserRef
from bot.errors import InvalidChoice, QuizError
from bot.ports import Message
from bot.render import CHOICE_MARKS
from bot.service.directory import Directory, dialect_insert
from bot.service.outcome import Outcome

log = logging.getLogger(__name__)

BOX_INTERVALS: tuple[timedelta, ...] = (
    timedelta(minutes=10),
    timedelta(days=1),
    timedelta(days=3),
    timedelta(days=7),
    timedelta(days=21),
)
"""How long a question waits in box 1, 2, ... before it is due again. Right in the last box retires it."""
LAST_BOX = len(BOX_INTERVALS)


class NoReviewPending(QuizError):
    """`/quiz review N` with no review question out."""


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a review item goes after an answer."""

    box: int
    due_at: datetime
    retired: bool


def place_after_review(box: int, *, correct: bool, now: datetime) -> Placement:
    """Leitner: wrong -> box 1, due soon; right -> next box, due later; right in the last box -> retired."""
    if not correct:
        return Placement(box=1, due_at=now + BOX_INTERVALS[0], retired=False)
    if box >= LAST_BOX:
        return Placement(box=LAST_BOX, due_at=now, retired=True)
    return Placement(box=box + 1, due_at=now + BOX_INTERVALS[box], retired=False)


async def put_many_in_review(session: AsyncSession, misses: Sequence[tuple[int, int, datetime]]) -> None:
    """Questions answered wrong in a channel, as (user, question, when): into box 1 (back to box 1, un-retired,
    if already there). One executemany; each (user, question) may appear once."""
    if not misses:
        return
    table = cast(Table, ReviewItem.__table__)
    statement = dialect_insert(session, ReviewItem)
    again = {
        "box": 1,
        "due_at": statement.excluded.due_at,
        "retired_at": None,
        "updated_at": statement.excluded.updated_at,
        "lapses": table.c.lapses + 1,
    }
    rows = [
        {
            "user_id": user,
            "question_id": question,
            "box": 1,
            "due_at": at + BOX_INTERVALS[0],
            "reviews": 0,
            "lapses": 0,
            "created_at": at,
            "updated_at": at,
        }
        for user, question, at in misses
    ]
    await session.execute(statement.on_conflict_do_update(index_elements=["user_id", "question_id"], set_=again), rows)


@dataclass(frozen=True, slots=True)
class ReviewQuestion:
    """A review question as shown to its user: choices in the shown order, numbered from 1."""

    pack_title: str
    prompt: str
    choices: tuple[str, ...]
    box: int
    due_after: int


@dataclass(frozen=True, slots=True)
class NothingDue:
    """Nothing to review now: when the next question is due (None when none is waiting), and what is mastered."""

    next_due_at: datetime | None
    waiting: int
    mastered: int


@dataclass(frozen=True, slots=True)
class ReviewResult:
    """The answer to a review question and where the question went."""

    correct: bool
    chosen: str
    correct_choice: str
    explanation: str
    placement: Placement
    due_now: int


@dataclass(frozen=True, slots=True)
class ReviewSummary:
    """A user's review: due now, still learning (including due), mastered."""

    due: int = 0
    learning: int = 0
    mastered: int = 0


def _live(user_row: int) -> Select[ReviewItem]:
    return (
        select(ReviewItem)
        .join(QuestionRow, QuestionRow.id == ReviewItem.question_id)
        .where(ReviewItem.user_id == user_row, ReviewItem.retired_at.is_(None), QuestionRow.active.is_(True))
    )


async def _count(session: AsyncSession, query: Select[ReviewItem]) -> int:
    return int((await session.execute(select(func.count()).select_from(query.subquery()))).scalar_one())


async def review_summary(session: AsyncSession, user_row: int, now: datetime) -> ReviewSummary:
    """Counts of a user's review items: due now, learning (due or not), mastered (retired)."""
    due = await _count(session, _live(user_row).where(ReviewItem.due_at <= now))
    learning = await _count(session, _live(user_row))
    mastered = await _count(
        session, select(ReviewItem).where(ReviewItem.user_id == user_row, ReviewItem.retired_at.is_not(None))
    )
    return ReviewSummary(due=due, learning=learning, mastered=mastered)


class ReviewService:
    """The `/quiz review` use cases."""

    def __init__(self, *, db: Database, directory: Directory, clock: Clock, rng: random.Random | None = None) -> None:
        self.db = db
        self.directory = directory
        self.clock = clock
        self.rng = rng or random.Random()

    async def run(self, command: StartReview | AnswerReview, user: UserRef) -> Outcome:
        """Run `/quiz review` or `/quiz review N` for a user; the reply is private."""
        if isinstance(command, AnswerReview):
            return Outcome(result_message(await self.answer(user, command.number)))
        found = await self.next_question(user)
        if isinstance(found, NothingDue):
            return Outcome(nothing_due_message(found, now=self.clock.now()))
        return Outcome(question_message(found))

    async def next_question(self, user: UserRef) -> ReviewQuestion | NothingDue:
        """The question out for review (asked again as shown), else the one due longest, else NothingDue."""
        now = self.clock.now()
        async with self.db.transaction() as session:
            user_row = await self.directory.user_id(session, user, now)
            item = await self._pending(session, user_row)
            if item is None:
                item = (
                    await session.execute(
                        _live(user_row)
                        .where(ReviewItem.due_at <= now)
                        .order_by(ReviewItem.due_at, ReviewItem.id)
                        .limit(1)
                    )
                ).scalar()
            if item is None:
                return await self._nothing_due(session, user_row)
            question = await session.get(QuestionRow, item.question_id)
            assert question is not None
            if item.asked_at is None or not item.shown_order:
                order = list(range(len(question.choices)))
                self.rng.shuffle(order)
                item.asked_at, item.shown_order = now, order
            pack = await session.get(PackRow, question.pack_id)
            due = await _count(session, _live(user_row).where(ReviewItem.due_at <= now))
            return ReviewQuestion(
                pack_title=pack.title if pack else question.pack_id,
                prompt=question.prompt,
                choices=tuple(question.choices[i] for i in item.shown_order or ()),
                box=item.box,
                due_after=max(0, due - 1),
            )

    async def answer(self, user: UserRef, number: int) -> ReviewResult:
        """Answer the question out for review with the number of a shown choice (1-based)."""
        now = self.clock.now()
        async with self.db.transaction() as session:
            user_row = await self.directory.user_id(session, user, now)
            item = await self._pending(session, user_row, lock=True)
            if item is None or not item.shown_order:
                raise NoReviewPending("No review question is waiting for your answer. Type `/quiz review` for one.")
            if not 1 <= number <= len(item.shown_order):
                raise InvalidChoice(f"Pick a number from 1 to {len(item.shown_order)}.")
            question = await session.get(QuestionRow, item.question_id)
            assert question is not None
            choice_index = item.shown_order[number - 1]
            correct = choice_index == question.correct_index
            placement = place_after_review(item.box, correct=correct, now=now)
            session.add(
                ReviewAnswer(
                    item_id=item.id,
                    user_id=user_row,
                    question_id=question.id,
                    box=item.box,
                    choice_index=choice_index,
                    is_correct=correct,
                    answered_at=now,
                )
            )
            item.box, item.due_at, item.updated_at = placement.box, placement.due_at, now
            item.retired_at = now if placement.retired else None
            item.asked_at, item.shown_order = None, None
            item.reviews += 1
            if not correct:
                item.lapses += 1
            await session.flush()
            due = await _count(session, _live(user_row).where(ReviewItem.due_at <= now))
        log.info("review answered", extra={"correct": correct, "box": placement.box})
        return ReviewResult(
            correct=correct,
            chosen=question.choices[choice_index],
            correct_choice=question.choices[question.correct_index],
            explanation=question.explanation,
            placement=placement,
            due_now=due,
        )

    async def _pending(self, session: AsyncSession, user_row: int, *, lock: bool = False) -> ReviewItem | None:
        query = _live(user_row).where(ReviewItem.asked_at.is_not(None)).order_by(ReviewItem.asked_at.desc())
        if lock:
            query = query.with_for_update(of=ReviewItem)
        return (await session.execute(query.limit(1))).scalars().first()

    async def _nothing_due(self, session: AsyncSession, user_row: int) -> NothingDue:
        live = _live(user_row).subquery()
        next_due = (await session.execute(select(func.min(live.c.due_at)))).scalar()
        summary = await review_summary(session, user_row, self.clock.now())
        return NothingDue(next_due_at=next_due, waiting=summary.learning, mastered=summary.mastered)


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
    if result.correct:
        title = f"Correct! “{result.correct_choice}”"
    else:
        title = f"Not quite. You picked “{result.chosen}”; the answer is “{result.correct_choice}”."
    placement = result.placement
    if placement.retired:
        where = "Mastered: this question leaves your review."
    elif result.correct:
        where = f"Moved to box {placement.box} of {LAST_BOX}; it comes back {_in(BOX_INTERVALS[placement.box - 1])}."
    else:
        where = f"Back to box 1; it comes back {_in(BOX_INTERVALS[0])}."
    more = f"{result.due_now} more due now: `/quiz review`." if result.due_now else "Nothing else is due now."
    return Message(title=title, lines=(result.explanation, where, more))
