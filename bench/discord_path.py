"""Benchmark 3: the Discord path end to end. Button clicks as INTERACTION_CREATE events over the loopback gateway
into the real discord.py client of the Discord adapter, until the interaction callback reaches Discord's REST API
(the private verdict), 200 in flight at a time; beside a bare discord.py client that only answers each
interaction ("ok", ephemeral), sent the same clicks by the same fake, measured in the same run.

    python -m bench.discord_path [--quick] [--db sqlite|postgresql|both] [--clicks 4000] [--concurrency 200]

Targets (issue 16): clicks/s >= 80% of the bare client's, p99 <= the bare client's p99 + 50 ms.
--quick: 2,000 clicks, SQLite only.

The bot runs in a child process (`quizbot`'s runtime and Discord adapter, discord.py pointed at the loopback
fake), and so does the bare client; this process plays Discord. Latency is from the event leaving the fake's
gateway to the callback request arriving at the fake's REST API.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from bench.common import (
    Check,
    bound_check,
    child_env,
    percentile,
    quick_or_full,
    ratio_check,
    run,
    scratch_database,
    summary_ms,
    write_section,
)
from bot.db import Database
from bot.db.models import Answer
from tests.discord_support import card_messages, custom_ids, slash
from tests.fakes.discord_api import FakeDiscord, InteractionCallback, patch_discord

CARDS = 20


class _NotifyingList(list[InteractionCallback]):
    """The fake's list of callbacks, waking whoever waits for a given interaction id."""

    def __init__(self) -> None:
        super().__init__()
        self.waiters: dict[str, asyncio.Future[InteractionCallback]] = {}

    def append(self, item: InteractionCallback) -> None:
        super().append(item)
        waiter = self.waiters.pop(item.interaction_id, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(item)


async def serve(db_url: str, api_base: str, gateway_url: str) -> None:
    """Child: the bot's runtime and Discord adapter, with discord.py pointed at the parent's fake."""
    from adapters.discord.adapter import DiscordAdapter
    from bot.config import Settings
    from bot.runtime import build_runtime

    settings = Settings(database_url=db_url, discord_token="bench-token", _env_file=None)  # type: ignore[call-arg]
    runtime = await build_runtime(settings, migrate=False)
    with patch_discord(api_base, gateway_url):
        adapter = DiscordAdapter(runtime)
        adapter.client._connection.guild_ready_timeout = 0.05
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, runtime.stopping.set)
        await adapter.run()
    await runtime.aclose()


async def serve_bare(api_base: str, gateway_url: str) -> None:
    """Child: a bare discord.py client (the adapter's intents) that answers every interaction and does nothing else."""
    import discord

    with patch_discord(api_base, gateway_url):
        client = discord.Client(intents=discord.Intents(guilds=True))
        client._connection.guild_ready_timeout = 0.05

        @client.event
        async def on_interaction(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("ok", ephemeral=True)

        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(client.close()))
        await client.start("bench-token")


@dataclass
class Measured:
    """One server's run."""

    elapsed: float
    latencies: list[float]
    verdicts: int

    def rate(self) -> float:
        return len(self.latencies) / self.elapsed


async def _click_all(
    fake: FakeDiscord,
    callbacks: _NotifyingList,
    cards: list[dict[str, Any]],
    clicks: int,
    concurrency: int,
    first_user: int = 10**6,
) -> Measured:
    rng = random.Random(9)
    events: list[dict[str, Any]] = []
    for n in range(clicks):
        card = cards[n % len(cards)]
        user = first_user + n // len(cards)
        events.append(
            fake.component_interaction(card, rng.choice(custom_ids(card)), user_id=user, user_name=f"u{user}")
        )
    latencies: list[float] = []
    verdicts = 0
    queue = list(reversed(events))

    async def worker() -> None:
        nonlocal verdicts
        loop = asyncio.get_running_loop()
        while queue:
            event = queue.pop()
            waiter: asyncio.Future[InteractionCallback] = loop.create_future()
            callbacks.waiters[event["id"]] = waiter
            started = time.monotonic()
            await fake.dispatch("INTERACTION_CREATE", event)
            callback = await asyncio.wait_for(waiter, 30)
            latencies.append(callback.request.at - started)
            verdicts += callback.type in (4, 5)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return Measured(time.perf_counter() - started, latencies, verdicts)


async def _start_child(fake: FakeDiscord, *args: str) -> asyncio.subprocess.Process:
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.discord_path", *args, fake.api_base, fake.gateway_url, env=child_env()
    )
    identified = len(fake.identifies)
    await fake.wait_for(lambda: len(fake.identifies) > identified, timeout=60, what="the client's identify")
    await fake.wait_until_connected(timeout=60)
    await asyncio.sleep(1.0)  # let the client finish its start-up (command check, ready)
    return child


async def _stop_child(child: asyncio.subprocess.Process) -> None:
    if child.returncode is None:
        child.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(child.wait(), 60)
    except TimeoutError:
        child.kill()
        await child.wait()


async def bench(kind: str, clicks: int, concurrency: int) -> tuple[list[str], list[Check]]:
    """Post cards, click them from many users at once through the bot, then through the bare client."""
    with tempfile.TemporaryDirectory() as tmp:
        async with scratch_database(kind, Path(tmp)) as url, FakeDiscord(validate_payloads=False) as fake:
            callbacks = _NotifyingList()
            fake.interaction_callbacks = callbacks
            child = await _start_child(fake, "--serve", url)
            try:
                for _ in range(CARDS):
                    await slash(fake, "now", {}, user_name="host")
                cards = card_messages(fake)
                await _click_all(fake, callbacks, cards[:1], 10, 1, first_user=9 * 10**6)  # warm-up, as for the bare
                quiz = await _click_all(fake, callbacks, cards, clicks, concurrency)
            finally:
                await _stop_child(child)
            db = Database.from_url(url)
            async with db.transaction() as session:
                stored = int((await session.execute(select(func.count(Answer.id)))).scalar_one()) - 10
            await db.dispose()
            bare_child = await _start_child(fake, "--serve-bare")
            try:
                await _click_all(fake, callbacks, cards[:1], 10, 1, first_user=9 * 10**6)
                bare = await _click_all(fake, callbacks, cards, clicks, concurrency)
            finally:
                await _stop_child(bare_child)
    quiz_p99, bare_p99 = percentile(quiz.latencies, 99) * 1000, percentile(bare.latencies, 99) * 1000
    rows = [
        f"| quiz bot (Discord adapter, {kind}) | {quiz.rate():,.0f} | {summary_ms(quiz.latencies)} | "
        f"{quiz.verdicts} of {clicks} | {stored} |",
        f"| bare discord.py client, answers only | {bare.rate():,.0f} | {summary_ms(bare.latencies)} | "
        f"{bare.verdicts} of {clicks} | |",
    ]
    checks = [
        ratio_check(f"clicks/s ({kind})", quiz.rate(), bare.rate(), 0.80, reference_name="the bare discord.py client"),
        bound_check(
            f"p99 over the bare client's p99 ({kind})",
            quiz_p99 - bare_p99,
            50,
            "ms",
            note=f" (p99 {quiz_p99:.0f} ms vs {bare_p99:.0f} ms)",
        ),
    ]
    if stored != clicks or quiz.verdicts != clicks:
        checks.append(Check(f"every click answered and stored ({kind})", "all", f"{stored} of {clicks}", False))
    return rows, checks


async def main() -> None:
    """Run and record."""
    parser = argparse.ArgumentParser()
    quick_or_full(parser)
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"])
    parser.add_argument("--clicks", type=int)
    parser.add_argument("--concurrency", type=int, default=200)
    parser.add_argument("--serve", nargs=3, metavar=("DB_URL", "API_BASE", "GATEWAY_URL"), help=argparse.SUPPRESS)
    parser.add_argument("--serve-bare", nargs=2, metavar=("API_BASE", "GATEWAY_URL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        await serve(*args.serve)
        return
    if args.serve_bare:
        await serve_bare(*args.serve_bare)
        return
    db = args.db or ("sqlite" if args.quick else "both")
    clicks = args.clicks or (2000 if args.quick else 4000)
    rows = [
        "| server | clicks/s | event to callback | answered | answers stored |",
        "|---|---|---|---|---|",
    ]
    checks: list[Check] = []
    for kind in ["sqlite", "postgresql"] if db == "both" else [db]:
        kind_rows, kind_checks = await bench(kind, clicks, args.concurrency)
        rows += kind_rows
        checks += kind_checks
        print("\n".join(rows), flush=True)
    body = (
        f"{clicks:,} clicks on {CARDS} cards, {args.concurrency} in flight, first into the bot (a child process), "
        "then the same number into a bare discord.py client with the same intents that only answers each "
        "interaction, through the same fake (each after 10 warm-up clicks).\n\n" + "\n".join(rows)
    )
    write_section(
        "3. Discord path end to end", f"python -m bench.discord_path --db {db} --clicks {clicks}", body, checks
    )


if __name__ == "__main__":
    run(main)
