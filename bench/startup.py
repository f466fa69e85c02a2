"""Benchmark 9: start-up. `quizbot run` with every adapter configured (terminal, Slack in HTTP mode, Discord)
against the loopback fakes, on SQLite, from exec to ready; beside a bare
`python -c "import discord, slack_bolt, sqlalchemy"` measured in the same run, back to back (both under
`-X importtime`, which the starts need for their heaviest imports).

    python -m bench.startup [--quick] [--runs 7]

Ready: /healthz answers 200 and lists every platform (each adapter has registered it), and the fake Discord has
seen the bot's IDENTIFY. The database is migrated by a first start that is not counted (a fresh install migrates
once); each counted start is a restart on it. Figures are medians of --runs starts (--quick: 3).

bot/ and adapters/ are compiled to bytecode first (`compile_sources`), as installing the wheel does (pip compiles
what it installs; the image's Python then only reads it): the bare import's libraries are read from the bytecode
pip wrote, and a shell with PYTHONDONTWRITEBYTECODE=1 would otherwise make every counted start compile the bot's
~230 modules from source again, which no installed bot does (0.1-0.2 s of CPU, measured 2026-12-06).
Targets (issue 16): <= 1.0 s, and <= 2x the bare import.

Also measured: what importing the CLI and the adapter packages loads (they must not load a platform library), and
the start-up of `quizbot run` with only Slack configured (discord.py must not be imported then).
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from bench.common import ROOT, Check, bound_check, child_env, free_port, quick_or_full, run, write_section
from tests.fakes.discord_api import FakeDiscord
from tests.fakes.slack_api import SIGNING_SECRET, FakeSlack

LAUNCH = """
import sys
if sys.argv[1] != "-":  # point discord.py at the loopback fake (the one thing a setting cannot do)
    import yarl
    from discord.gateway import DiscordWebSocket
    from discord.http import Route
    Route.BASE = sys.argv[1]
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(sys.argv[2])
from bot.cli import main
sys.exit(main(["run"]))
"""
"""The child: `quizbot run`, with discord.py's two URLs set first when Discord is configured."""

IMPORTS = (
    "import sys, json; import bot.cli, adapters.console, adapters.slack, adapters.discord; "
    "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & {'discord', 'slack_bolt', 'slack_sdk'})))"
)


async def _ready(port: int, platforms: set[str], deadline: float) -> None:
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            try:
                async with session.get(f"http://127.0.0.1:{port}/healthz") as response:
                    if response.status == 200 and platforms <= set((await response.json())["adapters"]):
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.005)
    raise RuntimeError("quizbot never became ready")


async def start_once(
    workdir: Path, slack: FakeSlack, discord_fake: FakeDiscord | None, adapters: str
) -> tuple[float, str]:
    """Seconds from exec to ready for one `quizbot run`; and the modules it imported (from -X importtime)."""
    http_port = free_port()
    env = child_env(
        QUIZBOT_ADAPTERS=adapters,
        QUIZBOT_DATABASE_URL=f"sqlite+aiosqlite:///{workdir}/quizbot.db",
        QUIZBOT_HTTP_PORT=str(http_port),
        QUIZBOT_HTTP_HOST="127.0.0.1",
        QUIZBOT_SLACK_BOT_TOKEN=slack.bot_token,
        QUIZBOT_SLACK_SIGNING_SECRET=SIGNING_SECRET,
        QUIZBOT_SLACK_API_URL=slack.api_url,
        QUIZBOT_SLACK_HOST="127.0.0.1",
        QUIZBOT_SLACK_PORT=str(free_port()),
        QUIZBOT_LOG_LEVEL="WARNING",
    )
    if discord_fake is not None:
        env["QUIZBOT_DISCORD_TOKEN"] = "bench-token"
    urls = [discord_fake.api_base, discord_fake.gateway_url] if discord_fake is not None else ["-", "-"]
    identified = len(discord_fake.identifies) if discord_fake is not None else 0
    log = workdir / "bot.log"
    started = time.monotonic()
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-X",
        "importtime",
        "-c",
        LAUNCH,
        *urls,
        env=env,
        cwd=str(workdir),
        stdin=asyncio.subprocess.PIPE,  # the terminal adapter reads it; it stays open and empty
        stdout=asyncio.subprocess.DEVNULL,
        stderr=log.open("w"),
    )
    try:
        platforms = {name for name in adapters.split(",") if name != "console"}
        await _ready(http_port, platforms, started + 120)
        if discord_fake is not None:
            await discord_fake.wait_for(
                lambda: len(discord_fake.identifies) > identified, timeout=60, what="the bot's IDENTIFY"
            )
        elapsed = time.monotonic() - started
    finally:
        child.terminate()
        await asyncio.wait_for(child.wait(), 60)
    return elapsed, log.read_text(encoding="utf-8")


def compile_sources() -> None:
    """bot/ and adapters/ compiled to bytecode (__pycache__, as an installed wheel has it): every start, counted or
    not, then reads it, whatever PYTHONDONTWRITEBYTECODE says."""
    for package in ("bot", "adapters"):
        if not compileall.compile_dir(ROOT.parent / package, quiet=1):
            raise RuntimeError(f"{package}/ does not compile")


def bare_import() -> float:
    """Seconds for `python -c "import discord, slack_bolt, sqlalchemy"`, exec to exit; under `-X importtime`, as
    each timed start is (it costs every import a little: ~5% of the bot's start-up, measured 2026-12-06)."""
    started = time.monotonic()
    subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import discord, slack_bolt, sqlalchemy"],
        check=True,
        env=child_env(),
        stderr=subprocess.DEVNULL,
    )
    return time.monotonic() - started


def heaviest_imports(importtime_log: str, top: int = 8) -> list[tuple[str, float]]:
    """The top-level packages that took longest to import (cumulative), from a -X importtime log."""
    totals: dict[str, float] = {}
    for line in importtime_log.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = (part.strip() for part in line[len("import time:") :].split("|"))
        if not cumulative.isdigit() or name.startswith(" ") or "." in name.strip():
            continue
        totals[name.strip()] = max(totals.get(name.strip(), 0), int(cumulative) / 1e6)
    return sorted(totals.items(), key=lambda item: -item[1])[:top]


async def main() -> None:
    """Start `quizbot run` several times, time the bare import as many times, interleaved; record."""
    parser = argparse.ArgumentParser()
    quick_or_full(parser)
    parser.add_argument("--runs", type=int)
    args = parser.parse_args()
    runs = args.runs or (3 if args.quick else 7)
    compile_sources()
    loaded = json.loads(
        subprocess.run(  # noqa: ASYNC221 - before anything is timed
            [sys.executable, "-c", IMPORTS], capture_output=True, text=True, check=True, env=child_env()
        ).stdout
    )
    starts: list[float] = []
    slack_only: list[float] = []
    bare: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        slack, discord_fake = FakeSlack(), FakeDiscord(validate_payloads=False)
        await slack.start()
        await discord_fake.start()
        try:
            first, _ = await start_once(workdir, slack, discord_fake, "console,slack,discord")  # migrates
            log = ""
            for _ in range(runs):
                bare.append(bare_import())
                elapsed, log = await start_once(workdir, slack, discord_fake, "console,slack,discord")
                starts.append(elapsed)
                elapsed, slack_log = await start_once(workdir, slack, None, "console,slack")
                slack_only.append(elapsed)
        finally:
            await slack.stop()
            await discord_fake.stop()
    start, reference, lean = statistics.median(starts), statistics.median(bare), statistics.median(slack_only)
    discord_in_slack_only = "| discord" in slack_log or " discord\n" in slack_log
    checks: list[Check] = [
        bound_check("start-up to ready, all adapters, SQLite", start, 1.0, "s"),
        Check(
            "start-up / bare `import discord, slack_bolt, sqlalchemy`",
            "<= 2x",
            f"{start:.2f} s vs {reference:.2f} s: {start / reference:.2f}x",
            start <= 2 * reference,
        ),
        Check(
            "importing the CLI and adapter packages loads no platform library",
            "none",
            ", ".join(loaded) or "none",
            not loaded,
        ),
    ]
    heavy = heaviest_imports(log)
    rows = [
        "| figure | median | all runs |",
        "|---|---|---|",
        f"| `quizbot run`, all adapters, to ready | {start:.2f} s | {', '.join(f'{s:.2f}' for s in starts)} |",
        f'| bare `python -c "import discord, slack_bolt, sqlalchemy"` | {reference:.2f} s | '
        f"{', '.join(f'{s:.2f}' for s in bare)} |",
        f"| `quizbot run`, console and Slack only, to ready | {lean:.2f} s | "
        f"{', '.join(f'{s:.2f}' for s in slack_only)} |",
        f"| first start (migrates an empty SQLite database) | {first:.2f} s | |",
        "",
        f"discord.py imported by the console+Slack start: {'yes' if discord_in_slack_only else 'no'}.",
        "",
        "Heaviest imports of the last all-adapter start (cumulative, `-X importtime`, which itself adds a little): "
        + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in heavy)
        + ".",
    ]
    body = (
        f"{runs} restarts of each, interleaved with the bare import so both see the same load, both under "
        "`-X importtime`; bot/ and adapters/ compiled to bytecode first, as an installed wheel is.\n\n"
        + "\n".join(rows)
    )
    print(body)
    write_section("9. Start-up", f"python -m bench.startup --runs {runs}", body, checks)


if __name__ == "__main__":
    run(main)
