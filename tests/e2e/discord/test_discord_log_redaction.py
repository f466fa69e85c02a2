"""At DEBUG, discord.py logs every gateway event and every HTTP call; the bot's log keeps those lines but never an
interaction's token (it answers and edits as the bot for 15 minutes), nor the bot token."""

from __future__ import annotations

import io

from adapters.discord.adapter import DiscordAdapter
from bot.runtime import Runtime
from tests.discord_support import card_messages, custom_ids, serving, slash
from tests.fakes.discord_api import FakeDiscord
from tests.log_capture import debug_log

__all__ = ["debug_log"]


async def test_gateway_events_and_callbacks_are_logged_without_interaction_tokens(
    runtime: Runtime, fake: FakeDiscord, debug_log: io.StringIO
) -> None:
    adapter = DiscordAdapter(runtime)
    async with serving(adapter, fake):
        await slash(fake, "now", {"pack": "data-parallelism"}, user_name="alice")
        [card] = card_messages(fake)
        data = fake.component_interaction(card, custom_ids(card)[0], user_name="bob")
        callback = await fake.send_interaction(data)
        assert callback is not None
    text = debug_log.getvalue()
    token = data["token"]
    assert len(token) > 20

    [event] = [line for line in text.splitlines() if "WebSocket Event" in line and data["id"] in line]
    assert "'token': '[redacted]'" in event
    assert f"/interactions/{data['id']}/[redacted]/callback" in text
    assert token not in text
    assert "fake-bot-token" not in text
