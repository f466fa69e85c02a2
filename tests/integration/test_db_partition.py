"""A silent network partition to the database (sockets open, nothing forwarded: the proxy stalls) and a writer that
holds SQLite's lock: the bot finds out within its own timeouts instead of TCP's, /healthz says so in its own words,
and a click is told to retry; when the link heals, everything works again with no restart."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import shutil
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from sqlalchemy.engine import make_url

from bot.clock import ManualClock
from bot.config import Settings
from bot.domain import AnswerOutcome, ChannelRef
from bot.errors import StorageUnavailable
from bot.ops.http import OpsServer, health
from bot.runtime import Runtime, build_runtime
from tests.conftest import SEED_CONTENT, _truncate, make_user
from tests.fakes.fake_platform import FakePlatform
from tests.fakes.tcp_proxy import CuttableProxy

TIMEOUTS = {
    "database_connect_timeout": 2.0,
    "database_statement_timeout": 2.0,
    "database_pool_timeout": 2.0,
    "sqlite_busy_timeout": 2.0,
}
GUARD = 20.0
"""Not a speed check (bench/partition.py measures that): the old driver defaults (a 30 s command timeout) never
answered within it, so a test that waits this long for an answer fails where the bot would hang."""
SQLITE_GUARD = 10.0
"""The same for SQLite, whose old busy timeout was 15 s."""


async def _bot(url: str) -> Runtime:
    settings = Settings(
        database_url=url, content_dir=SEED_CONTENT, card_update_interval=0.0, _env_file=None, **TIMEOUTS
    )  # type: ignore[call-arg, arg-type]
    runtime = await build_runtime(settings, clock=ManualClock(), rng=random.Random(3), migrate=False)
    runtime.platforms.register(FakePlatform())
    return runtime


@pytest.fixture
async def partitioned(postgres_template: str) -> AsyncIterator[tuple[Runtime, CuttableProxy]]:
    await _truncate(postgres_template)
    url = make_url(postgres_template)
    proxy = CuttableProxy(url.host or "127.0.0.1", url.port or 5432)
    await proxy.start()
    runtime = await _bot(url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False))
    try:
        yield runtime, proxy
    finally:
        proxy.restore()
        await runtime.aclose()
        await proxy.stop()


async def _healthz(server: OpsServer) -> tuple[int, dict[str, object]]:
    async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{server.port}/healthz") as response:
        return response.status, json.loads(await response.text())


@pytest.mark.postgres
async def test_a_silent_partition_turns_healthz_503_in_our_words_and_clicks_are_told_to_retry(
    partitioned: tuple[Runtime, CuttableProxy], caplog: pytest.LogCaptureFixture
) -> None:
    runtime, proxy = partitioned
    channel = ChannelRef("fake", "W1", "C1")
    card = (await runtime.quiz.post_question(channel)).card
    first = await runtime.app.answer(post_id=card.post_id, user=make_user("a"), choice_index=card.choice_ids[0])
    assert first.outcome is AnswerOutcome.RECORDED
    ops = OpsServer(runtime, host="127.0.0.1", port=0)
    await ops.start()
    try:
        assert (await _healthz(ops))[0] == 200
        proxy.stall()
        caplog.set_level(logging.WARNING)
        status, report = await asyncio.wait_for(_healthz(ops), GUARD)
        assert status == 503
        assert report["database"] == "unreachable"
        assert report["problems"] == ["database unreachable"]
        body = json.dumps(report)
        assert "timeout" not in body.lower() and "asyncpg" not in body and "127.0.0.1" not in body
        assert "health check: database unreachable" in caplog.text  # the detail is in the log

        with pytest.raises(StorageUnavailable):  # what the adapters turn into "try again"
            await asyncio.wait_for(
                runtime.app.answer(post_id=card.post_id, user=make_user("b"), choice_index=card.choice_ids[1]), GUARD
            )

        proxy.restore()
        retried = await runtime.app.answer(post_id=card.post_id, user=make_user("b"), choice_index=card.choice_ids[1])
        assert retried.outcome is AnswerOutcome.RECORDED
        assert (await _healthz(ops))[0] == 200
    finally:
        await ops.stop()


async def test_sqlite_held_lock_fails_fast_instead_of_queueing(tmp_path: Path, sqlite_template: Path) -> None:
    path = tmp_path / "quizbot.db"
    shutil.copy(sqlite_template, path)
    runtime = await _bot(f"sqlite+aiosqlite:///{path}")
    blocker = sqlite3.connect(path, isolation_level=None)
    try:
        card = (await runtime.quiz.post_question(ChannelRef("fake", "W1", "C1"))).card
        blocker.execute("BEGIN IMMEDIATE")  # another process writing (a migration, an import): holds the write lock
        with pytest.raises(StorageUnavailable):
            await asyncio.wait_for(
                runtime.app.answer(post_id=card.post_id, user=make_user("a"), choice_index=card.choice_ids[0]),
                SQLITE_GUARD,
            )
        healthy, report = await asyncio.wait_for(health(runtime), SQLITE_GUARD)
        assert not healthy
        assert report["problems"] == ["database unreachable"]
        blocker.execute("ROLLBACK")
        result = await runtime.app.answer(post_id=card.post_id, user=make_user("a"), choice_index=card.choice_ids[0])
        assert result.outcome is AnswerOutcome.RECORDED
    finally:
        blocker.close()
        await runtime.aclose()
