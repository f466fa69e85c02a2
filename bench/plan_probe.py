"""Probe (not part of `make bench`): whether PostgreSQL's plan cache mode changes a board's statements at scale.

    python -m bench.plan_probe [--years 10]

Seeds one PostgreSQL database as bench/leaderboard_queries.py does (--years of the same community), then times the
boards whose p50 grew with the data, each statement of one call (the statement profile), with the server's default
plan cache mode and again with `plan_cache_mode = force_custom_plan` on every connection: a prepared statement run
more than five times may be given a generic plan, which cannot use the bound `now` and user ids the way a custom
plan does. Prints the figures; RESULTS.md quotes them (2026-12-06: no difference that matters; what had grown at
10M was the seed's, fixed in bench/leaderboard_queries.py).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import event

from bench.common import run, scratch_database
from bench.leaderboard_queries import CHANNEL, COHORT, ME, NOW, seed, statement_profile
from bot.db import Database
from bot.domain.windows import Scope, Window
from bot.service.repositories.directory import Directory
from bot.service.stats import Stats
from bot.service.uow import unit_of_work_factory
from bot.timeouts import DatabaseTimeouts


async def _p50(call: Any, runs: int) -> float:
    await call()
    spent = []
    for _ in range(runs):
        started = time.perf_counter()
        await call()
        spent.append(time.perf_counter() - started)
    return statistics.median(spent) * 1000


async def main() -> None:
    """Seed, then time each board in both plan cache modes."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--years", type=int, default=10)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        async with scratch_database("postgresql", Path(tmp)) as url:
            seeder = Database.from_url(url, timeouts=DatabaseTimeouts().unbounded_statements())
            started = time.perf_counter()
            count = await seed(seeder.engine, 68, args.years)
            await seeder.dispose()
            print(f"seeded {count:,} answers in {time.perf_counter() - started:.0f} s", flush=True)
            for mode in ("auto", "force_custom_plan", "auto"):
                db = Database.from_url(url, timeouts=DatabaseTimeouts().unbounded_statements())
                if mode != "auto":

                    def custom(dbapi_connection: Any, _record: Any, setting: str = mode) -> None:
                        cursor = dbapi_connection.cursor()
                        cursor.execute(f"SET plan_cache_mode = {setting}")
                        cursor.close()

                    event.listen(db.engine.sync_engine, "connect", custom)
                stats = Stats(unit_of_work_factory(db, Directory(default_timezone="UTC")))
                calls = {
                    "leaderboard workspace week": partial(
                        stats.leaderboard, CHANNEL, window=Window.WEEK, scope=Scope.WORKSPACE, now=NOW
                    ),
                    "leaderboard channel all": partial(
                        stats.leaderboard, CHANNEL, window=Window.ALL, scope=Scope.CHANNEL, now=NOW
                    ),
                    "leaderboard cohort all": partial(
                        stats.leaderboard, CHANNEL, window=Window.ALL, scope=Scope.COHORT, now=NOW, cohort=COHORT
                    ),
                    "/quiz me": partial(stats.user_stats, ME, now=NOW),
                }
                for label, call in calls.items():
                    p50 = await _p50(call, args.runs)
                    print(f"| {mode} | {label} | {p50:.2f} ms |", flush=True)
                    for line in await statement_profile(db, call):
                        print(f"    {line[:170]}", flush=True)
                await db.dispose()


if __name__ == "__main__":
    run(main)
