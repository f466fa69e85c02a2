"""Memory under a click burst: RSS of the bot after 20,000 clicks, 200 in flight, on Slack (`quizbot run`, HTTP
mode, signed clicks) and on Discord (the bot as `quizbot run` serves it, clicks as INTERACTION_CREATE events).

    python -m bench.click_memory [--quick] [--platform slack|discord|both] [--db sqlite|postgresql|both]
                                 [--clicks 20000] [--concurrency 200]

The bot is a child process; this one plays Slack (tests/click_storm.py) or Discord (tests/discord_storm.py). Idle
RSS is taken after a warm-up of a few hundred clicks (every code path loaded, pools open), then the burst runs
while RSS is sampled; "after" is two seconds after the last ack. Target: after - idle <= 50 MB.
Acknowledge-after-commit keeps the clicks in flight at what the sender has outstanding; QUIZBOT_MAX_PENDING_CLICKS
bounds the rest (late acks go on pending).
--quick: 2,000 clicks (the figure's name says how many; ten times the clicks in flight), Slack on SQLite and Discord
on PostgreSQL only (each platform and each driver once), so `make bench` stays short.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import tempfile
from collections.abc import Awaitable
from pathlib import Path
from typing import TypeVar

from bench.common import Check, bound_check, quick_or_full, run, scratch_database, write_section
from tests.click_storm import post_cards, rss_bytes, running_bot, storm
from tests.discord_storm import Outcome, plan_clicks, start_bot, stop_bot
from tests.discord_storm import storm as discord_storm
from tests.discord_support import card_messages, slash
from tests.fakes.discord_api import FakeDiscord
from tests.fakes.slack_api import FakeSlack

CARDS = 20
"""Cards open at once, all in one channel, as in bench/slack_path.py."""
TARGET_MB = 50.0
T = TypeVar("T")
WARMUP = 400


def _mb(n: int) -> str:
    return f"{n / 1024 / 1024:,.1f} MB"


def _counter(metrics: str, name: str) -> int:
    return int(sum(float(m) for m in re.findall(rf'^{name}\{{platform="slack"\}} (\S+)$', metrics, re.MULTILINE)))


async def _measured(pid: int, burst: Awaitable[T]) -> tuple[T, int, int, int]:
    """Run `burst` while sampling the process's RSS: its result, and the idle, peak and after RSS in bytes."""
    await asyncio.sleep(2.0)
    idle = rss_bytes(pid)
    peak = idle
    done = asyncio.Event()

    async def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, rss_bytes(pid))
            await asyncio.sleep(0.2)

    sampler = asyncio.create_task(sample())
    try:
        result = await burst
    finally:
        done.set()
        await sampler
    await asyncio.sleep(2.0)
    return result, idle, peak, rss_bytes(pid)


async def slack(kind: str, clicks: int, concurrency: int) -> tuple[str, int, int, int]:
    """One Slack run on one database: the table row's counts, and the idle, peak and after RSS."""
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        async with scratch_database(kind, workdir) as url, FakeSlack() as fake, running_bot(fake, url, workdir) as bot:
            cards = await post_cards(bot, fake, CARDS)
            await storm(bot, fake, cards, clicks=WARMUP, concurrency=concurrency, first_user=100_000)
            burst = storm(bot, fake, cards, clicks=clicks, concurrency=concurrency)
            result, idle, peak, after = await _measured(bot.process.pid, burst)
            metrics = await bot.metrics()
    counts = (
        f"{clicks / result.elapsed:,.0f} | {result.kinds().get('recorded', 0):,} | "
        f"{_counter(metrics, 'quizbot_late_acks_total')} | {_counter(metrics, 'quizbot_busy_refusals_total')}"
    )
    return counts, idle, peak, after


async def discord(kind: str, clicks: int, concurrency: int) -> tuple[str, int, int, int]:
    """One Discord run on one database: the table row's counts, and the idle, peak and after RSS."""
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        async with scratch_database(kind, workdir) as url, FakeDiscord(validate_payloads=False) as fake:
            bot = await start_bot(fake, url, workdir / "bot.log")
            try:
                for _ in range(CARDS):
                    await slash(fake, "now", {}, user_name="host")
                cards = card_messages(fake)
                await discord_storm(fake, plan_clicks(cards, WARMUP, first_user=9 * 10**6), concurrency=concurrency)
                burst = discord_storm(fake, plan_clicks(cards, clicks), concurrency=concurrency)
                result, idle, peak, after = await _measured(bot.pid, burst)
            finally:
                await stop_bot(bot)
    outcomes = result.outcomes()
    counts = (
        f"{clicks / result.elapsed:,.0f} | {outcomes[Outcome.RECORDED]:,} | {len(result.deferred()):,} deferred | "
        f"{outcomes[Outcome.BUSY]:,}"
    )
    return counts, idle, peak, after


async def bench(platform: str, kind: str, clicks: int, concurrency: int) -> tuple[str, str, Check]:
    """One run of one platform on one database; a table row, a note and the check."""
    run_one = slack if platform == "slack" else discord
    counts, idle, peak, after = await run_one(kind, clicks, concurrency)
    growth = after - idle
    row = f"| {platform} | {kind} | {_mb(idle)} | {_mb(peak)} | {_mb(after)} | **{_mb(growth)}** | {counts} |"
    verdict = "met" if growth / 1024 / 1024 <= TARGET_MB else "missed"
    note = f"- {platform}, {kind}: RSS growth {_mb(growth)} over idle (target <= {TARGET_MB:.0f} MB): {verdict}"
    label = "" if platform == "slack" else "Discord, "
    check = bound_check(
        f"RSS growth after {clicks:,} clicks at {concurrency} in flight ({label}{kind})",
        growth / 1024 / 1024,
        TARGET_MB,
        "MB",
        note=f" (idle {_mb(idle)}, after {_mb(after)}, peak {_mb(peak)})",
    )
    return row, note, check


QUICK_PAIRS = [("slack", "sqlite"), ("discord", "postgresql")]


async def main() -> None:
    """Run and record."""
    parser = argparse.ArgumentParser()
    quick_or_full(parser)
    parser.add_argument("--platform", choices=["slack", "discord", "both"], default="both")
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--clicks", type=int)
    parser.add_argument("--concurrency", type=int, default=200)
    args = parser.parse_args()
    args.clicks = args.clicks or (2000 if args.quick else 20000)
    checks: list[Check] = []
    load_before = os.getloadavg()[0]
    rows = [
        "| platform | database | idle RSS | peak RSS | RSS after | growth over idle | clicks/s | acked recorded | "
        "late acks (Slack) / deferred (Discord) | busy refusals |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    notes = []
    pairs = [
        (platform, kind)
        for platform in (["slack", "discord"] if args.platform == "both" else [args.platform])
        for kind in (["sqlite", "postgresql"] if args.db == "both" else [args.db])
    ]
    if args.quick and args.platform == args.db == "both":
        pairs = QUICK_PAIRS  # each platform and each driver once: half the bot starts of `make bench`
    for platform, kind in pairs:
        row, note, check = await bench(platform, kind, args.clicks, args.concurrency)
        checks.append(check)
        rows.append(row)
        notes.append(note)
        print("\n".join([*rows, *notes]), flush=True)
    body = (
        f"{args.clicks:,} clicks on {CARDS} cards in one channel (each user clicks each card once), "
        f"{args.concurrency} in flight, against the bot on Slack (`quizbot run`, HTTP mode, signed clicks) and on "
        f"Discord (as `quizbot run` serves it, INTERACTION_CREATE events), after a warm-up of {WARMUP} clicks.\n\n"
        + "\n".join([*rows, "", *notes])
    )
    body += (
        f"\n\nMachine load (1-minute average) {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end. "
        "With 200 clicks in flight, an ack waits about 200 / (clicks recorded a second): below ~100/s (a loaded "
        "machine) that passes the 2 s deadline, and those clicks are acked late."
    )
    write_section(
        "12. Memory after a click burst",
        f"python -m bench.click_memory --platform {args.platform} --db {args.db} --clicks {args.clicks} "
        f"--concurrency {args.concurrency}" + (" --quick" if args.quick else ""),
        body,
        checks,
    )


if __name__ == "__main__":
    run(main)
