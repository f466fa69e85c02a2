"""Requests already run, on SQLite and PostgreSQL: a repeat within the window is refused, once it has passed the
key is free again, and a repeated `/quiz` delivery is quiet and runs nothing."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select

from bot.clock import ManualClock
from bot.db.models import Post, SeenDelivery
from bot.domain import ChannelRef
from bot.runtime import Runtime
from bot.service.app import Invocation
from bot.service.deliveries import REPLAY_WINDOW, delivery_key
from tests.conftest import make_user


async def _first(runtime: Runtime, key: str, clock: ManualClock) -> bool:
    async with runtime.app.uow() as uow:
        first = await uow.deliveries.first_sight(key, clock.now())
        await uow.commit()
    return first


async def test_a_key_is_new_once_within_the_window(runtime: Runtime, clock: ManualClock) -> None:
    key = delivery_key("slack", "13345224609.738474920.8088930838d88f008e0")
    assert await _first(runtime, key, clock)
    clock.advance(REPLAY_WINDOW - timedelta(seconds=1))
    assert not await _first(runtime, key, clock)
    assert await _first(runtime, delivery_key("slack", "another"), clock)
    clock.advance(timedelta(seconds=2))
    assert await _first(runtime, key, clock)  # the old row was dropped on the way
    async with runtime.db.transaction() as session:
        assert (await session.execute(select(func.count()).select_from(SeenDelivery))).scalar_one() == 2


async def test_a_repeated_command_delivery_is_quiet_and_posts_nothing(runtime: Runtime) -> None:
    channel = ChannelRef("fake", "W1", "C1")
    invocation = Invocation(channel, make_user("alice", workspace="W1"), "now", delivery_id="trigger-1")
    first = await runtime.app.handle_command(invocation)
    again = await runtime.app.handle_command(invocation)
    assert first.ok and again.quiet
    assert again.message.title == "That command arrived twice; it ran once."
    async with runtime.db.transaction() as session:
        assert (await session.execute(select(func.count(Post.id)))).scalar_one() == 1
