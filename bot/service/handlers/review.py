"""Spaced review: the next question out, and its answer."""

from __future__ import annotations

from bot.commands import AnswerReview, StartReview
from bot.domain.views import NothingDue
from bot.service.facade import Context, Reply
from bot.service.handlers.routing import handles
from bot.service.review import ReviewService
from bot.service.uow import UnitOfWork
from bot.wording import review


@handles(StartReview)
async def start_review(command: StartReview, context: Context, uow: UnitOfWork, *, review_: ReviewService) -> Reply:
    """`/quiz review`: the question out for review, or when the next one is due."""
    found = await review_.next_question(uow, context.user)
    if isinstance(found, NothingDue):
        return Reply(review.nothing_due_message(found, now=review_.clock.now()))
    await uow.commit()  # the question is out: its shown order and version are pinned
    return Reply(review.question_message(found))


@handles(AnswerReview)
async def answer_review(command: AnswerReview, context: Context, uow: UnitOfWork, *, review_: ReviewService) -> Reply:
    """`/quiz review N`."""
    result = await review_.answer(uow, context.user, command.number)
    await uow.commit()
    return Reply(review.result_message(result))
