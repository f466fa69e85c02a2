"""Shared helpers of the benchmarks: databases to run on, timing, percentiles, and writing RESULTS.md."""

from __future__ import annotations

import asyncio
import os
import platform
import statistics
import subprocess
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from bot.db import Database
from bot.db.migrate import upgrade

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "RESULTS.md"
POSTGRES_ADMIN_URL = os.environ.get(
    "QUIZBOT_BENCH_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
)


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


def write_section(title: str, command: str, body: str) -> None:
    """Replace (or add) the section `title` of bench/RESULTS.md with fresh figures."""
    header = f"## {title}"
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    section = f"{header}\n\nMeasured {stamp} on {machine()}.\nCommand: `{command}`\n\n{body.strip()}\n"
    existing = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "# Benchmark results\n"
    parts = existing.split("\n## ")
    head, sections = parts[0], ["## " + p for p in parts[1:]]
    sections = [s for s in sections if not s.startswith(header + "\n")]
    sections.append(section)
    RESULTS.write_text(head.rstrip() + "\n\n" + "\n".join(s.rstrip() + "\n" for s in sections), encoding="utf-8")


def run(main: object) -> None:
    """asyncio.run for a benchmark's main coroutine function."""
    asyncio.run(main())  # type: ignore[operator]
