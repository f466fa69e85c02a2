"""The database goes away in the middle of a click burst (PostgreSQL behind a proxy the test cuts; SQLite is a
file in the same process, with no connection to lose).

Every click the bot acknowledged as recorded is in the database; every other click was told to retry; the bot
recovers by itself when the database returns."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import select
from sqlalchemy.engine import make_url

from bot.clock import ManualClock
from bot.db.models import Answer, User
from bot.domain import AnswerOutcome, AnswerResult, ChannelRef
from bot.errors import StorageUnavailable
from bot.runtime import Runtime, build_runtime
from tests.conftest import SEED_CONTENT, _truncate, make_user, patient_settings
from tests.fakes.fake_platform import FakePlatform
from tests.fakes.tcp_proxy import CuttableProxy

pytestmark = pytest.mark.postgres


@pytest.fixture
async def proxied(postgres_template: str) -> AsyncIterator[tuple[Runtime, CuttableProxy]]:
    await _truncate(postgres_template)
    url = make_url(postgres_template)
    proxy = CuttableProxy(url.host or "127.0.0.1", url.port or 5432)
    await proxy.start()
    via_proxy = url.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    settings = patient_settings(database_url=via_proxy, content_dir=SEED_CONTENT, card_update_interval=0.0)
    runtime = await build_runtime(settings, clock=ManualClock(), rng=random.Random(3), migrate=False)
    runtime.platforms.register(FakePlatform())
    try:
        yield runtime, proxy
    finally:
        proxy.restore()
        await runtime.aclose()
        await proxy.stop()


async def test_acknowledged_clicks_survive_a_lost_database(proxied: tuple[Runtime, CuttableProxy]) -> None:
    runtime, proxy = proxied
    channel = ChannelRef("fake", "W1", "C1")
    cards = [(await runtime.quiz.post_question(channel)).card for _ in range(4)]
    acknowledged: list[tuple[int, str, int]] = []
    told_to_retry: list[tuple[int, str, int]] = []

    async def click(post_id: int, name: str, choice: int) -> None:
        try:
            result: AnswerResult = await runtime.app.answer(post_id=post_id, user=make_user(name), choice_index=choice)
        except StorageUnavailable:
            told_to_retry.append((post_id, name, choice))
            return
        assert result.outcome is AnswerOutcome.RECORDED
        acknowledged.append((post_id, name, choice))

    def wave(card_index: int) -> list[asyncio.Future[None]]:
        card = cards[card_index]
        return [asyncio.ensure_future(click(card.post_id, f"u{n}", card.choice_ids[n % 4])) for n in range(60)]

    await asyncio.gather(*wave(0))  # the database is up: all recorded
    assert len(acknowledged) == 60
    proxy.cut()
    await asyncio.gather(*wave(1))  # the database is gone: every click is told to retry, none acknowledged
    assert len(told_to_retry) == 60
    proxy.restore()
    # The connection drops while a burst is being written: some batches commit, some do not.
    burst = wave(2) + wave(3)
    await asyncio.sleep(0.01)
    proxy.cut()
    await asyncio.sleep(0.2)
    proxy.restore()
    await asyncio.gather(*burst)
    assert len(acknowledged) + len(told_to_retry) == 240

    async with runtime.db.transaction() as session:
        stored = set(
            (
                await session.execute(
                    select(Answer.post_id, User.external_id, Answer.choice_index).join(User, User.id == Answer.user_id)
                )
            ).all()
        )
    assert {(p, f"U-{n}", c) for p, n, c in acknowledged} <= stored

    # The database is back: retried clicks go through (or find the answer that did commit), with no restart.
    retried = await asyncio.gather(
        *(runtime.app.answer(post_id=p, user=make_user(n), choice_index=c) for p, n, c in told_to_retry)
    )
    for result in retried:
        assert result.outcome in {AnswerOutcome.RECORDED, AnswerOutcome.ALREADY_ANSWERED}
        assert result.chosen is not None
    async with runtime.db.transaction() as session:
        assert len((await session.execute(select(Answer.id))).all()) == 240
