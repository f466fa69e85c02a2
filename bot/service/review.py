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
from datetime import datetime

from bot.clock import Clock
from bot.db.models import ReviewAnswer
from bot.domain import UserRef
from bot.domain.leitner import place_after_review
from bot.domain.views import NothingDue, ReviewQuestion, ReviewResult, ReviewSummary
from bot.errors import InvalidChoice, NoReviewPending
from bot.service.uow import UnitOfWork
from bot.wording import review as review_words

log = logging.getLogger(__name__)


async def review_summary(uow: UnitOfWork, user_row: int, now: datetime) -> ReviewSummary:
    """Counts of a user's review items: due now, learning (due or not), mastered (retired)."""
    review = uow.review
    return ReviewSummary(
        due=await review.due(user_row, now),
        learning=await review.learning(user_row),
        mastered=await review.mastered(user_row),
    )


class ReviewService:
    """The `/quiz review` use cases."""

    def __init__(self, *, clock: Clock, rng: random.Random | None = None) -> None:
        self.clock = clock
        self.rng = rng or random.Random()

    async def next_question(self, uow: UnitOfWork, user: UserRef) -> ReviewQuestion | NothingDue:
        """The question out for review (asked again as shown), else the one due longest, else NothingDue."""
        now = self.clock.now()
        user_row = await uow.places.user_id(user, now)
        item = await uow.review.out(user_row) or await uow.review.due_longest(user_row, now)
        if item is None:
            return await self._nothing_due(uow, user_row)
        question = await uow.questions.get(item.question_id)
        assert question is not None
        version = await uow.review.shown_version(item.id)
        if item.asked_at is None or not item.shown_order or version is None:
            version = await uow.questions.current_version(question, now)
            order = list(range(len(version.choices)))
            self.rng.shuffle(order)
            item.asked_at, item.shown_order = now, order
            await uow.review.pin(item.id, version.id)
        pack = await uow.questions.pack(question.pack_id)
        due = await uow.review.due(user_row, now)
        return ReviewQuestion(
            pack_title=pack.title if pack else question.pack_id,
            prompt=version.prompt,
            choices=tuple(version.choices[i] for i in item.shown_order or ()),
            box=item.box,
            due_after=max(0, due - 1),
        )

    async def answer(self, uow: UnitOfWork, user: UserRef, number: int) -> ReviewResult:
        """Answer the question out for review with the number of a shown choice (1-based)."""
        now = self.clock.now()
        user_row = await uow.places.user_id(user, now)
        item = await uow.review.out(user_row, lock=True)
        version = await uow.review.shown_version(item.id) if item else None
        if item is None or not item.shown_order or version is None:
            raise NoReviewPending(review_words.no_review_pending())
        if not 1 <= number <= len(item.shown_order):
            raise InvalidChoice(review_words.pick_a_number(len(item.shown_order)))
        choice_index = item.shown_order[number - 1]
        correct = choice_index == version.correct_index
        placement = place_after_review(item.box, correct=correct, now=now)
        await uow.review.add_answer(
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
        await uow.review.unpin(item.id)
        item.reviews += 1
        if not correct:
            item.lapses += 1
        due = await uow.review.due(user_row, now)
        log.info("review answered", extra={"correct": correct, "box": placement.box})
        return ReviewResult(
            correct=correct,
            chosen=version.choices[choice_index],
            correct_choice=version.choices[version.correct_index],
            explanation=version.explanation,
            placement=placement,
            due_now=due,
        )

    async def _nothing_due(self, uow: UnitOfWork, user_row: int) -> NothingDue:
        summary = await review_summary(uow, user_row, self.clock.now())
        return NothingDue(
            next_due_at=await uow.review.next_due_at(user_row), waiting=summary.learning, mastered=summary.mastered
        )
