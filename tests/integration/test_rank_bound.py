"""A click's place on its channel's board is read from the top of the board down to RANKED_TOP places and no
further, on PostgreSQL: the cost of a batch of clicks does not grow with the channel's members. (SQLite ranks the
whole board, as before: it serves a team.)"""

from __future__ import annotations

import json
import random
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import text

from bot.clock import ManualClock
from bot.domain import ChannelRef
from bot.runtime import build_runtime
from bot.service.repositories.scores import _ranks_statement
from tests.conftest import SEED_CONTENT, _truncate, patient_settings
from tests.fakes.fake_platform import FakePlatform
from tests.scoring_helpers import answer, post

MEMBERS = 40
TOP = 5


def _scanned(plan: dict[str, Any]) -> int:
    """Rows the plan's scans of channel_scores returned, summed over the plan's nodes."""
    rows = int(plan.get("Actual Rows", 0)) if plan.get("Relation Name") == "channel_scores" else 0
    return rows + sum(_scanned(child) for child in plan.get("Plans", []))


@pytest.mark.postgres
async def test_the_rank_statement_reads_the_top_of_the_board_only(postgres_template: str, clock: ManualClock) -> None:
    await _truncate(postgres_template)
    settings = patient_settings(database_url=postgres_template, content_dir=SEED_CONTENT, card_update_interval=0.0)
    runtime = await build_runtime(settings, clock=clock, rng=random.Random(7), migrate=False)
    runtime.platforms.register(FakePlatform())
    try:
        card = await post(runtime, ChannelRef("fake", "W1", "C1"))
        for n in range(MEMBERS):  # a minute and a half apart: points fall with time, a few tie
            await answer(runtime, card, f"member{n}", right=True)
            clock.advance(timedelta(seconds=90))
        async with runtime.db.engine.connect() as conn:
            channel = (await conn.execute(text("SELECT id FROM channels"))).scalar_one()
            last = (await conn.execute(text("SELECT max(id) FROM users"))).scalar_one()
            statement = _ranks_statement("postgresql").compile(conn.engine)
            # EXPLAIN of the statement as the bot runs it (its parameters inlined as constants: same plan shape).
            sql = str(statement).replace("$1::BIGINT[]", f"ARRAY[{channel}]::BIGINT[]")
            sql = sql.replace("$2::INTEGER", str(TOP)).replace("$3::BIGINT[]", f"ARRAY[{last}]::BIGINT[]")
            # Forty rows are cheapest read whole; a community's board is not: ask for the plan a large board gets.
            for setting in ("enable_seqscan", "enable_bitmapscan", "enable_sort"):
                await conn.execute(text(f"SET {setting} = off"))
            [[plan]] = (await conn.execute(text(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}"))).all()
    finally:
        await runtime.aclose()
    plan = json.loads(plan) if isinstance(plan, str) else plan
    scanned = _scanned(plan[0]["Plan"])
    # The top places, the ties of the last (a few users share each point total here) and a row or two of look-ahead:
    # not the board.
    assert TOP <= scanned <= MEMBERS // 3, scanned
