"""How a board's streak statement reaches its rows, asked of each database's planner (on empty tables: what an index
would serve, not what these rows would cost).

- SQLite keeps no statistics unless ANALYZE ran; without them it took the tail's `posts.source = ?` on
  ix_posts_source_ref (migration 0019) and read every scheduled post of the database and all of their answers,
  instead of the user's answers since their latest miss (148 ms against 0.5 ms at 1M answers).
- PostgreSQL planned the test "did the user answer this question" as an anti-join that read every answer of the
  user for each (user, channel) pair, and joined the latest misses to posts through a hash of every post; the test
  is now one probe of the answers' (post, user) key a question, and the misses are materialized, each one's post a
  key lookup.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import event, text

from bot.runtime import Runtime
from bot.service.streak_stats import user_streaks
from bot.service.uow import reading

NOW = datetime(2026, 1, 31, 21, 0, tzinfo=UTC)


async def _streak_plan(runtime: Runtime, *, channel: int | None) -> str:
    """The plan of the statement `user_streaks` sends for a board (`history=False`)."""
    sent: list[tuple[str, Any]] = []

    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        sent.append((statement, parameters))

    engine = runtime.db.engine
    event.listen(engine.sync_engine, "before_cursor_execute", record)
    try:
        async with reading(runtime.uow, None) as uow:
            await user_streaks(uow.session, [1, 2, 3], timezone="UTC", now=NOW, channel=channel, history=False)
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", record)
    [(statement, parameters)] = [(s, p) for s, p in sent if "latest_misses" in s]
    async with engine.connect() as conn:
        if engine.dialect.name == "postgresql":
            await conn.execute(text("SET enable_seqscan = off"))
            rows = await conn.exec_driver_sql(f"EXPLAIN {statement}", parameters)
            return "\n".join(str(row[0]) for row in rows)
        rows = await conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters)
        return "\n".join(str(row[-1]) for row in rows)


async def test_a_boards_streaks_read_the_users_answers_not_every_scheduled_post(runtime: Runtime) -> None:
    for channel in (None, 7):
        plan = await _streak_plan(runtime, channel=channel)
        if runtime.db.engine.dialect.name == "postgresql":
            assert "Anti Join" not in plan, plan  # a probe a question, not all of the user's answers a pair
            assert "uq_answers_post_id_user_id" in plan, plan
            assert "CTE latest_misses" in plan, plan  # materialized: each miss's post by its key
        else:
            assert "ix_posts_source_ref" not in plan, plan
            assert "ix_answers_user_board" in plan, plan
