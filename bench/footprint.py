"""Benchmark 6: footprint. `quizbot run` with every adapter loaded (terminal, Slack in HTTP mode, Discord), on
SQLite: start-up to ready, idle resident memory, and its growth after 100,000 answers (signed Slack clicks).

    python -m bench.footprint [--quick] [--answers 20000]

Targets: idle RSS <= 150 MB; growth after 20,000 clicks at 200 in flight <= 50 MB (issue 16). --quick: 4,000.

The bot runs as a child process (discord.py pointed at a loopback fake Discord, the Slack Web API at a loopback
fake Slack, both served by this process); memory is the child's VmRSS from /proc.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from bench.common import Check, bound_check, child_env, free_port, quick_or_full, run, write_section
from bench.slack_path import _load
from tests.fakes.discord_api import FakeDiscord
from tests.fakes.slack_api import SIGNING_SECRET, FakeSlack, block_actions_body


def rss_mb(pid: int) -> float:
    """Resident memory of a process in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def serve(api_base: str, gateway_url: str) -> None:
    """Child: `quizbot run`, with discord.py pointed at the fake (the only thing a setting cannot do)."""
    from bot.cli import main as quizbot
    from tests.fakes.discord_api import patch_discord

    if os.environ.get("BENCH_TRACEMALLOC"):  # where memory goes: a snapshot diff on SIGUSR1 (first: baseline)
        import tracemalloc

        tracemalloc.start(15)
        snapshots: list[tracemalloc.Snapshot] = []

        def dump(*_: object) -> None:
            snapshots.append(tracemalloc.take_snapshot())
            if len(snapshots) == 2:
                stats = snapshots[1].compare_to(snapshots[0], "traceback")[:8]
                with open(os.environ["BENCH_TRACEMALLOC"], "w", encoding="utf-8") as out:
                    for stat in stats:
                        out.write(f"{stat.size_diff // 1024} KiB in {stat.count_diff} blocks\n")
                        out.write("\n".join(stat.traceback.format()[-14:]) + "\n\n")

        signal.signal(signal.SIGUSR1, dump)

    with patch_discord(api_base, gateway_url):
        raise SystemExit(quizbot(["run"]))


async def wait_healthy(url: str, deadline: float) -> None:
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            try:
                async with session.get(url) as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.02)
    raise RuntimeError(f"{url} never became healthy")


async def main() -> None:
    """Start, measure, click, measure, stop; record."""
    parser = argparse.ArgumentParser()
    quick_or_full(parser)
    parser.add_argument("--answers", type=int)
    args = parser.parse_args()
    args.answers = args.answers or (4000 if args.quick else 20_000)
    with tempfile.TemporaryDirectory() as tmp:
        slack, discord_fake = FakeSlack(), FakeDiscord(validate_payloads=False)
        await slack.start()
        await discord_fake.start()
        users = 5000
        for n in range(users):
            slack.add_user(f"U{n:05d}", f"user{n}", join_channels=True)
        http_port, slack_port = free_port(), free_port()
        env = child_env()
        env.update(
            QUIZBOT_ADAPTERS=os.environ.get("BENCH_ADAPTERS", "console,slack,discord"),
            QUIZBOT_DATABASE_URL=f"sqlite+aiosqlite:///{tmp}/quizbot.db",
            QUIZBOT_HTTP_PORT=str(http_port),
            QUIZBOT_HTTP_HOST="127.0.0.1",
            QUIZBOT_SLACK_BOT_TOKEN=slack.bot_token,
            QUIZBOT_SLACK_SIGNING_SECRET=SIGNING_SECRET,
            QUIZBOT_SLACK_API_URL=slack.api_url,
            QUIZBOT_SLACK_HOST="127.0.0.1",
            QUIZBOT_SLACK_PORT=str(slack_port),
            QUIZBOT_DISCORD_TOKEN="bench-token",
            QUIZBOT_LOG_LEVEL="WARNING",
        )
        started = time.monotonic()
        child = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.footprint",
            "--serve",
            discord_fake.api_base,
            discord_fake.gateway_url,
            env=env,
            cwd=tmp,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=open(f"{tmp}/bot.log", "w"),  # noqa: SIM115 - the child owns it until it exits
        )
        try:
            await wait_healthy(f"http://127.0.0.1:{http_port}/healthz", started + 180)
            startup = time.monotonic() - started
            if "discord" in env["QUIZBOT_ADAPTERS"]:
                await discord_fake.wait_until_connected(timeout=30)
            await asyncio.sleep(5)
            idle = rss_mb(child.pid)
            tracing = bool(os.environ.get("BENCH_TRACEMALLOC"))
            if tracing:
                child.send_signal(signal.SIGUSR1)
            # Cards to click: posted by `/quiz now` through Slack.
            from tests.fakes.slack_api import signed_headers, slash_command_body

            cards = []
            async with aiohttp.ClientSession() as session:
                for _ in range(20):
                    body = slash_command_body("now", team_id=slack.team_id, channel_id="C0001", user_id="U00000")
                    headers = {
                        "Content-Type": "application/x-www-form-urlencoded",
                        **signed_headers(SIGNING_SECRET, body),
                    }
                    async with session.post(f"http://127.0.0.1:{slack_port}/slack/events", data=body, headers=headers):
                        pass
                    calls = await slack.wait_for_calls("chat.postMessage", len(cards) + 1, ok=True, timeout=10)
                    call = calls[-1]
                    cards.append(slack.message(call.response["channel"], call.response["ts"]))
            bodies = []
            for n in range(args.answers):
                card = cards[n % len(cards)]
                user = n // len(cards)
                button = [el for b in card["blocks"] if b["type"] == "actions" for el in b["elements"]][n % 4]
                bodies.append(
                    block_actions_body(
                        message=card,
                        action_id=button["action_id"],
                        user_id=f"U{user:05d}",
                        user_name=f"user{user}",
                        team_id=slack.team_id,
                        channel_id="C0001",
                    )
                )
            elapsed, _, failures = await _load(slack_port, bodies, 200)
            # Slack clicks are acked first and recorded right after: wait until every one is in the database,
            # so the figure is the steady state, not the backlog of acked clicks still being worked on.
            recorded = 0
            db_file = Path(tmp) / "quizbot.db"
            for _ in range(1200):
                with sqlite3.connect(db_file, timeout=30) as conn:
                    recorded = conn.execute("SELECT count(*) FROM answers").fetchone()[0]
                if recorded >= len(bodies):
                    break
                await asyncio.sleep(0.5)
            await asyncio.sleep(5)
            loaded = rss_mb(child.pid)
            if tracing:
                child.send_signal(signal.SIGUSR1)
                await asyncio.sleep(3)
        finally:
            if child.returncode is None:
                child.send_signal(signal.SIGTERM)
            else:
                print(Path(f"{tmp}/bot.log").read_text(encoding="utf-8")[-3000:])
            await asyncio.wait_for(child.wait(), 60)
            await slack.stop()
            await discord_fake.stop()
    rows = [
        "| figure | measured | target |",
        "|---|---|---|",
        f"| start-up to ready (/healthz 200), SQLite, all adapters, first start | {startup:.2f} s | (bench.startup) |",
        f"| idle resident memory, all adapters loaded | {idle:.0f} MiB | <= 150 MB |",
        f"| after {args.answers:,} answers ({args.answers / elapsed:,.0f}/s acked through Slack, {failures} non-200, "
        f"{recorded:,} recorded) | "
        f"{loaded:.0f} MiB (+{loaded - idle:.0f} MiB) | growth <= 50 MB |",
    ]
    print("\n".join(rows))
    checks: list[Check] = [
        bound_check("idle resident memory, all adapters", idle, 150, "MiB"),
        bound_check(
            f"RSS growth after {args.answers:,} clicks at 200 in flight",
            loaded - idle,
            50,
            "MiB",
            note=f" (idle {idle:.0f} MiB, reference: the same process before the clicks)",
        ),
    ]
    if recorded != args.answers:
        checks.append(Check("every click recorded", "all", f"{recorded} of {args.answers}", False))
    write_section("6. Footprint", f"python -m bench.footprint --answers {args.answers}", "\n".join(rows), checks)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2], sys.argv[3])  # the child: its own event loop, as `quizbot run` makes one
    run(main)
