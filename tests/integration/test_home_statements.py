"""How many statements the home (`/quiz me`'s page, Slack's Home tab) and `/quiz me`'s stats run, on SQLite and
PostgreSQL: a fixed handful, whatever the user's history and however many cohorts they are in. The user's row is
read once, with their totals, rank, checkpoint and review counts (the home used to look the workspace and the user
up again first); their questions' tags come with the answers settled since the checkpoint; the channel standings
and the next question are one statement, all cohorts' progress another.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event, select

from bot.clock import ManualClock
from bot.db.models import Post
from bot.domain import ChannelRef, PostSource
from bot.runtime import Runtime
from bot.service.facade import Invocation
from bot.service.uow import UnitOfWork
from tests.conftest import make_user
from tests.integration.test_home_checkpoint import home
from tests.integration.test_me_checkpoint import DAY, a_week

_STATEMENTS = ("SELECT", "WITH", "INSERT", "UPDATE", "DELETE")


@asynccontextmanager
async def counting(runtime: Runtime) -> AsyncIterator[tuple[UnitOfWork, list[str]]]:
    """A unit of work (committed after) and the statements run on its connection (not BEGIN, COMMIT or the pool's
    pings; nothing of the other units of work the runtime's background tasks may run meanwhile)."""
    statements: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        words = statement.split()
        if words and words[0].upper() in _STATEMENTS:
            statements.append(" ".join(words[:4]))

    async with runtime.uow() as uow:
        connection = (await uow.session.connection()).sync_connection
        assert connection is not None
        event.listen(connection, "before_cursor_execute", seen)
        try:
            yield uow, statements
            await uow.commit()
        finally:
            event.remove(connection, "before_cursor_execute", seen)


async def test_the_home_of_a_user_who_asked_a_day_before_takes_five_statements(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await a_week(runtime, channel, clock)  # scheduled questions in two channels, so streaks to resume
    await home(runtime, "alice")  # the checkpoint
    await a_week(runtime, channel, clock)
    async with counting(runtime) as (uow, statements):
        view = await runtime.app.home_reader.home(uow, make_user("alice"), now=clock.now())
    assert view.stats.answered > 0 and view.channels and view.weakest
    # The user's row with totals, rank, checkpoint and review counts; the answers since with their questions'
    # tags; the scheduled questions finished since in their channels; the checkpoint moved on; the channel
    # standings with the next question. It was twelve: the workspace and the user looked up twice, the cohorts
    # twice, tags, review counts and the next question each a statement of their own.
    assert len(statements) == 5, statements


async def test_the_home_of_a_member_of_two_cohorts_reads_their_progress_in_one_statement(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    async def run(who: str, text: str) -> None:
        assert (await runtime.app.handle_command(Invocation(channel, make_user(who), text))).ok

    for cohort in ("Q1", "Q2"):
        await run("lead", f"cohort create {cohort} packs:data-parallelism start:2020-01-01")
        await run("ann", f"cohort join {cohort}")
        await run("lead", f"cohort next {cohort}")
    async with runtime.db.transaction() as session:
        posts = list((await session.execute(select(Post.id).where(Post.source == PostSource.COHORT.value))).scalars())
    for post_id in posts:
        await runtime.app.answer(post_id=post_id, user=make_user("ann"), choice_index=0)
    clock.advance(DAY)
    async with counting(runtime) as (uow, statements):
        view = await runtime.app.home_reader.home(uow, make_user("ann"), now=clock.now())
    assert [(c.name, c.posted, c.answered) for c in view.cohorts] == [("Q1", 1, 1), ("Q2", 1, 1)]
    assert view.stats.cohorts == ("Q1", "Q2")
    # The user's row; their cohorts; the answers since with their tags (no scheduled question: no streak to read);
    # the checkpoint; the standings with the next question; both cohorts' progress. It was fifteen (two more a
    # cohort).
    assert len(statements) == 6, statements


async def test_quiz_me_of_a_user_in_no_cohort_takes_three_statements(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    async def run(who: str, text: str) -> None:
        assert (await runtime.app.handle_command(Invocation(channel, make_user(who), text))).ok

    await run("lead", "cohort create Q1 packs:data-parallelism start:2020-01-01")
    await run("lead", "cohort next Q1")  # a post outside any schedule: no streak
    async with runtime.db.transaction() as session:
        [post_id] = list((await session.execute(select(Post.id))).scalars())
    await runtime.app.answer(post_id=post_id, user=make_user("bob"), choice_index=1)
    clock.advance(DAY)
    async with counting(runtime) as (uow, statements):
        stats = await runtime.stats.user_stats(make_user("bob"), now=clock.now(), within=uow)
    assert stats.answered == 1 and stats.cohorts == ()
    # The user's row (no cohort: no cohorts read); the answers with their tags; the checkpoint. It was six.
    assert len(statements) == 3, statements


async def test_a_first_quiz_me_with_streaks_takes_three_statements(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await a_week(runtime, channel, clock)  # scheduled questions in two channels, some missed
    async with counting(runtime) as (uow, statements):
        stats = await runtime.stats.user_stats(make_user("alice"), now=clock.now(), within=uow)
    assert stats.best_streak > 0
    # The user's row; their answers with their questions' tags and the misses that decide their streaks; the
    # checkpoint. It was seven: the cohorts, the channels' scheduled questions, the tags and the review counts apart.
    assert len(statements) == 3, statements
