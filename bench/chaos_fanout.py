"""Fault run: the bot is killed (SIGKILL) in the middle of a scheduled fan-out and started again; every channel must
get the slot's question exactly once.

    python -m bench.chaos_fanout [--quick] [--channels 100]

--quick: 30 channels.

One `quizbot run` process (Slack adapter in HTTP mode, SQLite) against a loopback fake Slack; `--channels` channels
each get a daily schedule, made due at once (its next fire set to now in the database, so the run does not wait
for the clock's next minute). The scheduler's own Slack limits (about two posts a second for a
workspace) make the fan-out take long enough to kill it a third of the way through. The restarted process recovers
the claims the dead one held once their lease (10 s here, the least allowed) runs out. Posts are counted at the
fake, per channel.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import signal
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import update

from bench.common import Check, child_env, quick_or_full, run, write_section
from bot.clock import SystemClock
from bot.commands import AddSchedule
from bot.config import Settings
from bot.db import Database
from bot.db.models import Schedule
from bot.domain import ChannelRef, UserRef
from bot.runtime import build_runtime
from bot.schedule_rules import parse_rule
from tests.fakes.slack_api import SIGNING_SECRET, FakeSlack


async def _start(env: dict[str, str], cwd: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot.cli",
        "run",
        env=env,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=open(f"{cwd}/bot.log", "a"),
    )


async def main() -> None:
    """Schedule, start, kill mid fan-out, restart, count."""
    parser = argparse.ArgumentParser()
    quick_or_full(parser)
    parser.add_argument("--channels", type=int)
    args = parser.parse_args()
    args.channels = args.channels or (30 if args.quick else 100)
    with tempfile.TemporaryDirectory() as tmp:
        fake = FakeSlack()
        await fake.start()
        channels = [f"CX{n:04d}" for n in range(args.channels)]
        for channel in channels:
            fake.add_channel(channel, name=channel.lower(), is_member=True)
        url = f"sqlite+aiosqlite:///{tmp}/quizbot.db"
        runtime = await build_runtime(
            Settings(database_url=url, _env_file=None),
            clock=SystemClock(),
            rng=random.Random(1),  # type: ignore[call-arg]
        )
        fire = datetime.now(UTC) + timedelta(minutes=2)
        admin = UserRef("slack", fake.team_id, "U0ADMIN", "admin")
        rule = parse_rule(f"daily {fire:%H:%M}")
        async with runtime.uow() as uow:
            for channel in channels:
                await runtime.schedules.add(  # type: ignore[union-attr]
                    uow,
                    AddSchedule(rule=rule, timezone="UTC"),
                    channel=ChannelRef("slack", fake.team_id, channel),
                    user=admin,
                )
            await uow.commit()
        await runtime.aclose()
        # Due now rather than at the rule's next minute: the slot keeps the rule's key, the bot claims it on its
        # first tick (well within the grace window), and the run no longer waits up to 80 s for the clock.
        fire = datetime.now(UTC)
        db = Database.from_url(url)
        try:
            async with db.transaction() as session:
                await session.execute(update(Schedule).values(next_fire_at=fire))
        finally:
            await db.dispose()
        env = child_env()
        env.update(
            QUIZBOT_DATABASE_URL=url,
            QUIZBOT_SLACK_BOT_TOKEN=fake.bot_token,
            QUIZBOT_SLACK_SIGNING_SECRET=SIGNING_SECRET,
            QUIZBOT_SLACK_API_URL=fake.api_url,
            QUIZBOT_SLACK_HOST="127.0.0.1",
            QUIZBOT_SLACK_PORT="0",
            QUIZBOT_SCHEDULE_TICK_SECONDS="1",
            QUIZBOT_SCHEDULE_LEASE_SECONDS="10",
        )

        def posted() -> Counter[str]:
            return Counter(call.args.get("channel") for call in fake.calls_to("chat.postMessage", ok=True))

        bot = await _start(env, tmp)
        while sum(posted().values()) < args.channels // 3:
            if time.monotonic() > 0 and (datetime.now(UTC) - fire).total_seconds() > 120:
                print(Path(f"{tmp}/bot.log").read_text(encoding="utf-8")[-3000:])
                raise RuntimeError("the fan-out did not start")
            await asyncio.sleep(0.05)
        bot.send_signal(signal.SIGKILL)
        await bot.wait()
        at_kill = sum(posted().values())
        killed_at = time.monotonic()
        bot = await _start(env, tmp)
        try:
            while len(posted()) < args.channels and time.monotonic() - killed_at < 180:  # noqa: ASYNC110 - polls the fake
                await asyncio.sleep(0.2)
            recovered_after = time.monotonic() - killed_at
        finally:
            bot.send_signal(signal.SIGTERM)
            await bot.wait()
        counts = posted()
        await fake.stop()
    once = sum(1 for c in channels if counts.get(c) == 1)
    doubled = sum(1 for c in channels if counts.get(c, 0) > 1)
    missing = sum(1 for c in channels if c not in counts)
    rows = [
        "| channels | posted before SIGKILL | posted once | doubled | missing | all done after restart in |",
        "|---|---|---|---|---|---|",
        f"| {args.channels} | {at_kill} | {once} | {doubled} | {missing} | {recovered_after:.1f} s |",
    ]
    print("\n".join(rows))
    write_section(
        "7. Fault: SIGKILL in the middle of a fan-out",
        f"python -m bench.chaos_fanout --channels {args.channels}",
        "\n".join(rows),
        [
            Check(
                "after SIGKILL mid fan-out and a restart, every channel posted exactly once",
                "all once",
                f"{once} of {args.channels} once, {doubled} doubled, {missing} missing",
                once == args.channels,
            )
        ],
    )


if __name__ == "__main__":
    run(main)
