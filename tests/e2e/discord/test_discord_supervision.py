"""A Discord adapter that its library fails under is restarted, and every click that reaches us is answered.

The real discord.py client against the loopback fake Discord, run by `bot.runtime.serve` as `quizbot run` runs it.
"""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import pytest

from adapters.discord.adapter import DiscordAdapter
from bot.config import Settings
from bot.ops.http import health
from bot.runtime import Runtime, serve
from bot.wording.errors import BUTTON_NOT_ON_MESSAGE
from tests.conftest import SEED_CONTENT, patient_settings
from tests.discord_support import (
    ANSWER_ID,
    answer_rows,
    card_messages,
    click,
    custom_ids,
    patient,
    serving,
    slash,
    text_of,
)
from tests.fakes.discord_api import FakeDiscord


@pytest.fixture
def settings(database_url: str) -> Settings:
    return patient_settings(
        database_url=database_url,
        content_dir=SEED_CONTENT,
        card_update_interval=0.0,
        discord_token="fake-bot-token",
        adapter_restart_seconds=0.05,
    )


def _fast(adapter: DiscordAdapter) -> None:
    """As tests.discord_support.serving: no 2 s wait for GUILD_CREATEs, no 5 s pause before a re-identify."""
    adapter.client._connection.guild_ready_timeout = 0.05

    async def no_identify_delay(shard_id: int | None, *, initial: bool = False) -> None:
        return None

    adapter.client.before_identify_hook = no_identify_delay  # type: ignore[method-assign]


async def _card(fake: FakeDiscord) -> tuple[dict[str, Any], int]:
    before = len(card_messages(fake))
    callback = await slash(fake, "now", {"pack": "data-parallelism"}, user_name="alice")
    assert callback.ephemeral, text_of(callback)
    message = (await fake.wait_for(lambda: card_messages(fake)[before:], what="the card"))[0]
    post_id = int(ANSWER_ID.fullmatch(custom_ids(message)[0]).group(1))  # type: ignore[union-attr]
    return message, post_id


GIVE_UP = 4012
"""A gateway close code discord.py does not reconnect after (4012: invalid API version): `Client.connect()` raises
ConnectionClosed, and the adapter fails after it was up."""


async def test_a_dropped_gateway_leaves_the_process_alive_and_answering_the_next_interaction(
    runtime: Runtime, fake: FakeDiscord
) -> None:
    adapter = DiscordAdapter(runtime)
    _fast(adapter)
    # Answered, not deferred, however long a loaded machine takes (as `serving` does): the click's type 4 below.
    with patient(adapter):
        process = asyncio.create_task(serve(runtime, [adapter]), name="quizbot-run")
        try:
            await fake.wait_for(lambda: adapter.ready.is_set() or process.done(), what="the adapter up")
            assert not process.done()
            message, post_id = await _card(fake)
            first_identify = len([c for c in fake.connections if c.identify is not None])

            await fake.drop_connection(code=GIVE_UP)
            await fake.wait_until_connected(identify_count=first_identify + 1)  # the adapter came back
            await fake.wait_for(adapter.ready.is_set, what="the adapter up again")

            assert not process.done()  # the process did not exit
            status = runtime.adapter_status["discord"]
            assert status.restarts == 1
            assert status.state == "running"
            assert status.last_failure == "ConnectionClosed"
            _, report = await health(runtime)
            assert report["supervision"] == {
                "discord": {"state": "running", "restarts": 1, "last_failure": "ConnectionClosed"}
            }
            metrics = runtime.metrics.render().decode()
            assert 'quizbot_adapter_restarts_total{adapter="discord"} 1.0' in metrics
            assert 'quizbot_adapter_up{adapter="discord"} 1.0' in metrics

            reply = await click(fake, message, custom_ids(message)[0], user_id=1001, user_name="alice")  # the next one
            assert reply.type == 4 and reply.ephemeral
            assert "Traceback" not in text_of(reply)
            assert [row[:2] for row in await answer_rows(runtime)] == [(post_id, "1001")]  # recorded after the restart
            assert runtime.adapter_status["discord"].restarts == 1
        finally:
            if not process.done():
                os.kill(os.getpid(), signal.SIGTERM)  # how `quizbot run` is stopped; serve() handles it
            await asyncio.wait_for(process, 30)  # a clean stop: no SystemExit(1)


async def test_a_click_on_a_button_its_message_does_not_have_gets_a_private_reply(
    runtime: Runtime, fake: FakeDiscord
) -> None:
    adapter = DiscordAdapter(runtime)
    async with serving(adapter, fake):
        message, post_id = await _card(fake)
        choices = [int(ANSWER_ID.fullmatch(c).group(2)) for c in custom_ids(message)]  # type: ignore[union-attr]
        absent = next(n for n in range(99) if n not in choices)
        for custom_id in (f"quiz:answer:{post_id}:{absent}", f"quiz:answer:{post_id + 1}:0", f"quiz:flag:{post_id}"):
            data = fake.component_interaction(message, custom_ids(message)[0], user_id=1001, user_name="alice")
            data["data"]["custom_id"] = custom_id  # matches our template, but is not among the message's components
            reply = await fake.send_interaction(data)
            assert reply is not None, custom_id
            assert reply.type == 4 and reply.ephemeral
            assert text_of(reply) == BUTTON_NOT_ON_MESSAGE
        assert await answer_rows(runtime) == []  # none of them recorded anything
        ok = await click(fake, message, custom_ids(message)[0], user_id=1001, user_name="alice")
        assert ok.type == 4 and "Traceback" not in text_of(ok)
        assert len(await answer_rows(runtime)) == 1
