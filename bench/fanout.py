"""Benchmark 5: fan-out. One scheduled post to each of 1,000 Discord channels at once, through the scheduler's
FanOut limiter and the real Discord adapter, against the loopback fake Discord enforcing Discord's limits
(50 requests a second for the bot, 5 per 5 seconds per channel) with 429s and Retry-After.

    python -m bench.fanout [--quick] [--channels 1000] [--db sqlite|postgresql]

--quick: 200 channels.

The minimum time the limits allow is channels / 50 s. Reported: elapsed, its ratio to that minimum (target
<= 110%), posts that arrived, doubled, or failed, and 429s met.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections import Counter
from pathlib import Path

from adapters.discord.adapter import DiscordAdapter
from bench.common import Check, quick_or_full, run, scratch_database, write_section
from bot.config import Settings
from bot.domain import ChannelRef, PostSource
from bot.runtime import build_runtime
from bot.scheduling.fanout import FanOut
from tests.discord_support import serving
from tests.fakes.discord_api import FakeDiscord

GLOBAL_PER_SECOND = 50
POSTS_IN_FLIGHT = 8  # as the ticker does (bot/scheduling/ticker.py), so the database pool is never exhausted


async def bench(kind: str, channels: int) -> tuple[str, list[Check]]:
    """Post to every channel at once; return a results table row and the checks."""
    with tempfile.TemporaryDirectory() as tmp:
        async with (
            scratch_database(kind, Path(tmp)) as url,
            FakeDiscord(validate_payloads=False, echo_message_events=False) as fake,
        ):
            ids = [fake.add_text_channel(f"quiz-{n}")["id"] for n in range(channels)]
            settings = Settings(database_url=url, discord_token="bench-token", _env_file=None)  # type: ignore[call-arg]
            runtime = await build_runtime(settings, migrate=False)
            adapter = DiscordAdapter(runtime)
            async with serving(adapter, fake, timeout=30):
                fake.set_global_rate_limit(GLOBAL_PER_SECOND, 1.0)
                fake.set_rate_limit("POST", "/channels/{channel_id}/messages", 5, 5.0)
                fanout = FanOut()
                guild = str(fake.guild_id)
                slots = asyncio.Semaphore(POSTS_IN_FLIGHT)

                async def post(channel_id: str) -> None:
                    channel = ChannelRef("discord", guild, str(channel_id))
                    async with slots:
                        await fanout.send(
                            adapter, channel, lambda: runtime.quiz.post_question(channel, source=PostSource.SCHEDULE)
                        )

                started = time.perf_counter()
                results = await asyncio.gather(*(post(c) for c in ids), return_exceptions=True)
                elapsed = time.perf_counter() - started
                failures = [r for r in results if isinstance(r, BaseException)]
                for failure in failures[:3]:
                    print("failure:", type(failure).__name__, failure)
                posts = Counter(
                    r.params.get("channel_id")
                    for r in fake.requests_to("POST", "/channels/{channel_id}/messages")
                    if r.status == 200
                )
                limited = sum(1 for r in fake.requests if r.rate_limited)
            await runtime.aclose()
    minimum = channels / GLOBAL_PER_SECOND
    delivered = sum(1 for c in ids if posts.get(str(c)) == 1)
    doubled = sum(1 for c in ids if posts.get(str(c), 0) > 1)
    row = (
        f"| discord ({kind}) | {channels} | {elapsed:.1f} s | {minimum:.1f} s | {elapsed / minimum:.0%} | "
        f"{delivered} | {doubled} | {len(failures)} | {limited} |"
    )
    checks = [
        Check(
            f"fan-out to {channels} channels / the minimum the limits allow",
            "<= 110%",
            f"{elapsed:.1f} s vs {minimum:.1f} s: {elapsed / minimum:.0%}",
            elapsed / minimum <= 1.10,
        ),
        Check(
            "every channel posted exactly once",
            "all",
            f"{delivered} of {channels} once, {doubled} doubled, {len(failures)} failed",
            delivered == channels and not doubled and not failures,
        ),
    ]
    return row, checks


async def main() -> None:
    """Run and record."""
    parser = argparse.ArgumentParser()
    quick_or_full(parser)
    parser.add_argument("--channels", type=int)
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="postgresql")
    args = parser.parse_args()
    args.channels = args.channels or (200 if args.quick else 1000)
    row, checks = await bench(args.db, args.channels)
    rows = [
        "| platform | channels | elapsed | minimum the limits allow | ratio | posted once | doubled | failed | 429s |",
        "|---|---|---|---|---|---|---|---|---|",
        row,
    ]
    print("\n".join(rows))
    write_section(
        "5. Fan-out", f"python -m bench.fanout --channels {args.channels} --db {args.db}", "\n".join(rows), checks
    )


if __name__ == "__main__":
    run(main)
