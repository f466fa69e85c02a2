"""The season rollup stays exact when a season starts or ends while a click batch is in flight (PostgreSQL).

Under READ COMMITTED a batch that began before a season's start committed does not see the season, and the start's
settling statement does not see the batch's answers; a batch in flight while a season ends took answers given after
the end that the end's settling does not see. Starting and ending lock `answers` in SHARE mode before settling, so
they wait for the batch. Each test holds a batch's transaction open with a known answer (its commit waits for the
test), starts or ends the season, lets the batch commit once the start or end waits on the lock (seen in pg_locks;
without the lock it does not wait but finishes first), and checks the season's rows against its answers.

PostgreSQL only: on SQLite every writer holds the database's write lock (BEGIN IMMEDIATE), so a start or end
cannot run while a batch is in flight; tests/integration/test_season_rollup.py covers both databases otherwise.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import text

from bot.clock import ManualClock
from bot.domain import ChannelRef
from bot.runtime import Runtime
from bot.service.uow import UnitOfWork
from tests.integration.test_season_rollup import exact, run, same_board
from tests.scoring_helpers import answer, confirm, post

pytestmark = pytest.mark.parametrize(
    "database_url", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True
)


@contextmanager
def held_batch(runtime: Runtime) -> Iterator[tuple[asyncio.Event, asyncio.Event]]:
    """The click batches' commits wait for the second event; the first is set once a batch is about to commit
    (its answers and rollup rows written, its transaction open)."""
    recorder = runtime.app.answers
    real_factory = recorder.uow
    reached, release = asyncio.Event(), asyncio.Event()

    def factory() -> UnitOfWork:
        uow = real_factory()
        real_commit = uow.commit

        async def commit() -> None:
            reached.set()
            await release.wait()
            await real_commit()

        uow.commit = commit  # type: ignore[method-assign]
        return uow

    recorder.uow = factory
    try:
        yield reached, release
    finally:
        recorder.uow = real_factory


async def waiting_on_answers(runtime: Runtime) -> bool:
    """Whether a transaction of this database waits for a lock on `answers`."""
    query = text(
        "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE relation = 'answers'::regclass AND NOT granted"
        " AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))"
    )
    async with runtime.db.engine.connect() as conn:
        return bool((await conn.execute(query)).scalar())


async def until_waiting_or_done(runtime: Runtime, task: asyncio.Task[Any]) -> None:
    """Until `task` waits on the lock of `answers`, or has finished without waiting."""
    while not await waiting_on_answers(runtime):
        if task.done():
            return
        await asyncio.sleep(0.01)


async def test_a_season_started_while_a_batch_is_in_flight_counts_its_answer(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    card = await post(runtime, channel)
    with held_batch(runtime) as (reached, release):
        click = asyncio.create_task(answer(runtime, card, "ann", right=True))  # given now: in the season
        await reached.wait()
        start = asyncio.create_task(run(runtime, channel, "ada", "season start race", admin=True))
        await until_waiting_or_done(runtime, start)
        release.set()
        await click
        await start
    await exact(runtime, "race", 1)
    await same_board(runtime, channel, clock, ["ann"])


async def test_a_season_ended_while_a_batch_is_in_flight_loses_its_later_answer(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await run(runtime, channel, "ada", "season start race", admin=True)
    card = await post(runtime, channel)
    await answer(runtime, card, "ben", right=True)
    clock.advance(timedelta(minutes=1))
    with held_batch(runtime) as (reached, release):
        click = asyncio.create_task(answer(runtime, card, "ann", right=True))  # given at the end's instant: not in it
        await reached.wait()
        asked = await run(runtime, channel, "ada", "season end", admin=True)
        end = asyncio.create_task(confirm(runtime, asked, channel, "ada", admin=True))
        await until_waiting_or_done(runtime, end)
        release.set()
        await click
        assert (await end).ok
    await exact(runtime, "race", 1)
    await same_board(runtime, channel, clock, ["ben"], season="race")
