"""Leaderboard read models at one million answers on PostgreSQL (the figures in the README's Leaderboards section).

A measuring script, not a test: it creates a scratch database next to QUIZBOT_TEST_POSTGRES_URL's (default
postgres@127.0.0.1:5432), migrates it, fills it with synthetic data in SQL (1 workspace, 20 channels, 10 000 users,
~14 700 posts over a year, 1 000 008 answers, 50 cohorts of 20, two seasons: `autumn`, ended, 2025-10-01 to
2025-12-01, and `winter`, running since 2026-01-01), rolls the answers up the way migration 0003 does, times the
real `Stats` queries (median of 15 runs), and drops the database.

Season boards are measured beside the week, month and all-time boards, with a reference measured in the same run:
a plain GROUP BY of the same answers (`reference ...`), so the figures can be read as ratios. `--plans` prints
PostgreSQL's plan of each season board's answers query, as Stats sends it, to show which index serves it.

    .venv/bin/python -m bench.leaderboard_queries [--keep] [--reuse DATABASE] [--plans]

The benchmark issue replaces this with a proper harness.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from functools import partial
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.ext.asyncio import create_async_engine

from bot.commands import Scope, Window
from bot.db import Database
from bot.db.migrate import upgrade
from bot.domain import ChannelRef, UserRef
from bot.service.directory import Directory
from bot.service.stats import Stats
from bot.service.uow import unit_of_work_factory

ADMIN_URL = os.environ.get("QUIZBOT_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres")
NOW = datetime(2026, 1, 31, 21, 0, tzinfo=UTC)  # Saturday 23:00 in Helsinki, just after the last answer:
# the month board sums a whole month (~84 000 answers), the week board six days.

SEED = [
    "INSERT INTO workspaces (id, platform, external_id, name, timezone, created_at) "
    "VALUES (1, 'bench', 'W', 'bench', 'Europe/Helsinki', now())",
    "INSERT INTO channels (id, workspace_id, external_id, name, created_at) "
    "SELECT c, 1, 'C' || c, '', now() FROM generate_series(1, 20) c",
    "INSERT INTO users (id, workspace_id, external_id, display_name, created_at) "
    "SELECT u, 1, 'U' || u, 'user' || u, now() FROM generate_series(1, 10000) u",
    "INSERT INTO packs (id, title, description, tags, active, synced_at) "
    "VALUES ('bench', 'Bench', '', '[]'::json, true, now())",
    "INSERT INTO questions (id, pack_id, key, position, prompt, choices, correct_index, explanation, tags, active) "
    "SELECT q, 'bench', 'q' || q, q - 1, 'prompt ' || q, '[\"a\",\"b\",\"c\",\"d\"]'::json, 0, 'because', "
    "('[\"t' || (q % 5) || '\"]')::json, true FROM generate_series(1, 50) q",
    # Two posts a day in each channel for a year: the first scheduled, the second on demand.
    "INSERT INTO posts (id, channel_id, question_id, message_ref, choice_order, source, opened_at, closes_at, "
    "closed_at) SELECT p, 1 + (p % 20), 1 + (p % 50), 'm' || p, '[0,1,2,3]'::json, "
    "CASE WHEN (p / 20) % 2 = 0 THEN 'schedule' ELSE 'command' END, "
    "timestamptz '2025-01-29 07:00+00' + (p / 40) * interval '1 day' + ((p / 20) % 2) * interval '5 hours', "
    "timestamptz '2025-01-29 08:00+00' + (p / 40) * interval '1 day' + ((p / 20) % 2) * interval '5 hours', "
    "timestamptz '2025-01-29 08:00+00' + (p / 40) * interval '1 day' + ((p / 20) % 2) * interval '5 hours' "
    "FROM generate_series(1, 14706) p",
    # 68 answers a post from the channel's pool of 1000 users (pools overlap: each user is in two channels).
    "INSERT INTO answers (post_id, user_id, workspace_id, channel_id, choice_index, is_correct, points, answered_at, "
    "latency_ms) SELECT p.id, u.uid, 1, p.channel_id, (p.id + k) % 4, (p.id + k) % 4 = 0, "
    "CASE WHEN (p.id + k) % 4 = 0 THEN 10 + (p.id * 7 + k) % 11 ELSE 0 END, "
    "p.opened_at + ((k * 37) % 3600) * interval '1 second', ((k * 37) % 3600) * 1000 "
    "FROM posts p CROSS JOIN generate_series(0, 67) k CROSS JOIN LATERAL "
    "(SELECT 1 + (((p.channel_id - 1) * 500 + (p.id * 7919 + k * 337) % 1000) % 10000) AS uid) u",
    "INSERT INTO user_scores (user_id, workspace_id, points, correct, answered) SELECT user_id, workspace_id, "
    "SUM(points), SUM(CASE WHEN is_correct THEN 1 ELSE 0 END), COUNT(*) FROM answers GROUP BY user_id, workspace_id",
    "INSERT INTO channel_scores (user_id, channel_id, points, correct, answered) SELECT user_id, channel_id, "
    "SUM(points), SUM(CASE WHEN is_correct THEN 1 ELSE 0 END), COUNT(*) FROM answers GROUP BY user_id, channel_id",
    "INSERT INTO cohorts (id, workspace_id, key, name, start_date, starts_at, packs, created_at) "
    "SELECT c, 1, 'cohort' || c, 'cohort' || c, date '2025-01-29' + c * 5, "
    "timestamptz '2025-01-28 22:00+00' + c * interval '5 days', '[\"bench\"]'::json, now() "
    "FROM generate_series(1, 50) c",
    "INSERT INTO seasons (id, workspace_id, key, name, starts_at, ends_at, ended_at, created_at) VALUES "
    "(1, 1, 'autumn', 'autumn', timestamptz '2025-09-30 21:00+00', timestamptz '2025-11-30 22:00+00', "
    "timestamptz '2025-11-30 22:00+00', now()), "
    "(2, 1, 'winter', 'winter', timestamptz '2025-12-31 22:00+00', timestamptz '2026-03-31 21:00+00', NULL, now())",
    "INSERT INTO cohort_members (cohort_id, user_id, joined_at, points, correct, answered) "
    "SELECT 1 + (u - 1) / 20, u, now(), 0, 0, 0 FROM generate_series(1, 1000) u",
    "UPDATE cohort_members m SET points = t.points, correct = t.correct, answered = t.answered FROM ("
    "SELECT m2.cohort_id, m2.user_id, SUM(a.points) AS points, SUM(CASE WHEN a.is_correct THEN 1 ELSE 0 END) "
    "AS correct, COUNT(*) AS answered FROM cohort_members m2 JOIN cohorts c ON c.id = m2.cohort_id "
    "JOIN answers a ON a.user_id = m2.user_id AND a.answered_at >= c.starts_at GROUP BY m2.cohort_id, m2.user_id"
    ") t WHERE t.cohort_id = m.cohort_id AND t.user_id = m.user_id",
]


async def _admin(sql: str) -> None:
    engine = create_async_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as connection:
            await connection.execute(text(sql))
    finally:
        await engine.dispose()


async def _median_ms(call: Callable[[], Awaitable[Any]], runs: int = 15) -> float:
    await call()  # warm the statement cache and the buffers
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        await call()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


async def _seed(db: Database, url: str, name: str) -> None:
    await upgrade(db)
    started = time.perf_counter()
    seeder = create_async_engine(url)  # the app's engine stops statements after 30 s; seeding takes longer
    try:
        async with seeder.begin() as connection:
            for statement in SEED:
                await connection.execute(text(statement))
        async with seeder.connect() as connection:
            await connection.execution_options(isolation_level="AUTOCOMMIT")
            await connection.execute(text("VACUUM ANALYZE"))
            count = (await connection.execute(text("SELECT count(*) FROM answers"))).scalar_one()
    finally:
        await seeder.dispose()
    print(f"seeded {count} answers in {time.perf_counter() - started:.0f} s ({name})")


REFERENCE = (
    "SELECT user_id, SUM(points), COUNT(*) FROM answers WHERE workspace_id = 1 "
    "AND answered_at >= :start AND answered_at < :end GROUP BY user_id"
)
"""A plain GROUP BY of a season's answers: the reference the season boards are read against."""


async def _reference(db: Database, start: datetime, end: datetime) -> None:
    async with db.engine.connect() as connection:
        await connection.execute(text(REFERENCE), {"start": start, "end": end})


async def _plans(db: Database, call: Callable[[], Awaitable[Any]]) -> list[str]:
    """PostgreSQL's plan of every statement `call` sends that sums answers in a bounded window."""
    sent: list[tuple[str, Any]] = []

    def record(  # noqa: PLR0917 - SQLAlchemy's before_cursor_execute signature
        conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool
    ) -> None:
        if "answers.answered_at <" in statement and "GROUP BY" in statement:
            sent.append((statement, parameters))

    event.listen(db.engine.sync_engine, "before_cursor_execute", record)
    try:
        await call()
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", record)
    plans = []
    async with db.engine.connect() as connection:
        for statement, parameters in sent:
            rows = await connection.exec_driver_sql("EXPLAIN " + statement, parameters)
            plans.append("\n".join(str(row[0]) for row in rows))
    return plans


async def main(keep: bool, reuse: str | None, plans: bool = False) -> None:
    """Seed, measure, print a table, drop the database (unless --keep, or --reuse of a kept one)."""
    name = reuse or f"quizbot_bench_{uuid.uuid4().hex[:8]}"
    if not reuse:
        await _admin(f'CREATE DATABASE "{name}"')
    url = ADMIN_URL.rsplit("/", 1)[0] + "/" + name
    db = Database.from_url(url)
    try:
        if not reuse:
            await _seed(db, url, name)
        stats = Stats(unit_of_work_factory(db, Directory(default_timezone="UTC")))
        channel = ChannelRef("bench", "W", "C3")
        cases: list[tuple[str, Callable[[], Awaitable[Any]]]] = []
        for scope in (Scope.WORKSPACE, Scope.CHANNEL):
            for window in (Window.ALL, Window.MONTH, Window.WEEK):
                cases.append(
                    (
                        f"leaderboard {scope.value} {window.value}",
                        partial(stats.leaderboard, channel, window=window, scope=scope, now=NOW),
                    )
                )
            cases.append(
                (
                    f"leaderboard {scope.value} season",  # the running one, since 2026-01-01
                    partial(stats.leaderboard, channel, window=Window.SEASON, scope=scope, now=NOW),
                )
            )
            cases.append(
                (
                    f"leaderboard {scope.value} season autumn",  # a past one, bounded on both sides
                    partial(stats.leaderboard, channel, window=Window.SEASON, scope=scope, season="autumn", now=NOW),
                )
            )
        cases.append(
            (
                "reference GROUP BY winter",
                partial(_reference, db, datetime(2025, 12, 31, 22, tzinfo=UTC), NOW),
            )
        )
        cases.append(
            (
                "reference GROUP BY autumn",
                partial(_reference, db, datetime(2025, 9, 30, 21, tzinfo=UTC), datetime(2025, 11, 30, 22, tzinfo=UTC)),
            )
        )
        for window in (Window.ALL, Window.WEEK, Window.SEASON):
            cases.append(
                (
                    f"leaderboard cohort {window.value}",
                    partial(stats.leaderboard, channel, window=window, scope=Scope.COHORT, cohort="cohort40", now=NOW),
                )
            )
            cases.append(
                (f"cohort vs cohort {window.value}", partial(stats.cohort_board, channel, window=window, now=NOW))
            )
        cases.append(("/quiz me", lambda: stats.user_stats(UserRef("bench", "W", "U1234", "user1234"), now=NOW)))
        for label, call in cases:
            print(f"{label:36s} {await _median_ms(call):8.1f} ms")
        if plans:
            for label, call in cases:
                if "season" in label and not label.startswith("reference"):
                    for plan in await _plans(db, call):
                        print(f"\n-- plan of {label}:\n{plan}")
    finally:
        await db.dispose()
        if not keep and not reuse:
            await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the database for exploring")
    parser.add_argument("--reuse", metavar="DATABASE", help="measure a database kept by an earlier --keep run")
    parser.add_argument("--plans", action="store_true", help="print the plans of the season boards' queries")
    args = parser.parse_args()
    asyncio.run(main(args.keep, args.reuse, args.plans))
