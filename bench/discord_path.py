"""Benchmark 3: the Discord path end to end. Button clicks as INTERACTION_CREATE events over the loopback gateway
into the real discord.py client of the Discord adapter, until the interaction callback reaches Discord's REST API
(the private verdict), 200 in flight at a time.

    python -m bench.discord_path [--db sqlite|postgresql] [--clicks 4000] [--concurrency 200]

The bot runs in a child process (`quizbot`'s runtime and Discord adapter, discord.py pointed at the loopback
fake); this process plays Discord. Latency is from the event leaving the fake's gateway to the callback request
arriving at the fake's REST API.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from adapters.discord.adapter import DiscordAdapter
from bench.common import percentile, run, scratch_database, summary_ms, write_section
from bot.config import Settings
from bot.db import Database
from bot.db.models import Answer
from bot.runtime import build_runtime
from bot.wording.answers import busy
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
    settings = Settings(database_url=db_url, discord_token="bench-token", _env_file=None)  # type: ignore[call-arg]
    runtime = await build_runtime(settings, migrate=False)
    with patch_discord(api_base, gateway_url):
        adapter = DiscordAdapter(runtime)
        adapter.client._connection.guild_ready_timeout = 0.05
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, runtime.stopping.set)
        await adapter.run()
    await runtime.aclose()


async def bench(kind: str, clicks: int, concurrency: int) -> list[str]:
    """Post cards, then click them from many users at once; returns result lines."""
    with tempfile.TemporaryDirectory() as tmp:
        async with scratch_database(kind, Path(tmp)) as url, FakeDiscord(validate_payloads=False) as fake:
            callbacks = _NotifyingList()
            fake.interaction_callbacks = callbacks
            env = {k: v for k, v in os.environ.items() if not k.startswith("QUIZBOT_")}
            child = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bench.discord_path", "--serve", url, fake.api_base, fake.gateway_url, env=env
            )
            try:
                await fake.wait_until_connected(timeout=60)
                await fake.wait_for(lambda: fake.identifies, timeout=60, what="the bot's identify")
                await asyncio.sleep(1.0)  # let the client finish its start-up (command check, ready)
                for _ in range(CARDS):
                    await slash(fake, "now", {}, user_name="host")
                cards = card_messages(fake)
                rng = random.Random(9)
                events: list[dict[str, Any]] = []
                for n in range(clicks):
                    card = cards[n % len(cards)]
                    user = 10**6 + n // len(cards)
                    events.append(
                        fake.component_interaction(
                            card, rng.choice(custom_ids(card)), user_id=user, user_name=f"u{user}"
                        )
                    )
                latencies: list[float] = []
                verdicts = 0
                busy_replies = 0
                queue = list(reversed(events))

                async def worker() -> None:
                    nonlocal verdicts, busy_replies
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
                        busy_replies += callback.type == 4 and any(e.get("title") == busy() for e in callback.embeds)

                started = time.perf_counter()
                await asyncio.gather(*(worker() for _ in range(concurrency)))
                elapsed = time.perf_counter() - started
            finally:
                if child.returncode is None:
                    child.send_signal(signal.SIGTERM)
                await asyncio.wait_for(child.wait(), 60)
            db = Database.from_url(url)
            async with db.transaction() as session:
                stored = int((await session.execute(select(func.count(Answer.id)))).scalar_one())
            await db.dispose()
    return [
        f"| {kind} | {clicks / elapsed:,.0f} | {summary_ms(latencies)} | {verdicts} of {clicks} | {busy_replies} | "
        f"{stored} |",
        f"p99 {percentile(latencies, 99) * 1000:.0f} ms (target <= 250 ms)",
    ]


async def main() -> None:
    """Run and record."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--clicks", type=int, default=4000)
    parser.add_argument("--concurrency", type=int, default=200)
    parser.add_argument("--serve", nargs=3, metavar=("DB_URL", "API_BASE", "GATEWAY_URL"))
    args = parser.parse_args()
    if args.serve:
        await serve(*args.serve)
        return
    rows = [
        "| database | clicks/s | event to callback | answered in time | of which told busy | answers stored |",
        "|---|---|---|---|---|---|",
    ]
    notes = []
    for kind in ["sqlite", "postgresql"] if args.db == "both" else [args.db]:
        row, note = await bench(kind, args.clicks, args.concurrency)
        rows.append(row)
        notes.append(f"- {kind}: {note}")
        print("\n".join(rows + notes), flush=True)
    body = f"{args.clicks:,} clicks on {CARDS} cards, {args.concurrency} in flight.\n\n" + "\n".join(
        [*rows, "", *notes]
    )
    write_section(
        "3. Discord path end to end", f"python -m bench.discord_path --db {args.db} --clicks {args.clicks}", body
    )


if __name__ == "__main__":
    run(main)
