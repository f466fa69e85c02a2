"""Operations: /healthz and /metrics over real HTTP, and a graceful stop that loses no acknowledged answer."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import aiohttp
import pytest
from sqlalchemy import select

from bot.clock import ManualClock
from bot.db.models import Answer
from bot.domain import AnswerOutcome, ChannelRef
from bot.errors import ShuttingDown
from bot.ops.http import OpsServer
from bot.runtime import Runtime
from bot.service.facade import Invocation
from tests.conftest import make_user
from tests.fakes.fake_platform import FakePlatform


@pytest.fixture
async def ops(runtime: Runtime) -> object:
    server = OpsServer(runtime, host="127.0.0.1", port=0)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def _get(server: OpsServer, path: str) -> tuple[int, str, str]:
    async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{server.port}{path}") as response:
        return response.status, response.headers["Content-Type"], await response.text()


async def test_healthz_reports_database_and_migrations(ops: OpsServer) -> None:
    status, content_type, body = await _get(ops, "/healthz")
    assert status == 200
    assert content_type.startswith("application/json")
    assert '"database": "ok"' in body
    assert '"status": "ok"' in body


async def test_healthz_is_503_when_the_database_is_down(runtime: Runtime, ops: OpsServer) -> None:
    from bot.db import Database

    good = runtime.db.engine
    down = Database.from_url("postgresql+asyncpg://postgres@127.0.0.1:1/quizbot")
    runtime.db.engine, runtime.db.sessions = down.engine, down.sessions
    try:
        status, _, body = await _get(ops, "/healthz")
    finally:
        await down.dispose()
        restored = Database(good)
        runtime.db.engine, runtime.db.sessions = restored.engine, restored.sessions
    assert status == 503
    assert "unreachable" in body


async def test_metrics_count_posts_answers_and_latency(runtime: Runtime, ops: OpsServer, channel: ChannelRef) -> None:
    card = (await runtime.quiz.post_question(channel)).card
    await runtime.app.answer(post_id=card.post_id, user=make_user("a"), choice_index=card.choice_ids[0])
    await runtime.app.answer(post_id=card.post_id, user=make_user("a"), choice_index=card.choice_ids[1])
    status, content_type, body = await _get(ops, "/metrics")
    assert status == 200
    assert content_type.startswith("text/plain")
    assert 'quizbot_posts_total{platform="fake",source="command"} 1.0' in body
    assert 'quizbot_answers_total{outcome="recorded",platform="fake"} 1.0' in body
    assert 'quizbot_answers_total{outcome="already_answered",platform="fake"} 1.0' in body
    assert 'quizbot_answer_seconds_count{platform="fake"} 2.0' in body


async def test_drain_lets_in_flight_answers_commit_and_refuses_new_ones(runtime: Runtime, channel: ChannelRef) -> None:
    card = (await runtime.quiz.post_question(channel)).card
    clicks = [
        asyncio.create_task(
            runtime.app.answer(post_id=card.post_id, user=make_user(f"u{i}"), choice_index=card.choice_ids[0])
        )
        for i in range(30)
    ]
    await asyncio.sleep(0)  # let them start
    assert await runtime.app.drain() is True
    results = await asyncio.gather(*clicks, return_exceptions=True)
    recorded = [r for r in results if not isinstance(r, BaseException) and r.outcome is AnswerOutcome.RECORDED]
    assert len(recorded) == 30
    with pytest.raises(ShuttingDown):
        await runtime.app.answer(post_id=card.post_id, user=make_user("late"), choice_index=card.choice_ids[0])
    async with runtime.db.transaction() as session:
        assert len((await session.execute(select(Answer.id))).all()) == 30


async def test_metrics_show_how_late_the_last_scheduled_post_went_out(
    runtime: Runtime, ops: OpsServer, channel: ChannelRef, clock: ManualClock, platform: FakePlatform
) -> None:
    """`quizbot_scheduler_lag_seconds`, documented for operators, is set by each scheduled post: seconds after its
    slot (09:00 Helsinki is 07:00 UTC in winter; the tick that posts it runs at 07:00:04)."""
    clock.set(datetime(2026, 1, 5, 5, 0, tzinfo=UTC))
    reply = await runtime.app.handle_command(
        Invocation(channel, make_user("admin"), "schedule add daily 09:00 data-parallelism tz:Europe/Helsinki", True)
    )
    assert reply.ok, reply.message
    clock.set(datetime(2026, 1, 5, 7, 0, 4, tzinfo=UTC))
    assert len((await runtime.ticker.tick()).posted) == 1
    _, _, body = await _get(ops, "/metrics")
    assert "quizbot_scheduler_lag_seconds 4.0" in body
