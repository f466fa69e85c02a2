"""Benchmark 4: leaderboards and `/quiz me` at one million answers, on PostgreSQL and SQLite, each beside the plain
GROUP BY over `answers` that computes the same board, measured in the same run on the same database.

    python -m bench.leaderboard_queries [--quick] [--db sqlite|postgresql|both] [--runs 15] [--keep]

Each database is migrated, then filled with the same synthetic data (1 workspace in Europe/Helsinki, 20 channels,
10,000 users, 14,706 posts over a year, two a day a channel, the first scheduled, 68 answers a post: 1,000,008
answers; 50 cohorts, 1,000 members), the rollups filled the way the migrations fill them; then every board of
every scope and window (`bot.domain.windows.Window`: a window added there is measured too), cohort vs cohort and
`/quiz me` are timed through the real `Stats` read model, each call its own read-only unit of work; the median of
--runs calls (after one warm-up) is its p50. The reference for each is the plain GROUP BY over the window's
answers that ranks the same rows (no rollups, no streaks), timed the same way on the same connection pool.
--quick: 14 answers a post (205,884 answers), 7 runs.

Targets (issue 16): p50 <= 5 ms for each, and >= 50x faster than its plain GROUP BY.

A section of RESULTS.md also lists, for the slowest board, the statements it ran and the time of each.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import Select, case, event, func, insert, select, text
from sqlalchemy.ext.asyncio import AsyncEngine

from bench.common import Check, bound_check, quick_or_full, run, scratch_database, speedup_check, write_section
from bot.db import Database
from bot.db.models import (
    Answer,
    Channel,
    ChannelScore,
    Cohort,
    CohortMember,
    PackRow,
    PeriodScore,
    Post,
    QuestionRow,
    Season,
    User,
    UserScore,
    Workspace,
)
from bot.domain import ChannelRef, UserRef
from bot.domain.windows import Scope, Span, Window, window_span
from bot.service.directory import Directory
from bot.service.scores import ROLLUP_WINDOWS, period_start
from bot.service.stats import Stats
from bot.service.uow import unit_of_work_factory
from bot.timeouts import DatabaseTimeouts

TIMEZONE = "Europe/Helsinki"
SEASON_START = datetime(2025, 12, 31, 22, 0, tzinfo=UTC)  # 2026-01-01 00:00 in Helsinki
NOW = datetime(2026, 1, 31, 21, 0, tzinfo=UTC)  # Saturday 23:00 in Helsinki, just after the last answer:
# the month board sums a whole month (~84,000 answers at full size), the week board six days.
START = datetime(2025, 1, 29, 7, 0, tzinfo=UTC)
CHANNELS, USERS, POSTS, COHORTS, MEMBERS = 20, 10_000, 14_706, 50, 1000
CHANNEL = ChannelRef("bench", "W", "C3")
ME = UserRef("bench", "W", "U1234", "user1234")
COHORT = "cohort40"


def _posts() -> Iterator[dict[str, Any]]:
    for p in range(1, POSTS + 1):
        opened = START + timedelta(days=p // 40, hours=5 * ((p // 20) % 2))
        yield {
            "id": p,
            "channel_id": 1 + p % CHANNELS,
            "question_id": 1 + p % 50,
            "message_ref": f"m{p}",
            "choice_order": [0, 1, 2, 3],
            "source": "schedule" if (p // 20) % 2 == 0 else "command",
            "opened_at": opened,
            "closes_at": opened + timedelta(hours=1),
            "closed_at": opened + timedelta(hours=1),
        }


def _answers(per_post: int) -> Iterator[dict[str, Any]]:
    """per_post answers a post from the channel's pool of 1,000 users (each user is in two channels' pools)."""
    for post in _posts():
        p, channel = post["id"], post["channel_id"]
        for k in range(per_post):
            correct = (p + k) % 4 == 0
            seconds = (k * 37) % 3600
            yield {
                "post_id": p,
                "user_id": 1 + ((channel - 1) * 500 + (p * 7919 + k * 337) % 1000) % USERS,
                "workspace_id": 1,
                "channel_id": channel,
                "choice_index": (p + k) % 4,
                "is_correct": correct,
                "points": 10 + (p * 7 + k) % 11 if correct else 0,
                "answered_at": post["opened_at"] + timedelta(seconds=seconds),
                "latency_ms": seconds * 1000,
            }


def _chunks(rows: Iterator[dict[str, Any]], size: int = 20_000) -> Iterator[list[dict[str, Any]]]:
    chunk: list[dict[str, Any]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


async def seed(engine: AsyncEngine, per_post: int) -> int:
    """Fill a migrated database; returns the number of answers."""
    created = datetime(2025, 1, 1, tzinfo=UTC)
    async with engine.begin() as conn:
        await conn.execute(
            insert(Workspace),
            [
                {
                    "id": 1,
                    "platform": "bench",
                    "external_id": "W",
                    "name": "bench",
                    "timezone": TIMEZONE,
                    "created_at": created,
                }
            ],
        )
        await conn.execute(
            insert(Channel),
            [{"id": c, "workspace_id": 1, "external_id": f"C{c}", "created_at": created} for c in range(1, 21)],
        )
        await conn.execute(
            insert(User),
            [
                {"id": u, "workspace_id": 1, "external_id": f"U{u}", "display_name": f"user{u}", "created_at": created}
                for u in range(1, USERS + 1)
            ],
        )
        await conn.execute(insert(PackRow), [{"id": "bench", "title": "Bench", "tags": [], "synced_at": created}])
        await conn.execute(
            insert(QuestionRow),
            [
                {
                    "id": q,
                    "pack_id": "bench",
                    "key": f"q{q}",
                    "position": q - 1,
                    "prompt": f"prompt {q}",
                    "choices": ["a", "b", "c", "d"],
                    "correct_index": 0,
                    "explanation": "because",
                    "tags": [f"t{q % 5}"],
                }
                for q in range(1, 51)
            ],
        )
        for chunk in _chunks(_posts()):
            await conn.execute(insert(Post), chunk)
        for chunk in _chunks(_answers(per_post)):
            await conn.execute(insert(Answer), chunk)
        correct = func.sum(case((Answer.is_correct, 1), else_=0))
        await conn.execute(
            insert(UserScore).from_select(
                ["user_id", "workspace_id", "points", "correct", "answered"],
                select(Answer.user_id, Answer.workspace_id, func.sum(Answer.points), correct, func.count()).group_by(
                    Answer.user_id, Answer.workspace_id
                ),
            )
        )
        await conn.execute(
            insert(ChannelScore).from_select(
                ["user_id", "channel_id", "points", "correct", "answered"],
                select(Answer.user_id, Answer.channel_id, func.sum(Answer.points), correct, func.count()).group_by(
                    Answer.user_id, Answer.channel_id
                ),
            )
        )
        await conn.execute(
            insert(Cohort),
            [
                {
                    "id": c,
                    "workspace_id": 1,
                    "key": f"cohort{c}",
                    "name": f"cohort{c}",
                    "start_date": date(2025, 1, 29) + timedelta(days=5 * c),
                    "starts_at": datetime(2025, 1, 28, 22, 0, tzinfo=UTC) + timedelta(days=5 * c),
                    "packs": ["bench"],
                    "created_at": created,
                }
                for c in range(1, COHORTS + 1)
            ],
        )
        await conn.execute(  # a season running since 2026-01-01 (Helsinki), so the season window has a board
            insert(Season),
            [
                {
                    "id": 1,
                    "workspace_id": 1,
                    "key": "winter",
                    "name": "winter",
                    "starts_at": SEASON_START,
                    "ends_at": None,
                    "ended_at": None,
                    "created_at": created,
                }
            ],
        )
        await conn.execute(
            insert(CohortMember),
            [
                {"cohort_id": 1 + (u - 1) // 20, "user_id": u, "joined_at": created, "points": 0, "correct": 0}
                | {"answered": 0}
                for u in range(1, MEMBERS + 1)
            ],
        )
        theirs = (
            "FROM answers a JOIN cohorts c ON c.id = cohort_members.cohort_id "
            "WHERE a.user_id = cohort_members.user_id AND a.answered_at >= c.starts_at"
        )
        await conn.execute(
            text(
                f"UPDATE cohort_members SET points = (SELECT COALESCE(SUM(a.points), 0) {theirs}), "
                f"correct = (SELECT COALESCE(SUM(CASE WHEN a.is_correct THEN 1 ELSE 0 END), 0) {theirs}), "
                f"answered = (SELECT COUNT(*) {theirs})"
            )
        )
        await _fill_periods(conn)
    async with engine.connect() as conn:
        await conn.execution_options(isolation_level="AUTOCOMMIT")
        await conn.execute(text("VACUUM ANALYZE" if engine.dialect.name == "postgresql" else "ANALYZE"))
        return int((await conn.execute(select(func.count()).select_from(Answer))).scalar_one())


async def _fill_periods(conn: Any) -> None:
    """The period rollups of the answers of the last 40 days, as migration 0006 fills them."""
    since = NOW - timedelta(days=40)
    by_user: dict[tuple[int, str, datetime], list[int]] = defaultdict(lambda: [0, 0, 0])
    query = select(Answer.user_id, Answer.points, Answer.is_correct, Answer.answered_at).where(
        Answer.answered_at >= since
    )
    for user, points, correct, at in await conn.execute(query):
        for window in ROLLUP_WINDOWS:
            start = period_start(window, at, TIMEZONE)
            totals = by_user[(user, window.value, start)]
            totals[0] += points
            totals[1] += int(correct)
            totals[2] += 1
    rows = [
        {"user_id": u, "period": w, "period_start": s, "workspace_id": 1, "points": t[0], "correct": t[1]}
        | {"answered": t[2]}
        for (u, w, s), t in by_user.items()
    ]
    for chunk in _chunks(iter(rows)):
        await conn.execute(insert(PeriodScore), chunk)


# --- the references: the same boards as plain GROUP BYs over answers --------------------------------------------


def _board(conditions: list[Any], limit: int = 10) -> Select[Any]:
    points, correct = func.sum(Answer.points), func.sum(case((Answer.is_correct, 1), else_=0))
    return (
        select(Answer.user_id, points, correct, func.count())
        .where(*conditions)
        .group_by(Answer.user_id)
        .order_by(points.desc(), correct.desc(), func.count(), Answer.user_id)
        .limit(limit)
    )


def plain_board(scope: Scope, window: Window) -> Select[Any]:
    """The board as a plain GROUP BY over the window's answers (ids fixed by the seed: channel C3 is 3)."""
    start = window_span(window, NOW, TIMEZONE, season=Span(start=SEASON_START)).start
    conditions: list[Any] = [] if start is None else [Answer.answered_at >= start]
    if scope is Scope.WORKSPACE:
        conditions.append(Answer.workspace_id == 1)
    elif scope is Scope.CHANNEL:
        conditions.append(Answer.channel_id == 3)
    else:
        cohort_start = datetime(2025, 1, 28, 22, 0, tzinfo=UTC) + timedelta(days=5 * 40)
        members = select(CohortMember.user_id).where(CohortMember.cohort_id == 40)
        conditions += [Answer.user_id.in_(members), Answer.answered_at >= max(start or cohort_start, cohort_start)]
    return _board(conditions)


def plain_cohorts(window: Window) -> Select[Any]:
    """Cohort vs cohort as a plain GROUP BY over the members' answers."""
    start = window_span(window, NOW, TIMEZONE, season=Span(start=SEASON_START)).start
    conditions: list[Any] = [Answer.answered_at >= Cohort.starts_at]
    if start is not None:
        conditions.append(Answer.answered_at >= start)
    return (
        select(CohortMember.cohort_id, func.count(func.distinct(Answer.user_id)), func.sum(Answer.points))
        .join(Answer, Answer.user_id == CohortMember.user_id)
        .join(Cohort, Cohort.id == CohortMember.cohort_id)
        .where(*conditions)
        .group_by(CohortMember.cohort_id)
    )


def plain_me() -> Select[Any]:
    """`/quiz me`'s totals and rank as a plain GROUP BY over every answer of the workspace."""
    totals = (
        select(Answer.user_id, func.sum(Answer.points).label("points"))
        .where(Answer.workspace_id == 1)
        .group_by(Answer.user_id)
        .subquery()
    )
    mine = select(totals.c.points).where(totals.c.user_id == 1234).scalar_subquery()
    return select(func.count()).select_from(totals).where(totals.c.points > mine)


# --- measuring -----------------------------------------------------------------------------------------------------


@dataclass
class Case:
    """One board: the read model's call, and its plain GROUP BY."""

    label: str
    call: Callable[[], Awaitable[Any]]
    reference: Select[Any]


def cases(stats: Stats) -> list[Case]:
    """Every board of every scope and window, cohort vs cohort, and /quiz me."""
    found: list[Case] = []
    for scope in (Scope.WORKSPACE, Scope.CHANNEL, Scope.COHORT):
        for window in Window:
            call = partial(
                stats.leaderboard,
                CHANNEL,
                window=window,
                scope=scope,
                now=NOW,
                cohort=COHORT if scope is Scope.COHORT else None,
            )
            found.append(Case(f"leaderboard {scope.value} {window.value}", call, plain_board(scope, window)))
    for window in Window:
        call = partial(stats.cohort_board, CHANNEL, window=window, now=NOW)
        found.append(Case(f"cohort vs cohort {window.value}", call, plain_cohorts(window)))
    found.append(Case("/quiz me", partial(stats.user_stats, ME, now=NOW), plain_me()))
    return found


async def median_seconds(call: Callable[[], Awaitable[Any]], runs: int) -> float:
    """Median wall time of `runs` calls, after one warm-up call."""
    await call()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        await call()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


async def statement_profile(db: Database, call: Callable[[], Awaitable[Any]]) -> list[str]:
    """The statements one call runs, each with its time (ms), as markdown lines."""
    timings: list[tuple[float, str]] = []
    engine = db.engine.sync_engine

    def before(conn: Any, _cursor: Any, _statement: str, *_: Any) -> None:
        conn.info["bench_started"] = time.perf_counter()

    def after(conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        elapsed = (time.perf_counter() - conn.info.pop("bench_started")) * 1000
        timings.append((elapsed, " ".join(statement.split())[:140]))

    await call()
    event.listen(engine, "before_cursor_execute", before)
    event.listen(engine, "after_cursor_execute", after)
    try:
        started = time.perf_counter()
        await call()
        total = (time.perf_counter() - started) * 1000
    finally:
        event.remove(engine, "before_cursor_execute", before)
        event.remove(engine, "after_cursor_execute", after)
    lines = [f"- {ms:.1f} ms `{statement}`" for ms, statement in timings]
    spent = sum(ms for ms, _ in timings)
    lines.append(f"- total {total:.1f} ms, of which {spent:.1f} ms in the database driver, the rest Python")
    return lines


async def bench(kind: str, per_post: int, runs: int, keep: bool) -> tuple[list[str], list[Check], list[str]]:
    """Seed one database, time every case and its reference; table rows, checks and the profile of the slowest."""
    with tempfile.TemporaryDirectory() as tmp:
        async with scratch_database(kind, Path(tmp)) as url:
            # Unbounded statements: seeding sends 20,000 rows a statement, and the plain GROUP BYs over a million
            # answers may pass the app's per-statement timeout on a loaded machine.
            db = Database.from_url(url, timeouts=DatabaseTimeouts().unbounded_statements())
            try:
                started = time.perf_counter()
                count = await seed(db.engine, per_post)
                print(f"{kind}: seeded {count:,} answers in {time.perf_counter() - started:.0f} s", flush=True)
                stats = Stats(unit_of_work_factory(db, Directory(default_timezone="UTC")))
                rows, checks, measured = [], [], []
                for case_ in cases(stats):
                    seconds = await median_seconds(case_.call, runs)

                    async def reference(statement: Select[Any] = case_.reference) -> None:
                        async with db.transaction() as session:
                            (await session.execute(statement)).all()

                    ref = await median_seconds(reference, max(3, runs // 3))
                    measured.append((seconds, case_))
                    rows.append(
                        f"| {kind} | {case_.label} | {seconds * 1000:.2f} ms | {ref * 1000:.1f} ms | "
                        f"{ref / seconds:,.1f}x |"
                    )
                    print(rows[-1], flush=True)
                    checks.append(bound_check(f"{kind}: {case_.label}, p50", seconds * 1000, 5, "ms"))
                    checks.append(
                        speedup_check(f"{kind}: {case_.label}, speed-up", seconds, ref, 50, "the plain GROUP BY")
                    )
                slowest = max(measured, key=lambda item: item[0])[1]
                profile = [f"{kind}, `{slowest.label}` (the slowest):", "", *await statement_profile(db, slowest.call)]
                if keep:
                    print(f"kept: {url}")
                    await asyncio.Event().wait()  # keeps the database until interrupted
            finally:
                await db.dispose()
    return rows, checks, [*profile, ""]


async def main() -> None:
    """Seed, measure, record."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    quick_or_full(parser)
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--runs", type=int)
    parser.add_argument("--keep", action="store_true", help="keep the (first) database and wait, for exploring")
    args = parser.parse_args()
    per_post = 14 if args.quick else 68
    runs = args.runs or (7 if args.quick else 15)
    rows = [
        "| database | board | p50 (median of runs) | plain GROUP BY, same run | speed-up |",
        "|---|---|---|---|---|",
    ]
    checks: list[Check] = []
    profiles: list[str] = []
    for kind in ["postgresql", "sqlite"] if args.db == "both" else [args.db]:
        kind_rows, kind_checks, profile = await bench(kind, per_post, runs, args.keep)
        rows += kind_rows
        checks += kind_checks
        profiles += profile
    answers = POSTS * per_post
    body = (
        f"{answers:,} answers, {USERS:,} users, {CHANNELS} channels, {COHORTS} cohorts; each figure the median of "
        f"{runs} calls of the read model (`bot.service.stats.Stats`), each in its own read-only unit of work, with "
        "current streaks for the rows shown; the reference is the plain GROUP BY over the window's answers that "
        "ranks the same rows, without streaks.\n\n"
        + "\n".join(rows)
        + "\n\nWhere the time goes:\n\n"
        + "\n".join(profiles)
    )
    command = f"python -m bench.leaderboard_queries --db {args.db} --runs {runs}" + (" --quick" if args.quick else "")
    write_section("4. Leaderboards and /quiz me at scale", command, body, checks)


if __name__ == "__main__":
    run(main)
