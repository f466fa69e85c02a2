"""Two bot replicas on one database receiving the same clicks (a load balancer retrying, a user double-clicking
across replicas): each first click is recorded once, and both replicas tell the user the same thing."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import func, select

from bot.clock import ManualClock
from bot.config import Settings
from bot.db.models import Answer, ChannelScore, UserScore
from bot.domain import AnswerOutcome, ChannelRef
from bot.runtime import Runtime, build_runtime
from tests.conftest import make_user
from tests.fakes.fake_platform import FakePlatform


@pytest.fixture
async def replicas(settings: Settings, clock: ManualClock) -> AsyncIterator[tuple[Runtime, Runtime]]:
    first = await build_runtime(settings, clock=clock, rng=random.Random(1), migrate=False)
    second = await build_runtime(settings, clock=clock, rng=random.Random(2), migrate=False)
    for runtime in (first, second):
        runtime.platforms.register(FakePlatform())
    try:
        yield first, second
    finally:
        await first.aclose()
        await second.aclose()


async def test_the_same_clicks_on_two_replicas_are_recorded_once(replicas: tuple[Runtime, Runtime]) -> None:
    first, second = replicas
    channel = ChannelRef("fake", "W1", "C1")
    cards = [(await first.quiz.post_question(channel)).card for _ in range(3)]
    clicks = [(card.post_id, f"u{n}", card.choice_ids[n % len(card.choice_ids)]) for card in cards for n in range(40)]
    results = await asyncio.gather(
        *(
            replica.app.answer(post_id=post_id, user=make_user(name), choice_index=choice)
            for post_id, name, choice in clicks
            for replica in (first, second)
        )
    )
    recorded = [r for r in results if r.outcome is AnswerOutcome.RECORDED]
    assert len(recorded) == len(clicks)
    assert sum(r.outcome is AnswerOutcome.ALREADY_ANSWERED for r in results) == len(clicks)
    # Both replies to one click name the same choice, whichever replica won.
    for pair in zip(results[::2], results[1::2], strict=True):
        assert pair[0].chosen == pair[1].chosen
    async with first.db.transaction() as session:
        answers = (await session.execute(select(func.count(Answer.id)))).scalar_one()
        rolled_up = (await session.execute(select(func.sum(UserScore.answered)))).scalar_one()
        per_channel = (await session.execute(select(func.sum(ChannelScore.answered)))).scalar_one()
    assert answers == rolled_up == per_channel == len(clicks)


async def test_a_season_due_to_end_is_ended_and_announced_once_across_replicas(
    replicas: tuple[Runtime, Runtime], clock: ManualClock
) -> None:
    from datetime import timedelta

    from bot.service.facade import Invocation

    first, second = replicas
    channel = ChannelRef("fake", "W1", "C1")
    started = await first.app.handle_command(
        Invocation(channel, make_user("ada"), "season start s1 until:2026-01-05", is_admin=True)
    )
    assert started.ok, started.message.text
    card = (await first.quiz.post_question(channel)).card
    await first.app.answer(post_id=card.post_id, user=make_user("ann"), choice_index=card.choice_ids[0])
    clock.advance(timedelta(days=1))
    reports = await asyncio.gather(first.ticker.tick(), second.ticker.tick(), first.ticker.tick())
    assert sum(len(report.seasons_ended) for report in reports) == 1
    boards = [
        sent
        for runtime in (first, second)
        for platform in [runtime.platforms.get("fake")]
        if isinstance(platform, FakePlatform)
        for sent in platform.of_kind("post_message")
    ]
    assert len(boards) == 1 and boards[0].channel == channel
