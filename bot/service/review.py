"""Review of missed questions on a Leitner schedule.

A question a user answers wrong in the channel goes into box 1 of their review, due a few minutes later.
`/quiz review` privately asks the question that has been due longest; `/quiz review N` answers it. Right moves it
up a box, due again after a longer interval; wrong sends it back to box 1; right in the last box retires it
(mastered). Review answers live in `review_answers`: they count for mastery, never for a leaderboard.

A review question is asked in the pack's current text (its current version, recorded like a post's) and answered
against the version it showed, so a pack edited in between changes neither its choices nor its correct answer.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from datetime import datetime
from typing import cast

from sqlalchemy import Select, Table, delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.clock import Clock
from bot.db.models import PackRow, QuestionRow, QuestionVersion, ReviewAnswer, ReviewItem, ReviewSnapshot
from bot.domain import UserRef
from bot.domain.leitner import BOX_INTERVALS, place_after_review
from bot.errors import InvalidChoice, NoReviewPending
from bot.service.directory import dialect_insert
from bot.service.uow import UnitOfWorkFactory
from bot.service.versions import current_version
from bot.service.views import NothingDue, ReviewQuestion, ReviewResult, ReviewSummary
from bot.wording import review as review_words

log = logging.getLogger(__name__)


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


def _live(user_row: int) -> Select[ReviewItem]:
    return (
        select(ReviewItem)
        .join(QuestionRow, QuestionRow.id == ReviewItem.question_id)
        .where(ReviewItem.user_id == user_row, ReviewItem.retired_at.is_(None), QuestionRow.active.is_(True))
    )


async def _shown_version(session: AsyncSession, item_id: int) -> QuestionVersion | None:
    """The version a review question that is out showed (None when none is out, or it was asked before versions)."""
    return (
        await session.execute(
            select(QuestionVersion)
            .join(ReviewSnapshot, ReviewSnapshot.question_version_id == QuestionVersion.id)
            .where(ReviewSnapshot.item_id == item_id)
        )
    ).scalar()


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

    def __init__(self, *, uow: UnitOfWorkFactory, clock: Clock, rng: random.Random | None = None) -> None:
        self.uow = uow
        self.clock = clock
        self.rng = rng or random.Random()

    async def next_question(self, user: UserRef) -> ReviewQuestion | NothingDue:
        """The question out for review (asked again as shown), else the one due longest, else NothingDue."""
        now = self.clock.now()
        async with self.uow() as uow:
            session = uow.session
            user_row = await uow.places.user_id(user, now)
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
            version = await _shown_version(session, item.id)
            if item.asked_at is None or not item.shown_order or version is None:
                version = await current_version(session, question, now)
                order = list(range(len(version.choices)))
                self.rng.shuffle(order)
                item.asked_at, item.shown_order = now, order
                pinned = dialect_insert(session, ReviewSnapshot).values(item_id=item.id, question_version_id=version.id)
                await session.execute(
                    pinned.on_conflict_do_update(index_elements=["item_id"], set_={"question_version_id": version.id})
                )
            pack = await session.get(PackRow, question.pack_id)
            due = await _count(session, _live(user_row).where(ReviewItem.due_at <= now))
            shown = ReviewQuestion(
                pack_title=pack.title if pack else question.pack_id,
                prompt=version.prompt,
                choices=tuple(version.choices[i] for i in item.shown_order or ()),
                box=item.box,
                due_after=max(0, due - 1),
            )
            await uow.commit()
        return shown

    async def answer(self, user: UserRef, number: int) -> ReviewResult:
        """Answer the question out for review with the number of a shown choice (1-based)."""
        now = self.clock.now()
        async with self.uow() as uow:
            session = uow.session
            user_row = await uow.places.user_id(user, now)
            item = await self._pending(session, user_row, lock=True)
            version = await _shown_version(session, item.id) if item else None
            if item is None or not item.shown_order or version is None:
                raise NoReviewPending(review_words.no_review_pending())
            if not 1 <= number <= len(item.shown_order):
                raise InvalidChoice(review_words.pick_a_number(len(item.shown_order)))
            choice_index = item.shown_order[number - 1]
            correct = choice_index == version.correct_index
            placement = place_after_review(item.box, correct=correct, now=now)
            session.add(
                ReviewAnswer(
                    item_id=item.id,
                    user_id=user_row,
                    question_id=item.question_id,
                    box=item.box,
                    choice_index=choice_index,
                    is_correct=correct,
                    answered_at=now,
                    question_version_id=version.id,
                )
            )
            item.box, item.due_at, item.updated_at = placement.box, placement.due_at, now
            item.retired_at = now if placement.retired else None
            item.asked_at, item.shown_order = None, None
            await session.execute(delete(ReviewSnapshot).where(ReviewSnapshot.item_id == item.id))
            item.reviews += 1
            if not correct:
                item.lapses += 1
            await session.flush()
            due = await _count(session, _live(user_row).where(ReviewItem.due_at <= now))
            await uow.commit()
        log.info("review answered", extra={"correct": correct, "box": placement.box})
        return ReviewResult(
            correct=correct,
            chosen=version.choices[choice_index],
            correct_choice=version.choices[version.correct_index],
            explanation=version.explanation,
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
