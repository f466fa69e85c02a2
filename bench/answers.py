"""Benchmark 1: answers through the core. 200 concurrent users click through 100 posts (20,000 clicks).

Each click goes through QuizApp.answer, which returns only after the answer is committed. Reported beside two
references measured in the same run on the same database: the floor (a bare batched INSERT of the same rows
through the same driver) and the naive way (one transaction per click, QuizService.record_answer).

    python -m bench.answers [--quick] [--db sqlite|postgresql|both] [--users 200] [--posts 100] [--no-naive]

Targets (issue 16): core rate >= 60% of the bare batched INSERT on each database, p99 <= 50 ms at 200 users.
--quick: 20 posts (4,000 clicks) a database, without the naive reference.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import event, func, insert, select

from bench.common import (
    Check,
    bound_check,
    percentile,
    quick_or_full,
    ratio_check,
    run,
    scratch_database,
    summary_ms,
    write_section,
)
from bot.cli_commands import settle_heap
from bot.clock import SystemClock
from bot.config import Settings
from bot.db.models import Answer, Channel, Post, User
from bot.domain import AnswerOutcome, ChannelRef, QuestionCard, UserRef
from bot.ports import Message
from bot.runtime import Runtime, build_runtime
from bot.service.repositories.directory import find_or_insert, insert_ignoring_conflict


class StatementTally:
    """Counts the statements an engine runs, the commits, and the time spent in the driver (cursor execute to
    its return), while the block runs: the per-click database costs of the saturation model (RESULTS.md)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.statements = 0
        self.transactions = 0
        self.seconds = 0.0
        self._started: dict[int, float] = {}

    def _before(self, conn: Any, *_: Any) -> None:
        self._started[id(conn)] = time.perf_counter()

    def _after(self, conn: Any, *_: Any) -> None:
        self.statements += 1
        self.seconds += time.perf_counter() - self._started.pop(id(conn), time.perf_counter())

    def _commit(self, _conn: Any) -> None:
        self.transactions += 1

    def __enter__(self) -> StatementTally:
        event.listen(self.engine, "before_cursor_execute", self._before)
        event.listen(self.engine, "after_cursor_execute", self._after)
        event.listen(self.engine, "commit", self._commit)
        return self

    def __exit__(self, *_: object) -> None:
        event.remove(self.engine, "before_cursor_execute", self._before)
        event.remove(self.engine, "after_cursor_execute", self._after)
        event.remove(self.engine, "commit", self._commit)


class NullPlatform:
    """A platform that accepts everything instantly, so the figures are the core's and the database's."""

    name = "bench"

    async def post_card(self, channel: ChannelRef, card: QuestionCard) -> str:
        return str(card.post_id)

    async def update_card(self, channel: ChannelRef, message_ref: str, card: QuestionCard) -> None:
        return None

    async def send_private(self, channel: ChannelRef, user_id: str, message: Message) -> None:
        return None

    async def post_message(self, channel: ChannelRef, message: Message) -> None:
        return None


async def _runtime(url: str) -> Runtime:
    # The naive reference runs 200 transactions at once on a pool of a few connections: its clicks queue for one,
    # and that queueing is what it costs, not an outage (the production pool timeout, 1 s, would refuse them).
    settings = Settings(  # type: ignore[call-arg]
        database_url=url, card_update_interval=2.0, database_pool_timeout=60.0, _env_file=None
    )
    gc.disable()  # start-up as `quizbot run` does it (bot.cli_commands.run_bot): collector off, then settle_heap
    runtime = await build_runtime(settings, clock=SystemClock(), rng=random.Random(1), migrate=False)
    await runtime.warm_up()  # as `quizbot run` does (bot.cli_commands.run_bot)
    runtime.platforms.register(NullPlatform())
    settle_heap()
    return runtime


async def _posts(runtime: Runtime, count: int) -> list[QuestionCard]:
    channel = ChannelRef("bench", "W1", "C1")
    return [(await runtime.quiz.post_question(channel)).card for _ in range(count)]


Click = Callable[[int, UserRef, int], Awaitable[object]]


async def _drive(users: int, cards: list[QuestionCard], click: Click) -> tuple[float, list[float]]:
    """Every user clicks every card in turn, all users at once; returns elapsed seconds and per-click latency."""
    latencies: list[float] = []

    async def user_loop(n: int) -> None:
        rng = random.Random(n)
        user = UserRef("bench", "W1", f"U{n:05d}", f"user {n}")
        for card in cards:
            choice = rng.choice(card.choice_ids)
            started = time.perf_counter()
            await click(card.post_id, user, choice)
            latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(user_loop(n) for n in range(users)))
    return time.perf_counter() - started, latencies


async def _count_answers(runtime: Runtime) -> int:
    async with runtime.db.transaction() as session:
        return int((await session.execute(select(func.count(Answer.id)))).scalar_one())


async def _floor(runtime: Runtime, rows: int, chunk: int = 1000) -> float:
    """Seconds for a bare batched INSERT of `rows` answer rows (users made beforehand, not timed)."""
    channel = ChannelRef("bench", "W1", "C-floor")
    card = (await runtime.quiz.post_question(channel)).card
    now = datetime.now(UTC)
    async with runtime.db.transaction() as session:
        channel_row = (await session.execute(select(Channel.id).where(Channel.external_id == "C-floor"))).scalar_one()
        workspace = (await session.execute(select(Channel.workspace_id).where(Channel.id == channel_row))).scalar_one()
        posts = []
        for _ in range(rows // 200):
            post = Post(
                channel_id=channel_row,
                question_id=(await session.get(Post, card.post_id)).question_id,  # type: ignore[union-attr]
                choice_order=[0, 1, 2, 3],
                source="command",
                opened_at=now,
            )
            session.add(post)
            posts.append(post)
        await session.flush()
        post_ids = [p.id for p in posts]
        users = [
            User(workspace_id=workspace, external_id=f"F{n}", display_name=f"f{n}", created_at=now) for n in range(200)
        ]
        session.add_all(users)
        await session.flush()
        user_ids = [u.id for u in users]
    values = [
        {
            "post_id": post_id,
            "user_id": user_id,
            "workspace_id": workspace,
            "channel_id": channel_row,
            "choice_index": 0,
            "is_correct": True,
            "points": 15,
            "answered_at": now,
            "latency_ms": 1000,
        }
        for post_id in post_ids
        for user_id in user_ids
    ]
    started = time.perf_counter()
    for start in range(0, len(values), chunk):
        async with runtime.db.transaction() as session:
            await session.execute(insert(Answer), values[start : start + chunk])
    return time.perf_counter() - started


async def naive_record(runtime: Runtime, post_id: int, user: UserRef, choice: int) -> bool:
    """The naive way: one transaction per click (read the post, find or add the user, insert, commit)."""
    now = datetime.now(UTC)
    async with runtime.db.transaction() as session:
        post = await session.get(Post, post_id)
        assert post is not None
        workspace = (
            await session.execute(select(Channel.workspace_id).where(Channel.id == post.channel_id))
        ).scalar_one()
        user_row = await find_or_insert(
            session,
            User,
            {
                "workspace_id": workspace,
                "external_id": user.user_id,
                "display_name": user.display_name,
                "created_at": now,
            },
            ["workspace_id", "external_id"],
        )
        row = {
            "post_id": post_id,
            "user_id": user_row,
            "workspace_id": workspace,
            "channel_id": post.channel_id,
            "choice_index": choice,
            "is_correct": False,
            "points": 0,
            "answered_at": now,
            "latency_ms": 0,
        }
        statement = insert_ignoring_conflict(session, Answer, row, ["post_id", "user_id"]).returning(Answer.id)
        return (await session.execute(statement)).scalar() is not None


async def bench_one(kind: str, users: int, posts: int, naive: bool) -> tuple[list[str], list[Check]]:
    """Run the three measurements on one database kind; returns lines for RESULTS.md and the checks."""
    lines = []
    checks: list[Check] = []
    clicks = users * posts
    with tempfile.TemporaryDirectory() as workdir:
        async with scratch_database(kind, Path(workdir)) as url:
            runtime = await _runtime(url)
            try:
                cards = await _posts(runtime, posts)
                outcomes: list[AnswerOutcome] = []

                async def core_click(post_id: int, user: UserRef, choice: int) -> None:
                    result = await runtime.app.answer(post_id=post_id, user=user, choice_index=choice)
                    outcomes.append(result.outcome)

                with StatementTally(runtime.db.engine.sync_engine) as tally:
                    elapsed, latencies = await _drive(users, cards, core_click)
                stored = await _count_answers(runtime)
                ok = stored == clicks and outcomes.count(AnswerOutcome.RECORDED) == clicks
                core_rate = clicks / elapsed
                floor = clicks / await _floor(runtime, clicks)
                checks.append(
                    ratio_check(
                        f"{kind}: answers/s through the core",
                        core_rate,
                        floor,
                        0.60,
                        reference_name="the bare batched INSERT of the same rows",
                    )
                )
                checks.append(
                    bound_check(f"{kind}: p99 per click at {users} users", percentile(latencies, 99) * 1000, 50, "ms")
                )
                if not ok:
                    checks.append(Check(f"{kind}: every click recorded once", "all", f"{stored} of {clicks}", False))
                lines.append(
                    f"| {kind} | QuizApp.answer (what adapters call) | {core_rate:,.0f}/s | {summary_ms(latencies)} | "
                    f"{f'all {clicks} recorded once' if ok else f'MISMATCH: {stored} stored'} |"
                )
                lines.append(f"| {kind} | floor: bare batched INSERT, 1,000 rows a statement | {floor:,.0f}/s | | |")
                lines.append(
                    f"| {kind} | the core's statements | {tally.statements / clicks:.3f} a click, "
                    f"{tally.transactions / clicks:.4f} commits a click ({clicks / max(tally.transactions, 1):.0f} "
                    f"clicks a commit) | {tally.seconds / clicks * 1000:.3f} ms a click in the driver "
                    f"({tally.seconds / max(tally.transactions, 1) * 1000:.1f} ms a commit's statements) | |"
                )
                if naive:
                    # One transaction per click is slow enough that 5 cards (1,000 clicks) make the point.
                    naive_cards = await _posts(runtime, min(posts, 5))

                    async def naive_click(post_id: int, user: UserRef, choice: int) -> None:
                        await naive_record(runtime, post_id, user, choice)

                    naive_elapsed, naive_latencies = await _drive(users, naive_cards, naive_click)
                    naive_clicks = users * len(naive_cards)
                    lines.append(
                        f"| {kind} | naive: one transaction per click ({naive_clicks:,} clicks) | "
                        f"{naive_clicks / naive_elapsed:,.0f}/s | "
                        f"{summary_ms(naive_latencies)} | |"
                    )
                lines.append(f"| {kind} | core / floor | {core_rate / floor:.0%} | | |")
            finally:
                await runtime.aclose()
    return lines, checks


async def main() -> None:
    """Parse arguments, run, print and record."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    quick_or_full(parser)
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--posts", type=int)
    parser.add_argument("--no-naive", action="store_true", help="skip the slow one-transaction-per-click reference")
    args = parser.parse_args()
    posts = args.posts or (20 if args.quick else 100)
    naive = not (args.no_naive or args.quick)
    kinds = ["sqlite", "postgresql"] if args.db == "both" else [args.db]
    rows = ["| database | path | answers/s | latency per click | check |", "|---|---|---|---|---|"]
    checks: list[Check] = []
    for kind in kinds:
        lines, kind_checks = await bench_one(kind, args.users, posts, naive)
        rows += lines
        checks += kind_checks
        print("\n".join(rows), flush=True)
    command = f"python -m bench.answers --db {args.db} --users {args.users} --posts {posts}" + (
        "" if naive else " --no-naive"
    )
    body = (
        f"{args.users} concurrent users, {args.users * posts:,} clicks a database, each click told its result only "
        "after its answer is committed (QuizApp.answer, group commit). Reference: the same number of answer rows "
        "inserted by a bare batched INSERT (1,000 rows a statement) through the same driver, right after, on the "
        "same database.\n\n" + "\n".join(rows)
    )
    write_section("1. Answers through the core", command, body, checks)


if __name__ == "__main__":
    run(main)
