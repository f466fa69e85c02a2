"""Benchmark 2: the Slack path end to end. Signed button clicks over HTTP into the real slack-bolt app of the
Slack adapter (HTTP mode), through to the recorded answer, 200 at a time; beside two bare Bolt apps served the same
way and sent the same requests in the same run: one that does the same job (bench/same_job.py: verify, one plain
INSERT, ack after the commit, the verdict to the response_url) and one that only acks (the ceiling).

    python -m bench.slack_path [--quick] [--db sqlite|postgresql|both] [--clicks 4000] [--concurrency 200]

Targets (issue 26): clicks/s >= 90% of the same-job Bolt app's, p99 <= its p99 + 50 ms, on each database; the
same two against the ack-only app are kept as the ceiling. --quick: 1,000 clicks a database.

The bot runs in a child process; this process plays Slack: it signs each request, and it serves the loopback fake
Slack Web API that the bot's private replies and card edits go to. So the bot's process pays for making its Web API
calls but not for Slack answering them, and the load generator does not share the bot's event loop.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
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
from bench.same_job import count_answers, forget_answers
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
    from bot.cli_commands import settle_heap
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
    gc.disable()  # start-up as `quizbot run` does it (bot.cli_commands.run_bot): collector off, then settle_heap
    runtime = await build_runtime(settings, migrate=False)
    await runtime.warm_up()  # as `quizbot run` does (bot.cli_commands.run_bot)
    adapter = SlackAdapter(runtime)
    settle_heap()
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


async def _serve_bolt(app: Any, ready_file: Path) -> None:
    """Serve a Bolt app's /slack/events with aiohttp on a free port of 127.0.0.1, as the Slack adapter's HTTP mode
    does; write {"port": ...} to `ready_file`, then serve until SIGTERM. Both bare reference apps run through this,
    so they differ from each other only in their listener."""
    from aiohttp import web
    from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request

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
    try:
        await stop.wait()
    finally:
        await runner.cleanup()


def _bolt_app(*, api_url: str, bot_token: str) -> Any:
    """A Bolt app that verifies signatures; its Web API client calls the fake Slack at `api_url` (which answers
    the one auth.test Bolt makes, as it does for the quiz bot)."""
    from slack_bolt.async_app import AsyncApp
    from slack_sdk.web.async_client import AsyncWebClient

    client = AsyncWebClient(token=bot_token, base_url=api_url)
    return AsyncApp(signing_secret=SIGNING_SECRET, client=client, request_verification_enabled=True)


async def serve_bare(ready_file: Path, *, api_url: str, bot_token: str) -> None:
    """Child: a bare Bolt app that verifies the signature and only acks (the ceiling)."""
    app = _bolt_app(api_url=api_url, bot_token=bot_token)

    @app.action(re.compile(r"quiz:answer:.*"))
    async def only_ack(ack: Any) -> None:
        await ack()

    await _serve_bolt(app, ready_file)


async def serve_same_job(db_url: str, ready_file: Path, *, api_url: str, bot_token: str) -> None:
    """Child: a bare Bolt app that does the bot's job for a click (bench/same_job.py): it verifies the signature,
    inserts the answer with one plain INSERT through the bot's driver and pool, acks after the commit, and posts
    the verdict privately to the click's `response_url`."""
    from bench.same_job import SameJob

    job = await SameJob.open(db_url)
    app = _bolt_app(api_url=api_url, bot_token=bot_token)

    @app.action(re.compile(r"quiz:answer:.*"))
    async def answer(ack: Any, body: dict[str, Any], action: dict[str, Any], respond: Any) -> None:
        _, _, post_id, choice = action["action_id"].split(":")
        right = await job.record(int(post_id), body["user"]["id"], int(choice))
        await ack()
        await respond(text="Correct!" if right else "Not this time.", response_type="ephemeral")

    try:
        await _serve_bolt(app, ready_file)
    finally:
        await job.close()


def _bodies(messages: list[dict[str, Any]], clicks: int, fake: FakeSlack) -> list[str]:
    """Click bodies: user n clicks posts in turn; the first POSTS * users clicks are all distinct answers. Each
    carries its own response_url, bound to its card and user (the same-job app replies through it)."""
    rng = random.Random(5)
    bodies = []
    users = max(1, clicks // len(messages))
    for n in range(users):
        for message in messages:
            buttons = [el for b in message["blocks"] if b["type"] == "actions" for el in b["elements"]]
            bodies.append(_click_body(message, rng.choice(buttons)["action_id"], n, fake))
    return bodies[:clicks]


def _warm_bodies(messages: list[dict[str, Any]], fake: FakeSlack) -> list[str]:
    """Ten clicks from users outside the measured ones, sent one at a time before the clock starts (Bolt's first
    request calls auth.test; each server gets the same warm-up)."""
    message = messages[0]
    button = next(el for b in message["blocks"] if b["type"] == "actions" for el in b["elements"])
    return [_click_body(message, button["action_id"], n, fake) for n in range(990, 1000)]


def _click_body(message: dict[str, Any], action_id: str, n: int, fake: FakeSlack) -> str:
    """User n's click on one of the message's buttons, in channel C0001, as Slack posts it."""
    return block_actions_body(
        message=message,
        action_id=action_id,
        user_id=f"U{n:05d}",
        user_name=f"user{n}",
        team_id=TEAM_ID,
        channel_id="C0001",
        response_url=fake.new_response_url(channel_id="C0001", message_ts=message["ts"], user_id=f"U{n:05d}"),
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


async def _stored(url: str, expected: int) -> tuple[int, float]:
    """How many answers are stored once `expected` are (or 30 s passed), and when, from now."""
    started = time.perf_counter()
    stored = 0
    for _ in range(600):
        stored = await count_answers(url)
        if stored >= expected:
            break
        await asyncio.sleep(0.05)
    return stored, time.perf_counter() - started


async def bench(kind: str, clicks: int, concurrency: int, workdir: Path) -> tuple[list[str], list[str], list[Check]]:
    """The quiz bot, the same-job app and the ack-only app, sent the same clicks, on one database of `kind`."""
    async with scratch_database(kind, workdir) as url, fake_slack() as fake:
        quiz, info = await _child("quiz", workdir, url, fake=fake)
        try:
            bodies = _bodies(info["messages"], clicks, fake)
            warm = _warm_bodies(info["messages"], fake)
            await _load(info["port"], warm, 1)
            elapsed, latencies, failures = await _load(info["port"], bodies, concurrency)
            stored, recorded_after = await _stored(url, len(bodies) + len(warm))
        finally:
            await _stop(quiz)
        await forget_answers(url)
        same, same_info = await _child("same", workdir, url, fake=fake)
        try:
            replies = len(fake.responses)
            await _load(same_info["port"], warm, 1)
            same_elapsed, same_latencies, same_failures = await _load(same_info["port"], bodies, concurrency)
            same_stored, _ = await _stored(url, len(bodies) + len(warm))
            for _ in range(600):  # the private replies follow the acks
                if len(fake.responses) - replies >= len(bodies) + len(warm):
                    break
                await asyncio.sleep(0.05)
            same_replies = sum(1 for r in fake.responses[replies:] if r.status == 200) - len(warm)
        finally:
            await _stop(same)
        bare, bare_info = await _child("bare", workdir, fake=fake)
        try:
            await _load(bare_info["port"], warm, 1)
            bare_elapsed, bare_latencies, bare_failures = await _load(bare_info["port"], bodies, concurrency)
        finally:
            await _stop(bare)
    stored -= len(warm)
    same_stored -= len(warm)
    rate, same_rate, bare_rate = clicks / elapsed, clicks / same_elapsed, clicks / bare_elapsed
    p99, same_p99, bare_p99 = (percentile(x, 99) * 1000 for x in (latencies, same_latencies, bare_latencies))
    rows = [
        f"| quiz bot (Slack adapter, {kind}) | {rate:,.0f} | {summary_ms(latencies)} | {failures} | "
        f"{stored} of {clicks} |",
        f"| same-job Bolt app: INSERT, ack, reply to response_url ({kind}) | {same_rate:,.0f} | "
        f"{summary_ms(same_latencies)} | {same_failures} | {same_stored} of {clicks}, {same_replies} replies |",
        f"| bare Bolt app, ack only (the ceiling) | {bare_rate:,.0f} | {summary_ms(bare_latencies)} | "
        f"{bare_failures} | |",
    ]
    checks = [
        ratio_check(f"clicks/s acked ({kind})", rate, same_rate, 0.90, reference_name="the same-job Bolt app"),
        bound_check(
            f"p99 ack, over the same-job Bolt app's p99 ({kind})",
            p99 - same_p99,
            50,
            "ms",
            note=f" (p99 {p99:.0f} ms vs {same_p99:.0f} ms)",
        ),
        ratio_check(f"clicks/s acked ({kind}), ceiling", rate, bare_rate, 0.90, reference_name="the ack-only Bolt app"),
        bound_check(
            f"p99 ack, over the ack-only Bolt app's p99 ({kind}), ceiling",
            p99 - bare_p99,
            50,
            "ms",
            note=f" (p99 {p99:.0f} ms vs {bare_p99:.0f} ms)",
        ),
    ]
    if stored != clicks or failures:
        checks.append(Check(f"every click acked 200 and recorded ({kind})", "all", f"{stored} of {clicks}", False))
    notes = []
    if same_failures:
        notes.append(
            f"- {kind}: the same-job app answered {same_failures} of {clicks} clicks with a non-200 (Bolt's answer "
            "when a listener has not acked within 3 s: these clicks queued for one of the pool's connections); it "
            f"still stored {same_stored} and replied to {same_replies}, so its rate counts their whole job and its "
            "p99 is cut at Bolt's 3 s: both flatter the reference, not the bot"
        )
    notes += [
        f"- {kind}: the bot's answers recorded: {stored} of {clicks}, within {recorded_after:.1f} s of the last ack"
    ]
    return rows, notes, checks


class _Stamped(list[dict[str, Any]]):
    """The fake's list of private replies, each stamped with when it arrived (perf_counter)."""

    def append(self, record: dict[str, Any]) -> None:
        super().append({**record, "arrived": time.perf_counter()})


LIMIT_PER_MINUTE = 100
"""chat.postEphemeral's limit in the limited run: Slack's Tier 4, "100+ per minute" per workspace, at its floor."""
VERDICT_WAIT = 30.0
"""How long after the last ack the limited run waits for the verdicts (a bot that waits out each 429's Retry-After,
up to 60 s three times, would take minutes)."""


async def limit_ephemerals(fake: FakeSlack, warm: int) -> int:
    """Once the `warm` warm-up clicks' verdicts have arrived, limit chat.postEphemeral to LIMIT_PER_MINUTE calls a
    minute in the workspace; how many private replies the fake holds by then (the burst's come after them)."""
    for _ in range(600):
        if len(fake.ephemeral) >= warm:
            break
        await asyncio.sleep(0.05)
    fake.enable_rate_limits(
        per_channel_per_second=None, workspace_per_minute=LIMIT_PER_MINUTE, workspace_methods=("chat.postEphemeral",)
    )
    return len(fake.ephemeral)


async def limited_verdicts(clicks: int, concurrency: int, workdir: Path) -> tuple[list[str], list[Check]]:
    """The quiz bot sent a burst of clicks while Slack limits chat.postEphemeral to LIMIT_PER_MINUTE a workspace
    (SQLite): how many verdicts reach their clickers, how soon after the last ack, and by which way."""
    async with scratch_database("sqlite", workdir) as url, fake_slack() as fake:
        fake.ephemeral = _Stamped()
        quiz, info = await _child("quiz", workdir, url, fake=fake)
        try:
            bodies = _bodies(info["messages"], clicks, fake)
            warm = _warm_bodies(info["messages"], fake)
            await _load(info["port"], warm, 1)
            first = await limit_ephemerals(fake, len(warm))
            expected = first + len(bodies)
            elapsed, latencies, failures = await _load(info["port"], bodies, concurrency)
            last_ack = time.perf_counter()
            for _ in range(int(VERDICT_WAIT / 0.05)):  # the verdicts follow the acks
                if len(fake.ephemeral) >= expected:
                    break
                await asyncio.sleep(0.05)
        finally:
            await _stop(quiz)
    verdicts = fake.ephemeral[first:]
    after = [max(0.0, v["arrived"] - last_ack) for v in verdicts]
    by_url = sum(1 for v in verdicts if v["source"] == "response_url")
    calls = fake.calls_to("chat.postEphemeral")
    refused = sum(1 for c in calls if c.status == 429)
    last = f"{max(after):.2f} s" if after else "none arrived"
    rows = [
        "| figure | measured |",
        "|---|---|",
        f"| clicks acked | {clicks - failures} of {clicks} at {clicks / elapsed:,.0f}/s, {summary_ms(latencies)} |",
        f"| verdicts delivered within {VERDICT_WAIT:.0f} s of the last ack | {len(verdicts)} of {clicks} |",
        f"| the last verdict, after the last ack | {last} |",
        f"| by chat.postEphemeral / by the click's response_url | {len(verdicts) - by_url} / {by_url} |",
        f"| chat.postEphemeral calls (refused with 429) | {len(calls)} ({refused}) |",
    ]
    figure = (
        f"every verdict of a burst past chat.postEphemeral's limit ({LIMIT_PER_MINUTE} a minute) delivered, "
        "after the last ack"
    )
    if len(verdicts) == clicks:
        check = bound_check(figure, max(after), 5, "s", note=f" ({clicks} of {clicks} delivered)")
    else:
        measured = f"over {VERDICT_WAIT:.0f} s: {len(verdicts)} of {clicks} delivered within it"
        check = Check(figure, "<= 5 s", measured, False)
    return rows, [check]


async def main() -> None:
    """Run the quiz path, the same-job Bolt app and the ack-only Bolt app with the same requests; print, record."""
    parser = argparse.ArgumentParser()
    quick_or_full(parser)
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--clicks", type=int)
    parser.add_argument("--concurrency", type=int, default=200)
    parser.add_argument("--serve", choices=["quiz", "replica", "bare", "same"], help=argparse.SUPPRESS)
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
    if args.serve == "same":
        await serve_same_job(args.db_url, args.ready, api_url=args.api_url, bot_token=args.bot_token)
        return

    args.clicks = args.clicks or (1000 if args.quick else 4000)
    rows = [
        "| server | clicks/s (acked) | ack latency | non-200 | answers stored |",
        "|---|---|---|---|---|",
    ]
    notes: list[str] = []
    checks: list[Check] = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ["sqlite", "postgresql"] if args.db == "both" else [args.db]:
            kind_rows, kind_notes, kind_checks = await bench(kind, args.clicks, args.concurrency, Path(tmp))
            rows += kind_rows
            notes += kind_notes
            checks += kind_checks
            print("\n".join(rows + notes), flush=True)
        limited_rows, limited_checks = await limited_verdicts(args.clicks, args.concurrency, Path(tmp))
        checks += limited_checks
        print("\n".join(limited_rows), flush=True)
    body = (
        f"{args.clicks:,} signed clicks, {args.concurrency} concurrent, on {POSTS} cards, over HTTP into the Slack "
        "adapter (HTTP mode, a child process); then the same requests into two bare Bolt apps served by aiohttp "
        "the same way, each a child process: the same-job app (bench/same_job.py: verifies the signature, inserts "
        "the answer with one plain INSERT through the bot's driver and pool, acks after the commit, posts the "
        "verdict to the click's response_url), run on the bot's database with its answers deleted; and the "
        "ack-only app (verifies the signature and acks: the ceiling). The targets are against the same-job app; "
        "the ceiling rows are shown for scale. Each after the same 10 warm-up clicks.\n\n"
        + "\n".join([*rows, "", *notes])
        + "\n\nA burst past Slack's limit on the private verdicts: the same clicks into the bot on SQLite while the "
        f"fake Slack answers chat.postEphemeral 429 past {LIMIT_PER_MINUTE} calls a minute in the workspace (Tier 4's "
        "floor; its Retry-After is the wait for the next slot, up to 60 s).\n\n" + "\n".join(limited_rows)
    )
    write_section(
        "2. Slack path end to end",
        f"python -m bench.slack_path --db {args.db} --clicks {args.clicks}" + (" --quick" if args.quick else ""),
        body,
        checks,
    )


if __name__ == "__main__":
    run(main)
