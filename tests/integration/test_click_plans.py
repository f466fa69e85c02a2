"""SQLite: the click path reads the clicking users and their earlier answers through the unique indexes, by both
columns (a (workspace, user id) or (post, user) pair a row), never by scanning: `(a, b) IN (..)` had SQLite scan the
answers table (every answer of the database, in a batch with a click already answered) or the workspace's users."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import event

from bot.domain import AnswerOutcome, ChannelRef
from bot.runtime import Runtime
from tests.conftest import make_user
from tests.scoring_helpers import correct_index, post, wrong_index

READS = {
    "users": "SELECT users.id, users.workspace_id, users.external_id, users.display_name",
    "answers": "SELECT answers.post_id, answers.user_id, answers.choice_index, answers.is_correct",
}
"""The click path's read of the clicking users (`Answers.find_or_add_users`) and of their earlier answers (`Answers.existing`)."""

SEARCHED = {"users": "(workspace_id=? AND external_id=?)", "answers": "(post_id=? AND user_id=?)"}


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_clickers_and_their_earlier_answers_are_read_through_the_unique_indexes(
    runtime: Runtime, channel: ChannelRef
) -> None:
    card = await post(runtime, channel)
    right, wrong = correct_index(runtime, card), wrong_index(runtime, card)
    seen: dict[str, tuple[str, Any]] = {}

    def capture(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, _many: bool) -> None:
        for table, start in READS.items():
            if statement.startswith(start):
                seen[table] = (statement, parameters)

    event.listen(runtime.db.engine.sync_engine, "before_cursor_execute", capture)
    try:
        first = await asyncio.gather(
            runtime.app.answer(post_id=card.post_id, user=make_user("ann"), choice_index=right),
            runtime.app.answer(post_id=card.post_id, user=make_user("ben"), choice_index=wrong),
        )
        again = await runtime.app.answer(post_id=card.post_id, user=make_user("ann"), choice_index=wrong)
    finally:
        event.remove(runtime.db.engine.sync_engine, "before_cursor_execute", capture)
    assert [r.outcome for r in (*first, again)] == [AnswerOutcome.RECORDED] * 2 + [AnswerOutcome.ALREADY_ANSWERED]
    assert set(seen) == {"users", "answers"}

    async with runtime.db.transaction() as session:
        connection = await session.connection()
        for table, (statement, parameters) in seen.items():
            plan = [row[-1] for row in await connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters)]
            assert any(step.startswith(f"SEARCH {table} ") and SEARCHED[table] in step for step in plan), plan
            assert not any(step.startswith(f"SCAN {table}") for step in plan), plan
