"""The Discord adapter: the platform port on discord.py, `/quiz` slash commands and answer buttons.

A question card is an embed with one button per choice (a very long one spans a few messages, the last with the
buttons: adapters/discord/cards.py). A click is answered ephemerally (only the clicker sees
right/wrong and why); the card's answer count is edited through the core's coalescing CardRefresher; the reveal
edits the card again and removes its buttons. Channels are addressed by id through partial messageables, so
nothing but the guild list needs to be cached and no privileged intent is asked for.

One module per job: the platform port (platform.py), answering interactions (interactions.py), the gateway client
and its setup (gateway.py), the `/quiz` command tree (commands.py); this module builds them into one adapter and
runs it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord

from adapters.discord.buttons import FlagViews
from adapters.discord.cards import CardFiles
from adapters.discord.forms import FormStore
from adapters.discord.gateway import QuizClient, intents, invite_permissions
from adapters.discord.interactions import OUT_OF_SYNC, DiscordInteractions
from adapters.discord.platform import PLATFORM
from adapters.discord.settings import DiscordSettings
from bot.errors import ConfigError
from bot.service.facade import AdapterHost
from bot.wording import discord as words

log = logging.getLogger(__name__)

DRAIN_TIMEOUT = 5.0
"""At stop, how long interactions being answered may take to finish before the connection closes."""


class DiscordAdapter(DiscordInteractions):
    """The platform port on discord.py, and the bot's Discord connection: the port (platform.py) and the
    interactions (interactions.py) over one client (gateway.py), run here."""

    client: QuizClient

    def __init__(self, runtime: AdapterHost, *, defer_after: float | None = None) -> None:
        self.runtime = runtime
        self._answering: set[asyncio.Task[Any]] = set()  # interactions being answered, drained at stop
        self.forms = FormStore()  # refused forms kept for their "Fix it" button (adapters/discord/forms.py)
        self.flag_views = FlagViews()  # the "Report a problem" view under each recent post's verdicts
        settings = self.settings = DiscordSettings.of(runtime.settings)
        self.defer_after = settings.discord_ack_deadline if defer_after is None else defer_after
        options: dict[str, Any] = {}
        if settings.discord_shard_count is not None:
            options["shard_count"] = settings.discord_shard_count
        if settings.discord_shard_ids is not None:
            options["shard_ids"] = settings.discord_shard_ids
        # Every REST response's Date tells how far this host's clock is from Discord's (bot/clock_skew.py).
        options["http_trace"] = runtime.clock_skew.trace_config(PLATFORM)
        self._client_options = options
        self._history_refusals: set[str] = set()  # why a channel's history could not be read, each logged once
        self.card_files = CardFiles(runtime.settings.content_dir)
        self.client = QuizClient(self, **options)
        self.ready = asyncio.Event()
        """Set once every shard is connected; cleared by the supervisor before each (re)start."""

    # --- running -----------------------------------------------------------------------------------

    async def run(self) -> None:
        """Connect (all shards, or the configured ones) and serve until the bot is told to stop."""
        token = self.settings.discord_token
        if token is None:
            raise ConfigError(words.adapter_needs_token())
        self.runtime.platforms.register(self)
        if self.client.is_closed():  # restarted after a failure: discord.py's client can be reopened once cleared
            self._reopen()
        client_task = asyncio.create_task(self.client.start(token.get_secret_value()), name="discord-client")
        stop_task = asyncio.create_task(self.runtime.stopping.wait(), name="discord-stop")
        try:
            await asyncio.wait({client_task, stop_task}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop_task.cancel()
            await self._close(client_task)
        if client_task.cancelled():
            return
        try:
            client_task.result()
        except discord.LoginFailure as exc:
            raise ConfigError(words.token_refused(exc)) from exc

    def _reopen(self) -> None:
        """A new client in place of a closed one, built the same way.

        discord.py's `Client.clear()` is not enough to start a sharded client again: its queue of shard events
        keeps the old connection's last ones (which end the new `connect()` at once) and its HTTP client keeps the
        closed connector. Buttons and `/quiz` are registered again by the new client's `setup_hook`.
        """
        old = self.client
        self.client = QuizClient(self, **self._client_options)
        self.client._connection.guild_ready_timeout = old._connection.guild_ready_timeout

    async def _close(self, client_task: asyncio.Task[None]) -> None:
        """Let interactions being answered finish, send pending answer-count edits, then close the connection."""
        if not self.client.is_closed():
            try:
                answering = [task for task in self._answering if task is not asyncio.current_task()]
                if answering:
                    log.info("waiting for %d interaction(s) to be answered", len(answering))
                    await asyncio.wait(answering, timeout=DRAIN_TIMEOUT)
                await self.runtime.app.flush_cards()
            finally:
                await self.client.close()
        if not client_task.done():
            await asyncio.wait({client_task}, timeout=10)
            if not client_task.done():
                client_task.cancel()
        log.info("discord client closed", extra={"platform": PLATFORM})


__all__ = ["OUT_OF_SYNC", "DiscordAdapter", "intents", "invite_permissions"]
