"""Shared helpers of the benchmarks: databases to run on, timing, percentiles, checks, and writing RESULTS.md.

The convention every benchmark in bench/ follows:
- `python -m bench.<name> [--quick]`: full sizes by default, `--quick` the sizes `make bench` uses;
- the reference is a real program measured in the same run (or back to back), on the same database;
- it ends with one `write_section(title, command, body, checks)`: its section of RESULTS.md, with the machine, the
  date, the command, a table of `Check`s (figure, target, measured beside its reference, met or missed) and the
  full figures; the summary at the top of RESULTS.md is regenerated from every section's checks;
- a missed target is reported, not failed (exit status 0).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from bot.db import Database
from bot.db.migrate import upgrade
from bot.timeouts import DatabaseTimeouts

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "RESULTS.md"
POSTGRES_ADMIN_URL = os.environ.get(
    "QUIZBOT_BENCH_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
)


PATIENT = DatabaseTimeouts(connect=10.0).unbounded_statements()
"""For a bench's own connections (seeding, counting, sampling): it measures the bots' waits, not its own (on a busy
machine PostgreSQL can take over a second to accept a connection)."""


@contextmanager
def harness_collector_paused() -> Iterator[None]:
    """The bench's own process (a fake platform and the load generator, measuring a bot in another process) does not
    collect garbage inside the block: its full collections, over the fake's records of every click so far, paused its
    event loop for up to 0.9 s (measured with gc.callbacks, 2026-12-06), and every click in flight then, whichever
    client was being measured, took that much longer. Collected once before; the block's garbage waits for after."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0..100) of values, nearest-rank."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def summary_ms(latencies: list[float]) -> str:
    """p50 / p99 / max of latencies in seconds, as milliseconds."""
    return (
        f"p50 {percentile(latencies, 50) * 1000:.1f} ms, p99 {percentile(latencies, 99) * 1000:.1f} ms, "
        f"max {max(latencies) * 1000:.1f} ms, mean {statistics.fmean(latencies) * 1000:.1f} ms"
    )


@asynccontextmanager
async def scratch_database(kind: str, workdir: Path) -> AsyncIterator[str]:
    """A migrated, empty database of `kind` ('sqlite' or 'postgresql'), dropped afterwards."""
    if kind == "sqlite":
        path = workdir / f"bench-{uuid.uuid4().hex[:8]}.db"
        url = f"sqlite+aiosqlite:///{path}"
        await _migrate(url)
        try:
            yield url
        finally:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
        return
    name = f"quizbot_bench_{uuid.uuid4().hex[:10]}"
    admin = create_async_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = POSTGRES_ADMIN_URL.rpartition("/")[0] + f"/{name}"
    try:
        await _migrate(url)
        yield url
    finally:
        async with admin.connect() as conn:
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        await admin.dispose()


async def _migrate(url: str) -> None:
    db = Database.from_url(url)
    try:
        await upgrade(db)
    finally:
        await db.dispose()


def machine() -> str:
    """One line on the machine: CPU count, memory, Python, PostgreSQL."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            mem_kb = int(handle.readline().split()[1])
    except OSError:
        mem_kb = 0
    try:
        pg = subprocess.run(["psql", "--version"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        pg = "psql not found"
    return (
        f"{os.cpu_count()} cores, {mem_kb / 1024 / 1024:.0f} GiB, {platform.machine()}, "
        f"Python {platform.python_version()}, {pg}"
    )


@dataclass(frozen=True)
class Check:
    """One row of the targets table: a figure, its target, what was measured (with its reference), met or not.

    A missed target is reported, never failed: the benchmarks exit 0 either way.
    """

    figure: str
    target: str
    measured: str
    met: bool


def ratio_check(
    figure: str,
    value: float,
    reference: float,
    at_least: float,
    *,
    unit: str = "/s",
    reference_name: str = "reference",
) -> Check:
    """value / reference >= at_least (a rate compared with its reference measured in the same run)."""
    ratio = value / reference if reference else float("nan")
    return Check(
        figure,
        f">= {at_least:.0%} of {reference_name}",
        f"{value:,.0f}{unit} vs {reference:,.0f}{unit}: {ratio:.0%}",
        ratio >= at_least,
    )


def speedup_check(figure: str, seconds: float, reference_seconds: float, at_least: float, reference_name: str) -> Check:
    """reference / value >= at_least (how many times faster than the reference measured in the same run)."""
    speedup = reference_seconds / seconds if seconds else float("inf")
    return Check(
        figure,
        f">= {at_least:g}x faster than {reference_name}",
        f"{seconds * 1000:.2f} ms vs {reference_seconds * 1000:.1f} ms: {speedup:,.1f}x",
        speedup >= at_least,
    )


def bound_check(figure: str, value: float, at_most: float, unit: str, *, note: str = "") -> Check:
    """value <= at_most (an absolute bound: a latency, a size, a time)."""
    return Check(figure, f"<= {at_most:g} {unit}", f"{value:,.1f} {unit}{note}", value <= at_most)


def checks_table(checks: Sequence[Check]) -> str:
    """The checks as a markdown table."""
    lines = ["| figure | target | measured (reference in the same run) | verdict |", "|---|---|---|---|"]
    lines += [f"| {c.figure} | {c.target} | {c.measured} | {'met' if c.met else '**missed**'} |" for c in checks]
    return "\n".join(lines)


_CHECKS_MARK = "<!-- checks: "
_SUMMARY = "## Summary: targets met and missed"
_HEAD = """# Benchmark results

Each section below is written by one benchmark (`make bench` runs them all in quick mode, `make bench FULL=1` at
full size; see docs/development/benchmarks.md), and kept once per size: the "(quick)" and "(full)" sections
of a benchmark stand side by side, each with its date, the machine's load average and the host's speed (a fixed
Python loop's time, `host_speed`). Every target is a ratio to a reference measured in the same run, on the same
database, with the same concurrency, or an absolute bound: the machine is shared and absolute rates move 3-4x
between runs (the host speed says how fast the host ran), while ratios hold. A missed target is reported here,
not failed. The summary is regenerated from the sections each time one is written.
"""


def _section_key(section: str) -> tuple[int, str]:
    title = section.splitlines()[0][3:]
    number = title.split(".", 1)[0]
    return (int(number) if number.isdigit() else 10**6, title)


SIZES = ("full", "quick")
"""A benchmark's section is kept once per size: a quick run (`make bench`) never replaces a full-size one."""


def _labelled(section: str) -> str:
    """A section of RESULTS.md with its size in its title: written before sections were kept per size, it is
    labelled by its command (`--quick` or not); a hand-written one (no command) is left as it is."""
    lines = section.splitlines()
    title = lines[0]
    if title.endswith(tuple(f" ({size})" for size in SIZES)) or not title[3:4].isdigit():
        return section
    command = next((line for line in lines if line.startswith("Command: `")), None)
    if command is None:
        return section
    size = "quick" if "--quick" in command else "full"
    return "\n".join([f"{title} ({size})", *lines[1:]]) + "\n"


def _summary(sections: Sequence[str]) -> str:
    rows = ["| section | figure | target | measured | verdict |", "|---|---|---|---|---|"]
    met = total = 0
    for section in sections:
        title = section.splitlines()[0][3:]
        for line in section.splitlines():
            if not line.startswith(_CHECKS_MARK):
                continue
            for item in json.loads(line[len(_CHECKS_MARK) : -len(" -->")]):
                check = Check(**item)
                total += 1
                met += check.met
                verdict = "met" if check.met else "**missed**"
                rows.append(f"| {title} | {check.figure} | {check.target} | {check.measured} | {verdict} |")
    return f"{_SUMMARY}\n\n{met} of {total} targets met.\n\n" + "\n".join(rows) + "\n"


def load_average() -> str:
    """The machine's load average over 1, 5 and 15 minutes (it is shared: every figure is read beside it)."""
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "unknown"
    return f"{one:.1f} / {five:.1f} / {fifteen:.1f}"


def host_speed() -> float:
    """Milliseconds a fixed pure-Python loop takes (a million multiply-adds), the best of three runs: how fast this
    shared host runs at the moment. It moves between runs (the host's other tenants: 0.5-1.1 s for five times this
    loop on one evening), and every absolute figure (a p50 in ms, seconds to start) moves with it; a ratio to a
    reference measured in the same run does not. Printed with each section, so two runs' absolute figures can be
    read side by side."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        total = 0
        for i in range(1_000_000):
            total += i * i
        best = min(best, time.perf_counter() - started)
    return best * 1000


def write_section(
    title: str, command: str, body: str, checks: Sequence[Check] = (), *, size: str | None = None
) -> None:
    """Replace (or add) the section `title` of bench/RESULTS.md at this size, then regenerate the summary at the top.

    `size` is "quick" or "full" (by default: "quick" when the benchmark was run with --quick); each benchmark keeps
    one section per size, so a quick run never overwrites a full-size one. The section says the size, the date,
    the load average, the machine and the command, then the checks (figure, target, measured beside its reference,
    verdict), then `body` (the full figures). Sections are kept in the order of their number, full before quick.
    """
    size = size or ("quick" if "--quick" in sys.argv else "full")
    header = f"## {title} ({size})"
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    marker = _CHECKS_MARK + json.dumps([asdict(c) for c in checks]) + " -->"
    parts = [
        header,
        "",
        f"Measured {stamp}, {size} size, load average {load_average()} (1 / 5 / 15 min), host speed "
        f"{host_speed():.0f} ms (`host_speed`: a fixed Python loop as the section is written; lower is faster), "
        f"on {machine()}.",
        f"Command: `{command}`",
        "",
    ]
    if checks:
        parts += [checks_table(checks), marker, ""]
    parts.append(body.strip())
    section = "\n".join(parts) + "\n"
    existing = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else _HEAD
    chunks = existing.split("\n## ")
    sections = [_labelled("## " + p.strip() + "\n") for p in chunks[1:]]
    sections = [s for s in sections if not s.startswith(header + "\n") and not s.startswith(_SUMMARY)]
    sections.append(section)
    sections.sort(key=_section_key)
    text_out = _HEAD.rstrip() + "\n\n" + _summary(sections) + "\n" + "\n".join(sections)
    RESULTS.write_text(text_out, encoding="utf-8")
    print(checks_table(checks) if checks else "", flush=True)


def quick_or_full(parser: argparse.ArgumentParser) -> None:
    """The --quick flag every benchmark takes: smaller sizes, so `make bench` runs them all in minutes."""
    parser.add_argument("--quick", action="store_true", help="the quick sizes `make bench` uses")


def child_env(**extra: str) -> dict[str, str]:
    """The environment for a benchmark's child process: no QUIZBOT_* settings or proxies of the caller's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUIZBOT_") and "proxy" not in k.lower()}
    env["PYTHONPATH"] = str(ROOT.parent)
    env.update(extra)
    return env


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run(main: object) -> None:
    """asyncio.run for a benchmark's main coroutine function."""
    asyncio.run(main())  # type: ignore[operator]
