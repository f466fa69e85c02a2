"""Self-tests of the loopback Discord fake, driven by the real discord.py client."""

from __future__ import annotations

import asyncio
import io
import re
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands

from tests.fakes.discord_api import WAIT, FakeDiscord, loopback_only

TEMPLATE = r"quiz:answer:(?P<post_id>\d+):(?P<choice>\d+)"


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as fake:
        yield fake
        assert fake.network_guard is not None
        assert fake.network_guard.violations == []


class AnswerButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=TEMPLATE):
    calls: list[tuple[int, int, int]] = []

    def __init__(self, post_id: int, choice: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=f"Choice {choice}",
                style=discord.ButtonStyle.secondary,
                custom_id=f"quiz:answer:{post_id}:{choice}",
            )
        )
        self.post_id = post_id
        self.choice = choice

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button[Any], match: re.Match[str], /
    ) -> AnswerButton:
        return cls(int(match["post_id"]), int(match["choice"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        AnswerButton.calls.append((self.post_id, self.choice, interaction.user.id))
        await interaction.response.send_message("ok", ephemeral=True)


def _answer_view(post_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for choice in (1, 2, 3, 4):
        view.add_item(AnswerButton(post_id, choice))
    return view


class DynamicClient(discord.Client):
    async def setup_hook(self) -> None:
        self.add_dynamic_items(AnswerButton)


async def test_client_logs_in_and_posts_with_embed_and_view(fake: FakeDiscord) -> None:
    client = discord.Client(intents=discord.Intents.default())
    async with fake.run_client(client):
        assert client.user is not None
        assert client.user.id == int(fake.bot_user_id)
        assert client.application_id == int(fake.application_id)
        guild = client.get_guild(int(fake.guild_id))
        assert guild is not None
        assert guild.name == "Quiz Guild"
        channel = guild.get_channel(int(fake.channel_id))
        assert isinstance(channel, discord.TextChannel)
        assert channel.permissions_for(guild.me).send_messages

        embed = discord.Embed(title="Question 1", description="What does each GPU hold?")
        embed.add_field(name="Pack", value="data-parallelism")
        msg = await channel.send(embed=embed, view=_answer_view(7))
        assert msg.id > 0
        assert msg.embeds[0].title == "Question 1"
        assert [c.custom_id for c in msg.components[0].children] == [f"quiz:answer:7:{i}" for i in (1, 2, 3, 4)]

        posts = fake.requests_to("POST", "/channels/{id}/messages")
        assert len(posts) == 1
        body = posts[0].json
        assert body["embeds"][0]["title"] == "Question 1"
        assert body["components"][0]["type"] == 1
        assert len(body["components"][0]["components"]) == 4
        stored = fake.get_message(msg.id)
        assert stored is not None
        assert stored["channel_id"] == fake.channel_id
        assert stored["embeds"][0]["fields"][0]["value"] == "data-parallelism"

        # GET / PATCH / DELETE round-trip through discord.py
        fetched = await channel.fetch_message(msg.id)
        assert fetched.embeds[0].description == "What does each GPU hold?"
        edited = await msg.edit(content="closed", view=None)
        assert edited.content == "closed"
        assert fake.get_message(msg.id)["components"] == []
        await msg.delete()
        assert fake.get_message(msg.id) is None
        with pytest.raises(discord.NotFound):
            await channel.fetch_message(msg.id)

        # the login sequence and the gateway handshake
        assert fake.requests_to("GET", "/users/@me")
        assert fake.requests_to("GET", "/oauth2/applications/@me")
        conn = await fake.wait_until_connected(0)
        assert conn.identify is not None
        assert conn.identify["intents"] == discord.Intents.default().value
        assert conn.heartbeats >= 1
    fake.assert_no_unknown_routes()


async def test_dynamic_item_button_interaction(fake: FakeDiscord) -> None:
    AnswerButton.calls.clear()
    client = DynamicClient(intents=discord.Intents.default())
    async with fake.run_client(client):
        channel = client.get_channel(int(fake.channel_id))
        assert isinstance(channel, discord.TextChannel)
        msg = await channel.send("Question?", view=_answer_view(42))
        stored = fake.get_message(msg.id)
        assert stored is not None

        data = fake.component_interaction(stored, "quiz:answer:42:3", user_id=555, user_name="alice")
        assert data["data"] == {"custom_id": "quiz:answer:42:3", "component_type": 2}
        callback = await fake.send_interaction(data)
        assert callback is not None
        assert callback.type == 4
        assert callback.flags == 64
        assert callback.ephemeral
        assert callback.content == "ok"
        assert AnswerButton.calls == [(42, 3, 555)]
        original = fake.original_response(data["id"])
        assert original is not None
        assert original["flags"] & 64
        assert original["interaction_metadata"]["interacted_message_id"] == stored["id"]
    fake.assert_no_unknown_routes()


async def test_slash_command_group_sync_and_invoke(fake: FakeDiscord) -> None:
    client = discord.Client(intents=discord.Intents.default())
    tree = app_commands.CommandTree(client)
    seen: list[tuple[str, int]] = []
    quiz = app_commands.Group(name="quiz", description="Quiz commands")

    @quiz.command(name="now", description="Post a question now")
    @app_commands.describe(pack="Question pack")
    async def now(interaction: discord.Interaction, pack: str, count: int = 1) -> None:
        seen.append((pack, count))
        await interaction.response.defer(thinking=True)
        await interaction.edit_original_response(content=f"posted {count} from {pack}")
        await interaction.followup.send("follow-up", ephemeral=True)

    @now.autocomplete("pack")
    async def pack_autocomplete(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return [
            app_commands.Choice(name=p, value=p) for p in ("data-parallelism", "databases") if p.startswith(current)
        ]

    tree.add_command(quiz)
    guild = discord.Object(id=int(fake.guild_id))
    async with fake.run_client(client):
        synced = await tree.sync()
        assert [c.name for c in synced] == ["quiz"]
        assert fake.global_commands[0]["options"][0]["name"] == "now"
        tree.copy_global_to(guild=guild)
        guild_synced = await tree.sync(guild=guild)
        assert guild_synced[0].guild_id == int(fake.guild_id)
        assert fake.requests_to("PUT", "/applications/{app}/commands")
        assert fake.requests_to("PUT", "/applications/{app}/guilds/{gid}/commands")
        fetched = await tree.fetch_commands()
        assert [c.id for c in fetched] == [c.id for c in synced]

        data = fake.slash_command_interaction(
            "quiz", subcommand="now", options={"pack": "data-parallelism", "count": 2}, user_name="bob"
        )
        assert data["data"]["guild_id"] == fake.guild_id  # guild command shadows the global one
        callback = await fake.send_interaction(data)
        assert callback is not None
        assert callback.type == 5
        await fake.wait_for(lambda: fake.followups(data["id"]), what="follow-up")
        assert seen == [("data-parallelism", 2)]
        original = fake.original_response(data["id"])
        assert original is not None
        assert original["content"] == "posted 2 from data-parallelism"
        assert not original["flags"] & 128  # no longer "thinking"
        followup = fake.followups(data["id"])[0]
        assert followup["content"] == "follow-up"
        assert followup["flags"] & 64
        assert fake.requests_to("PATCH", "/webhooks/{app}/{token}/messages/@original")
        assert fake.requests_to("POST", "/webhooks/{app}/{token}")

        auto = fake.autocomplete_interaction("quiz", subcommand="now", options={"pack": "data"})
        ac = await fake.send_interaction(auto)
        assert ac is not None
        assert ac.type == 8
        assert [c["value"] for c in ac.data["choices"]] == ["data-parallelism", "databases"]
    fake.assert_no_unknown_routes()


async def test_auto_sharded_client_connects_both_shards() -> None:
    async with FakeDiscord(guild_id=(10_000 << 22) | 1) as fake:
        fake.add_guild(guild_id=(10_001 << 22) | 1, name="Second")  # lands on shard 1
        client = discord.AutoShardedClient(intents=discord.Intents.default(), shard_count=2)
        async with fake.run_client(client):
            c0 = await fake.wait_until_connected(0)
            c1 = await fake.wait_until_connected(1)
            assert c0.identify is not None
            assert c1.identify is not None
            assert c0.identify["shard"] == [0, 2]
            assert c1.identify["shard"] == [1, 2]
            assert {g.name for g in client.guilds} == {"Quiz Guild", "Second"}
            assert client.get_guild(int(fake.guild_id)).shard_id == 0
            assert sorted(client.shards) == [0, 1]

            # an interaction for the second guild goes to shard 1 and is answered
            second = next(g for g in fake.guilds.values() if g["name"] == "Second")
            seen: list[int | None] = []

            @client.event
            async def on_interaction(interaction: discord.Interaction) -> None:
                seen.append(interaction.guild_id)
                await interaction.response.send_message("pong")

            data = fake.slash_command_interaction("ping", guild_id=second["id"])
            callback = await fake.send_interaction(data)
            assert callback is not None
            assert callback.content == "pong"
            assert seen == [int(second["id"])]
            assert "INTERACTION_CREATE" in [m.get("t") for m in c1.sent]
            assert "INTERACTION_CREATE" not in [m.get("t") for m in c0.sent]
        fake.assert_no_unknown_routes()


async def test_client_restart_reconnects(fake: FakeDiscord) -> None:
    first = discord.Client(intents=discord.Intents.default())
    async with fake.run_client(first):
        conn1 = await fake.wait_until_connected(0)
    await fake.wait_for(lambda: conn1.closed, what="first connection closed")
    assert first.is_closed()

    second = DynamicClient(intents=discord.Intents.default())
    async with fake.run_client(second):
        conn2 = await fake.wait_until_connected(0, identify_count=2)
        assert conn2 is not conn1
        assert len(fake.identifies) == 2
        # the restarted bot still handles buttons of messages posted before the restart
        channel = second.get_channel(int(fake.channel_id))
        assert isinstance(channel, discord.TextChannel)
        msg = await channel.send("again", view=_answer_view(9))
        cb = await fake.send_interaction(fake.component_interaction(fake.get_message(msg.id), "quiz:answer:9:1"))
        assert cb is not None
        assert cb.type == 4


async def test_resume_is_invalidated_then_reidentifies(fake: FakeDiscord) -> None:
    client = discord.Client(intents=discord.Intents.default())
    async with fake.run_client(client):
        await fake.request_reconnect(0)
        conn = await fake.wait_until_connected(0, identify_count=2)
        assert len(fake.resumes) == 1
        assert fake.resumes[0]["session_id"] == fake.connections[0].session_id
        assert conn is fake.connections[-1]
        await fake.wait_for(client.is_ready, what="ready again")


async def test_resume_accepted(fake: FakeDiscord) -> None:
    fake.resume_mode = "accept"
    client = discord.Client(intents=discord.Intents.default())
    resumed = asyncio.Event()

    @client.event
    async def on_resumed() -> None:
        resumed.set()

    async with fake.run_client(client):
        await fake.drop_connection(0, code=4000)
        await asyncio.wait_for(resumed.wait(), WAIT)
        assert len(fake.identifies) == 1
        cb = await fake.send_interaction(fake.slash_command_interaction("x"), expect_callback=False)
        assert cb is None


async def test_injected_failures_map_to_discord_exceptions(fake: FakeDiscord) -> None:
    client = discord.Client(intents=discord.Intents.default())
    async with fake.run_client(client):
        channel = client.get_channel(int(fake.channel_id))
        assert isinstance(channel, discord.TextChannel)

        fake.fail_next("POST", "/channels/{id}/messages", "unknown_channel")
        with pytest.raises(discord.NotFound) as not_found:
            await channel.send("x")
        assert not_found.value.code == 10003

        fake.fail_next("POST", "/channels/{id}/messages", "missing_access")
        with pytest.raises(discord.Forbidden) as forbidden:
            await channel.send("x")
        assert forbidden.value.code == 50001

        # a one-shot 429 is retried transparently after retry_after
        fake.fail_next("POST", "/channels/{id}/messages", "rate_limited", retry_after=0.05)
        msg = await channel.send("after 429")
        assert msg.content == "after 429"
        posts = fake.requests_to("POST", "/channels/{id}/messages")
        assert [p.status for p in posts] == [404, 403, 429, 200]
        assert posts[2].response == {
            "message": "You are being rate limited.",
            "retry_after": 0.05,
            "global": False,
        }

        # validation: over-long content is rejected like Discord does (400 / 50035)
        with pytest.raises(discord.HTTPException) as bad:
            await channel.send("x" * 2001)
        assert bad.value.code == 50035

        # real 404s
        await fake.remove_channel(fake.channel_id, dispatch=False)
        with pytest.raises(discord.NotFound):
            await channel.send("gone")
    fake.assert_no_unknown_routes()


async def test_bucket_rate_limit_is_respected(fake: FakeDiscord) -> None:
    fake.set_rate_limit("POST", "/channels/{id}/messages", limit=2, per=0.3)
    client = discord.Client(intents=discord.Intents.default())
    async with fake.run_client(client):
        channel = client.get_channel(int(fake.channel_id))
        assert isinstance(channel, discord.TextChannel)
        started = time.monotonic()
        await asyncio.gather(*(channel.send(f"m{i}") for i in range(5)))
        elapsed = time.monotonic() - started
        assert len(fake.channel_messages()) == 5
        assert elapsed >= 0.5  # 5 messages at 2 per 0.3 s need at least two refills
        ok = [r for r in fake.requests_to("POST", "/channels/{id}/messages") if r.status == 200]
        assert len(ok) == 5
        headers = fake.requests_to("GET", "/users/@me")[0]
        assert headers.status == 200
        # global limit: 429 with global=true and the scope header
        fake.clear_rate_limits()
        fake.set_global_rate_limit(1, per=0.2)
        await asyncio.gather(channel.send("g1"), channel.send("g2"))
        limited = [r for r in fake.rate_limited_requests if r.response.get("global")]
        assert limited
        fake.set_global_rate_limit(None)


async def test_rest_headers_and_unknown_routes_with_raw_http(fake: FakeDiscord) -> None:
    async with aiohttp.ClientSession() as session:
        async with session.get(fake.api_base + "/users/@me") as resp:
            assert resp.status == 200
            assert resp.headers["Content-Type"] == "application/json"
            assert int(resp.headers["X-RateLimit-Remaining"]) > 0
            assert "X-RateLimit-Bucket" in resp.headers
            assert (await resp.json())["id"] == fake.bot_user_id
        async with session.get(fake.api_base + "/nope/123") as resp:
            assert resp.status == 404
            assert await resp.json() == {"message": "Unknown route", "code": 0}
        fake.set_rate_limit("GET", "/users/@me", limit=1, per=5)
        async with session.get(fake.api_base + "/users/@me") as resp:
            assert resp.headers["X-RateLimit-Remaining"] == "0"
        async with session.get(fake.api_base + "/users/@me") as resp:
            assert resp.status == 429
            body = await resp.json()
            assert body["global"] is False
            assert 0 < body["retry_after"] <= 5
            for header in (
                "Retry-After",
                "X-RateLimit-Limit",
                "X-RateLimit-Remaining",
                "X-RateLimit-Reset-After",
                "X-RateLimit-Bucket",
                "X-RateLimit-Scope",
                "Via",
            ):
                assert header in resp.headers
    assert [(r.method, r.path) for r in fake.unknown_requests] == [("GET", "/nope/123")]
    with pytest.raises(AssertionError):
        fake.assert_no_unknown_routes()
    fake.unknown_requests.clear()


async def test_component_update_modal_and_user_messages(fake: FakeDiscord) -> None:
    intents = discord.Intents.default()
    intents.message_content = True
    client = discord.Client(intents=intents)
    received: list[str] = []

    class Feedback(discord.ui.Modal, title="Feedback"):
        text = discord.ui.TextInput(label="Text", custom_id="fb-text")

        async def on_submit(self, interaction: discord.Interaction) -> None:
            received.append(self.text.value)
            await interaction.response.send_message("thanks", ephemeral=True)

    class Panel(discord.ui.View):
        @discord.ui.button(label="Close", custom_id="panel:close")
        async def close(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
            await interaction.response.edit_message(content="closed", view=None)

        @discord.ui.button(label="Feedback", custom_id="panel:feedback")
        async def feedback(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
            await interaction.response.send_modal(Feedback())

    @client.event
    async def on_message(message: discord.Message) -> None:
        if message.author.id != client.user.id and message.content == "!ping":
            await message.reply("pong")

    async with fake.run_client(client):
        channel = client.get_channel(int(fake.channel_id))
        assert isinstance(channel, discord.TextChannel)
        msg = await channel.send("panel", view=Panel(timeout=None))

        cb = await fake.send_interaction(fake.component_interaction(fake.get_message(msg.id), "panel:feedback"))
        assert cb is not None
        assert cb.type == 9
        assert cb.data["custom_id"]
        modal = fake.modal_submit_interaction(cb.data["custom_id"], {"fb-text": "great quiz"})
        done = await fake.send_interaction(modal)
        assert done is not None
        assert done.content == "thanks"
        assert received == ["great quiz"]

        cb = await fake.send_interaction(fake.component_interaction(fake.get_message(msg.id), "panel:close"))
        assert cb is not None
        assert cb.type == 7
        assert fake.get_message(msg.id)["content"] == "closed"
        assert fake.get_message(msg.id)["components"] == []

        user_msg = await fake.user_message("!ping", user_name="carol")
        reply = await fake.wait_for(lambda: fake.requests_to("POST", "/channels/{id}/messages")[1:], what="reply")
        assert reply[0].json["content"] == "pong"
        assert reply[0].json["message_reference"]["message_id"] == int(user_msg["id"])

        # thread + reactions + typing
        thread = await msg.create_thread(name="discussion")
        await thread.send("in thread")
        assert fake.last_message(thread.id)["content"] == "in thread"
        await msg.add_reaction("✅")
        assert fake.get_message(msg.id)["reactions"][0]["count"] == 1
        async with channel.typing():
            pass
    fake.assert_no_unknown_routes()


async def test_loopback_guard_blocks_external_traffic() -> None:
    with loopback_only() as guard:
        async with aiohttp.ClientSession() as session:
            with pytest.raises(aiohttp.ClientError):
                async with session.get("http://192.0.2.1:9/"):
                    pass
            with pytest.raises(aiohttp.ClientError):
                async with session.get("https://discord.com/api/v10/gateway"):
                    pass
    assert len(guard.violations) == 2


async def test_intents_none_gets_unavailable_guilds_and_no_events(fake: FakeDiscord) -> None:
    client = discord.Client(intents=discord.Intents.none())
    async with fake.run_client(client):
        conn = await fake.wait_until_connected(0)
        assert conn.intents == 0
        assert [m["t"] for m in conn.sent if m["op"] == 0] == ["READY"]  # no GUILD_CREATE without GUILDS
        guild = client.get_guild(int(fake.guild_id))
        assert guild is not None
        assert guild.unavailable
        # REST still works through a PartialMessageable, and no MESSAGE_CREATE is echoed
        msg = await client.get_partial_messageable(int(fake.channel_id)).send("hello")
        assert fake.get_message(msg.id)["content"] == "hello"
        assert [m["t"] for m in conn.sent if m["op"] == 0] == ["READY"]


async def test_file_uploads_are_recorded_and_served(fake: FakeDiscord) -> None:
    client = discord.Client(intents=discord.Intents.default())

    @client.event
    async def on_interaction(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("chart", file=discord.File(io.BytesIO(b"PNG..."), "chart.png"))

    async with fake.run_client(client):
        channel = client.get_channel(int(fake.channel_id))
        assert isinstance(channel, discord.TextChannel)
        msg = await channel.send("scores", file=discord.File(io.BytesIO(b"a,b\n1,2\n"), "scores.csv"))
        post = fake.requests_to("POST", "/channels/{id}/messages")[-1]
        assert post.is_multipart
        assert post.payload_json["content"] == "scores"
        assert post.files[0]["filename"] == "scores.csv"
        assert post.files[0]["data"] == b"a,b\n1,2\n"
        assert msg.attachments[0].filename == "scores.csv"
        assert msg.attachments[0].url.startswith(fake.base_url)
        assert await msg.attachments[0].read() == b"a,b\n1,2\n"

        cb = await fake.send_interaction(fake.slash_command_interaction("chart"))
        assert cb is not None
        assert cb.request.files[0]["filename"] == "chart.png"
        assert cb.message is not None
        assert cb.message["attachments"][0]["size"] == len(b"PNG...")
    fake.assert_no_unknown_routes()
