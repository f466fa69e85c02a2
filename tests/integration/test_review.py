"""Review of missed questions on a Leitner schedule, driven by a ManualClock, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta

from sqlalchemy import func, select

from bot.clock import ManualClock
from bot.commands import AnswerReview, StartReview, parse_command
from bot.db.models import Answer, ReviewAnswer, ReviewItem
from bot.domain import ChannelRef, QuestionCard
from bot.domain.leitner import BOX_INTERVALS, LAST_BOX, place_after_review
from bot.runtime import Runtime
from bot.service.facade import Invocation, Reply
from tests.conftest import make_user
from tests.scoring_helpers import answer, post


async def review(runtime: Runtime, channel: ChannelRef, text: str = "review", who: str = "ann") -> Reply:
    """Type a review command."""
    return await runtime.app.handle_command(Invocation(channel, make_user(who), text))


def shown_number(runtime: Runtime, reply: Reply, *, right: bool) -> int:
    """The number to type for the right (or a wrong) choice of a review question."""
    prompt = reply.message.title.split(": ", 1)[1]
    question = next(q for p in runtime.catalog.packs for q in p.questions if q.prompt == prompt)
    shown = re.findall(r"^\s+(\d+)\. (.*)$", reply.message.text, flags=re.MULTILINE)
    return next(int(n) for n, text in shown if (text == question.correct_choice) == right)


async def item(runtime: Runtime) -> ReviewItem:
    """The only review item."""
    async with runtime.db.transaction() as session:
        return (await session.execute(select(ReviewItem))).scalar_one()


def test_review_grammar() -> None:
    assert parse_command("review") == StartReview()
    assert parse_command("review 3") == AnswerReview(3)
    assert parse_command("review answer 2") == AnswerReview(2)


def test_leitner_placement() -> None:
    now = ManualClock().now()
    assert place_after_review(3, correct=False, now=now).box == 1
    assert place_after_review(3, correct=False, now=now).due_at == now + BOX_INTERVALS[0]
    assert place_after_review(1, correct=True, now=now).due_at == now + BOX_INTERVALS[1]
    assert place_after_review(LAST_BOX, correct=True, now=now).retired
    assert list(BOX_INTERVALS) == sorted(BOX_INTERVALS)


async def missed_card(runtime: Runtime, channel: ChannelRef) -> QuestionCard:
    card = await post(runtime, channel)
    await answer(runtime, card, "ann", right=False)
    return card


async def test_wrong_comes_back_soon_right_comes_back_later_then_retires(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    card = await missed_card(runtime, channel)
    first = await item(runtime)
    assert (first.box, first.due_at) == (1, clock.now() + timedelta(minutes=10))

    early = await review(runtime, channel)
    assert early.private
    assert early.message.title == "Nothing due for review; the next question comes back in 10 minutes."

    clock.advance(timedelta(minutes=10))
    asked = await review(runtime, channel)
    assert asked.private
    assert asked.message.title.startswith("Review · ") and card.prompt in asked.message.title
    assert "Answer with `/quiz review N`" in asked.message.text
    assert (await review(runtime, channel)).message == asked.message  # asked again as shown, not reshuffled

    wrong = await review(runtime, channel, f"review {shown_number(runtime, asked, right=False)}")
    assert wrong.message.title.startswith("Not quite.")
    assert "Back to box 1; it comes back in 10 minutes." in wrong.message.text
    assert (await item(runtime)).box == 1

    intervals = []
    for box in range(1, LAST_BOX + 1):
        clock.advance(timedelta(days=30))
        asked = await review(runtime, channel)
        assert f"box {box} of {LAST_BOX}" in asked.message.title
        result = await review(runtime, channel, f"review {shown_number(runtime, asked, right=True)}")
        assert result.message.title.startswith("Correct!")
        state = await item(runtime)
        if box < LAST_BOX:
            assert state.box == box + 1
            intervals.append(state.due_at - clock.now())
        else:
            assert state.retired_at == clock.now()
            assert "Mastered" in result.message.text
    assert intervals == list(BOX_INTERVALS[1:])

    clock.advance(timedelta(days=365))
    done = await review(runtime, channel)
    assert done.message.title == "Nothing to review: you have mastered every question you missed."
    me = await runtime.app.handle_command(Invocation(channel, make_user("ann"), "me"))
    assert "Review: nothing due now · 0 learning · 1 mastered" in me.message.text

    # Review answers count for mastery, never for the leaderboard.
    async with runtime.db.transaction() as session:
        assert (await session.execute(select(func.count()).select_from(Answer))).scalar_one() == 1
        assert (await session.execute(select(func.count()).select_from(ReviewAnswer))).scalar_one() == LAST_BOX + 1
    stats = await runtime.stats.user_stats(make_user("ann"), now=clock.now())
    assert (stats.answered, stats.points) == (1, 0)

    # Missing it again in the channel brings a mastered question back to box 1.
    again = await post(runtime, channel)
    while again.prompt != card.prompt:
        again = await post(runtime, channel)
    await answer(runtime, again, "ann", right=False)
    state = await item(runtime)
    assert (state.box, state.retired_at, state.lapses) == (1, None, 2)


async def test_the_oldest_due_question_comes_first(runtime: Runtime, channel: ChannelRef, clock: ManualClock) -> None:
    first = await missed_card(runtime, channel)
    clock.advance(60)
    await missed_card(runtime, channel)
    clock.advance(timedelta(hours=1))
    asked = await review(runtime, channel)
    assert first.prompt in asked.message.title
    assert "1 more due after this one." in asked.message.text


async def test_review_answers_that_make_no_sense_get_clear_replies(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    nothing = await review(runtime, channel)
    assert nothing.message.title == "Nothing to review: questions you get wrong come back here."
    no_question = await review(runtime, channel, "review 2")
    assert not no_question.ok and "No review question is waiting" in no_question.message.title
    await missed_card(runtime, channel)
    clock.advance(timedelta(hours=1))
    asked = await review(runtime, channel)
    choices = len(re.findall(r"^\s+\d+\. ", asked.message.text, flags=re.MULTILINE))
    out_of_range = await review(runtime, channel, "review 9")
    assert not out_of_range.ok and out_of_range.message.title == f"Pick a number from 1 to {choices}."
    assert not (await review(runtime, channel, "review two")).ok
    other = await review(runtime, channel, "review 1", who="ben")  # ann's question is not ben's
    assert not other.ok


async def test_a_double_submitted_review_answer_counts_once(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await missed_card(runtime, channel)
    clock.advance(timedelta(hours=1))
    asked = await review(runtime, channel)
    number = shown_number(runtime, asked, right=True)
    replies = await asyncio.gather(*(review(runtime, channel, f"review {number}") for _ in range(4)))
    assert sum(reply.ok for reply in replies) == 1
    state = await item(runtime)
    assert (state.box, state.reviews) == (2, 1)
