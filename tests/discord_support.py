"""Helpers for the Discord adapter tests: run the real adapter against the loopback fake, read what it did."""

from __future__ import annotations

import asyncio
import contextlib
import math
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

from sqlalchemy import select

import adapters.discord.interactions
from adapters.discord.adapter import DiscordAdapter
from adapters.discord.settings import DiscordSettings
from bot.db.models import Answer, Channel, Post, User, Workspace
from bot.runtime import Runtime
from tests.fakes.discord_api import WAIT, FakeDiscord, InteractionCallback

ANSWER_ID = re.compile(r"quiz:answer:(\d+):(\d+)")
PATIENT = 60.0
"""The deadline `serving` gives an adapter left at the default one: an interaction is deferred where its test says
so (a deadline of its own, a held commit), not because a loaded machine took more than the default 1.5 s."""
DEFAULT_DEADLINE = DiscordSettings.model_fields["discord_ack_deadline"].default


@contextlib.asynccontextmanager
async def serving(
    adapter: DiscordAdapter, fake: FakeDiscord, *, timeout: float = WAIT, discord_window: bool = False
) -> AsyncIterator[DiscordAdapter]:
    """Run `adapter.run()` (as `quizbot run` does) until the client is ready; stop it through `runtime.stopping`.

    Like FakeDiscord.run_client it shortens discord.py's wait for GUILD_CREATEs and its 5 s pause before a
    second shard identifies, which only slow tests down. An interaction is deferred where the test asks for it,
    never because the machine is slow: an adapter given no deadline of its own (`defer_after` left at the
    default) gets PATIENT, and Discord's 3 s window, which the fake does not enforce, is lifted meanwhile unless
    the test is about it (`discord_window`: an interaction that arrived late).
    """
    with patient(adapter, discord_window=discord_window):
        async with _serving(adapter, fake, timeout=timeout) as served:
            yield served


@contextlib.contextmanager
def patient(adapter: DiscordAdapter, *, discord_window: bool = False) -> Iterator[DiscordAdapter]:
    """What `serving` does about deadlines, for a test that runs the adapter another way (`bot.runtime.serve`):
    PATIENT for an adapter left at the default deadline, and Discord's 3 s window lifted unless `discord_window`."""
    if adapter.defer_after == DEFAULT_DEADLINE:
        adapter.defer_after = PATIENT
    window = adapters.discord.interactions.RESPONSE_WINDOW
    if not discord_window:
        adapters.discord.interactions.RESPONSE_WINDOW = math.inf
    try:
        yield adapter
    finally:
        adapters.discord.interactions.RESPONSE_WINDOW = window


@contextlib.asynccontextmanager
async def _serving(adapter: DiscordAdapter, fake: FakeDiscord, *, timeout: float) -> AsyncIterator[DiscordAdapter]:
    client = adapter.client
    client._connection.guild_ready_timeout = 0.05

    async def no_identify_delay(shard_id: int | None, *, initial: bool = False) -> None:
        return None

    client.before_identify_hook = no_identify_delay  # type: ignore[method-assign]
    task = asyncio.create_task(adapter.run(), name="discord-adapter")
    try:
        await fake.wait_for(lambda: client.is_ready() or task.done(), timeout=timeout, what="discord adapter ready")
        if task.done():
            task.result()
            raise RuntimeError("the discord adapter stopped before it was ready")
        yield adapter
    finally:
        adapter.runtime.stopping.set()
        try:
            await asyncio.wait_for(task, timeout)
        finally:
            adapter.runtime.stopping.clear()


async def slash(
    fake: FakeDiscord, subcommand: str, options: dict[str, Any] | None = None, **kw: Any
) -> InteractionCallback:
    """Invoke `/quiz <subcommand>` and return the bot's callback once it is complete (deferred ones included)."""
    data = fake.slash_command_interaction("quiz", subcommand=subcommand, options=options, **kw)
    callback = await fake.send_interaction(data)
    assert callback is not None
    return callback


async def click(fake: FakeDiscord, message: dict[str, Any], custom_id: str, **kw: Any) -> InteractionCallback:
    """Click a button of a stored message and return the bot's callback."""
    data = fake.component_interaction(message, custom_id, **kw)
    callback = await fake.send_interaction(data)
    assert callback is not None
    return callback


def custom_ids(message: dict[str, Any]) -> list[str]:
    """The custom_ids of a message's buttons, in order."""
    return [c["custom_id"] for row in message.get("components") or [] for c in row["components"]]


def card_messages(fake: FakeDiscord) -> list[dict[str, Any]]:
    """Messages in the default channel that carry answer buttons or a card embed (not interaction replies)."""
    return [m for m in fake.channel_messages() if m["embeds"] and not m.get("interaction_metadata")]


def text_of(callback: InteractionCallback) -> str:
    """Everything a user reads in a callback: content, embed titles and descriptions."""
    parts = [callback.content or ""]
    for embed in callback.embeds:
        parts += [embed.get("title") or "", embed.get("description") or ""]
    return "\n".join(p for p in parts if p)


def embed_text(message: dict[str, Any]) -> str:
    """Title, description and footer of a message's embeds."""
    parts = []
    for embed in message.get("embeds") or []:
        parts += [embed.get("title") or "", embed.get("description") or "", (embed.get("footer") or {}).get("text", "")]
    return "\n".join(p for p in parts if p)


async def answer_rows(runtime: Runtime) -> list[tuple[int, str, int, bool]]:
    """(post id, user external id, chosen pack index, correct) of every answer given on Discord."""
    async with runtime.db.transaction() as session:
        rows = await session.execute(
            select(Answer.post_id, User.external_id, Answer.choice_index, Answer.is_correct)
            .join(User, User.id == Answer.user_id)
            .join(Workspace, Workspace.id == Answer.workspace_id)
            .where(Workspace.platform == "discord")
            .order_by(Answer.id)
        )
        return [(r.post_id, r.external_id, r.choice_index, r.is_correct) for r in rows]


async def post_refs(runtime: Runtime) -> list[tuple[int, str | None]]:
    """(post id, message reference) of every post on Discord."""
    async with runtime.db.transaction() as session:
        rows = await session.execute(
            select(Post.id, Post.message_ref)
            .join(Channel, Channel.id == Post.channel_id)
            .join(Workspace, Workspace.id == Channel.workspace_id)
            .where(Workspace.platform == "discord")
            .order_by(Post.id)
        )
        return [(r.id, r.message_ref) for r in rows]
