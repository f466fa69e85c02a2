"""CardRefresher at shutdown: an edit already running when the bot stops is waited for, not cut off."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from bot.domain import ChannelRef, QuestionCard, UserRef
from bot.runtime import Runtime
from tests.fakes.fake_platform import FakePlatform

HANG = 60.0
"""How long the test waits for the refresher: a bound that fails a hang, not a speed check."""


@dataclass
class GatedPlatform(FakePlatform):
    """Edits wait at a gate, like a slow or rate-limited platform."""

    name: str = "gated"
    gate: asyncio.Event = field(default_factory=asyncio.Event)
    editing: asyncio.Event = field(default_factory=asyncio.Event)

    async def update_card(self, channel: ChannelRef, message_ref: str, card: QuestionCard) -> None:
        self.editing.set()
        await self.gate.wait()
        await super().update_card(channel, message_ref, card)


async def test_flush_waits_for_an_edit_already_in_flight(runtime: Runtime) -> None:
    platform = GatedPlatform()
    runtime.platforms.register(platform)
    runtime.cards.interval = 0.0
    channel = ChannelRef("gated", "W1", "C1")
    card = (await runtime.quiz.post_question(channel)).card
    user = UserRef("gated", "W1", "U-a", "a")  # a user of the platform the question was posted on
    await runtime.app.answer(post_id=card.post_id, user=user, choice_index=card.choice_ids[0])
    await asyncio.wait_for(platform.editing.wait(), HANG)  # the edit left its queue and is talking to the platform

    flush = asyncio.create_task(runtime.cards.flush())
    for _ in range(20):
        await asyncio.sleep(0)
    assert not flush.done()  # an adapter would disconnect right after flush: it must wait for the edit
    platform.gate.set()
    await asyncio.wait_for(flush, HANG)
    assert [s.card.answer_count for s in platform.of_kind("update_card") if s.card] == [1]
