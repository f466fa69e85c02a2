"""Benchmark 8: a genuine click while the Slack endpoint is flooded. `quizbot run` in Slack HTTP mode (INFO logs,
as in production) answers signed clicks one after another, first with nothing else going on, then while 20
unsigned 1 MB bodies are in flight all the time (and, by default, while 20 1 MB bodies with a fresh timestamp but
a forged signature are: those cannot be refused before the body is read). Measured: each click's ack latency and
how many bytes the bot's log grew during the flood. Beside it, the same flood against a bare Bolt app served the
usual way (Bolt parses, then verifies, and logs a bad request's body at INFO), measured in the same run.

    python -m bench.slack_flood [--quick] [--clicks 100] [--flood 20] [--size 1000000] [--no-forged] [--no-reference]

--quick: 30 clicks a situation, a flooded phase of the reference cut at 8 s, and the reference flooded only with
forged signatures (the flood it cannot refuse before reading the body).

Three processes: the bot (its stderr is the log measured), a flooder (20 connections posting junk as fast as the
bot lets them), and this one (the loopback fake Slack Web API, and the clicks, sent one at a time). Everything is
on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from bench.common import Check, child_env, free_port, percentile, quick_or_full, run, write_section
from tests.discord_storm import stop_bot
from tests.fakes.slack_api import SIGNING_SECRET, FakeSlack, block_actions_body, signed_headers, slash_command_body

ROOT = Path(__file__).resolve().parent.parent
TARGET_P50_MS = 250.0
TARGET_LOG_BYTES = 5 * 1024 * 1024
USERS = 2000
WARMUP_SECONDS = 2.0
"""The flood runs this long before clicks are timed, so every flood connection is busy when they start."""
PHASE_SECONDS = 60.0
"""Clicks in one situation stop after this long even if fewer than asked were sent (a slow server)."""


def junk_body(size: int) -> bytes:
    """A form body of `size` bytes made of many short fields: the costliest shape for a server that parses a body
    before it verifies the signature (parsing 1 MB of it takes Bolt ~150 ms; one big field, ~2 ms)."""
    fields = "&".join(f"f{n}=x" for n in range(size // 4))
    return fields[:size].encode()


# --- the flooder (a child process) -----------------------------------------------------------------


async def flood(url: str, concurrency: int, size: int, kind: str, stats_file: Path) -> None:
    """Child: `concurrency` connections posting `size`-byte junk until SIGTERM; counts what came back."""
    body = junk_body(size)
    statuses: Counter[str] = Counter()
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    stats_file.with_suffix(".ready").touch()  # SIGTERM now ends the flood with its counts written

    def headers() -> dict[str, str]:
        hdrs = {"Content-Type": "application/x-www-form-urlencoded"}
        if kind == "forged":  # a fresh, well-formed timestamp and signature; only the HMAC is wrong
            hdrs["X-Slack-Request-Timestamp"] = str(int(time.time()))
            hdrs["X-Slack-Signature"] = "v0=" + "0" * 64
        return hdrs

    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency), timeout=timeout) as session:

        async def worker() -> None:
            while not stop.is_set():
                try:
                    async with session.post(url, data=body, headers=headers()) as response:
                        await response.read()
                        statuses[str(response.status)] += 1
                except (aiohttp.ClientError, TimeoutError, ConnectionError):
                    # The server answered and closed before the whole body was sent: refused early.
                    statuses["connection closed by the server"] += 1
                    await asyncio.sleep(0.001)

        workers = [asyncio.create_task(worker()) for _ in range(concurrency)]
        await stop.wait()
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
    stats_file.write_text(json.dumps(dict(statuses)), encoding="utf-8")


@dataclass
class Flood:
    """A running flooder child."""

    process: asyncio.subprocess.Process
    stats_file: Path
    started: float = field(default_factory=time.perf_counter)

    @classmethod
    async def start(cls, url: str, concurrency: int, size: int, kind: str, workdir: Path) -> Flood:
        stats = workdir / f"flood-{kind}-{time.monotonic_ns()}.json"
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.slack_flood",
            "--flood-url",
            url,
            "--flood",
            str(concurrency),
            "--size",
            str(size),
            "--flood-kind",
            kind,
            "--flood-stats",
            str(stats),
            env=_child_env(),
        )
        # On a loaded machine the child takes seconds to start: a SIGTERM before its handler would kill it
        # without its counts.
        for _ in range(600):
            if stats.with_suffix(".ready").exists() or process.returncode is not None:
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(WARMUP_SECONDS)
        return cls(process, stats)

    async def stop(self) -> tuple[dict[str, int], float]:
        """Stop the flooder; what the server answered, and for how many seconds the flood ran."""
        self.process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(self.process.wait(), 60)
        elapsed = time.perf_counter() - self.started
        return json.loads(self.stats_file.read_text(encoding="utf-8")), elapsed


# --- the reference: a bare Bolt app (a child process) ----------------------------------------------


async def serve_bare(api_url: str, port: int) -> None:
    """Child: a bare Bolt app served the usual way (to_bolt_request parses, then Bolt verifies); INFO logs."""
    from aiohttp import web
    from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
    from slack_bolt.async_app import AsyncApp
    from slack_sdk.web.async_client import AsyncWebClient

    from bot.logs import configure_logging

    configure_logging("INFO")
    client = AsyncWebClient(token="xoxb-test", base_url=api_url)
    app = AsyncApp(signing_secret=SIGNING_SECRET, client=client, request_verification_enabled=True)

    @app.action(re.compile(r"quiz:answer:.*"))
    async def only_ack(ack: Any) -> None:
        await ack()

    async def handle(request: web.Request) -> web.Response:
        return await to_aiohttp_response(await app.async_dispatch(await to_bolt_request(request)))

    async def healthz(_request: web.Request) -> web.Response:
        return web.Response(text="ok")

    web_app = web.Application()
    web_app.router.add_post("/slack/events", handle)
    web_app.router.add_get("/healthz", healthz)
    runner = web.AppRunner(web_app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    await runner.cleanup()


# --- this process: the fake Web API, the bot, and the clicks -----------------------------------------


def _child_env() -> dict[str, str]:
    return child_env()


async def _start_child(args: list[str], env: dict[str, str], cwd: str, log: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        *args,
        env=env,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=open(log, "wb"),
    )


async def _wait_healthy(url: str, child: asyncio.subprocess.Process, log: Path, within: float = 120) -> None:
    deadline = time.monotonic() + within
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            if child.returncode is not None:
                raise RuntimeError(f"the server exited: {log.read_text(encoding='utf-8')[-2000:]}")
            try:
                async with session.get(url) as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.05)
    raise RuntimeError(f"{url} never became healthy")


class Clicker:
    """Sends genuine signed clicks on one card, one at a time, each from a user who has not answered yet."""

    def __init__(self, url: str, card: dict[str, Any], team_id: str) -> None:
        self.url = url
        self.card = card
        self.team_id = team_id
        self.next_user = 0
        self.button = next(el for b in card["blocks"] if b["type"] == "actions" for el in b["elements"])

    async def clicks(self, count: int, interval: float = 0.05, within: float | None = None) -> tuple[list[float], int]:
        """Ack latencies (seconds) of `count` clicks (fewer if they take more than `within` seconds), and how many
        were not answered 200."""
        latencies: list[float] = []
        failures = 0
        timeout = aiohttp.ClientTimeout(total=30)
        deadline = time.monotonic() + (PHASE_SECONDS if within is None else within)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            for _ in range(count):
                if time.monotonic() > deadline:
                    break
                n = self.next_user
                self.next_user += 1
                body = block_actions_body(
                    message=self.card,
                    action_id=self.button["action_id"],
                    user_id=f"U{n:05d}",
                    user_name=f"user{n}",
                    team_id=self.team_id,
                    channel_id="C0001",
                )
                headers = {"Content-Type": "application/x-www-form-urlencoded", **signed_headers(SIGNING_SECRET, body)}
                started = time.perf_counter()
                try:
                    async with session.post(self.url, data=body.encode(), headers=headers) as response:
                        await response.read()
                        if response.status != 200:
                            failures += 1
                except (aiohttp.ClientError, TimeoutError):
                    failures += 1
                latencies.append(time.perf_counter() - started)
                await asyncio.sleep(interval)
        return latencies, failures


@dataclass
class Row:
    """One measured situation."""

    server: str
    flood: str
    latencies: list[float]
    failures: int
    log_growth: int | None = None
    flood_seconds: float = 0.0
    answered: dict[str, int] = field(default_factory=dict)

    def p(self, q: float) -> float:
        return percentile(self.latencies, q) * 1000

    def cells(self) -> str:
        log = "" if self.log_growth is None else _bytes(self.log_growth)
        total = sum(self.answered.values())
        answered = ", ".join(f"{k}: {v:,}" for k, v in sorted(self.answered.items()))
        rate = f"{total / self.flood_seconds:,.0f}/s ({answered})" if self.flood_seconds else ""
        return (
            f"| {self.server} | {self.flood} | {self.p(50):.1f} ms | {self.p(95):.1f} ms | "
            f"{max(self.latencies) * 1000:.1f} ms | {len(self.latencies) - self.failures} of {len(self.latencies)} | "
            f"{log} | {rate} |"
        )


def _bytes(n: int) -> str:
    return f"{n / 1024 / 1024:,.1f} MiB" if n >= 1024 * 1024 else f"{n:,} B"


async def measure(  # noqa: PLR0917 - one call site
    server: str, url: str, log: Path, clicker: Clicker, args: argparse.Namespace, workdir: Path
) -> list[Row]:
    """Clicks with no flood, then under each flood asked for."""
    quiet, quiet_failures = await clicker.clicks(args.clicks)
    rows = [Row(server, "none", quiet, quiet_failures)]
    kinds = ["unsigned"] + ([] if args.no_forged else ["forged"])
    if args.quick and not server.startswith("quiz") and len(kinds) > 1:
        kinds = kinds[1:]  # quick: the reference only under the flood it cannot refuse early (forged signatures)
    for kind in kinds:
        flooder = await Flood.start(url, args.flood, args.size, kind, workdir)
        before = log.stat().st_size
        try:
            latencies, failures = await clicker.clicks(args.clicks)
        finally:
            growth = log.stat().st_size - before
            answered, seconds = await flooder.stop()
        label = f"{args.flood} x {args.size / 1e6:g} MB {'unsigned' if kind == 'unsigned' else 'forged signature'}"
        rows.append(Row(server, label, latencies, failures, growth, seconds, answered))
        print(rows[-1].cells(), flush=True)
    return rows


async def bench_quiz(args: argparse.Namespace, fake: FakeSlack, workdir: Path) -> tuple[list[Row], dict[str, Any]]:
    """`quizbot run` (Slack HTTP mode, INFO logs): post a card, then click under each flood."""
    port = free_port()
    env = _child_env()
    env.update(
        QUIZBOT_ADAPTERS="slack",
        QUIZBOT_DATABASE_URL=f"sqlite+aiosqlite:///{workdir}/quizbot.db",
        QUIZBOT_SLACK_BOT_TOKEN=fake.bot_token,
        QUIZBOT_SLACK_SIGNING_SECRET=SIGNING_SECRET,
        QUIZBOT_SLACK_API_URL=fake.api_url,
        QUIZBOT_SLACK_HOST="127.0.0.1",
        QUIZBOT_SLACK_PORT=str(port),
        QUIZBOT_LOG_LEVEL="INFO",
    )
    log = workdir / "quizbot.log"
    child = await _start_child(["-m", "bot.cli", "run"], env, str(workdir), log)
    url = f"http://127.0.0.1:{port}/slack/events"
    try:
        await _wait_healthy(f"http://127.0.0.1:{port}/healthz", child, log)
        body = slash_command_body("now", team_id=fake.team_id, channel_id="C0001", user_id="U00000")
        headers = {"Content-Type": "application/x-www-form-urlencoded", **signed_headers(SIGNING_SECRET, body)}
        async with (
            aiohttp.ClientSession() as session,
            session.post(url, data=body.encode(), headers=headers) as response,
        ):
            assert response.status == 200, await response.text()
        [call] = await fake.wait_for_calls("chat.postMessage", 1, ok=True, timeout=30)
        card = fake.message(call.response["channel"], call.response["ts"])
        assert card is not None
        clicker = Clicker(url, card, fake.team_id)
        await clicker.clicks(10, interval=0)  # warm-up: the first request makes Bolt call auth.test
        rows = await measure("quiz bot (`quizbot run`)", url, log, clicker, args, workdir)
    finally:
        await stop_bot(child)
    return rows, card


async def bench_bare(args: argparse.Namespace, fake: FakeSlack, card: dict[str, Any], workdir: Path) -> list[Row]:
    """The reference: the same clicks and floods against a bare Bolt app served the usual way."""
    port = free_port()
    log = workdir / "bare.log"
    child = await _start_child(
        ["-m", "bench.slack_flood", "--serve-bare", fake.api_url, "--port", str(port)], _child_env(), str(workdir), log
    )
    url = f"http://127.0.0.1:{port}/slack/events"
    try:
        await _wait_healthy(f"http://127.0.0.1:{port}/healthz", child, log)
        clicker = Clicker(url, card, fake.team_id)
        clicker.next_user = 1000
        await clicker.clicks(10, interval=0)
        return await measure("reference: bare Bolt app, ack only", url, log, clicker, args, workdir)
    finally:
        await stop_bot(child)


async def main() -> None:
    """Measure the bot (and the reference); print and record."""
    parser = argparse.ArgumentParser()
    quick_or_full(parser)
    parser.add_argument("--clicks", type=int, help="clicks timed in each situation (100; --quick: 30)")
    parser.add_argument("--flood", type=int, default=20, help="flood connections")
    parser.add_argument("--size", type=int, default=1_000_000, help="bytes of each flood body")
    parser.add_argument("--no-forged", action="store_true", help="skip the forged-signature flood")
    parser.add_argument("--no-reference", action="store_true", help="skip the bare Bolt reference")
    parser.add_argument("--flood-url", help=argparse.SUPPRESS)
    parser.add_argument("--flood-kind", choices=["unsigned", "forged"], default="unsigned", help=argparse.SUPPRESS)
    parser.add_argument("--flood-stats", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--serve-bare", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.clicks = args.clicks or (30 if args.quick else 100)
    if args.quick:  # the bare Bolt reference takes seconds a click under the flood: stop each phase sooner
        global PHASE_SECONDS  # noqa: PLW0603
        PHASE_SECONDS = 8.0  # a few of the bare app's seconds-long clicks under each flood: enough for scale
    if args.flood_url:
        await flood(args.flood_url, args.flood, args.size, args.flood_kind, args.flood_stats)
        return
    if args.serve_bare:
        await serve_bare(args.serve_bare, args.port)
        return

    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        fake = FakeSlack()
        await fake.start()
        try:
            for n in range(USERS):
                fake.add_user(f"U{n:05d}", f"user{n}", join_channels=True)
            rows, card = await bench_quiz(args, fake, workdir)
            if not args.no_reference:
                rows += await bench_bare(args, fake, card, workdir)
        finally:
            await fake.stop()

    table = [
        "| server | flood in flight | ack p50 | ack p95 | ack max | clicks acked | log growth during the flood "
        "| flood requests answered |",
        "|---|---|---|---|---|---|---|---|",
        *(row.cells() for row in rows),
    ]
    quiz = [row for row in rows if row.server.startswith("quiz") and row.log_growth is not None]
    verdict = []
    checks: list[Check] = []
    for row in quiz:
        assert row.log_growth is not None
        p50_ok = "met" if row.p(50) <= TARGET_P50_MS else "missed"
        log_ok = "met" if row.log_growth < TARGET_LOG_BYTES else "missed"
        verdict.append(
            f"- {row.flood}: click ack p50 {row.p(50):.0f} ms (target <= {TARGET_P50_MS:.0f} ms: {p50_ok}); "
            f"log growth {_bytes(row.log_growth)} in {row.flood_seconds:.0f} s (target < 5 MiB: {log_ok})"
        )
        bare = next((r for r in rows if not r.server.startswith("quiz") and r.flood == row.flood), None)
        beside = f" (bare Bolt: {bare.p(50):.0f} ms)" if bare is not None else ""
        checks.append(
            Check(
                f"click ack p50 under {row.flood}",
                f"<= {TARGET_P50_MS:.0f} ms",
                f"{row.p(50):.0f} ms{beside}",
                row.p(50) <= TARGET_P50_MS,
            )
        )
        checks.append(
            Check(
                f"log growth under {row.flood}",
                "< 5 MiB",
                _bytes(row.log_growth),
                row.log_growth < TARGET_LOG_BYTES,
            )
        )
    print("\n".join([*table, "", *verdict]))
    intro = (
        f"{args.clicks} genuine signed clicks in each situation (fewer if they took more than {PHASE_SECONDS:.0f} s), "
        "one at a time (50 ms apart), each from a new user; "
        f"the flood has {args.flood} connections posting {args.size:,}-byte form bodies of many short fields back "
        "to back and starts "
        f"{WARMUP_SECONDS:.0f} s before the clicks. Log growth is the bot's stderr (INFO, text) while the flood ran. "
        "'connection closed by the server': the server answered before the body was sent and closed the connection."
    )
    command = "python -m bench.slack_flood" + (f" --clicks {args.clicks}" if args.clicks != 100 else "")
    write_section(
        "8. Slack intake under a flood of bad requests",
        command,
        intro + "\n\n" + "\n".join([*table, "", *verdict]),
        checks,
    )


if __name__ == "__main__":
    run(main)
