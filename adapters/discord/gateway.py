"""The gateway connection: discord.py's sharded client with its intents, the restart-proof buttons and `/quiz`
registered before it connects, and the answer to a click on a button no handler claims."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Iterator, Sequence
from typing import Any, Protocol

import discord
from discord import app_commands

from adapters.discord.buttons import ConfirmButton, FlagButton, ReviewButton
from adapters.discord.commands import CommandHandler, QuizCommands
from adapters.discord.custom_ids import ANSWER_TEMPLATE, CONFIRM_TEMPLATE, FLAG_TEMPLATE, REVIEW_ID
from adapters.discord.embeds import problem_embed
from adapters.discord.forms import ACTION_TEMPLATE, FIX_TEMPLATE, ActionButton, FixButton
from adapters.discord.interactions import Response
from adapters.discord.partial import tolerate_partial_channels
from adapters.discord.platform import PLATFORM
from bot.wording.errors import button_not_on_message, unknown_button

log = logging.getLogger(__name__)

_ANSWER_ID = re.compile(ANSWER_TEMPLATE)
_FLAG_ID = re.compile(FLAG_TEMPLATE)
_CONFIRM_ID = re.compile(CONFIRM_TEMPLATE)
_FORM_BUTTON_IDS = (re.compile(ACTION_TEMPLATE), re.compile(FIX_TEMPLATE))


def intents() -> discord.Intents:
    """The gateway intents the bot needs: guilds only (roles for the admin check); none is privileged.

    Interactions arrive whatever the intents, and cards are posted and edited by id over REST, so no message,
    member or presence events are needed.
    """
    return discord.Intents(guilds=True)


def invite_permissions() -> discord.Permissions:
    """The channel permissions the bot needs: see the channel, post and edit its cards (embeds), in threads too,
    attach files (the charts `/quiz report` posts), and read the history (a card posted before a crash is found)."""
    return discord.Permissions(
        view_channel=True,
        send_messages=True,
        send_messages_in_threads=True,
        embed_links=True,
        attach_files=True,
        read_message_history=True,
    )


class ClientOwner(CommandHandler, Protocol):
    """What the client hands its work to (the adapter): `/quiz`'s commands and errors, the registration check, and
    a click on a button no handler claims; `ready` is set once every shard is connected."""

    ready: asyncio.Event

    async def respond(
        self, interaction: discord.Interaction[discord.Client], work: Awaitable[Response], *, click: bool = False
    ) -> None:
        """Answer an interaction with the result of `work`."""
        ...

    async def on_command_error(
        self, interaction: discord.Interaction[QuizClient], error: app_commands.AppCommandError
    ) -> None:
        """Answer a command discord.py could not run."""
        ...

    async def check_registration(self, tree: app_commands.CommandTree[QuizClient]) -> None:
        """Warn when `/quiz` is not registered with Discord."""
        ...

    async def modal_submit(self, interaction: discord.Interaction[discord.Client]) -> None:
        """Answer a submitted modal (adapters/discord/forms.py)."""
        ...

    async def answer_click(self, interaction: discord.Interaction[discord.Client], post_id: int, choice: int) -> None:
        """Record a click on an answer button and answer the clicker privately."""
        ...


class QuizClient(discord.AutoShardedClient):
    """discord.py's sharded client with the quiz's command tree and restart-proof answer buttons."""

    def __init__(self, adapter: ClientOwner, **options: Any) -> None:
        # The bot has no voice features: skip discord.py's warnings about the missing voice libraries.
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
        super().__init__(
            intents=intents(),
            allowed_mentions=discord.AllowedMentions.none(),
            max_messages=None,
            **options,
        )
        self.adapter = adapter  # the dynamic items find their handler here
        self.tree: app_commands.CommandTree[QuizClient] = app_commands.CommandTree(self)
        self.tree.error(adapter.on_command_error)
        tolerate_partial_channels(self._connection)  # a click from an uncached channel is answered, not fatal

    async def setup_hook(self) -> None:
        """Register the dynamic buttons ("Report a problem" and the rest; answer buttons are `on_interaction`'s)
        and `/quiz` before the gateway connects."""
        self.add_dynamic_items(FlagButton, ConfirmButton, ReviewButton, ActionButton, FixButton)
        if self.tree.get_command("quiz") is None:  # a restarted client runs this again
            self.tree.add_command(QuizCommands(self.adapter))
        await self.adapter.check_registration(self.tree)

    async def on_ready(self) -> None:
        """Every shard is connected: the adapter is up (its supervisor restarts it only after this)."""
        self.adapter.ready.set()

    async def on_interaction(self, interaction: discord.Interaction[discord.Client]) -> None:
        """Answer a click on an answer button, a submitted modal (discord.py keeps none of ours), and a click on a
        button no handler claims, instead of letting Discord show "interaction failed".

        An answer click is answered here, not through a dynamic item: for each dynamic item it dispatches,
        discord.py builds a View of the clicked message and the item's Button (~5% of the bot's CPU a click, in
        its own task), while the custom_id and the check that the button is on its message, made here anyway, are
        all an answer needs."""
        if interaction.type is discord.InteractionType.modal_submit:
            await self.adapter.modal_submit(interaction)
            return
        if interaction.type is not discord.InteractionType.component or not isinstance(interaction.data, dict):
            return
        custom_id = str(interaction.data.get("custom_id", ""))
        answer = _ANSWER_ID.fullmatch(custom_id)
        if answer is not None and _on_its_message(interaction, custom_id):
            await self.adapter.answer_click(interaction, int(answer["post_id"]), int(answer["choice"]))
            return
        ours = answer is not None or any(
            pattern.fullmatch(custom_id) for pattern in (_FLAG_ID, _CONFIRM_ID, *_FORM_BUTTON_IDS)
        )
        if ours or custom_id == REVIEW_ID:
            if answer is None and _on_its_message(interaction, custom_id):
                return  # a FlagButton, a ConfirmButton, a ReviewButton or a form's button handles it
            # A forged or stale payload, or a message edited since the click was made: answered here, because
            # discord.py rebuilds a dynamic item only from a component of the clicked message and drops the click
            # in silence otherwise ("This interaction failed").
            log.info("click on a button %r that its message does not have", custom_id, extra={"platform": PLATFORM})
            await self.adapter.respond(interaction, _immediate(Response(problem_embed(button_not_on_message().text))))
            return
        log.info("click on an unknown button %r", custom_id, extra={"platform": PLATFORM})
        await self.adapter.respond(interaction, _immediate(Response(problem_embed(unknown_button().text))))


def _on_its_message(interaction: discord.Interaction[discord.Client], custom_id: str) -> bool:
    """Whether the clicked message has a component of the clicked type with this custom_id: the test discord.py's
    dispatch makes, read off the message's components as discord.py parsed them (building a throwaway View of the
    message, as discord.py does, would cost a second one per click)."""
    message = interaction.message
    if message is None or not isinstance(interaction.data, dict):
        return False
    kind = interaction.data.get("component_type")
    return any(
        getattr(component, "custom_id", None) == custom_id and component.type.value == kind
        for component in _components(message.components)
    )


def _components(components: Sequence[discord.Component]) -> Iterator[discord.Component]:
    """Every component of a message, inside action rows, containers and sections too."""
    for component in components:
        if isinstance(component, discord.ActionRow | discord.Container):
            yield from _components(component.children)
        elif isinstance(component, discord.SectionComponent):
            yield from _components(component.children)
            yield component.accessory
        else:
            yield component


async def _immediate(response: Response) -> Response:
    return response
