"""Discord sends partial objects in an interaction (a guild or channel the client has not cached, a member with
only the fields Discord chose to send): each such interaction is answered like any other, and nothing in one ends
the gateway connection (which would restart the adapter and drop every other click in flight)."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.discord.adapter import DiscordAdapter
from bot.runtime import Runtime
from tests.discord_support import ANSWER_ID, answer_rows, card_messages, click, custom_ids, serving, slash, text_of
from tests.fakes.discord_api import FakeDiscord


def _place(fake: FakeDiscord, shape: str) -> tuple[str, str]:
    """A guild and channel the client has no cache of: added to the fake after the client's READY and
    GUILD_CREATEs (a server the bot joined since, a channel created since), so no event told the client."""
    if shape == "uncached channel":
        return fake.guild_id, fake.add_text_channel("since")["id"]
    guild = fake.add_guild(name="Elsewhere")
    return guild["id"], guild["_text_channel_id"]


def _partial(data: dict[str, Any], shape: str) -> None:
    """Cut the interaction's objects down to what Discord may send for an uncached guild or channel."""
    data["channel"] = {"id": data["channel_id"], "type": 11 if shape == "thread" else 0}
    if shape == "no guild object":
        data.pop("guild", None)
        data.pop("guild_locale", None)
    if shape == "partial member":  # only the fields Discord must send: no nick, no join date, no global name
        member, user = data["member"], data["member"]["user"]
        data["member"] = {
            "user": {"id": user["id"], "username": user["username"], "discriminator": "0", "avatar": None},
            "roles": ["123456789012345678"],  # a role the client does not know either
            "flags": 0,
            "permissions": member["permissions"],
        }


SHAPES = ["uncached guild", "uncached channel", "thread", "no guild object", "partial member"]


def _cards(fake: FakeDiscord, channel_id: str) -> list[dict[str, Any]]:
    return [m for m in fake.channel_messages(channel_id) if custom_ids(m)]


def _identifies(fake: FakeDiscord) -> int:
    return len([c for c in fake.connections if c.identify is not None])


@pytest.mark.parametrize("shape", SHAPES)
async def test_a_command_and_a_click_with_partial_objects_are_answered_and_recorded(
    runtime: Runtime, fake: FakeDiscord, shape: str
) -> None:
    adapter = DiscordAdapter(runtime)
    async with serving(adapter, fake):
        connected = _identifies(fake)
        guild_id, channel_id = _place(fake, shape)
        now = fake.slash_command_interaction(
            "quiz", subcommand="now", options={"pack": "data-parallelism"}, guild_id=guild_id, channel_id=channel_id
        )
        _partial(now, shape)
        posted = await fake.send_interaction(now)
        assert posted is not None, "the command was not answered"
        assert posted.ephemeral and "Traceback" not in text_of(posted)
        message = (await fake.wait_for(lambda: _cards(fake, channel_id), what="the card"))[0]
        post_id = int(ANSWER_ID.fullmatch(custom_ids(message)[0]).group(1))  # type: ignore[union-attr]
        data = fake.component_interaction(message, custom_ids(message)[0], user_id=1009, user_name="mallory")
        _partial(data, shape)

        reply = await fake.send_interaction(data)

        assert reply is not None, "the click was not answered"
        assert reply.type == 4 and reply.ephemeral
        assert "Traceback" not in text_of(reply)
        assert [row[:2] for row in await answer_rows(runtime)] == [(post_id, "1009")]
        # the same connection serves the next click: the frame did not end it
        assert _identifies(fake) == connected
        ok = await click(fake, message, custom_ids(message)[0], user_id=1001, user_name="alice")
        assert ok.type == 4 and ok.ephemeral
        assert len(await answer_rows(runtime)) == 2
        assert _identifies(fake) == connected


async def test_an_interaction_discord_py_cannot_read_is_dropped_and_the_connection_stays(
    runtime: Runtime, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    adapter = DiscordAdapter(runtime)
    async with serving(adapter, fake):
        assert (await slash(fake, "now", {"pack": "data-parallelism"}, user_name="alice")).ephemeral
        message = (await fake.wait_for(lambda: card_messages(fake), what="the card"))[0]
        connected = _identifies(fake)
        data = fake.component_interaction(message, custom_ids(message)[0], user_id=1009, user_name="mallory")
        del data["member"]["roles"]  # discord.py's Member requires it
        await fake.dispatch("INTERACTION_CREATE", data)

        ok = await click(fake, message, custom_ids(message)[0], user_id=1001, user_name="alice")  # the next one

        assert ok.type == 4 and ok.ephemeral
        assert [row[1] for row in await answer_rows(runtime)] == ["1001"]
        assert _identifies(fake) == connected  # no reconnect, no restart
        dropped = [r for r in caplog.records if r.levelname == "ERROR" and "could not be read" in r.getMessage()]
        assert len(dropped) == 1 and "\n" not in dropped[0].getMessage()
