"""The Discord adapter: the platform port on discord.py, `/quiz` slash commands and answer buttons.

A question card is an embed with one button per choice (a very long one spans a few messages, the last with the
buttons: adapters/discord/cards.py). A click is answered ephemerally (only the clicker sees
right/wrong and why); the card's answer count is edited through the core's coalescing CardRefresher; the reveal
edits the card again and removes its buttons. Channels are addressed by id through partial messageables, so
nothing but the guild list needs to be cached and no privileged intent is asked for.
"""

from __future__ import annotations

import asyncio
import io
import logging
import re
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import discord
from discord import app_commands

from adapters.discord.buttons import (
    AnswerButton,
    ConfirmButton,
    FlagButton,
    ReviewButton,
    confirm_view,
    flag_view,
    page_view,
)
from adapters.discord.cards import CardFiles, edit_card, find_card, send_card
from adapters.discord.commands import QuizCommands
from adapters.discord.embeds import (
    ANSWER_TEMPLATE,
    CONFIRM_TEMPLATE,
    FLAG_TEMPLATE,
    PROBLEM_COLOUR,
    REVIEW_ID,
    answer_embed,
    chart_embed,
    message_embed,
    page_embed,
    problem_embed,
)
from adapters.discord.partial import tolerate_partial_channels
from adapters.discord.settings import DiscordSettings
from adapters.text_safety import plain
from bot.chart_images import render_charts
from bot.commands import Command, FlagQuestion, StartReview
from bot.domain import ChannelRef, QuestionCard, UserRef
from bot.domain.views import ReportChart
from bot.errors import CommandError, ConfigError, StorageUnavailable
from bot.ports import Message, PlatformError, PlatformLimits, Rate
from bot.service.facade import AdapterHost, Context, Reply, error_reply
from bot.wording import reports as report_words
from bot.wording import translate
from bot.wording.errors import (
    button_not_on_message,
    click_not_recorded,
    posted_in_channel,
    unexpected,
    unknown_button,
)

log = logging.getLogger(__name__)

PLATFORM = "discord"
DM_WORKSPACE = "dm"
"""Direct messages have no guild: each direct-message channel is a workspace of its own, `dm-<channel id>`, so
nobody's answers, names or scores are seen from another person's direct messages with the bot."""


def dm_workspace(channel_id: int | str) -> str:
    """The workspace id of a direct-message channel."""
    return f"{DM_WORKSPACE}-{channel_id}"


def is_dm_workspace(workspace_id: str) -> bool:
    """Whether a workspace id is a direct-message channel's (`dm` alone: how all of them were kept before)."""
    return workspace_id == DM_WORKSPACE or workspace_id.startswith(f"{DM_WORKSPACE}-")


DEFER_AFTER = 1.5
"""Default longest wait for the core before deferring an interaction, in seconds (QUIZBOT_DISCORD_ACK_DEADLINE).

Discord wants the first response within 3 s of the interaction's creation. A fast answer (the usual case: one
short transaction) is sent directly as the response: one request, no "thinking..." flicker. When the core takes
longer (a busy database, a rate-limited post) the interaction is deferred and the answer then edits the deferred
reply. The wait is shortened by the time the interaction spent reaching us (its snowflake's age), keeping
RESPONSE_MARGIN for the callback's own round trip.

For an answer click this is acknowledge-after-commit: the interaction response is the committed verdict, so a
process that dies before the commit sends nothing and Discord shows the person "This interaction failed"; they
click again. A click deferred because its commit outlasted the deadline is counted (quizbot_late_acks_total).
"""
RESPONSE_WINDOW = 3.0
RESPONSE_MARGIN = 1.0
DRAIN_TIMEOUT = 5.0
"""At stop, how long interactions being answered may take to finish before the connection closes."""

OUT_OF_SYNC = (
    "This command does not match what the bot knows; the commands may have changed. "
    "An admin can run `quizbot discord sync` to update them."
)

DISCORD_LIMITS = PlatformLimits(channel=Rate(1.0), workspace=None, platform=Rate(48.0))
"""Five per five seconds per channel route; 50 requests a second per bot, of which 48 go to fan-out.

Interaction callbacks (the replies to clicks) are not under the global limit, so fan-out may take nearly all of
it; the 2 a second left over keep card edits moving, and discord.py itself waits out a global 429 should one come.
At 40 a second, 1,000 channels took 125% of the 20 s the limit allows (bench/fanout.py); at 48, about 105%."""

_ANSWER_ID = re.compile(ANSWER_TEMPLATE)
_FLAG_ID = re.compile(FLAG_TEMPLATE)
_CONFIRM_ID = re.compile(CONFIRM_TEMPLATE)


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


ATTACH_FILES = "Attach Files"
"""The permission named when Discord refuses the charts with 50013 Missing Permissions."""
MISSING_PERMISSIONS = 50013
ATTACHMENT_DESCRIPTION = 1024
"""An attachment's description (its alt text): at most 1024 characters."""


def platform_error(exc: discord.HTTPException, what: str, *, forbidden: str | None = None) -> PlatformError:
    """A discord.py HTTP error as the port's PlatformError (permanent when retrying cannot help)."""
    if isinstance(exc, discord.Forbidden):
        return PlatformError(
            forbidden or f"I may not {what} here; give me View Channel, Send Messages and Embed Links in this channel.",
            permanent=True,
        )
    if isinstance(exc, discord.NotFound):
        return PlatformError(f"Could not {what}: the channel or message no longer exists.", permanent=True)
    retry_after = getattr(exc, "retry_after", None)
    return PlatformError(
        f"Could not {what}: Discord answered {exc.status} ({exc.text or 'no details'}).", retry_after=retry_after
    )


@dataclass(frozen=True, slots=True)
class Response:
    """What to tell the user who interacted: an embed, whether only they see it, and any buttons under it."""

    embed: discord.Embed
    ephemeral: bool = True
    view: discord.ui.View | None = None
    replace: bool = False
    """Edit the message whose button was clicked (a confirmation's question, its buttons removed) instead."""


class QuizClient(discord.AutoShardedClient):
    """discord.py's sharded client with the quiz's command tree and restart-proof answer buttons."""

    def __init__(self, adapter: DiscordAdapter, **options: Any) -> None:
        # The bot has no voice features: skip discord.py's warnings about the missing voice libraries.
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
        super().__init__(
            intents=intents(),
            allowed_mentions=discord.AllowedMentions.none(),
            max_messages=None,
            **options,
        )
        self.adapter = adapter  # AnswerButton finds its handler here
        self.tree: app_commands.CommandTree[QuizClient] = app_commands.CommandTree(self)
        self.tree.error(adapter.on_command_error)
        tolerate_partial_channels(self._connection)  # a click from an uncached channel is answered, not fatal

    async def setup_hook(self) -> None:
        """Register the answer and "Report a problem" buttons and `/quiz` before the gateway connects."""
        self.add_dynamic_items(AnswerButton, FlagButton, ConfirmButton, ReviewButton)
        if self.tree.get_command("quiz") is None:  # a restarted client runs this again
            self.tree.add_command(QuizCommands(self.adapter))
        await self.adapter.check_registration(self.tree)

    async def on_ready(self) -> None:
        """Every shard is connected: the adapter is up (its supervisor restarts it only after this)."""
        self.adapter.ready.set()

    async def on_interaction(self, interaction: discord.Interaction[discord.Client]) -> None:
        """Answer a click on a button no handler claims, instead of letting Discord show "interaction failed"."""
        if interaction.type is not discord.InteractionType.component or not isinstance(interaction.data, dict):
            return
        custom_id = str(interaction.data.get("custom_id", ""))
        ours = _ANSWER_ID.fullmatch(custom_id) or _FLAG_ID.fullmatch(custom_id) or _CONFIRM_ID.fullmatch(custom_id)
        if ours or custom_id == REVIEW_ID:
            if _on_its_message(interaction, custom_id):
                return  # an AnswerButton, a FlagButton, a ConfirmButton or a ReviewButton handles it
            # discord.py rebuilds a dynamic item only from a component of the clicked message, and drops the
            # click in silence otherwise ("This interaction failed"): a forged or stale payload, or a message edited
            # since the click was made.
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


class DiscordAdapter:
    """The platform port on discord.py, and the bot's Discord connection."""

    name = PLATFORM
    rate_limits = DISCORD_LIMITS  # how fast scheduled fan-out may post (the ChatPlatform port)

    def __init__(self, runtime: AdapterHost, *, defer_after: float | None = None) -> None:
        self.runtime = runtime
        self._answering: set[asyncio.Task[Any]] = set()  # interactions being answered, drained at stop
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

    # --- the platform port -------------------------------------------------------------------------

    def _messageable(self, channel: ChannelRef) -> discord.PartialMessageable:
        if self.client.is_closed():
            raise PlatformError("The Discord connection is closed.")
        guild_id = None if is_dm_workspace(channel.workspace_id) else int(channel.workspace_id)
        return self.client.get_partial_messageable(int(channel.channel_id), guild_id=guild_id)

    async def post_card(self, channel: ChannelRef, card: QuestionCard) -> str:
        """Send the card (embed and answer buttons; a very long one as several messages): their ids are the ref."""
        try:
            return await send_card(self._messageable(channel), card, self.card_files)
        except discord.HTTPException as exc:
            raise platform_error(exc, "post a question") from exc

    async def find_card(self, channel: ChannelRef, card: QuestionCard, *, since: datetime) -> str | None:
        """The card, if the bot posted it in the channel since `since` (the FindsPostedCards capability): asked
        before a post whose process died is posted again, for a recovery later than Discord remembers the nonce.
        None when it is not there, or the bot may not read the channel's history (logged once)."""
        user = self.client.user
        if user is None:
            return None
        try:
            return await find_card(self._messageable(channel), card, author_id=user.id, since=since)
        except (discord.HTTPException, PlatformError) as exc:
            reason = type(exc).__name__
            if reason not in self._history_refusals:
                self._history_refusals.add(reason)
                log.warning(
                    "cannot read a channel's history to find a card posted before a crash (%s): posting it again "
                    "(Discord's nonce still catches a repeat within a few minutes); give the bot Read Message History",
                    exc,
                    extra=_extra(channel, card.post_id),
                )
            return None

    async def update_card(self, channel: ChannelRef, message_ref: str, card: QuestionCard) -> None:
        """Edit the card: a new answer count keeps the buttons; the reveal removes them."""
        try:
            await edit_card(self._messageable(channel), message_ref, card, self.card_files)
        except discord.HTTPException as exc:
            raise platform_error(exc, "update the question") from exc

    async def send_private(self, channel: ChannelRef, user_id: str, message: Message) -> None:
        """Send the user a direct message; fails with a permanent PlatformError when they do not accept DMs."""
        if self.client.is_closed():
            raise PlatformError("The Discord connection is closed.")
        try:
            dm = await self.client.create_dm(discord.Object(id=int(user_id)))
            await dm.send(embed=message_embed(message))
        except discord.HTTPException as exc:
            log.info("could not DM user %s: %s", user_id, exc, extra=_extra(channel))
            raise platform_error(
                exc, "send a direct message", forbidden="The user does not accept direct messages from the bot."
            ) from exc

    async def send_direct(self, user: UserRef, message: Message) -> None:
        """The DirectMessages capability: a DM to the user (as `send_private`, which already is one on Discord)."""
        await self.send_private(ChannelRef(PLATFORM, user.workspace_id, ""), user.user_id, message)

    async def direct_channel(self, user: UserRef) -> ChannelRef:
        """The bot's DM channel with `user` (POST /users/@me/channels), named in the user's guild: the post belongs
        to the guild's boards, and a click in it (which arrives without a guild) counts for that member."""
        if self.client.is_closed():
            raise PlatformError("The Discord connection is closed.")
        try:
            dm = await self.client.create_dm(discord.Object(id=int(user.user_id)))
        except discord.HTTPException as exc:
            raise platform_error(
                exc, "open a direct message", forbidden="The user does not accept direct messages from the bot."
            ) from exc
        return ChannelRef(PLATFORM, user.workspace_id, str(dm.id))

    async def user_timezone(self, user: UserRef) -> str | None:
        """Discord profiles carry no timezone: the cohort schedule's applies."""
        return None

    async def post_message(self, channel: ChannelRef, message: Message) -> None:
        """Post a message everyone in the channel sees."""
        try:
            await self._messageable(channel).send(embed=message_embed(message))
        except discord.HTTPException as exc:
            raise platform_error(exc, "post a message") from exc

    # --- interactions ------------------------------------------------------------------------------

    @staticmethod
    def workspace_of(interaction: discord.Interaction[discord.Client]) -> str:
        """The guild, or for a direct message its own channel's workspace (`dm_workspace`)."""
        return str(interaction.guild_id) if interaction.guild_id else dm_workspace(interaction.channel_id or 0)

    @classmethod
    def channel_of(cls, interaction: discord.Interaction[discord.Client]) -> ChannelRef:
        """Where an interaction happened: the guild is the workspace; each direct message is one of its own."""
        return ChannelRef(
            platform=PLATFORM, workspace_id=cls.workspace_of(interaction), channel_id=str(interaction.channel_id)
        )

    @classmethod
    def user_of(cls, interaction: discord.Interaction[discord.Client]) -> UserRef:
        """Who interacted, with the name this server shows for them."""
        user = interaction.user
        return UserRef(
            platform=PLATFORM,
            workspace_id=cls.workspace_of(interaction),
            user_id=str(user.id),
            display_name=user.display_name,
        )

    def is_admin(self, interaction: discord.Interaction[discord.Client]) -> bool:
        """Manage Server, or the configured admin role. In direct messages nobody is (there is no server)."""
        member = interaction.user
        if not isinstance(member, discord.Member):
            return False
        if member.guild_permissions.manage_guild or interaction.permissions.manage_guild:
            return True
        role_id = self.settings.discord_admin_role_id
        return role_id is not None and any(role.id == role_id for role in member.roles)

    def wait_budget(self, interaction: discord.Interaction[discord.Client]) -> float:
        """How long the core may take before the interaction must be deferred (0 when it arrived late)."""
        age = (discord.utils.utcnow() - interaction.created_at).total_seconds()
        return max(0.0, min(self.defer_after, RESPONSE_WINDOW - RESPONSE_MARGIN - age))

    async def respond(
        self,
        interaction: discord.Interaction[discord.Client],
        work: Awaitable[Response],
        *,
        click: bool = False,
    ) -> None:
        """Answer an interaction with the result of `work`, deferring first if it is not ready in time.

        Never raises: a failed response (expired token, Discord down) is logged, and `work` always completes,
        so an answer is recorded even when telling the user about it fails. An answer `click` that has to be
        deferred was acknowledged before its commit: it is counted as a late ack.
        """
        current = asyncio.current_task()
        assert current is not None  # discord.py runs every handler in a task
        self._answering.add(current)
        try:
            await self._respond(interaction, work, click=click)
        finally:
            self._answering.discard(current)

    async def _respond(
        self, interaction: discord.Interaction[discord.Client], work: Awaitable[Response], *, click: bool
    ) -> None:
        task = asyncio.ensure_future(work)
        deferred = False
        budget = self.wait_budget(interaction)
        if budget > 0:
            await asyncio.wait({task}, timeout=budget)
        if not task.done():
            if click:
                self.runtime.app.acknowledged_late(PLATFORM)
            try:
                await interaction.response.defer(ephemeral=True, thinking=True)
                deferred = True
            except discord.HTTPException as exc:
                log.warning("could not defer interaction %s: %s", interaction.id, exc)
        try:
            response = await task
        except Exception:
            log.exception("answering interaction %s failed", interaction.id)
            response = Response(problem_embed(unexpected().text))
        buttons: dict[str, Any] = {"view": response.view} if response.view is not None else {}
        try:
            if response.replace:
                if deferred:
                    await interaction.edit_original_response(embed=response.embed, view=None)
                else:
                    await interaction.response.edit_message(embed=response.embed, view=None)
            elif not deferred:
                await interaction.response.send_message(embed=response.embed, ephemeral=response.ephemeral, **buttons)
            elif response.ephemeral:
                await interaction.edit_original_response(embed=response.embed, **buttons)
            else:
                # The deferred reply is private; a public answer goes to the channel.
                await self.post_to(interaction, response.embed)
                await interaction.edit_original_response(embed=problem_embed(posted_in_channel().text))
        except (discord.HTTPException, PlatformError) as exc:
            log.warning("could not answer interaction %s: %s", interaction.id, exc)

    async def post_to(self, interaction: discord.Interaction[discord.Client], embed: discord.Embed) -> None:
        """Post an embed in the interaction's channel."""
        channel = self.channel_of(interaction)
        await self._messageable(channel).send(embed=embed)

    async def answer_click(self, interaction: discord.Interaction[discord.Client], post_id: int, choice: int) -> None:
        """A click on an answer button: record it and tell the clicker, privately, whether they were right."""
        channel, user = self.channel_of(interaction), self.user_of(interaction)
        extra = _extra(channel, post_id)

        async def record() -> Response:
            try:
                result = await self.runtime.app.answer(post_id=post_id, user=user, choice_index=choice, channel=channel)
            except StorageUnavailable:
                log.warning("answer not recorded: database unavailable", extra=extra)
                return Response(problem_embed(click_not_recorded().text))
            except Exception as exc:
                log.info("click refused: %s", exc, extra=extra)
                return Response(problem_embed(error_reply(exc).message.text))
            return Response(answer_embed(result), view=flag_view(result.post_id))

        await self.respond(interaction, record(), click=True)

    async def flag_click(self, interaction: discord.Interaction[discord.Client], post_id: int) -> None:
        """A click on "Report a problem" under an answer: record the flag, tell the clicker privately."""
        context = self.context_of(interaction)

        async def flag() -> Response:
            try:
                reply = await self.runtime.app.execute(FlagQuestion(post_id=post_id), context)
            except Exception as exc:  # a stale or forged button, the database down: the category's one line
                log.info("flag refused: %s", exc, extra=_extra(context.channel, post_id))
                reply = error_reply(exc)
            return _reply_response(reply)

        await self.respond(interaction, flag())

    async def confirm_click(self, interaction: discord.Interaction[discord.Client], token: str, accept: bool) -> None:
        """A click on Confirm or Cancel: answered through the core. The asker's answer replaces the question (its
        buttons go) and a public result is posted to the channel; anyone else, a late or a second click gets a
        private reply, and the question stays."""
        context = self.context_of(interaction)

        async def answer() -> Response:
            reply = await self.runtime.app.confirm(token=token, context=context, accept=accept)
            if not reply.ok:
                return _reply_response(reply)
            if not reply.private:
                try:
                    await self.post_to(interaction, message_embed(reply.message))
                except (discord.HTTPException, PlatformError) as exc:
                    log.warning("could not tell the channel what a confirmed command did: %s", exc)
            return Response(message_embed(reply.message), replace=True)

        await self.respond(interaction, answer())

    def context_of(self, interaction: discord.Interaction[discord.Client]) -> Context:
        """Who runs a command and where, with the admin check decided from the member's roles."""
        return Context(
            channel=self.channel_of(interaction), user=self.user_of(interaction), is_admin=self.is_admin(interaction)
        )

    async def review_click(self, interaction: discord.Interaction[discord.Client]) -> None:
        """A click on "Start a review" under `/quiz me`: the review question due longest, privately."""
        await self.run_command(interaction, StartReview())

    async def run_command(self, interaction: discord.Interaction[discord.Client], command: Command) -> None:
        """A `/quiz` subcommand, as the command object its typed options built: run by the core, then answered."""
        context = self.context_of(interaction)
        await self._answer_with(interaction, lambda: self.runtime.app.execute(command, context))

    async def _answer_with(
        self, interaction: discord.Interaction[discord.Client], reply_of: Callable[[], Awaitable[Reply]]
    ) -> None:
        """Answer the interaction with the core's reply (an error is its category's one line), then post the charts
        the reply carries (a `/quiz report`) as a channel message of their own."""
        charts: list[tuple[ReportChart, ...]] = []

        async def run() -> Response:
            try:
                reply = await reply_of()
            except Exception as exc:
                reply = error_reply(exc)
            if reply.ok and reply.charts:
                charts.append(reply.charts)
            return _reply_response(reply)

        await self.respond(interaction, run())
        if charts:
            await self.post_charts(interaction, charts[0])

    async def post_charts(
        self, interaction: discord.Interaction[discord.Client], charts: tuple[ReportChart, ...]
    ) -> None:
        """After a report's summary: its charts in the channel, one embed per chart showing its attached PNG (with
        the alt text as the attachment's description). Refused for want of Attach Files (50013), the person who
        asked is told so privately; the summary stands alone."""
        channel = self.channel_of(interaction)
        current = asyncio.current_task()
        if current is not None:
            self._answering.add(current)  # a stop waits for the charts as for the answer before them
        try:
            images = await render_charts(charts)
            files = [
                discord.File(
                    io.BytesIO(image.png), filename=image.filename, description=image.alt_text[:ATTACHMENT_DESCRIPTION]
                )
                for image in images
            ]
            embeds = [chart_embed(image.title, image.filename) for image in images]
            await self._messageable(channel).send(embeds=embeds, files=files)
            return
        except discord.Forbidden as exc:
            log.info("charts refused: %s", exc, extra=_extra(channel))
            notice = (
                report_words.charts_not_posted(ATTACH_FILES)
                if exc.code == MISSING_PERMISSIONS
                else report_words.charts_failed()
            )
        except Exception as exc:  # a chart that could not be drawn, Discord unreachable
            log.warning("charts not posted: %s", exc, extra=_extra(channel))
            notice = report_words.charts_failed()
        finally:
            if current is not None:
                self._answering.discard(current)
        try:
            await interaction.followup.send(embed=message_embed(notice, colour=PROBLEM_COLOUR), ephemeral=True)
        except discord.HTTPException as exc:
            log.warning("could not tell interaction %s that the charts failed: %s", interaction.id, exc)

    def pack_choices(self, current: str) -> list[app_commands.Choice[str]]:
        """Packs whose id or title contains what was typed."""
        typed = current.casefold().strip()
        return [
            app_commands.Choice(name=plain(f"{pack.title} ({pack.id})")[:100], value=pack.id)  # shown as plain text
            for pack in self.runtime.app.packs
            if typed in pack.id.casefold() or typed in pack.title.casefold()
        ]

    async def on_command_error(
        self, interaction: discord.Interaction[QuizClient], error: app_commands.AppCommandError
    ) -> None:
        """A command discord.py could not run: an option the grammar refuses (answered with the grammar's
        message), or commands registered with Discord that differ from ours."""
        refused = _refused_option(error)
        stale = isinstance(
            error, app_commands.CommandSignatureMismatch | app_commands.CommandNotFound | app_commands.TransformerError
        )
        if refused is not None:
            log.info("slash command option refused: %s", refused)
        elif stale:  # a TransformerError not caused by the grammar: a value of a type our command does not have
            log.warning("slash command out of sync: %s", error)
        else:
            log.error("slash command failed: %s", error, exc_info=error)
        if interaction.response.is_done():
            return
        if refused is not None:
            response = _reply_response(error_reply(refused))
        else:
            response = Response(problem_embed(translate(OUT_OF_SYNC) if stale else unexpected().text))
        try:
            await interaction.response.send_message(embed=response.embed, ephemeral=response.ephemeral)
        except discord.HTTPException as exc:
            log.warning("could not answer interaction %s: %s", interaction.id, exc)

    async def check_registration(self, tree: app_commands.CommandTree[QuizClient]) -> None:
        """Warn (once, at start) when `/quiz` is not registered with Discord yet."""
        guild_id = self.settings.discord_guild_id
        guild = discord.Object(id=guild_id) if guild_id else None
        try:
            registered = await tree.fetch_commands(guild=guild)
        except discord.HTTPException as exc:
            log.warning("could not list the registered slash commands: %s", exc)
            return
        if not any(command.name == "quiz" for command in registered):
            command = f"quizbot discord sync --guild {guild_id}" if guild_id else "quizbot discord sync"
            log.warning("/quiz is not registered with Discord yet: run `%s`", command)

    # --- running -----------------------------------------------------------------------------------

    async def run(self) -> None:
        """Connect (all shards, or the configured ones) and serve until the bot is told to stop."""
        token = self.settings.discord_token
        if token is None:
            raise ConfigError("QUIZBOT_DISCORD_TOKEN is not set; the Discord adapter needs a bot token")
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
            raise ConfigError(f"Discord refused QUIZBOT_DISCORD_TOKEN: {exc}") from exc

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


def _reply_response(reply: Reply) -> Response:
    """The core's reply as an interaction response: private when it is, or quiet, or a refusal; a destructive
    command's question comes privately with its Confirm and Cancel buttons. A page (the personal home) is an embed
    of sections, with its buttons."""
    if reply.confirm is not None:
        question = Message(reply.message.title, (*reply.message.lines, reply.confirm.note))
        return Response(message_embed(question), ephemeral=True, view=confirm_view(reply.confirm))
    ephemeral = reply.private or reply.quiet or not reply.ok
    if reply.page is not None and reply.ok:
        return Response(page_embed(reply.page), ephemeral=ephemeral, view=page_view(reply.page))
    embed = message_embed(reply.message) if reply.ok else problem_embed(reply.message.text)
    return Response(embed, ephemeral=ephemeral)


def _refused_option(error: app_commands.AppCommandError) -> CommandError | None:
    """The grammar's CommandError behind a slash command's failure: raised by an option's validator (discord.py
    chains it to a TransformerError) or while the subcommand built its command (a CommandInvokeError)."""
    if isinstance(error, app_commands.TransformerError):
        cause = error.__cause__
    elif isinstance(error, app_commands.CommandInvokeError):
        cause = error.original
    else:
        return None
    return cause if isinstance(cause, CommandError) else None


def _extra(channel: ChannelRef, post_id: int | None = None) -> dict[str, Any]:
    """Log fields of a channel (and post)."""
    return {
        "platform": channel.platform,
        "workspace": channel.workspace_id,
        "channel": channel.channel_id,
        "post_id": post_id,
    }
