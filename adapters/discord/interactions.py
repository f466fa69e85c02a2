"""Answering Discord interactions: a click on an answer, flag, confirm or review button, or a `/quiz` subcommand,
run by the core and answered within Discord's window (deferred when the core is slow), privately or in the channel;
the command tree's error handler and autocomplete."""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from adapters.discord.buttons import FlagViews, confirm_view, page_view
from adapters.discord.embeds import PROBLEM_COLOUR, answer_embed, chart_embed, message_embed, page_embed, problem_embed
from adapters.discord.forms import FormStore, fix_view, form_modal, read_submission
from adapters.discord.platform import PLATFORM, DiscordPlatform, _extra, dm_workspace
from adapters.discord.settings import DiscordSettings
from adapters.text_safety import plain
from bot.commands import Command, FlagQuestion, StartReview
from bot.domain import ChannelRef, UserRef
from bot.domain.views import ReportChart
from bot.errors import CommandError, StorageUnavailable
from bot.ports import ActionKind, Message, PlatformError
from bot.service.facade import AdapterHost, Context, Reply, error_reply
from bot.wording import discord as discord_words
from bot.wording import forms as form_words
from bot.wording import reports as report_words
from bot.wording.errors import click_not_recorded, posted_in_channel, unexpected, unknown_button

if TYPE_CHECKING:
    from bot.chart_images import ChartImage

log = logging.getLogger(__name__)

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

OUT_OF_SYNC = discord_words.OUT_OF_SYNC
"""The reply to a command that no longer matches the bot's (its template, worded by bot/wording/discord.py)."""

MISSING_PERMISSIONS = 50013
ATTACHMENT_DESCRIPTION = 1024
"""An attachment's description (its alt text): at most 1024 characters."""


async def render_charts(charts: Sequence[ReportChart]) -> list[ChartImage]:
    """`bot.chart_images.render_charts`, imported by the first charted report: its process pool (multiprocessing)
    is no part of the start-up (bench section 9)."""
    from bot.chart_images import render_charts as render  # noqa: PLC0415

    return await render(charts)


@dataclass(frozen=True, slots=True)
class Response:
    """What to tell the user who interacted: an embed, whether only they see it, and any buttons under it."""

    embed: discord.Embed
    ephemeral: bool = True
    view: discord.ui.View | None = None
    replace: bool = False
    """Edit the message whose button was clicked (a confirmation's question, its buttons removed) instead."""
    modal: discord.ui.Modal | None = None
    """Answer with this modal (a reply's form) when the interaction still may; else with the embed and its view
    (which then holds the button that opens the form: adapters/discord/forms.py)."""


class DiscordInteractions(DiscordPlatform):
    """Who interacted and where, and the answer to each kind of interaction (the adapter's second job)."""

    runtime: AdapterHost
    settings: DiscordSettings
    defer_after: float
    _answering: set[asyncio.Task[Any]]
    forms: FormStore
    flag_views: FlagViews

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
        # `work` runs in this task; past the budget a timer starts the defer beside it, and the answer waits for
        # the defer. (Running `work` as a task of its own, waited for with a timeout, cost a second task and an
        # asyncio.wait a click: ~3% of the bot's CPU a click.)
        deferring: list[asyncio.Task[bool]] = []

        def defer_now() -> None:
            if click:
                self.runtime.app.acknowledged_late(PLATFORM)
            deferring.append(asyncio.ensure_future(self._defer(interaction)))

        budget = self.wait_budget(interaction)
        timer = asyncio.get_running_loop().call_later(budget, defer_now) if budget > 0 else None
        if timer is None:
            defer_now()
        try:
            response = await work
        except Exception:
            log.exception("answering interaction %s failed", interaction.id)
            response = Response(problem_embed(unexpected().text))
        finally:
            if timer is not None:
                timer.cancel()
        deferred = await deferring[0] if deferring else False
        buttons: dict[str, Any] = {"view": response.view} if response.view is not None else {}
        try:
            modal_allowed = interaction.type is not discord.InteractionType.modal_submit
            if response.modal is not None and not deferred and modal_allowed:
                await interaction.response.send_modal(response.modal)
            elif response.replace:
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

    async def _defer(self, interaction: discord.Interaction[discord.Client]) -> bool:
        """Defer the interaction ("thinking...", privately); whether it was."""
        try:
            await interaction.response.defer(ephemeral=True, thinking=True)
        except discord.HTTPException as exc:
            log.warning("could not defer interaction %s: %s", interaction.id, exc)
            return False
        return True

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
            return Response(answer_embed(result), view=self.flag_views.of(result.post_id))

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
        """Who runs a command and where, with the admin check decided from the member's roles (and those roles'
        ids, for a lead or admin role granted to a server role in chat)."""
        member = interaction.user
        roles = tuple(str(role.id) for role in member.roles) if isinstance(member, discord.Member) else ()
        return Context(
            channel=self.channel_of(interaction),
            user=self.user_of(interaction),
            is_admin=self.is_admin(interaction),
            platform_roles=roles,
        )

    # --- forms and page buttons (adapters/discord/forms.py) --------------------------------------------

    def form_response(self, reply: Reply, user_id: str) -> Response:
        """A reply with a form: the modal, or (after a deferral, or answering a submission) its words with a
        button that opens it; a refused submission's problems, one line per field, with "Fix it"."""
        form = reply.form
        assert form is not None
        token = self.forms.keep(form, user_id)
        if form.errors:
            return Response(problem_embed(form_words.problems(form).text), view=fix_view(token, form_words.fix_it()))
        return Response(
            message_embed(reply.message), view=fix_view(token, form_words.open_form()), modal=form_modal(form)
        )

    async def act_click(self, interaction: discord.Interaction[discord.Client], kind: str, value: str) -> None:
        """A click on a page button (a draft's Approve, Edit or Reject): run through the core, answered privately
        (an Edit with its form)."""
        try:
            action = ActionKind(kind)
        except ValueError:
            action = None
        if action is ActionKind.START_REVIEW:
            await self.review_click(interaction)
            return
        if action is None:
            log.info("click on a page button of an unknown kind %r", kind, extra={"platform": PLATFORM})
            await self.respond(interaction, _ready(Response(problem_embed(unknown_button().text))))
            return
        context = self.context_of(interaction)
        await self._answer_with(interaction, lambda: self.runtime.app.act(action=action, value=value, context=context))

    async def fix_click(self, interaction: discord.Interaction[discord.Client], token: str) -> None:
        """ "Fix it" (or "Open the form"): the kept form as a modal, for the person who filled it in, unless it
        expired (kept in memory for a while only: a restart forgets it)."""
        kept = self.forms.get(token)
        if kept is None or kept.user_id != str(interaction.user.id):
            words = form_words.form_expired(self.forms.minutes) if kept is None else form_words.not_your_form()
            await self.respond(interaction, _ready(Response(problem_embed(words.text))))
            return
        try:
            await interaction.response.send_modal(form_modal(kept.form))
        except discord.HTTPException as exc:
            log.warning("could not open a form again for interaction %s: %s", interaction.id, exc)

    async def modal_submit(self, interaction: discord.Interaction[discord.Client]) -> None:
        """A submitted modal: its values to the core; the reply, or the problems with "Fix it". A modal that is
        not one of ours (forged, or from an older version) gets one line."""
        data: dict[str, Any] = dict(interaction.data) if isinstance(interaction.data, dict) else {}
        submission = read_submission(data)
        if submission is None:
            log.info("a submitted form that is not ours: %r", data.get("custom_id"), extra={"platform": PLATFORM})
            await self.respond(interaction, _ready(Response(problem_embed(form_words.unknown_form().text))))
            return
        context = self.context_of(interaction)
        await self._answer_with(
            interaction,
            lambda: self.runtime.app.submit_form(
                kind=submission.kind, state=submission.state, values=submission.values, context=context
            ),
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

        user_id = str(interaction.user.id)

        async def run() -> Response:
            try:
                reply = await reply_of()
            except Exception as exc:
                reply = error_reply(exc)
            if reply.ok and reply.charts:
                charts.append(reply.charts)
            return self.form_response(reply, user_id) if reply.form is not None else _reply_response(reply)

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
                report_words.charts_not_posted(discord_words.attach_files())
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
        self, interaction: discord.Interaction[discord.Client], error: app_commands.AppCommandError
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
            response = Response(problem_embed(discord_words.out_of_sync() if stale else unexpected().text))
        try:
            await interaction.response.send_message(embed=response.embed, ephemeral=response.ephemeral)
        except discord.HTTPException as exc:
            log.warning("could not answer interaction %s: %s", interaction.id, exc)

    async def check_registration(self, tree: app_commands.CommandTree[discord.Client]) -> None:
        """Warn (once, at start) when `/quiz` is not registered with Discord yet."""
        guild_id = self.settings.discord_guild_id
        guild = discord.Object(id=guild_id) if guild_id else None
        try:
            registered = await tree.fetch_commands(guild=guild)
        except discord.HTTPException as exc:
            log.warning("could not list the registered slash commands: %s", exc)
            return
        if not any(command.name == "quiz" for command in registered):
            log.warning("/quiz is not registered with Discord yet: run `%s`", discord_words.sync_command(guild_id))


async def _ready(response: Response) -> Response:
    return response


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
