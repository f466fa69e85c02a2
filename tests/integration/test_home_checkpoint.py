"""The home (`/quiz me`'s page, Slack's Home tab) reads its weakest topics from the user's `/quiz me` checkpoint
(answered and right answers per question, bot/service/streak_stats.py) and what was settled since, and its cohorts'
progress from the cohorts' posts; on SQLite and PostgreSQL both equal the user's whole history: after more answers,
with answers still inside the settle margin (the tail the checkpoint does not hold), and over a checkpoint stored in
the previous format (wrong answers per question), which is not used.

The reference is computed apart, from every answer of the user: the statements the home ran before checkpoints.
"""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import case, func, select, update

from bot.clock import ManualClock
from bot.db.models import Answer, Cohort, CohortMember, MeCheckpoint, Post, QuestionRow, User
from bot.domain import ChannelRef, PostSource
from bot.domain.views import HomeView, TagResult
from bot.runtime import Runtime
from bot.service.facade import Invocation
from bot.service.repositories.checkpoints import VERSION
from bot.service.streak_stats import SETTLE_MARGIN
from tests.conftest import make_user
from tests.integration.test_me_checkpoint import HOUR, a_week, scheduled, stored
from tests.scoring_helpers import answer


async def home(runtime: Runtime, who: str) -> HomeView:
    """The home as `App.home` reads it: in one unit of work, committed after (the checkpoint moves on)."""
    async with runtime.uow() as uow:
        view = await runtime.app.home_reader.home(uow, make_user(who), now=runtime.clock.now())
        await uow.commit()
    return view


async def whole_history(runtime: Runtime, who: str) -> tuple[tuple[TagResult, ...], list[tuple[str, int, int]]]:
    """(weakest topics, [(cohort, answered, correct)]) from every answer of the user."""
    async with runtime.db.transaction() as session:
        user_row = (await session.execute(select(User.id).where(User.external_id == f"U-{who}"))).scalar_one()
        rows = await session.execute(
            select(QuestionRow.tags, func.count(), func.sum(case((Answer.is_correct, 1), else_=0)))
            .join(Post, Post.question_id == QuestionRow.id)
            .join(Answer, Answer.post_id == Post.id)
            .where(Answer.user_id == user_row)
            .group_by(QuestionRow.id)
        )
        answered: dict[str, int] = defaultdict(int)
        correct: dict[str, int] = defaultdict(int)
        for tags, count, right in rows:
            for tag in tags or ():
                answered[tag] += int(count)
                correct[tag] += int(right or 0)
        weakest = sorted(
            (TagResult(tag=t, answered=answered[t], correct=correct[t]) for t in answered if correct[t] < answered[t]),
            key=lambda r: (r.accuracy, -r.answered, r.tag),
        )
        cohorts = []
        for cohort_id, name in await session.execute(
            select(Cohort.id, Cohort.name)
            .join(CohortMember, CohortMember.cohort_id == Cohort.id)
            .where(CohortMember.user_id == user_row)
            .order_by(Cohort.key)
        ):
            count, right = (
                await session.execute(
                    select(func.count(Answer.id), func.sum(case((Answer.is_correct, 1), else_=0)))
                    .join(Post, Post.id == Answer.post_id)
                    .where(
                        Answer.user_id == user_row,
                        Post.source == PostSource.COHORT.value,
                        Post.source_ref == str(cohort_id),
                    )
                )
            ).one()
            cohorts.append((name, int(count), int(right or 0)))
    return tuple(weakest[:3]), cohorts


async def checked(runtime: Runtime, who: str) -> HomeView:
    """The home, checked against the whole history's weakest topics and cohort answers."""
    view = await home(runtime, who)
    weakest, cohorts = await whole_history(runtime, who)
    assert view.weakest == weakest, who
    assert [(c.name, c.answered, c.correct) for c in view.cohorts] == cohorts, who
    return view


async def test_the_homes_weakest_topics_resumed_from_the_checkpoint_equal_the_whole_history(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await a_week(runtime, channel, clock)
    first = await checked(runtime, "alice")
    assert first.weakest
    checkpoint = await stored(runtime, "alice")
    assert checkpoint is not None and checkpoint.version == VERSION
    assert checkpoint.settled_to == clock.now() - SETTLE_MARGIN

    await a_week(runtime, channel, clock)  # more answers: the checkpoint moves on over them
    await checked(runtime, "bob")
    second = await checked(runtime, "alice")
    moved = await stored(runtime, "alice")
    assert moved is not None and moved.settled_to == clock.now() - SETTLE_MARGIN > checkpoint.settled_to

    # Answers inside the settle margin: the checkpoint does not hold them, the home must fold them on.
    for _ in range(3):
        card = await scheduled(runtime, channel, clock)
        await answer(runtime, card, "alice", right=False)
        clock.advance(60)
    third = await checked(runtime, "alice")
    kept = await stored(runtime, "alice")
    assert kept is not None and kept.settled_to == moved.settled_to  # within the hour: kept, the tail read
    assert third.weakest != second.weakest
    clock.advance(30 * 60)
    await checked(runtime, "alice")


async def test_a_checkpoint_of_the_previous_format_is_not_used(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await a_week(runtime, channel, clock)
    await checked(runtime, "alice")
    async with runtime.db.transaction() as session:  # as version 1 stored it: wrong answers per question
        question = (await session.execute(select(func.min(QuestionRow.id)))).scalar_one()
        await session.execute(update(MeCheckpoint).values(version=1, missed={str(question): 5}))
    clock.advance(2 * HOUR)
    await checked(runtime, "alice")
    replaced = await stored(runtime, "alice")
    assert replaced is not None and replaced.version == VERSION


async def test_the_cohorts_progress_counts_the_users_answers_to_the_cohorts_posts(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    async def run(who: str, text: str) -> None:
        assert (await runtime.app.handle_command(Invocation(channel, make_user(who), text))).ok

    await run("lead", "cohort create Q1 packs:data-parallelism start:2020-01-01")
    await run("lead", "cohort create Q2 packs:data-parallelism start:2020-01-01")
    for name in ("alice", "bob"):
        await run(name, "cohort join Q1")
    await run("alice", "cohort join Q2")
    await a_week(runtime, channel, clock)  # answers to other posts count for no cohort
    for cohort in ("Q1", "Q1", "Q2"):
        await run("lead", f"cohort next {cohort}")
    async with runtime.db.transaction() as session:
        posts = (
            await session.execute(select(Post.id).where(Post.source == PostSource.COHORT.value).order_by(Post.id))
        ).scalars()
        cohort_posts = list(posts)
    assert len(cohort_posts) == 3
    for post_id, choice in zip(cohort_posts, (0, 1, 2), strict=True):
        await runtime.app.answer(post_id=post_id, user=make_user("alice"), choice_index=choice)
    await runtime.app.answer(post_id=cohort_posts[0], user=make_user("bob"), choice_index=0)
    view = await checked(runtime, "alice")
    assert [(c.name, c.posted, c.answered) for c in view.cohorts] == [("Q1", 2, 2), ("Q2", 1, 1)]
    assert [(c.name, c.posted, c.answered) for c in (await checked(runtime, "bob")).cohorts] == [("Q1", 2, 1)]
