"""One batch of clicks (group commit) and its effects: what it writes, and how few statements it takes.

The batch's answers INSERT and its rollups go as one statement on PostgreSQL (data-modifying CTEs,
repositories/scores.py `with_effects`; `_combined` for a batch across periods);
these tests hold every effect of such a batch to the answers it recorded, including the batch that needs more than
one statement (answers in different weeks: workspaces in different timezones), on SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import event, select

from bot.clock import ManualClock
from bot.db.models import Answer, ChannelScore, CohortMember, PeriodScore, Post, ReviewItem, User, UserScore
from bot.domain import AnswerOutcome, ChannelRef, UserRef
from bot.domain.leitner import BOX_INTERVALS
from bot.domain.windows import Window, window_start
from bot.runtime import Runtime
from bot.service.facade import Invocation
from bot.service.uow import UnitOfWork
from tests.conftest import make_user
from tests.scoring_helpers import correct_index, post, set_timezone, wrong_index

HELSINKI = ChannelRef("fake", "W1", "C1")
LONDON = ChannelRef("fake", "W2", "C1")


async def test_one_batch_across_weeks_keeps_every_rollup_equal_to_its_answers(
    runtime: Runtime, clock: ManualClock
) -> None:
    await set_timezone(runtime, HELSINKI, "Europe/Helsinki")
    await set_timezone(runtime, LONDON, "Europe/London")
    clock.set(datetime(2026, 3, 1, 12, 0, tzinfo=UTC))
    await runtime.app.handle_command(Invocation(HELSINKI, make_user("lead"), "cohort create spring start:2026-03-01"))
    await runtime.app.handle_command(Invocation(HELSINKI, make_user("ben"), "cohort join spring"))
    here, there = await post(runtime, HELSINKI), await post(runtime, LONDON)
    # Sunday 8 March, 22:30 UTC: already Monday 00:30 in Helsinki (a new week), still Sunday in London: the
    # batch's answers are in two different weeks, so their periods cannot go in one statement.
    clock.set(datetime(2026, 3, 8, 22, 30, tzinfo=UTC))
    clicks = [
        (here, make_user("ann"), True),
        (here, make_user("ben"), False),  # in the cohort, wrong: cohort totals and a review box
        (there, make_user("cy", "W2"), True),
        (there, make_user("dee", "W2"), False),
        (there, make_user("eve", "W2"), True),
    ]
    batches = runtime.app.answers.batches
    results = await asyncio.gather(
        *(
            runtime.app.answer(
                post_id=card.post_id,
                user=user,
                choice_index=correct_index(runtime, card) if right else wrong_index(runtime, card),
            )
            for card, user, right in clicks
        )
    )
    assert runtime.app.answers.batches == batches + 1
    assert [r.outcome for r in results] == [AnswerOutcome.RECORDED] * 5
    assert [r.rank for r in results] == [1, None, 1, None, 1]  # told their rank, read after the rollups

    async with runtime.db.transaction() as session:
        answers = (
            await session.execute(
                select(User.external_id, Answer.points, Answer.is_correct, Answer.answered_at, Post.question_id)
                .join(User, User.id == Answer.user_id)
                .join(Post, Post.id == Answer.post_id)
            )
        ).all()
        user_scores = {
            external: (points, correct, answered)
            for external, points, correct, answered in (
                await session.execute(
                    select(User.external_id, UserScore.points, UserScore.correct, UserScore.answered).join(
                        User, User.id == UserScore.user_id
                    )
                )
            ).all()
        }
        channel_scores = {
            external: (points, correct, answered)
            for external, points, correct, answered in (
                await session.execute(
                    select(User.external_id, ChannelScore.points, ChannelScore.correct, ChannelScore.answered).join(
                        User, User.id == ChannelScore.user_id
                    )
                )
            ).all()
        }
        periods = {
            (external, period, start.astimezone(UTC)): (points, correct, answered)
            for external, period, start, points, correct, answered in (
                await session.execute(
                    select(
                        User.external_id,
                        PeriodScore.period,
                        PeriodScore.period_start,
                        PeriodScore.points,
                        PeriodScore.correct,
                        PeriodScore.answered,
                    ).join(User, User.id == PeriodScore.user_id)
                )
            ).all()
        }
        review = set(
            (
                await session.execute(
                    select(User.external_id, ReviewItem.question_id, ReviewItem.box).join(
                        User, User.id == ReviewItem.user_id
                    )
                )
            ).all()
        )
        members = {
            external: (points, correct, answered)
            for external, points, correct, answered in (
                await session.execute(
                    select(User.external_id, CohortMember.points, CohortMember.correct, CohortMember.answered).join(
                        User, User.id == CohortMember.user_id
                    )
                )
            ).all()
        }

    timezone = {"U-ann": "Europe/Helsinki", "U-ben": "Europe/Helsinki"}
    expected_periods = {}
    for external, points, correct, at, _question in answers:
        for window in (Window.WEEK, Window.MONTH):
            start = window_start(window, at, timezone.get(external, "Europe/London"))
            assert start is not None
            expected_periods[(external, window.value, start.astimezone(UTC))] = (points, int(correct), 1)
    totals = {external: (points, int(correct), 1) for external, points, correct, _at, _question in answers}
    assert len(answers) == 5
    assert user_scores == totals
    assert channel_scores == totals
    assert periods == expected_periods
    weeks = {start for (_user, period, start) in periods if period == Window.WEEK.value}
    assert len(weeks) == 2  # Helsinki's week had begun, London's had not: two sets of periods in one batch
    assert review == {(external, question, 1) for external, _p, correct, _at, question in answers if not correct}
    assert {external for external, *_ in review} == {"U-ben", "U-dee"}
    assert members == {"U-ben": (0, 0, 1)}


@asynccontextmanager
async def _counting(runtime: Runtime, statements: list[str]) -> AsyncIterator[None]:
    """Record the statements each of the answer recorder's units of work runs while the block runs."""
    recorder = runtime.app.answers
    factory = recorder.uow

    @asynccontextmanager
    async def counted() -> AsyncIterator[UnitOfWork]:
        async with factory() as uow:

            def seen(state: Any) -> None:
                statements.append(" ".join(str(state.statement).split()[:3]))

            event.listen(uow.session.sync_session, "do_orm_execute", seen)
            yield uow

    recorder.uow = counted  # type: ignore[assignment]
    try:
        yield
    finally:
        recorder.uow = factory


@pytest.mark.parametrize("known", [True, False], ids=["known users", "new users"])
async def test_a_batch_of_clicks_takes_a_fixed_handful_of_statements(
    runtime: Runtime, channel: ChannelRef, known: bool
) -> None:
    """However many clicks: the posts, the answers INSERT and the rollups (one statement on PostgreSQL; on SQLite the
    INSERT, then one a table), the ranks; and for new users their read and INSERT (one statement on PostgreSQL)."""
    users = [UserRef("fake", "W1", f"U-{n}", f"user {n}") for n in range(30)]
    if known:
        warm_up = await post(runtime, channel)
        await asyncio.gather(
            *(
                runtime.app.answer(post_id=warm_up.post_id, user=user, choice_index=warm_up.choice_ids[0])
                for user in users
            )
        )
    card = await post(runtime, channel)
    choices = [wrong_index(runtime, card) if n % 2 else correct_index(runtime, card) for n in range(len(users))]
    statements: list[str] = []
    batches = runtime.app.answers.batches
    async with _counting(runtime, statements):
        results = await asyncio.gather(
            *(
                runtime.app.answer(post_id=card.post_id, user=user, choice_index=choice)
                for user, choice in zip(users, choices, strict=True)
            )
        )
    assert runtime.app.answers.batches == batches + 1
    assert {r.outcome for r in results} == {AnswerOutcome.RECORDED}
    # Half right (the ranks are read), half wrong (review boxes). Posts; then on PostgreSQL one statement for the
    # answers, every rollup and the cohort read, or on SQLite the answers, then users, channels, periods, cohort read
    # and review; then the ranks. New users: their read and their INSERT first (on PostgreSQL one statement).
    writes, new_users = (1, 1) if runtime.db.dialect == "postgresql" else (6, 2)
    assert len(statements) == 2 + writes + (0 if known else new_users), statements


class _Ticking(ManualClock):
    """A clock a second later at each reading: the clicks of one batch each at their own instant."""

    def now(self) -> datetime:
        self.advance(1)
        return super().now()


async def test_a_repeated_miss_in_a_batch_moves_no_review_box(runtime: Runtime, channel: ChannelRef) -> None:
    """The batch's review boxes are due one interval after its last miss that was recorded: a click on a question
    already answered is not recorded and counts nowhere, not in the boxes' due time either (on PostgreSQL the
    rows the INSERT skipped are not among those the rollups read)."""
    card = await post(runtime, channel)
    miss = wrong_index(runtime, card)
    first = await runtime.app.answer(post_id=card.post_id, user=make_user("ann"), choice_index=miss)
    assert first.outcome is AnswerOutcome.RECORDED
    recorder = runtime.app.answers
    clock = _Ticking(runtime.clock.now())
    recorder.clock = clock
    batches = recorder.batches
    results = await asyncio.gather(
        runtime.app.answer(post_id=card.post_id, user=make_user("bob"), choice_index=miss),  # at t + 1 s
        runtime.app.answer(post_id=card.post_id, user=make_user("ann"), choice_index=miss),  # at t + 2 s: answered
    )
    assert recorder.batches == batches + 1
    assert [r.outcome for r in results] == [AnswerOutcome.RECORDED, AnswerOutcome.ALREADY_ANSWERED]
    async with runtime.db.transaction() as session:
        answered = dict((await session.execute(select(User.external_id, Answer.answered_at).join(User))).all())
        due = dict((await session.execute(select(User.external_id, ReviewItem.due_at).join(User))).all())
    assert due == {name: at + BOX_INTERVALS[0] for name, at in answered.items()}
    assert answered["U-bob"] < clock.now()  # the repeated click came later, and moved nothing
