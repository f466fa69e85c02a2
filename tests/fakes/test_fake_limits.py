"""The loopback fakes refuse what the real platforms refuse: anything over a documented limit.

Discord answers 400 with code 50035 (Invalid Form Body); Slack answers `invalid_blocks`, or `msg_too_long` for
a top-level text over 40,000 characters, and a response_url answers 400 with the error as its body. Exactly at
each limit, the same payloads are accepted.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
import discord
import pytest
from slack_sdk.errors import SlackApiError

from tests.fakes.discord_api import FakeDiscord
from tests.fakes.slack_api import FakeSlack


@pytest.fixture
async def discord_fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as fake:
        yield fake


def _embeds(over: int) -> dict[str, Callable[[], list[discord.Embed]]]:
    """Embed payloads exactly at a limit (over=0) or one past it (over=1)."""

    def fields(count: int, value: int = 1) -> discord.Embed:
        embed = discord.Embed(title="t")
        for _ in range(count):
            embed.add_field(name="n", value="v" * value, inline=False)
        return embed

    return {
        "title": lambda: [discord.Embed(title="t" * (256 + over))],
        "description": lambda: [discord.Embed(description="d" * (4096 + over))],
        "field value": lambda: [fields(1, 1024 + over)],
        "fields": lambda: [fields(25 + over)],
        "footer": lambda: [discord.Embed(title="t").set_footer(text="f" * (2048 + over))],
        "total over two embeds": lambda: [
            discord.Embed(description="d" * 4000),
            discord.Embed(description="d" * (2000 + over)),
        ],
        # More than 10 embeds never reaches the fake: discord.py refuses them itself (ValueError).
    }


def _view(labels: int = 1, label: int = 1, custom_id: int = 20, rows: int = 1) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for row in range(rows):
        for i in range(labels):
            view.add_item(discord.ui.Button(label="l" * label, custom_id=f"{row}-{i}-".ljust(custom_id, "x"), row=row))
    return view


@pytest.mark.parametrize("limit", list(_embeds(0)))
async def test_discord_embeds_over_a_limit_are_refused_with_50035(discord_fake: FakeDiscord, limit: str) -> None:
    client = discord.Client(intents=discord.Intents.default())
    async with discord_fake.run_client(client):
        channel = client.get_channel(int(discord_fake.channel_id))
        assert isinstance(channel, discord.TextChannel)
        accepted = await channel.send(embeds=_embeds(0)[limit]())
        assert accepted.id
        with pytest.raises(discord.HTTPException) as refused:
            await channel.send(embeds=_embeds(1)[limit]())
        assert refused.value.status == 400 and refused.value.code == 50035
        # An edit over the limit is refused too, and leaves the message as it was.
        with pytest.raises(discord.HTTPException) as edit:
            await accepted.edit(embeds=_embeds(1)[limit]())
        assert edit.value.code == 50035


async def test_discord_buttons_over_a_limit_are_refused_with_50035(discord_fake: FakeDiscord) -> None:
    client = discord.Client(intents=discord.Intents.default())
    async with discord_fake.run_client(client):
        channel = client.get_channel(int(discord_fake.channel_id))
        assert isinstance(channel, discord.TextChannel)
        await channel.send("ok", view=_view(labels=5, label=80, custom_id=100, rows=5))  # 25 buttons at the limits
        for view in (_view(label=81), _view(custom_id=101)):
            with pytest.raises(discord.HTTPException) as refused:
                await channel.send("x", view=view)
            assert refused.value.code == 50035


@pytest.fixture
async def slack_fake() -> AsyncIterator[FakeSlack]:
    fake = FakeSlack()
    await fake.start()
    try:
        yield fake
    finally:
        await fake.stop()


def _section(length: int) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": "s" * length}}


def _slack_payloads(over: int) -> dict[str, list[dict[str, Any]]]:
    button = {"type": "button", "action_id": "a" * (255 + over), "text": {"type": "plain_text", "text": "b"}}
    return {
        "section text": [_section(3000 + over)],
        "blocks": [_section(1)] * (50 + over),
        "header": [{"type": "header", "text": {"type": "plain_text", "text": "h" * (150 + over)}}],
        "context element": [{"type": "context", "elements": [{"type": "mrkdwn", "text": "c" * (3000 + over)}]}],
        "context elements": [{"type": "context", "elements": [{"type": "mrkdwn", "text": "c"}] * (10 + over)}],
        "button text": [
            {
                "type": "actions",
                "elements": [
                    {"type": "button", "action_id": "a", "text": {"type": "plain_text", "text": "b" * (75 + over)}}
                ],
            }
        ],
        "action_id": [{"type": "actions", "elements": [button]}],
        "block_id": [{**_section(1), "block_id": "i" * (255 + over)}],
    }


@pytest.mark.parametrize("limit", list(_slack_payloads(0)))
async def test_slack_blocks_over_a_limit_are_refused_with_invalid_blocks(slack_fake: FakeSlack, limit: str) -> None:
    client = slack_fake.web_client()
    ok = await client.chat_postMessage(channel="C0001", text="x", blocks=_slack_payloads(0)[limit])
    assert ok["ok"]
    for call in (
        client.chat_postMessage(channel="C0001", text="x", blocks=_slack_payloads(1)[limit]),
        client.chat_update(channel="C0001", ts=ok["ts"], text="x", blocks=_slack_payloads(1)[limit]),
        client.chat_postEphemeral(channel="C0001", user="U0BOB", text="x", blocks=_slack_payloads(1)[limit]),
    ):
        with pytest.raises(SlackApiError) as refused:
            await call
        assert refused.value.response["error"] == "invalid_blocks"


async def test_slack_text_over_40000_is_refused_with_msg_too_long(slack_fake: FakeSlack) -> None:
    client = slack_fake.web_client()
    assert (await client.chat_postMessage(channel="C0001", text="t" * 40_000))["ok"]
    with pytest.raises(SlackApiError) as refused:
        await client.chat_postMessage(channel="C0001", text="t" * 40_001)
    assert refused.value.response["error"] == "msg_too_long"


async def test_a_response_url_refuses_over_limit_blocks_with_a_400(slack_fake: FakeSlack) -> None:
    url = slack_fake.new_response_url(channel_id="C0001", user_id="U0BOB")
    async with aiohttp.ClientSession() as session:
        async with session.post(url, json={"text": "x", "blocks": [_section(3001)]}) as response:
            assert response.status == 400 and await response.text() == "invalid_blocks"
        async with session.post(url, json={"text": "x", "blocks": [_section(3000)]}) as response:
            assert response.status == 200
    assert [r.status for r in slack_fake.responses] == [400, 200]
    assert len(slack_fake.ephemeral) == 1  # the refused one was not shown
