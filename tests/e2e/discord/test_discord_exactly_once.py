"""Fault: the bot (Discord) SIGKILLed after Discord took a scheduled card and before the bot recorded its id.

The process started next recovers the slot. It reads the channel's history since the post and adopts the card it
finds there (by its answer buttons), later than Discord remembers a nonce too; when it may not read the history,
it posts the same post again with the same nonce (derived from the post's id) and `enforce_nonce`, and Discord
answers with the first message. Either way the channel shows the question once and the post is that message.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import pytest

from adapters.discord.cards import page_nonce
from bot.domain import ChannelRef
from tests.conftest import PATIENT_DATABASE_ENV
from tests.discord_storm import start_bot, stop_bot
from tests.exactly_once import FAST_SCHEDULER, HeldAnswer, schedule_due_now, wait_until_posted
from tests.fakes.discord_api import FakeDiscord


@pytest.mark.parametrize("history", ["readable", "refused"])
async def test_card_taken_before_a_sigkill_shows_once(
    database_url: str, fake: FakeDiscord, tmp_path: Path, history: str
) -> None:
    await schedule_due_now(database_url, ChannelRef("discord", fake.guild_id, fake.channel_id))
    gate = HeldAnswer()

    async def hold(_message: dict[str, Any]) -> None:
        await gate.hold()

    fake.after_create = hold
    bot = await start_bot(fake, database_url, tmp_path / "first.log", env={**PATIENT_DATABASE_ENV, **FAST_SCHEDULER})
    try:
        await asyncio.wait_for(gate.taken.wait(), 60)
        bot.send_signal(signal.SIGKILL)  # Discord has the card; the bot never hears its id
        await bot.wait()
    finally:
        await stop_bot(bot)
    gate.release.set()
    assert len(fake.channel_messages()) == 1
    first = fake.channel_messages()[0]
    if history == "readable":
        fake.forget_nonces()  # the recovery comes later than Discord remembers the nonce: the history finds it
    else:
        fake.fail_next("GET", "/channels/{channel_id}/messages", "missing_access")  # no Read Message History

    bot = await start_bot(fake, database_url, tmp_path / "second.log", env={**PATIENT_DATABASE_ENV, **FAST_SCHEDULER})
    try:
        outcome = await wait_until_posted(database_url)
    finally:
        await stop_bot(bot)
    assert outcome.status == "posted" and outcome.attempts == 2, outcome
    assert [m["id"] for m in fake.channel_messages()] == [first["id"]]  # the question shows once
    assert outcome.message_ref == first["id"]  # and the post is that message: clicks and the reveal edit it
    sent = [r.json for r in fake.requests_to("POST", "/channels/{channel_id}/messages")]
    post_id = int(first["components"][0]["components"][0]["custom_id"].split(":")[2])
    assert sent[0]["nonce"] == page_nonce(post_id, 0) and sent[0]["enforce_nonce"]
    if history == "refused":  # posted again, with the nonce of the same post: Discord answered with the first
        assert len(sent) == 2 and sent[1]["nonce"] == sent[0]["nonce"] and sent[1]["enforce_nonce"]
    else:  # adopted from the history, not posted again
        assert len(sent) == 1
