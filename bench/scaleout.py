"""Benchmark 10: scale-out. The Slack adapter in HTTP mode as 2 processes on one PostgreSQL database behind a
loopback round-robin load balancer (bench/lb.py), against 1 process behind the same balancer, sent the same
number of signed clicks with the same concurrency, measured in the same run.

    python -m bench.scaleout [--quick] [--clicks 3000] [--concurrency 200]

Reported: clicks/s (acked) of each, the ratio (target >= 1.6x on this 2-core machine), every click recorded, the
cores used (the CPU seconds the bot processes, the balancer, PostgreSQL and this load generator spent during the
run, divided by its length, from /proc), and the clicks per busy core-second (issue 26: 2 processes at >= 90% of 1
process's), counting the CPU of the bots and of their PostgreSQL backends only, with each one's CPU a click.
Each process count runs twice, in the order 1, 2, 2, 1, and its row sums both runs (3,000 clicks a run; --quick
1,500: a quick run used to be 1, then 2, once each, about a second a run, and one run each way was too short to
tell the scale-out from the machine's drift).

Every replica calls the one loopback fake Slack Web API, which this process serves (it plays Slack, as in
bench.slack_path); the first replica posts the cards, and card count edits are off in every replica, so that
the figure is the click path's.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import text

from bench.common import PATIENT, Check, child_env, quick_or_full, run, scratch_database, summary_ms, write_section
from bench.slack_path import _bodies, _child, _load, _stop, _stored, _warm_bodies, fake_slack
from bot.db import Database

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids: list[int]) -> float:
    """utime + stime of the processes (and their waited-for children), in seconds."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(v) for v in fields[11:15])  # utime, stime, cutime, cstime
    return total / TICKS


def postgres_pids() -> list[int]:
    """The PostgreSQL server's processes (to count the cores the database used)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text(encoding="ascii").strip() in ("postgres", "postmaster"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@asynccontextmanager
async def stopping(children: list[tuple[asyncio.subprocess.Process, dict[str, Any]]]) -> AsyncIterator[None]:
    """Every bot process in `children` when the block ends (those added inside it too) is stopped, however it ends."""
    try:
        yield
    finally:
        for process, _ in children:
            await _stop(process)


@asynccontextmanager
async def balancer(
    workdir: Path, children: list[tuple[asyncio.subprocess.Process, dict[str, Any]]], name: str
) -> AsyncIterator[tuple[asyncio.subprocess.Process, int]]:
    """The loopback round-robin balancer (bench/lb.py) in front of the bot processes `children`: its process and
    port, stopped when the block ends."""
    ready = workdir / f"lb-{name}.port"
    ready.unlink(missing_ok=True)  # a run before this one with as many processes left its port here
    backends = ",".join(f"127.0.0.1:{info['port']}" for _, info in children)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.lb", "--backends", backends, "--ready", str(ready), env=child_env()
    )
    try:
        for _ in range(600):
            if ready.exists() and ready.read_text(encoding="ascii"):
                break
            await asyncio.sleep(0.02)
        else:
            raise RuntimeError("the balancer did not start")
        yield process, int(ready.read_text(encoding="ascii"))
    finally:
        process.send_signal(signal.SIGTERM)
        await process.wait()


async def database_backends(url: str) -> set[int]:
    """The PostgreSQL backends serving the database at `url` (the bots' pooled connections), not this query's."""
    db = Database.from_url(url, timeouts=PATIENT)
    try:
        async with db.engine.connect() as conn:
            query = text(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            return {int(pid) for (pid,) in await conn.execute(query)}
    finally:
        await db.dispose()


async def bench(replicas: int, clicks: int, concurrency: int, workdir: Path) -> dict[str, object]:
    """One run: `replicas` bot processes behind the balancer on a fresh PostgreSQL database."""
    async with scratch_database("postgresql", workdir) as url, fake_slack() as fake:
        children: list[tuple[asyncio.subprocess.Process, dict[str, Any]]] = []
        async with stopping(children):
            first, info = await _child("quiz", workdir, url, f"r{replicas}-0", "--no-card-updates", fake=fake)
            children.append((first, info))
            for n in range(1, replicas):
                children.append(
                    await _child("replica", workdir, url, f"r{replicas}-{n}", "--no-card-updates", fake=fake)
                )
            async with balancer(workdir, children, str(replicas)) as (lb, port):
                bodies = _bodies(info["messages"], clicks, fake)
                warm = _warm_bodies(info["messages"], fake)
                await _load(port, warm, 2 * replicas)
                bots = [p.pid for p, _ in children]
                idle_before, idle_started = cpu_seconds(bots), time.perf_counter()
                await asyncio.sleep(IDLE_SECONDS)  # the bots' CPU with no click: their background (timers, polls)
                idle_rate = (cpu_seconds(bots) - idle_before) / (time.perf_counter() - idle_started)
                pids = [p.pid for p, _ in children] + [lb.pid, os.getpid()] + postgres_pids()
                backends = await database_backends(url)
                bot_before = cpu_seconds(bots)
                backend_before = {pid: cpu_seconds([pid]) for pid in backends}
                cpu_before, started = cpu_seconds(pids), time.perf_counter()
                elapsed, latencies, failures = await _load(port, bodies, concurrency)
                cores = (cpu_seconds(pids) - cpu_before) / (time.perf_counter() - started)
                bot_cpu = cpu_seconds(bots) - bot_before
                backends |= await database_backends(url)
                backend_cpu = sum(cpu_seconds([pid]) - backend_before.get(pid, 0.0) for pid in backends)
                stored = (await _stored(url, len(bodies) + len(warm)))[0] - len(warm)
    return {
        "elapsed": elapsed,
        "latencies": latencies,
        "failures": failures,
        "stored": stored,
        "clicks": len(bodies),
        "cores": cores,
        "bot_cpu": bot_cpu,
        "backend_cpu": backend_cpu,
        "idle_cpu": idle_rate * elapsed,
    }


IDLE_SECONDS = 2.0
"""How long the bots' idle CPU is measured before each run's clicks."""

ORDER = (1, 2, 2, 1)
"""The runs, in turn: each process count twice, in an ABBA order, so a change of load over the run cancels out."""


def _pooled(results: list[dict[str, object]]) -> dict[str, object]:
    """The runs of one process count as one: clicks, CPU and time summed, latencies together."""
    elapsed = sum(float(r["elapsed"]) for r in results)  # type: ignore[arg-type]
    clicks = sum(int(r["clicks"]) for r in results)  # type: ignore[call-overload]
    latencies = [x for r in results for x in r["latencies"]]  # type: ignore[attr-defined]
    return {
        "rate": clicks / elapsed,
        "latency": summary_ms(latencies),
        "failures": sum(int(r["failures"]) for r in results),  # type: ignore[call-overload]
        "stored": sum(int(r["stored"]) for r in results),  # type: ignore[call-overload]
        "clicks": clicks,
        "cores": sum(float(r["cores"]) * float(r["elapsed"]) for r in results) / elapsed,  # type: ignore[arg-type]
        "bot_cpu": sum(float(r["bot_cpu"]) for r in results),  # type: ignore[arg-type]
        "backend_cpu": sum(float(r["backend_cpu"]) for r in results),  # type: ignore[arg-type]
        "idle_cpu": sum(float(r["idle_cpu"]) for r in results),  # type: ignore[arg-type]
    }


async def main() -> None:
    """One replica and two, twice each in ABBA order, with the same clicks; record."""
    parser = argparse.ArgumentParser()
    quick_or_full(parser)
    parser.add_argument("--clicks", type=int)
    parser.add_argument("--concurrency", type=int, default=200)
    args = parser.parse_args()
    clicks = args.clicks or (1500 if args.quick else 3000)
    runs: dict[int, list[dict[str, object]]] = {1: [], 2: []}
    with tempfile.TemporaryDirectory() as tmp:
        for replicas in ORDER:  # 1, 2, 2, 1: a load drift falls on both alike
            runs[replicas].append(await bench(replicas, clicks, args.concurrency, Path(tmp)))
    one, two = _pooled(runs[1]), _pooled(runs[2])
    rows = [
        "| processes | clicks/s (acked) | ack latency | non-200 | recorded | cores used | bot CPU a click | "
        "PostgreSQL CPU a click | clicks per busy core-second | the bots' idle CPU over the run, a click |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    per_core: dict[int, float] = {}
    net: dict[int, float] = {}
    for n, result in ((1, one), (2, two)):
        clicks_done = float(result["clicks"])  # type: ignore[arg-type]
        bot_cpu, backend_cpu = float(result["bot_cpu"]), float(result["backend_cpu"])  # type: ignore[arg-type]
        idle_cpu = float(result["idle_cpu"])  # type: ignore[arg-type]
        per_core[n] = clicks_done / (bot_cpu + backend_cpu) if bot_cpu + backend_cpu else float("nan")
        net[n] = clicks_done / max(bot_cpu + backend_cpu - idle_cpu, 1e-9)
        rows.append(
            f"| {n} | {result['rate']:,.0f} | {result['latency']} | {result['failures']} | "
            f"{result['stored']} of {result['clicks']} | {result['cores']:.2f} of {os.cpu_count()} | "
            f"{bot_cpu / clicks_done * 1000:.2f} ms | {backend_cpu / clicks_done * 1000:.2f} ms | {per_core[n]:,.0f} | "
            f"{idle_cpu / clicks_done * 1000:.3f} ms |"
        )
    ratio = float(two["rate"]) / float(one["rate"])  # type: ignore[arg-type]
    checks = [
        Check(
            "2 processes / 1 process, clicks/s (Slack HTTP, one PostgreSQL)",
            ">= 1.6x",
            f"{two['rate']:,.0f}/s vs {one['rate']:,.0f}/s: {ratio:.2f}x "
            f"({two['cores']:.2f} vs {one['cores']:.2f} cores used of {os.cpu_count()})",
            ratio >= 1.6,
        )
    ]
    efficiency = per_core[2] / per_core[1]
    checks.append(
        Check(
            "2 processes: clicks per busy core-second over 1 process's (bots and their PostgreSQL backends)",
            ">= 90%",
            f"{per_core[2]:,.0f} vs {per_core[1]:,.0f} clicks per busy core-second: {efficiency:.0%}",
            efficiency >= 0.90,
        )
    )
    if one["stored"] != one["clicks"] or two["stored"] != two["clicks"]:
        checks.append(Check("every click recorded", "all", f"{one['stored']}, {two['stored']}", False))
    body = (
        f"{clicks:,} signed clicks a run, {args.concurrency} concurrent, through a loopback round-robin balancer "
        "(bench/lb.py, one connection to one replica) into 1 or 2 `SlackAdapter` processes in HTTP mode on one "
        "PostgreSQL database, each run started fresh on a new database; "
        + "four runs, 1, 2, 2 and 1 processes (ABBA, so a drift of the shared machine's load falls on both), "
        "each row the sum of its two runs. "
        "Cores used: CPU seconds of the replicas, the "
        "balancer, PostgreSQL (every postgres process on the machine, so other users of the shared server count "
        "too) and the load generator during the run, over its length. Busy core-seconds: the CPU seconds of the "
        "bot processes and of the PostgreSQL backends serving the run's database (pg_stat_activity; not the "
        "balancer or the load generator, which stand for Slack), so a shared machine's other users do not count; "
        "clicks per busy core-second is the clicks over them, and its ratio between 2 processes and 1 is the "
        "per-core efficiency of scaling out. The bots' idle CPU is each bot's CPU in the "
        f"{IDLE_SECONDS:.0f} s before its clicks (timers and polls, no click), times the run's length: what a "
        "process costs whether or not it serves a click, and what a second process adds.\n\n"
        + "\n".join(rows)
        + f"\n\n- net of the bots' idle CPU, 2 processes serve {net[2]:,.0f} clicks per busy core-second against "
        f"{net[1]:,.0f} for 1: {net[2] / net[1]:.0%}"
    )
    print(body)
    write_section(
        "10. Scale-out: Slack HTTP mode, 2 processes",
        f"python -m bench.scaleout --clicks {clicks}" + (" --quick" if args.quick else ""),
        body,
        checks,
    )


if __name__ == "__main__":
    run(main)
