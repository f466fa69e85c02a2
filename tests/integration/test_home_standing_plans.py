"""How the home's channel standings count the players ahead of the user, asked of each database's planner (on empty
tables: what an index would serve, not what these rows would cost).

One count of "more points, or as many and more right, or ..." reads the channel's whole board through
ix_channel_scores_board (its range is the channel alone), so a member's page cost grew with the channel's members.
Three counts, each a range of that index past the user's own row, read only the rows ranked ahead of them, as
`/quiz me` ranks the workspace (bot/service/stats.py `_me_query`).
"""

from __future__ import annotations

import re

from sqlalchemy import text

from bot.runtime import Runtime
from bot.service.home import _page_query


async def _plan(runtime: Runtime) -> str:
    engine = runtime.db.engine
    sql = str(_page_query().params(user=1).compile(engine, compile_kwargs={"literal_binds": True}))
    async with engine.connect() as conn:
        if engine.dialect.name == "postgresql":
            await conn.execute(text("SET enable_seqscan = off"))
            rows = await conn.exec_driver_sql(f"EXPLAIN {sql}")
            return "\n".join(str(row[0]) for row in rows)
        rows = await conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}")
        return "\n".join(str(row[-1]) for row in rows)


async def test_the_players_ahead_on_a_channel_board_are_ranges_of_its_index(runtime: Runtime) -> None:
    plan = await _plan(runtime)
    if runtime.db.engine.dialect.name == "postgresql":
        conditions = [line for line in plan.splitlines() if "Index Cond" in line and "(channel_id = " in line]
        for bound in (r"\(points > \w+\.points\)", r"\(correct > \w+\.correct\)", r"\(answered < \w+\.answered\)"):
            assert any(re.search(bound, line) for line in conditions), plan
    else:
        searches = [line for line in plan.splitlines() if "ix_channel_scores_board" in line]
        assert any("points>?" in line for line in searches), plan
        assert any("correct>?" in line for line in searches), plan
        assert any("answered<?" in line for line in searches), plan
