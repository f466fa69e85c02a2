"""`quizbot run` warms the click path up before serving (AnswerRecorder.warm_up): its statements are compiled and,
on PostgreSQL, prepared on the pool's connection, so the first batch of clicks waits for neither (a cold first
batch was the click path's p99 at 200 users, bench section 1). The warm-up reads and writes no row."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import asyncpg
import pytest
from sqlalchemy import event, func, select
from sqlalchemy.engine.interfaces import CacheStats

import bot.runtime
from bot.cli_commands import run_bot
from bot.db.models import Answer, ChannelScore, PeriodScore, ReviewItem, User, UserScore
from bot.domain import AnswerOutcome, ChannelRef
from tests.conftest import SEED_CONTENT, make_user, patient_settings
from tests.fakes.fake_platform import FakePlatform
from tests.integration.test_start_heap import restored_collector  # noqa: F401 - a fixture
from tests.scoring_helpers import correct_index, post, wrong_index

CHANNEL = ChannelRef("fake", "W1", "C1")

SQLITE_ROW_INSERTS = {"INSERT INTO users", "INSERT INTO answers"}
"""What the warm-up leaves cold on SQLite: the executemany INSERTs of new rows, which cannot run without a row."""


async def test_the_first_batch_after_start_up_compiles_and_prepares_nothing(
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    restored_collector: None,  # noqa: F811 - the fixture imported above
) -> None:
    seen: dict[str, Any] = {}

    async def serve(runtime: bot.runtime.Runtime, adapters: Sequence[Any]) -> None:
        """Instead of serving: what the warm-up left behind, then two batches of clicks (new users, right and
        wrong answers; then a click again on an answered post), counting what they compile and prepare."""
        try:
            async with runtime.db.transaction() as session:
                counted = [UserScore, ChannelScore, PeriodScore, ReviewItem, User, Answer]
                seen["rows"] = [(await session.execute(select(func.count()).select_from(m))).scalar() for m in counted]
            runtime.platforms.register(FakePlatform())
            card = await post(runtime, CHANNEL)
            compiled: list[str] = []
            prepared: list[str] = []

            def on_execute(_conn: Any, _cursor: Any, statement: str, _p: Any, context: Any, _many: bool) -> None:
                if context.compiled is not None and context.cache_hit is CacheStats.CACHE_MISS:
                    compiled.append(" ".join(statement.split()[:3]))

            prepare = asyncpg.connection.Connection.prepare

            async def counting_prepare(self: asyncpg.Connection, query: str, *args: Any, **kwargs: Any) -> Any:
                prepared.append(" ".join(query.split()[:3]))
                return await prepare(self, query, *args, **kwargs)

            monkeypatch.setattr(asyncpg.connection.Connection, "prepare", counting_prepare)
            event.listen(runtime.db.engine.sync_engine, "before_cursor_execute", on_execute)
            recorder = runtime.app.answers  # the click path without the card edits that follow it
            ann, ben, cy = make_user("ann"), make_user("ben"), make_user("cy")
            right, wrong = correct_index(runtime, card), wrong_index(runtime, card)
            first = await asyncio.gather(
                recorder.record(post_id=card.post_id, user=ann, choice_index=right),
                recorder.record(post_id=card.post_id, user=ben, choice_index=wrong),
                recorder.record(post_id=card.post_id, user=cy, choice_index=right),
            )
            again = await recorder.record(post_id=card.post_id, user=ann, choice_index=wrong)
            event.remove(runtime.db.engine.sync_engine, "before_cursor_execute", on_execute)
            seen["outcomes"] = [r.outcome for r in (*first, again)]
            seen["compiled"], seen["prepared"] = compiled, prepared
        finally:
            await runtime.aclose()

    monkeypatch.setattr(bot.runtime, "serve", serve)
    settings = patient_settings(database_url=database_url, adapters=["console"], content_dir=SEED_CONTENT)
    await run_bot(settings)

    assert seen["rows"] == [0] * 6  # the warm-up wrote nothing
    assert seen["outcomes"] == [AnswerOutcome.RECORDED] * 3 + [AnswerOutcome.ALREADY_ANSWERED]
    cold = set() if database_url.startswith("postgresql") else SQLITE_ROW_INSERTS
    assert set(seen["compiled"]) <= cold, seen["compiled"]
    assert seen["prepared"] == [], seen["prepared"]  # on SQLite there is no asyncpg: nothing to see
