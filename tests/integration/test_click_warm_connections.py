"""The click path stays warm past start-up: a batch of clicks compiles nothing and prepares nothing whether it is
one click or many (SQLite compiles its row INSERTs once for one row and once for several), and on PostgreSQL
whether or not it runs on the connection start-up warmed (`Database.kept_warm`: a connection the pool opens later
is warmed as it opens, so a batch on it does not prepare the click path's statements)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import asyncpg
import pytest
from sqlalchemy import event, func, select
from sqlalchemy.engine.interfaces import CacheStats

import bot.runtime
from bot.cli_commands import run_bot
from bot.db.models import Answer, ChannelScore, PeriodScore, ReviewItem, User, UserScore
from bot.domain import AnswerOutcome, ChannelRef
from tests.conftest import SEED_CONTENT, _truncate, make_user, patient_settings
from tests.fakes.fake_platform import FakePlatform
from tests.integration.test_start_heap import restored_collector  # noqa: F401 - a fixture
from tests.scoring_helpers import correct_index, post, wrong_index

CHANNEL = ChannelRef("fake", "W1", "C1")

Served = Callable[[bot.runtime.Runtime, dict[str, Any]], Awaitable[None]]


@pytest.fixture
def postgresql_url(postgres_template: str) -> str:
    """The run's PostgreSQL, emptied first (the connection cache this is about is asyncpg's)."""
    asyncio.run(_truncate(postgres_template))
    return postgres_template


class Cold:
    """What the statements run meanwhile compile (SQLAlchemy) and prepare (asyncpg), and on which connections."""

    def __init__(self, runtime: bot.runtime.Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
        self.engine = runtime.db.engine.sync_engine
        self.compiled: list[str] = []
        self.prepared: list[str] = []
        self.connections: set[int] = set()
        prepare = asyncpg.connection.Connection.prepare

        async def counting_prepare(conn: asyncpg.Connection, query: str, *args: Any, **kwargs: Any) -> Any:
            if self.counting:
                self.prepared.append(" ".join(query.split()[:3]))
            return await prepare(conn, query, *args, **kwargs)

        monkeypatch.setattr(asyncpg.connection.Connection, "prepare", counting_prepare)
        self.counting = False

    def _on_execute(self, conn: Any, _cursor: Any, statement: str, _p: Any, context: Any, _many: bool) -> None:
        self.connections.add(id(conn.connection.dbapi_connection))
        if context.compiled is not None and context.cache_hit is CacheStats.CACHE_MISS:
            self.compiled.append(" ".join(statement.split()[:3]))

    def __enter__(self) -> Cold:
        self.counting = True
        event.listen(self.engine, "before_cursor_execute", self._on_execute)
        return self

    def __exit__(self, *_: object) -> None:
        self.counting = False
        event.remove(self.engine, "before_cursor_execute", self._on_execute)


async def _start_and(url: str, monkeypatch: pytest.MonkeyPatch, served: Served) -> tuple[dict[str, Any], list[int]]:
    """Start as `quizbot run` does (warm-up included), then run `served` instead of serving; what it saw, and the
    rows the warm-up left in the tables the click path writes."""
    seen: dict[str, Any] = {}
    rows: list[int] = []

    async def serve(runtime: bot.runtime.Runtime, adapters: Sequence[Any]) -> None:
        try:
            async with runtime.db.transaction() as session:
                for model in (UserScore, ChannelScore, PeriodScore, ReviewItem, User, Answer):
                    rows.append(int((await session.execute(select(func.count()).select_from(model))).scalar_one()))
            runtime.platforms.register(FakePlatform())
            await served(runtime, seen)
        finally:
            await runtime.aclose()

    monkeypatch.setattr(bot.runtime, "serve", serve)
    await run_bot(patient_settings(database_url=url, adapters=["console"], content_dir=SEED_CONTENT))
    return seen, rows


async def test_batches_of_one_click_and_of_many_compile_and_prepare_nothing(
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    restored_collector: None,  # noqa: F811 - the fixture imported above
) -> None:
    async def served(runtime: bot.runtime.Runtime, seen: dict[str, Any]) -> None:
        card = await post(runtime, CHANNEL)
        recorder = runtime.app.answers
        right, wrong = correct_index(runtime, card), wrong_index(runtime, card)
        with Cold(runtime, monkeypatch) as cold:
            alone = await recorder.record(post_id=card.post_id, user=make_user("ann"), choice_index=right)
            many = await asyncio.gather(
                *(
                    recorder.record(post_id=card.post_id, user=make_user(name), choice_index=choice)
                    for name, choice in (("ben", wrong), ("cy", right), ("di", wrong))
                )
            )
        seen["outcomes"] = [r.outcome for r in (alone, *many)]
        seen["compiled"], seen["prepared"] = cold.compiled, cold.prepared

    seen, rows = await _start_and(database_url, monkeypatch, served)

    assert rows == [0] * 6  # the warm-up wrote nothing
    assert seen["outcomes"] == [AnswerOutcome.RECORDED] * 4
    assert seen["compiled"] == []  # on SQLite the INSERTs of new users and answers were compiled at start-up too
    assert seen["prepared"] == []


@pytest.mark.postgres
async def test_a_batch_on_a_connection_the_pool_opened_later_prepares_nothing(
    postgresql_url: str,
    monkeypatch: pytest.MonkeyPatch,
    restored_collector: None,  # noqa: F811 - the fixture imported above
) -> None:
    async def served(runtime: bot.runtime.Runtime, seen: dict[str, Any]) -> None:
        card = await post(runtime, CHANNEL)
        recorder = runtime.app.answers
        right, wrong = correct_index(runtime, card), wrong_index(runtime, card)
        engine = runtime.db.engine
        async with engine.connect() as held:  # the pool's connections so far, busy (a board, a card edit)
            warm = {id((await held.get_raw_connection()).dbapi_connection)}
            async with engine.connect() as other:  # so the pool opens one more, for something else than clicks
                later = id((await other.get_raw_connection()).dbapi_connection)
            assert later not in warm
            with Cold(runtime, monkeypatch) as cold:  # the batches can only have the later connection
                first = await asyncio.gather(
                    recorder.record(post_id=card.post_id, user=make_user("ann"), choice_index=right),
                    recorder.record(post_id=card.post_id, user=make_user("ben"), choice_index=wrong),
                )
                again = await recorder.record(post_id=card.post_id, user=make_user("ann"), choice_index=wrong)
        seen["outcomes"] = [r.outcome for r in (*first, again)]
        seen["used"], seen["later"] = cold.connections, later
        seen["compiled"], seen["prepared"] = cold.compiled, cold.prepared

    seen, rows = await _start_and(postgresql_url, monkeypatch, served)

    assert rows == [0] * 6
    assert seen["outcomes"] == [AnswerOutcome.RECORDED] * 2 + [AnswerOutcome.ALREADY_ANSWERED]
    assert seen["used"] == {seen["later"]}
    assert seen["compiled"] == []
    assert seen["prepared"] == [], seen["prepared"]
