"""Benchmark 2: the Slack path end to end. Signed button clicks over HTTP into the real slack-bolt app of the
Slack adapter (HTTP mode), through to the recorded answer, 200 at a time; beside a bare Bolt app that only acks,
served the same way and sent the same requests, measured in the same run.

    python -m bench.slack_path [--quick] [--db sqlite|postgresql] [--clicks 4000] [--concurrency 200]

Targets (issue 16): clicks/s >= 90% of the bare Bolt app's, p99 <= the bare app's p99 + 50 ms. --quick: 2,000 clicks.

The bot runs in a child process; this process plays Slack: it signs each request, and it serves the loopback fake
Slack Web API that the bot's private replies and card edits go to. So the bot's process pays for making its Web API
calls but not for Slack answering them, and the load generator does not share the bot's event loop.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import re
import signal
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
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
from tests.fakes.slack_api import SIGNING_SECRET, TEAM_ID, FakeSlack, block_actions_body, signed_headers

POSTS = 20


async def start_fake() -> FakeSlack:
    """The loopback fake Slack Web API, with the users who click. It runs in the process that plays Slack (this
    one), not in the bot's: the bot's process pays for its own calls to the Web API, not for Slack serving them."""
    fake = FakeSlack()
    await fake.start()
    for n in range(1000):
        fake.add_user(f"U{n:05d}", f"user{n}", join_channels=True)
    return fake


@contextlib.asynccontextmanager
async def fake_slack() -> AsyncIterator[FakeSlack]:
    """The fake Slack Web API of start_fake, for the length of a run."""
    fake = await start_fake()
    try:
        yield fake
    finally:
        await fake.stop()


async def serve_quiz(
    db_url: str, ready_file: Path, *, api_url: str, bot_token: str, post: bool = True, card_updates: bool = True
) -> None:
    """Child: the quiz bot's Slack adapter in HTTP mode on a free port, calling the fake Slack Web API at
    `api_url`; it posts the cards to click unless `post` is false (a second replica on the same database)."""
    from pydantic import SecretStr

    from adapters.slack import SlackAdapter
    from bot.config import Settings
    from bot.domain import ChannelRef
    from bot.runtime import build_runtime

    settings = Settings(  # type: ignore[call-arg]
        database_url=db_url,
        **({} if card_updates else {"card_update_interval": 60.0}),
        slack_bot_token=SecretStr(bot_token),
        slack_signing_secret=SecretStr(SIGNING_SECRET),
        slack_api_url=api_url,
        slack_host="127.0.0.1",
        slack_port=0,
        _env_file=None,
    )
    runtime = await build_runtime(settings, migrate=False)
    adapter = SlackAdapter(runtime)
    task = asyncio.create_task(adapter.run())
    await adapter.ready.wait()
    posted = [
        (await runtime.quiz.post_question(ChannelRef("slack", TEAM_ID, "C0001"))).message_ref
        for _ in range(POSTS if post else 0)
    ]
    ready_file.write_text(json.dumps({"port": adapter.http_port, "posted": posted}), encoding="utf-8")
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    await runtime.app.drain()
    runtime.stopping.set()
    await task
    await runtime.aclose()


async def serve_bare(ready_file: Path, *, api_url: str, bot_token: str) -> None:
    """Child: a bare Bolt app that verifies the signature and only acks, served by aiohttp the same way; the fake
    Slack Web API at `api_url` answers the one auth.test Bolt makes, as it does for the quiz bot."""
    from aiohttp import web
    from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
    from slack_bolt.async_app import AsyncApp
    from slack_sdk.web.async_client import AsyncWebClient

    client = AsyncWebClient(token=bot_token, base_url=api_url)
    app = AsyncApp(signing_secret=SIGNING_SECRET, client=client, request_verification_enabled=True)

    @app.action(re.compile(r"quiz:answer:.*"))
    async def only_ack(ack: Any) -> None:
        await ack()

    async def handle(request: web.Request) -> web.Response:
        bolt_request = await to_bolt_request(request)
        return await to_aiohttp_response(await app.async_dispatch(bolt_request))

    web_app = web.Application()
    web_app.router.add_post("/slack/events", handle)
    runner = web.AppRunner(web_app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    ready_file.write_text(json.dumps({"port": port}), encoding="utf-8")
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    await runner.cleanup()


def _bodies(messages: list[dict[str, Any]], clicks: int) -> list[str]:
    """Click bodies: user n clicks posts in turn; the first POSTS * users clicks are all distinct answers."""
    rng = random.Random(5)
    bodies = []
    users = max(1, clicks // len(messages))
    for n in range(users):
        for message in messages:
            buttons = [el for b in message["blocks"] if b["type"] == "actions" for el in b["elements"]]
            bodies.append(_click_body(message, rng.choice(buttons)["action_id"], n))
    return bodies[:clicks]


def _warm_bodies(messages: list[dict[str, Any]]) -> list[str]:
    """Ten clicks from users outside the measured ones, sent one at a time before the clock starts (Bolt's first
    request calls auth.test; each server gets the same warm-up)."""
    message = messages[0]
    button = next(el for b in message["blocks"] if b["type"] == "actions" for el in b["elements"])
    return [_click_body(message, button["action_id"], n) for n in range(990, 1000)]


def _click_body(message: dict[str, Any], action_id: str, n: int) -> str:
    """User n's click on one of the message's buttons, in channel C0001, as Slack posts it."""
    return block_actions_body(
        message=message,
        action_id=action_id,
        user_id=f"U{n:05d}",
        user_name=f"user{n}",
        team_id=TEAM_ID,
        channel_id="C0001",
    )


async def _load(port: int, bodies: list[str], concurrency: int) -> tuple[float, list[float], int]:
    url = f"http://127.0.0.1:{port}/slack/events"
    latencies: list[float] = []
    failures = 0
    # Signed before the clock starts (Slack allows five minutes), so the load generator only sends.
    queue = [
        (body.encode(), {"Content-Type": "application/x-www-form-urlencoded", **signed_headers(SIGNING_SECRET, body)})
        for body in reversed(bodies)
    ]
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def worker() -> None:
            nonlocal failures
            while queue:
                data, headers = queue.pop()
                started = time.perf_counter()
                async with session.post(url, data=data, headers=headers) as response:
                    await response.read()
                    if response.status != 200:
                        failures += 1
                latencies.append(time.perf_counter() - started)

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - started, latencies, failures


async def _child(
    mode: str, workdir: Path, db_url: str = "", name: str = "", *extra: str, fake: FakeSlack | None = None
) -> tuple[asyncio.subprocess.Process, dict[str, Any]]:
    """Start a server child (`quiz`, `replica` or `bare`); returns it and what it wrote to its ready file, with
    the cards it posted (as the fake Slack stores them) under "messages" when `fake` is the fake it calls."""
    ready = workdir / f"{name or mode}.json"
    if fake is not None:
        extra = (*extra, "--api-url", fake.api_url, "--bot-token", fake.bot_token)
    ready.unlink(missing_ok=True)
    env = child_env()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.slack_path",
        "--serve",
        mode,
        "--db-url",
        db_url,
        "--ready",
        str(ready),
        *extra,
        env=env,
    )
    for _ in range(600):
        if ready.exists() and ready.stat().st_size:
            info = json.loads(ready.read_text(encoding="utf-8"))
            if fake is not None:
                info["messages"] = [fake.message("C0001", ref) for ref in info.get("posted", [])]
            return process, info
        await asyncio.sleep(0.05)
    if process.returncode is None:
        process.kill()
    raise RuntimeError(f"the {mode} server did not start")


async def _stop(process: asyncio.subprocess.Process) -> None:
    process.send_signal(signal.SIGTERM)
    await asyncio.wait_for(process.wait(), 60)


async def main() -> None:
    """Run the quiz path and the bare Bolt path with the same requests; print and record."""
    parser = argparse.ArgumentParser()
    quick_or_full(parser)
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--clicks", type=int)
    parser.add_argument("--concurrency", type=int, default=200)
    parser.add_argument("--serve", choices=["quiz", "replica", "bare"], help=argparse.SUPPRESS)
    parser.add_argument("--db-url", default="", help=argparse.SUPPRESS)
    parser.add_argument("--no-card-updates", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--ready", type=Path)
    parser.add_argument("--api-url", default="", help=argparse.SUPPRESS)
    parser.add_argument("--bot-token", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve in ("quiz", "replica"):
        await serve_quiz(
            args.db_url,
            args.ready,
            api_url=args.api_url,
            bot_token=args.bot_token,
            post=args.serve == "quiz",
            card_updates=not args.no_card_updates,
        )
        return
    if args.serve == "bare":
        await serve_bare(args.ready, api_url=args.api_url, bot_token=args.bot_token)
        return

    args.clicks = args.clicks or (2000 if args.quick else 4000)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        async with scratch_database(args.db, workdir) as url, fake_slack() as fake:
            quiz, info = await _child("quiz", workdir, url, fake=fake)
            try:
                bodies = _bodies(info["messages"], args.clicks)
                warm = _warm_bodies(info["messages"])
                await _load(info["port"], warm, 1)
                started = time.perf_counter()
                elapsed, latencies, failures = await _load(info["port"], bodies, args.concurrency)
                db = Database.from_url(url)
                stored = 0
                for _ in range(600):  # acks come first; answers are recorded right after
                    async with db.transaction() as session:
                        stored = int((await session.execute(select(func.count(Answer.id)))).scalar_one())
                    if stored >= len(bodies) + len(warm):
                        break
                    await asyncio.sleep(0.05)
                recorded_after = time.perf_counter() - started
                await db.dispose()
            finally:
                await _stop(quiz)
            bare, bare_info = await _child("bare", workdir, fake=fake)
            try:
                await _load(bare_info["port"], warm, 1)
                bare_elapsed, bare_latencies, bare_failures = await _load(bare_info["port"], bodies, args.concurrency)
            finally:
                await _stop(bare)
    clicks = len(bodies)
    stored -= len(warm)
    rows = [
        "| server | clicks/s (acked) | ack latency | non-200 |",
        "|---|---|---|---|",
        f"| quiz bot (Slack adapter, {args.db}) | {clicks / elapsed:,.0f} | {summary_ms(latencies)} | {failures} |",
        f"| bare Bolt app, ack only | {clicks / bare_elapsed:,.0f} | {summary_ms(bare_latencies)} | {bare_failures} |",
    ]
    bare_p99 = percentile(bare_latencies, 99) * 1000
    checks = [
        ratio_check(
            f"clicks/s acked ({args.db})", clicks / elapsed, clicks / bare_elapsed, 0.90, reference_name="bare Bolt"
        ),
        bound_check(
            "p99 ack, over the bare Bolt app's p99",
            percentile(latencies, 99) * 1000 - bare_p99,
            50,
            "ms",
            note=f" (p99 {percentile(latencies, 99) * 1000:.0f} ms vs {bare_p99:.0f} ms)",
        ),
    ]
    if stored != clicks or failures:
        checks.append(Check("every click acked 200 and recorded", "all", f"{stored} of {clicks}", False))
    notes = [f"- answers recorded: {stored} of {clicks}, all within {recorded_after:.1f} s of the first click"]
    print("\n".join(rows + notes))
    body = (
        f"{clicks:,} signed clicks, {args.concurrency} concurrent, on {POSTS} cards, over HTTP into the Slack "
        "adapter (HTTP mode, a child process); then the same requests into a bare Bolt app that verifies the "
        "signature and only acks, served by aiohttp the same way.\n\n" + "\n".join(rows + [""] + notes)
    )
    write_section(
        "2. Slack path end to end",
        f"python -m bench.slack_path --db {args.db} --clicks {args.clicks}",
        body,
        checks,
    )


if __name__ == "__main__":
    run(main)
