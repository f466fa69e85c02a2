"""Benchmark 17: a daily question's burst. What issue 26's capacity model predicts, run: a 100,000-member community's
daily question draws 20,000 clicks in 60 s (333 a second), each from a different member, all on the one card; two
Slack processes in HTTP mode on one PostgreSQL database behind the loopback round-robin balancer (bench/lb.py),
while the fake Slack limits chat.postEphemeral to 100 calls a minute in the workspace (Tier 4's floor), as Slack
would during such a burst, and card count edits run as in production.

    python -m bench.daily_burst [--quick] [--replicas 2] [--rate 333] [--seconds 60]

The clicks are sent at the offered rate, each at its own time (an open loop: a slow bot does not slow the sender),
signed before the clock starts. Reported: whether the bots kept up (answers stored at the offered rate, every click
acked 200), the ack latency (what Slack waits for: it gives up at 3 s), how soon each clicker's verdict arrived
after their click and by which way (chat.postEphemeral, or the click's response_url once the method is limited),
the cores the bots and their PostgreSQL backends used (from /proc), and the most connections the database saw.
--quick: 20 s at the same rate (6,660 clicks).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
from sqlalchemy import text

from bench.common import (
    PATIENT,
    Check,
    bound_check,
    percentile,
    quick_or_full,
    run,
    scratch_database,
    write_section,
)
from bench.scaleout import balancer, cpu_seconds, database_backends, stopping
from bench.slack_path import (
    LIMIT_PER_MINUTE,
    _child,
    _load,
    _Stamped,
    _stored,
    _warm_bodies,
    fake_slack,
    limit_ephemerals,
)
from bot.db import Database
from tests.fakes.slack_api import SIGNING_SECRET, TEAM_ID, FakeSlack, block_actions_body, signed_headers

ACK_DEADLINE = 3.0
"""Slack's: a click not acknowledged within 3 s is shown to its clicker as failed."""
VERDICT_TARGET = 5.0
"""Seconds from a click to its private verdict, at most, for the burst to count as served."""


def _bodies(message: dict[str, Any], clicks: int, fake: FakeSlack) -> list[tuple[str, bytes, dict[str, str]]]:
    """(user, signed body, headers) of one click by each of `clicks` members on the card, a member a click."""
    buttons = [el for b in message["blocks"] if b["type"] == "actions" for el in b["elements"]]
    bodies = []
    for n in range(clicks):
        user = f"M{n:06d}"
        fake.add_user(user, f"member{n}", join_channels=True)
        body = block_actions_body(
            message=message,
            action_id=buttons[n % len(buttons)]["action_id"],
            user_id=user,
            user_name=f"member{n}",
            team_id=TEAM_ID,
            channel_id="C0001",
            response_url=fake.new_response_url(channel_id="C0001", message_ts=message["ts"], user_id=user),
        )
        headers = {"Content-Type": "application/x-www-form-urlencoded", **signed_headers(SIGNING_SECRET, body)}
        bodies.append((user, body.encode(), headers))
    return bodies


async def _send(
    port: int, bodies: list[tuple[str, bytes, dict[str, str]]], rate: float
) -> tuple[dict[str, float], dict[str, float], int, float]:
    """Send each click at its own time (click i at i / rate s): when each user's click was sent, its ack latency,
    the non-200 answers, and the seconds from the first send to the last ack."""
    url = f"http://127.0.0.1:{port}/slack/events"
    sent: dict[str, float] = {}
    acked: dict[str, float] = {}
    failures = 0
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def click(due: float, user: str, data: bytes, headers: dict[str, str]) -> None:
            nonlocal failures
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            started = sent[user] = time.perf_counter()
            try:
                async with session.post(url, data=data, headers=headers) as response:
                    await response.read()
                    failures += response.status != 200
            except aiohttp.ClientError:
                failures += 1
            acked[user] = time.perf_counter() - started

        start = time.perf_counter() + 0.5
        tasks = [
            asyncio.create_task(click(start + i / rate, user, data, headers))
            for i, (user, data, headers) in enumerate(bodies)
        ]
        await asyncio.gather(*tasks)
        return sent, acked, failures, time.perf_counter() - start


def _by_time(sent: dict[str, float], acked: dict[str, float], width: float) -> list[list[float]]:
    """The ack latencies in slices of `width` seconds of send time, in order."""
    first = min(sent.values())
    slices: dict[int, list[float]] = {}
    for user, latency in acked.items():
        slices.setdefault(int((sent[user] - first) // width), []).append(latency)
    return [slices[n] for n in sorted(slices)]


async def _late_acks(port: int) -> int:
    """quizbot_late_acks_total of the replica serving on `port`: clicks acked at its deadline, before the commit."""
    async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{port}/metrics") as response:
        lines = (await response.text()).splitlines()
    return sum(int(float(line.split()[-1])) for line in lines if line.startswith("quizbot_late_acks_total"))


async def _connections(url: str, stop: asyncio.Event) -> int:
    """The most connections the database had (its pooled ones and this sampler's), sampled every 0.25 s."""
    db = Database.from_url(url, timeouts=PATIENT)
    most = 0
    try:
        async with db.engine.connect() as conn:
            query = text("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")
            while not stop.is_set():
                most = max(most, int((await conn.execute(query)).scalar_one()) - 1)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), 0.25)
    finally:
        await db.dispose()
    return most


async def _seed_members(url: str, members: int) -> None:
    """`members` people of the workspace who have answered in the channel before (M000000, M000001, ...: the
    burst's clickers are the first of them), with their all-time totals in the workspace and the channel, so the
    channel's board is a community's, not an empty one."""
    db = Database.from_url(url, timeouts=PATIENT)
    try:
        async with db.engine.begin() as conn:
            channel, workspace = (
                await conn.execute(text("SELECT id, workspace_id FROM channels WHERE external_id = 'C0001'"))
            ).one()
            await conn.execute(
                text(
                    "INSERT INTO users (workspace_id, external_id, display_name, created_at) "
                    "SELECT :workspace, 'M' || lpad(g::text, 6, '0'), 'member' || g, now() "
                    "FROM generate_series(0, :members - 1) AS g"
                ),
                {"workspace": workspace, "members": members},
            )
            totals = (
                "SELECT id, {place}, 10 * c, c, a FROM (SELECT id, a, (random() * a)::int AS c FROM ("
                "SELECT id, (random() * 60)::int + 1 AS a FROM users "
                "WHERE workspace_id = :workspace AND external_id LIKE 'M%') AS m) AS t"
            )
            for table, place in (("user_scores", ":workspace"), ("channel_scores", ":channel")):
                columns = "user_id, workspace_id" if table == "user_scores" else "user_id, channel_id"
                await conn.execute(
                    text(f"INSERT INTO {table} ({columns}, points, correct, answered) {totals.format(place=place)}"),
                    {"workspace": workspace, "channel": channel},
                )
        async with db.engine.connect() as conn:
            await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.execute(text("ANALYZE"))
    finally:
        await db.dispose()


async def bench(
    replicas: int, rate: float, seconds: float, members: int, workdir: Path
) -> tuple[list[str], list[Check]]:
    """One burst: `replicas` bot processes behind the balancer on a fresh PostgreSQL database whose channel has
    `members` members with a history (the clickers among them)."""
    clicks = int(rate * seconds)
    async with scratch_database("postgresql", workdir) as url, fake_slack() as fake:
        fake.ephemeral = _Stamped()
        children = [await _child("quiz", workdir, url, "burst-0", fake=fake)]
        async with stopping(children):
            await _seed_members(url, max(members, clicks))
            for n in range(1, replicas):
                children.append(await _child("replica", workdir, url, f"burst-{n}", fake=fake))
            async with balancer(workdir, children, "burst") as (lb, port):
                card = children[0][1]["messages"][0]
                warm = _warm_bodies([card], fake)
                await _load(port, warm, 2 * replicas)
                bodies = _bodies(card, clicks, fake)
                first = await limit_ephemerals(fake, len(warm))
                bots = [process.pid for process, _ in children]
                backends = await database_backends(url)
                bot_before = cpu_seconds(bots)
                others = {"balancer": [lb.pid], "load generator and fake Slack": [os.getpid()]}
                others_before = {name: cpu_seconds(pids) for name, pids in others.items()}
                backend_before = {pid: cpu_seconds([pid]) for pid in backends}
                stop = asyncio.Event()
                sampler = asyncio.create_task(_connections(url, stop))
                sent, acked, failures, elapsed = await _send(port, bodies, rate)
                bot_cpu = cpu_seconds(bots) - bot_before
                others_cpu = {name: cpu_seconds(pids) - others_before[name] for name, pids in others.items()}
                backends |= await database_backends(url)
                backend_cpu = sum(cpu_seconds([pid]) - backend_before.get(pid, 0.0) for pid in backends)
                last_ack = time.perf_counter()
                for _ in range(int(VERDICT_TARGET * 4 / 0.05)):  # the verdicts follow the acks
                    if len(fake.ephemeral) - first >= clicks:
                        break
                    await asyncio.sleep(0.05)
                stop.set()
                connections = await sampler
                # A click acked late (past the bot's deadline) is stored after its ack.
                stored = (await _stored(url, clicks + len(warm)))[0] - len(warm)
                late = sum([await _late_acks(info["port"]) for _, info in children])
    latencies = list(acked.values())
    verdicts = [v for v in fake.ephemeral[first:] if v["user"] in sent]
    waits = [v["arrived"] - sent[v["user"]] for v in verdicts]
    by_url = sum(1 for v in verdicts if v["source"] == "response_url")
    refused = sum(1 for c in fake.calls_to("chat.postEphemeral") if c.status == 429)
    after = max(0.0, max((v["arrived"] for v in verdicts), default=last_ack) - last_ack)
    p99_ack, p99_verdict = percentile(latencies, 99), percentile(waits, 99) if waits else float("inf")
    rows = [
        "| figure | measured |",
        "|---|---|",
        f"| offered | {clicks:,} clicks by {clicks:,} members on one card, {rate:,.0f}/s for {seconds:.0f} s; the "
        f"channel's all-time board has {max(members, clicks):,} members |",
        f"| acked 200 | {clicks - failures:,} of {clicks:,}; the last ack {elapsed:.1f} s after the first send |",
        f"| answers stored | {stored:,} of {clicks:,}; {late:,} clicks acked at the bot's deadline, before their "
        "commit (quizbot_late_acks_total) |",
        f"| ack latency | p50 {percentile(latencies, 50) * 1000:.0f} ms, p99 {p99_ack * 1000:.0f} ms, "
        f"max {max(latencies) * 1000:.0f} ms |",
        f"| verdicts delivered, after their click | {len(verdicts):,} of {clicks:,}; p50 "
        f"{percentile(waits, 50) * 1000:.0f} ms, p99 {p99_verdict * 1000:.0f} ms; the last {after:.2f} s after "
        "the last ack |"
        if waits
        else f"| verdicts delivered | none of {clicks:,} |",
        f"| by chat.postEphemeral / by the click's response_url | {len(verdicts) - by_url:,} / {by_url:,} "
        f"({refused:,} chat.postEphemeral calls refused with 429) |",
        f"| bot CPU ({replicas} processes) | {bot_cpu:.1f} s: {bot_cpu / elapsed:.2f} cores, "
        f"{bot_cpu / clicks * 1000:.2f} ms a click |",
        f"| their PostgreSQL backends' CPU | {backend_cpu:.1f} s: {backend_cpu / elapsed:.2f} cores, "
        f"{backend_cpu / clicks * 1000:.3f} ms a click |",
        *(f"| {name}'s CPU | {cpu:.1f} s: {cpu / elapsed:.2f} cores |" for name, cpu in others_cpu.items()),
        f"| database connections, most at once | {connections} |",
        "| ack latency p99 by 5 s of the burst | "
        + ", ".join(f"{percentile(part, 99) * 1000:.0f} ms" for part in _by_time(sent, acked, 5.0))
        + " |",
    ]
    kept_up = stored == clicks and failures == 0 and elapsed <= seconds * 1.05 + ACK_DEADLINE
    checks = [
        Check(
            f"a daily question's burst ({rate:,.0f} clicks/s for {seconds:.0f} s, {replicas} processes): every "
            "click acked 200 and stored, at the offered rate",
            "all, within the burst",
            f"{stored:,} of {clicks:,} stored, {failures:,} non-200, last ack at {elapsed:.1f} s",
            kept_up,
        ),
        bound_check("the burst's p99 ack", p99_ack, ACK_DEADLINE, "s", note=" (Slack gives up at 3 s)"),
        bound_check(
            "the burst's p99 verdict after its click",
            p99_verdict,
            VERDICT_TARGET,
            "s",
            note=f" ({len(verdicts):,} of {clicks:,} delivered)",
        ),
    ]
    return rows, checks


async def main() -> None:
    """Run the burst; print and record it."""
    parser = argparse.ArgumentParser()
    quick_or_full(parser)
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--rate", type=float, default=333.0)
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--members", type=int, help="members with a history in the channel (the clickers among them)")
    args = parser.parse_args()
    seconds = args.seconds or (20.0 if args.quick else 60.0)
    members = args.members or (20_000 if args.quick else 100_000)
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        rows, checks = await bench(args.replicas, args.rate, seconds, members, Path(tmp))
        print("\n".join(rows), flush=True)
    body = (
        f"A daily question's burst, run: {args.rate:,.0f} signed clicks a second for {seconds:.0f} s, each by a "
        f"different member of the {members:,} with a history in the channel (their totals seeded before the burst), "
        f"on one card, sent each at its own time (an open loop) into {args.replicas} Slack "
        "processes (HTTP mode) on one PostgreSQL database behind the loopback round-robin balancer; card count edits "
        f"on; the fake Slack limits chat.postEphemeral to {LIMIT_PER_MINUTE} calls a minute in the workspace (Tier "
        "4's floor) and serves the response_urls. CPU from /proc: the bots, and their PostgreSQL backends (from "
        "pg_stat_activity). The load generator, the balancer and the fake Slack share the same 2 cores. "
        f"({time.perf_counter() - started:.0f} s in all.)\n\n" + "\n".join(rows)
    )
    write_section(
        "17. A daily question's burst (Slack, 2 processes, PostgreSQL)",
        f"python -m bench.daily_burst --replicas {args.replicas} --rate {args.rate:g} --seconds {seconds:g} "
        f"--members {members}" + (" --quick" if args.quick else ""),
        body,
        checks,
    )


if __name__ == "__main__":
    run(main)
