"""Memory under a click burst: RSS of `quizbot run` (Slack HTTP mode) after 20,000 signed clicks, 200 in flight.

    python -m bench.click_memory [--quick] [--db sqlite|postgresql|both] [--clicks 20000] [--concurrency 200]

The bot is a child process; this one plays Slack (tests/click_storm.py). Idle RSS is taken after a warm-up of a
few hundred clicks (every code path loaded, pools open), then the burst runs while RSS is sampled; "after" is
two seconds after the last ack. Target: after - idle <= 50 MB. Acknowledge-after-commit keeps the clicks in
flight at what the sender has outstanding; QUIZBOT_MAX_PENDING_CLICKS bounds the rest (late acks go on pending).
--quick: 5,000 clicks (the figure's name says how many).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import tempfile
from pathlib import Path

from bench.common import Check, bound_check, quick_or_full, run, scratch_database, write_section
from tests.click_storm import post_cards, rss_bytes, running_bot, storm
from tests.fakes.slack_api import FakeSlack

CARDS = 20
"""Cards open at once, all in one channel, as in bench/slack_path.py."""
TARGET_MB = 50.0
WARMUP = 400


def _mb(n: int) -> str:
    return f"{n / 1024 / 1024:,.1f} MB"


def _counter(metrics: str, name: str) -> int:
    return int(sum(float(m) for m in re.findall(rf'^{name}\{{platform="slack"\}} (\S+)$', metrics, re.MULTILINE)))


async def bench(kind: str, clicks: int, concurrency: int) -> tuple[str, str, Check]:
    """One run on one database; a table row, a note and the check."""
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        async with scratch_database(kind, workdir) as url, FakeSlack() as fake, running_bot(fake, url, workdir) as bot:
            pid = bot.process.pid
            cards = await post_cards(bot, fake, CARDS)
            await storm(bot, fake, cards, clicks=WARMUP, concurrency=concurrency, first_user=100_000)
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
            result = await storm(bot, fake, cards, clicks=clicks, concurrency=concurrency)
            done.set()
            await sampler
            await asyncio.sleep(2.0)
            after = rss_bytes(pid)
            metrics = await bot.metrics()
    kinds = result.kinds()
    growth = after - idle
    row = (
        f"| {kind} | {_mb(idle)} | {_mb(peak)} | {_mb(after)} | **{_mb(growth)}** | "
        f"{clicks / result.elapsed:,.0f} | {kinds.get('recorded', 0):,} | "
        f"{_counter(metrics, 'quizbot_late_acks_total')} | {_counter(metrics, 'quizbot_busy_refusals_total')} |"
    )
    verdict = "met" if growth / 1024 / 1024 <= TARGET_MB else "missed"
    note = f"- {kind}: RSS growth {_mb(growth)} over idle (target <= {TARGET_MB:.0f} MB): {verdict}"
    check = bound_check(
        f"RSS growth after {clicks:,} clicks at {concurrency} in flight ({kind})",
        growth / 1024 / 1024,
        TARGET_MB,
        "MB",
        note=f" (idle {_mb(idle)}, after {_mb(after)}, peak {_mb(peak)})",
    )
    return row, note, check


async def main() -> None:
    """Run and record."""
    parser = argparse.ArgumentParser()
    quick_or_full(parser)
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--clicks", type=int)
    parser.add_argument("--concurrency", type=int, default=200)
    args = parser.parse_args()
    args.clicks = args.clicks or (5000 if args.quick else 20000)
    checks: list[Check] = []
    load_before = os.getloadavg()[0]
    rows = [
        "| database | idle RSS | peak RSS | RSS after | growth over idle | clicks/s | acked recorded | late acks | "
        "busy refusals |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    notes = []
    for kind in ["sqlite", "postgresql"] if args.db == "both" else [args.db]:
        row, note, check = await bench(kind, args.clicks, args.concurrency)
        checks.append(check)
        rows.append(row)
        notes.append(note)
        print("\n".join([*rows, *notes]), flush=True)
    body = (
        f"{args.clicks:,} signed clicks on {CARDS} cards in one channel (each user clicks each card once), "
        f"{args.concurrency} in flight, against "
        f"`quizbot run` (Slack HTTP mode), after a warm-up of {WARMUP} clicks.\n\n" + "\n".join([*rows, "", *notes])
    )
    body += (
        f"\n\nMachine load (1-minute average) {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end. "
        "With 200 clicks in flight, an ack waits about 200 / (clicks recorded a second): below ~100/s (a loaded "
        "machine) that passes the 2 s deadline, and those clicks are acked late."
    )
    write_section(
        "12. Memory after a click burst",
        f"python -m bench.click_memory --db {args.db} --clicks {args.clicks} --concurrency {args.concurrency}",
        body,
        checks,
    )


if __name__ == "__main__":
    run(main)
