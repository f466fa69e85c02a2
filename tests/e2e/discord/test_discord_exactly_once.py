"""Fault: the bot (Discord) SIGKILLed after Discord took a scheduled card and before the bot recorded its id.

The process started next recovers the slot and posts the same post again, with the same nonce (derived from the
post's id) and `enforce_nonce`: Discord answers with the first message instead of creating a second, so the channel
shows the question once and the post is that message.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

from adapters.discord.cards import page_nonce
from bot.domain import ChannelRef
from tests.discord_storm import start_bot, stop_bot
from tests.exactly_once import FAST_SCHEDULER, HeldAnswer, schedule_due_now, wait_until_posted
from tests.fakes.discord_api import FakeDiscord


async def test_card_taken_before_a_sigkill_is_answered_with_the_first_message(
    database_url: str, fake: FakeDiscord, tmp_path: Path
) -> None:
    await schedule_due_now(database_url, ChannelRef("discord", fake.guild_id, fake.channel_id))
    gate = HeldAnswer()

    async def hold(_message: dict[str, Any]) -> None:
        await gate.hold()

    fake.after_create = hold
    bot = await start_bot(fake, database_url, tmp_path / "first.log", env=FAST_SCHEDULER)
    try:
        await asyncio.wait_for(gate.taken.wait(), 60)
        bot.send_signal(signal.SIGKILL)  # Discord has the card; the bot never hears its id
        await bot.wait()
    finally:
        await stop_bot(bot)
    gate.release.set()
    assert len(fake.channel_messages()) == 1
    first = fake.channel_messages()[0]

    bot = await start_bot(fake, database_url, tmp_path / "second.log", env=FAST_SCHEDULER)
    try:
        outcome = await wait_until_posted(database_url)
    finally:
        await stop_bot(bot)
    assert outcome.status == "posted" and outcome.attempts == 2, outcome
    assert [m["id"] for m in fake.channel_messages()] == [first["id"]]  # the question shows once
    assert outcome.message_ref == first["id"]  # and the post is that message: clicks and the reveal edit it
    sent = [r.json for r in fake.requests_to("POST", "/channels/{channel_id}/messages")]
    assert len(sent) == 2 and all(p["enforce_nonce"] for p in sent)  # the recovered post asked again...
    post_id = int(first["components"][0]["components"][0]["custom_id"].split(":")[2])
    assert sent[0]["nonce"] == sent[1]["nonce"] == page_nonce(post_id, 0)  # ...with the nonce of the same post
