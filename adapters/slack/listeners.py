"""The Bolt app: `/quiz` commands and answer clicks turned into core calls, and replies turned into Slack messages.

The app runs each listener before its response goes out (`process_before_response=True`), so the ack is sent
exactly when a listener calls `ack()` and returns. Commands and "Report a problem" ack at once and work in a
task of their own. An answer click is acknowledged only after its answer is committed (or refused): Slack's ack
is the promise that the click counts, and if the process dies before the commit no ack goes out, so Slack shows
the person that the click failed and they click again. When the commit outlasts the acknowledgement deadline
(QUIZBOT_SLACK_ACK_DEADLINE, safely inside Slack's 3 s) the click is acked anyway, counted
(quizbot_late_acks_total), and answered once it is recorded, as before. The private right/wrong reply follows
the ack (chat.postEphemeral, else the response_url): a block_actions ack cannot carry a message.

Before any listener, the middlewares (middlewares.py) refuse malformed payloads politely and ack Slack's retries
and replayed slash commands without running them again; payloads.py reads the fields.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from slack_bolt.async_app import AsyncApp

from adapters.slack.admins import AdminDirectory
from adapters.slack.blocks import (
    ACTION_PREFIX,
    CONFIRM_PREFIX,
    FLAG_PREFIX,
    Block,
    answer_reply_blocks,
    confirm_blocks,
    message_blocks,
    message_text,
    parse_answer_action,
    parse_confirm_action,
    parse_flag_action,
)
from adapters.slack.forms import PAGE_ACTION_PREFIX, SlackForms
from adapters.slack.home import REVIEW_ACTION, HomePublisher, page_blocks, page_text
from adapters.slack.middlewares import RejectMalformed, SkipReplays, SkipRetries
from adapters.slack.payloads import (
    Click,
    ClickReply,
    channel_of_click,
    click_extra,
    enterprise_of_click,
    read_button,
    team_of_click,
    text_of,
)
from adapters.slack.platform import PLATFORM, SlackPlatform, response_url_client
from adapters.slack.uploads import SlackUploads
from bot.commands import FlagQuestion, StartReview
from bot.domain import ChannelRef, UserRef
from bot.errors import Busy, QuizError, StorageUnavailable
from bot.ports import Message, MissingPermission, PlatformError
from bot.service.facade import AdapterHost, Context, Invocation, Reply, error_reply
from bot.wording import reports as report_words
from bot.wording.answers import answer_message
from bot.wording.errors import click_not_recorded, unknown_button

log = logging.getLogger(__name__)


Respond = Callable[..., Awaitable[Any]]


ACK_DEADLINE = 2.0
"""Default of QUIZBOT_SLACK_ACK_DEADLINE: seconds from a click's arrival to its ack at the latest."""


RECEIVED = "quizbot_received"
"""Context key: the event loop's time when the request arrived (set by the HTTP intake; else the listener's start)."""


ACKED_AS = "quizbot_acked_as"
"""Context key: what the ack of a click stood for (see `ClickReply.outcome`); HTTP mode sends it back in the
ANSWER_HEADER response header, for operators and tests (Slack ignores it)."""


ANSWER_HEADER = "X-Quizbot-Answer"


class QuizListeners:
    """The Slack side of the quiz: what `/quiz` and the answer buttons do."""

    def __init__(
        self,
        runtime: AdapterHost,
        platform: SlackPlatform,
        admins: AdminDirectory,
        home: HomePublisher | None = None,
        *,
        ack_deadline: float = ACK_DEADLINE,
    ) -> None:
        self.runtime = runtime
        self.ack_deadline = ack_deadline
        self.platform = platform
        self.admins = admins
        self.home = home
        self._inflight: set[asyncio.Task[Any]] = set()
        self.forms = SlackForms(self, platform.client)
        self.clock: Callable[[], float] = time.monotonic
        self._ephemerals_limited: dict[str, float] = {}
        """Workspace -> until when (self.clock) Slack rate-limits its chat.postEphemeral: replies that have a
        response_url go through it meanwhile, without calling the limited method."""

    def install(self, app: AsyncApp) -> None:
        """Register the middleware and listeners on a Bolt app."""
        app.middleware(SkipRetries())
        app.middleware(RejectMalformed(self.platform.client))
        app.middleware(SkipReplays())
        # Any slash command of this app is `/quiz` (a workspace that already has a /quiz may rename it).
        app.command(re.compile(r".+"))(self.on_command)
        app.action(re.compile(rf"^{ACTION_PREFIX}(:|$)"))(self.on_answer)
        app.action(re.compile(rf"^{FLAG_PREFIX}(:|$)"))(self.on_flag)
        app.action(re.compile(rf"^{CONFIRM_PREFIX}(:|$)"))(self.on_confirm)
        app.action(REVIEW_ACTION)(self.on_review)
        app.action(re.compile(rf"^{PAGE_ACTION_PREFIX}"))(self.forms.on_page_action)
        app.view_submission(re.compile(r".*"))(self.forms.on_submission)  # not ours: one line (forms.py)
        app.event("app_home_opened")(self.on_home_opened)
        SlackUploads(self).install(app)  # a pack file shared with the bot in a DM (adapters/slack/uploads.py)
        app.action(re.compile(r".*"))(self.on_other_action)
        app.error(self.on_error)

    def _spawn(self, work: Coroutine[Any, Any, None], what: str) -> None:
        """Run `work` after the ack, as in-flight work (see `drain`); an error it lets out is logged, never lost."""
        task = asyncio.create_task(self._guarded(work, what), name=f"slack-{what}")
        self._inflight.add(task)
        task.add_done_callback(self._inflight.discard)

    @staticmethod
    async def _guarded(work: Coroutine[Any, Any, None], what: str) -> None:
        try:
            await work
        except Exception as exc:
            log.error("Slack %s failed: %s", what, exc, exc_info=exc, extra={"platform": PLATFORM})

    @property
    def in_flight(self) -> int:
        """How many acked commands and clicks are still being worked on."""
        return sum(1 for task in self._inflight if not task.done())

    async def drain(self, within: float) -> None:
        """Wait (up to `within` seconds) for acked commands and clicks that are still being worked on."""
        pending = {task for task in self._inflight if not task.done() and task is not asyncio.current_task()}
        if pending:
            log.info("waiting for %s Slack request(s) in flight", len(pending), extra={"platform": PLATFORM})
            await asyncio.wait(pending, timeout=within)

    # --- /quiz -------------------------------------------------------------------------------------

    async def on_command(self, ack: Callable[..., Awaitable[None]], command: dict[str, Any], respond: Respond) -> None:
        """`/quiz ...`: ack at once, run the command, answer ephemerally unless the effect is already visible."""
        await ack()
        self._spawn(self._run_command(command, respond), "command")

    async def _run_command(self, command: dict[str, Any], respond: Respond) -> None:
        team_id, channel_id, user_id = command["team_id"], command["channel_id"], command["user_id"]
        self.admins.remember(team_id, user_id, text_of(command, "user_name"))  # a file shared later has no name
        invocation = Invocation(
            # the command's organisation is recorded on its workspace: clicks from the org's other workspaces count
            channel=ChannelRef(PLATFORM, team_id, channel_id, enterprise_id=text_of(command, "enterprise_id")),
            user=UserRef(PLATFORM, team_id, user_id, text_of(command, "user_name") or user_id),
            text=text_of(command, "text") or "",
            is_admin=await self.admins.is_admin(team_id, user_id),
            delivery_id=text_of(command, "trigger_id"),  # a replay that reached another replica is not run twice
        )
        reply = await self.runtime.app.handle_command(invocation)
        if reply.form is not None:  # a modal (adapters/slack/forms.py)
            trigger_id = text_of(command, "trigger_id")
            await self.forms.open(trigger_id, reply, invocation.channel, user_id, respond)
            return
        if reply.quiet:
            return
        await self._send_reply(respond, reply, invocation.channel)
        if reply.charts and reply.ok:
            await self._post_charts(respond, reply, invocation.channel)

    async def _send_reply(self, respond: Respond, reply: Reply, channel: ChannelRef) -> None:
        # A destructive command's question comes with its Confirm and Cancel buttons, to the asker only.
        if reply.confirm is not None:
            text, blocks = message_text(reply.message), confirm_blocks(reply.message, reply.confirm)
        elif reply.page is not None:
            text, blocks = page_text(reply.page), page_blocks(reply.page)
        else:
            text, blocks = message_text(reply.message), message_blocks(reply.message)
        try:
            await self._respond(
                respond,
                text=text,
                blocks=blocks,
                response_type="ephemeral" if reply.private or reply.confirm else "in_channel",
                replace_original=False,
            )
        except Exception as exc:  # the response_url expired, or Slack is unreachable: nothing left to tell
            log.warning(
                "could not reply to a /quiz command: %s",
                exc,
                extra={"platform": PLATFORM, "workspace": channel.workspace_id, "channel": channel.channel_id},
            )

    async def _post_charts(self, respond: Respond, reply: Reply, channel: ChannelRef) -> None:
        """Upload a reply's charts into the channel after its text; when Slack refuses them, say why, privately."""
        extra = {"platform": PLATFORM, "workspace": channel.workspace_id, "channel": channel.channel_id}
        # The charts' process pool (multiprocessing) is imported by the first charted report, not at start-up.
        from bot.chart_images import render_charts  # noqa: PLC0415

        try:
            images = await render_charts(reply.charts)
            await self.platform.upload_images(channel, images)
            return
        except MissingPermission as exc:
            log.warning("charts not posted: the app lacks the %s scope", exc.permission, extra=extra)
            notice = report_words.charts_not_posted(exc.permission)
        except Exception as exc:  # not in the channel, an upload that failed, a chart that could not be drawn
            log.warning("charts not posted: %s", exc, extra=extra)
            notice = report_words.charts_failed()
        await self._send_reply(respond, Reply(notice), channel)

    # --- the App Home tab and its review button ----------------------------------------------------

    async def on_home_opened(self, event: dict[str, Any], body: dict[str, Any]) -> None:
        """`app_home_opened`: publish the person's home when they open the Home tab (not the Messages tab)."""
        team_id, user_id = text_of(body, "team_id"), text_of(event, "user")
        if self.home is None or event.get("tab") != "home" or team_id is None or user_id is None:
            return
        self.home.opened(UserRef(PLATFORM, team_id, user_id, ""))

    async def on_review(self, ack: Callable[..., Awaitable[None]], body: dict[str, Any], respond: Respond) -> None:
        """ "Start a review" under `/quiz me` or in the Home tab: ask the review question due longest.

        Under `/quiz me` the question comes back privately in that channel; from the Home tab (which has no
        channel) it comes as a direct message from the app, where `/quiz review N` answers it.
        """
        await ack()
        self._spawn(self._review(body, respond), "review")

    async def _review(self, body: dict[str, Any], respond: Respond) -> None:
        team_id, channel_id = team_of_click(body), channel_of_click(body)
        assert team_id is not None  # RejectMalformed let only complete clicks through
        user = body["user"]
        user_ref = UserRef(
            PLATFORM, team_id, user["id"], text_of(user, "username") or text_of(user, "name") or user["id"]
        )
        # A review is the person's own, whatever the channel; from the Home tab it is their DM with the app.
        channel = ChannelRef(PLATFORM, team_id, channel_id or user_ref.user_id)
        try:
            reply = await self.runtime.app.execute(StartReview(), Context(channel, user_ref))
        except Exception as exc:
            reply = error_reply(exc)
        if channel_id is not None:
            await self.reply_privately(channel, user_ref.user_id, reply.message, respond)
            return
        try:
            await self.platform.post_message(channel, reply.message)
        except PlatformError as exc:
            log.warning(
                "could not send a review question from the Home tab: %s",
                exc,
                extra={"platform": PLATFORM, "workspace": team_id, "user": user_ref.user_id},
            )

    # --- answer buttons ----------------------------------------------------------------------------

    async def on_answer(
        self,
        ack: Callable[..., Awaitable[None]],
        body: dict[str, Any],
        action: dict[str, Any],
        respond: Respond,
        context: dict[str, Any],
    ) -> None:
        """A click on an answer button: record it, ack once it is committed (or at the deadline), then tell the
        clicker (only them) how they did and why."""
        loop = asyncio.get_running_loop()
        received = context.get(RECEIVED)
        budget = self.ack_deadline - (loop.time() - received if isinstance(received, float) else 0.0)
        work = asyncio.ensure_future(self._record_click(body, action))
        self._inflight.add(work)
        work.add_done_callback(self._inflight.discard)
        if budget > 0:
            await asyncio.wait({work}, timeout=budget)
        if work.done():
            context[ACKED_AS] = work.result().outcome
        else:  # past the deadline: ack now, answer when recorded (the click may still fail: it is told so)
            context[ACKED_AS] = "late"
            self.runtime.app.acknowledged_late(PLATFORM)
            log.info("click acked before its answer was committed (deadline passed)", extra=click_extra(body))
        await ack()
        channel, user_ref = self._clicked_by(body)
        self._spawn(self._reply_to_click(work, channel, user_ref.user_id, respond), "click reply")

    async def _reply_to_click(
        self, work: asyncio.Future[ClickReply], channel: ChannelRef, user_id: str, respond: Respond
    ) -> None:
        reply = await work
        if reply.post_id is not None and self.home is not None:
            self.home.answered(UserRef(PLATFORM, channel.workspace_id, user_id, ""))
        blocks = answer_reply_blocks(reply.message, reply.post_id) if reply.post_id is not None else None
        await self.reply_privately(channel, user_id, reply.message, respond, blocks=blocks)

    @staticmethod
    def _clicked_by(body: dict[str, Any]) -> tuple[ChannelRef, UserRef]:
        """Where a click happened and who clicked."""
        team_id, channel_id = team_of_click(body), channel_of_click(body)
        assert team_id is not None  # RejectMalformed let only complete clicks through
        assert channel_id is not None
        user = body["user"]
        user_ref = UserRef(
            PLATFORM, team_id, user["id"], text_of(user, "username") or text_of(user, "name") or user["id"]
        )
        return ChannelRef(PLATFORM, team_id, channel_id, enterprise_id=enterprise_of_click(body)), user_ref

    async def _record_click(self, body: dict[str, Any], action: dict[str, Any]) -> ClickReply:
        """Take a click apart and record it; a button we cannot read gets its polite reply. Never raises."""
        channel, user_ref = self._clicked_by(body)
        parsed = read_button(action, parse_answer_action, "an answer", channel)
        if parsed is None:
            return ClickReply(unknown_button())
        return await self.record(Click(channel=channel, user=user_ref, post_id=parsed[0], choice_id=parsed[1]))

    async def record(self, click: Click) -> ClickReply:
        """Record a click through the core; every failure becomes a message for the clicker."""
        try:
            result = await self.runtime.app.answer(
                post_id=click.post_id, user=click.user, choice_index=click.choice_id, channel=click.channel
            )
        except StorageUnavailable:
            log.warning("database unavailable; answer not recorded", extra=click.log_extra())
            return ClickReply(click_not_recorded(), outcome="unavailable")
        except Busy as exc:  # the intake cap: refused at once, nothing recorded
            return ClickReply(Message(str(exc)), outcome="busy")
        except QuizError as exc:  # UnknownPost, PostedElsewhere, InvalidChoice: a stale or forged button
            log.warning("answer refused: %s", exc, extra=click.log_extra())
            return ClickReply(Message(str(exc)))
        except Exception as exc:
            log.exception("recording an answer failed", extra=click.log_extra())
            return ClickReply(error_reply(exc).message, outcome="failed")
        return ClickReply(answer_message(result), result.post_id, outcome=result.outcome.value)

    # --- "Report a problem" ------------------------------------------------------------------------

    async def on_flag(
        self, ack: Callable[..., Awaitable[None]], body: dict[str, Any], action: dict[str, Any], respond: Respond
    ) -> None:
        """A click on "Report a problem" under an answer: ack, record the flag, tell the clicker privately.

        Nothing opens (no modal): a reason is added with `/quiz flag REASON`, which the reply suggests.
        """
        await ack()
        self._spawn(self._flag(body, action, respond), "flag")

    async def _flag(self, body: dict[str, Any], action: dict[str, Any], respond: Respond) -> None:
        channel, user_ref = self._clicked_by(body)
        post_id = read_button(action, parse_flag_action, "a flag", channel)
        if post_id is None:
            await self.reply_privately(channel, user_ref.user_id, unknown_button(), respond)
            return
        try:
            reply = await self.runtime.app.execute(FlagQuestion(post_id=post_id), Context(channel, user_ref))
        except Exception as exc:  # a stale or forged button, the database down: the category's one line
            reply = error_reply(exc)
        await self.reply_privately(channel, user_ref.user_id, reply.message, respond)

    # --- confirmations -----------------------------------------------------------------------------

    async def on_confirm(
        self, ack: Callable[..., Awaitable[None]], body: dict[str, Any], action: dict[str, Any], respond: Respond
    ) -> None:
        """A click on Confirm or Cancel under a destructive command's question: ack, then answer it through the core.

        The asker's answer replaces the question (its buttons go); what the command did is posted to the channel
        when everyone should see it. Anyone else, a late or a second click is told privately, and the question stays.
        """
        await ack()
        self._spawn(self._confirm(body, action, respond), "confirmation")

    async def _confirm(self, body: dict[str, Any], action: dict[str, Any], respond: Respond) -> None:
        channel, user_ref = self._clicked_by(body)
        parsed = read_button(action, parse_confirm_action, "a confirmation", channel)
        if parsed is None:
            await self.reply_privately(channel, user_ref.user_id, unknown_button(), respond)
            return
        context = Context(
            channel, user_ref, is_admin=await self.admins.is_admin(channel.workspace_id, user_ref.user_id)
        )
        reply = await self.runtime.app.confirm(token=parsed.token, context=context, accept=parsed.accept)
        if not reply.ok:
            await self.reply_privately(channel, user_ref.user_id, reply.message, respond)
            return
        try:
            await self._respond(
                respond,
                text=message_text(reply.message),
                blocks=message_blocks(reply.message),
                response_type="ephemeral",
                replace_original=True,
            )
        except Exception as exc:  # the response_url expired: say it as a new private message instead
            log.info("could not replace a confirmation's question: %s", exc, extra={"platform": PLATFORM})
            await self.reply_privately(channel, user_ref.user_id, reply.message, None)
        if not reply.private:
            try:
                await self.platform.post_message(channel, reply.message)
            except PlatformError as exc:
                log.warning(
                    "could not tell the channel what a confirmed command did: %s",
                    exc,
                    extra={"platform": PLATFORM, "workspace": channel.workspace_id, "channel": channel.channel_id},
                )

    async def on_other_action(
        self, ack: Callable[..., Awaitable[None]], action: dict[str, Any], body: dict[str, Any]
    ) -> None:
        """A click on something that is not ours (nothing we post has other buttons): ack and log."""
        await ack()
        log.info(
            "ignored an unknown action %r",
            action.get("action_id"),
            extra={"platform": PLATFORM, "workspace": team_of_click(body), "channel": channel_of_click(body)},
        )

    async def reply_privately(
        self,
        channel: ChannelRef,
        user_id: str,
        message: Message,
        respond: Respond | None,
        *,
        blocks: list[Block] | None = None,
    ) -> None:
        """chat.postEphemeral; where Slack refuses it (a DM, a channel I am not in) the click's response_url.

        `blocks` replaces the message's own blocks (an answer reply with its "Report a problem" button).
        With a response_url at hand, a rate-limited chat.postEphemeral is not waited out: the reply goes through
        the response_url at once, and so do the workspace's replies until Slack's Retry-After has passed (a
        daily question's burst of clicks would otherwise queue every verdict behind the method's limit).
        """
        workspace = channel.workspace_id
        limited = respond is not None and self._ephemerals_limited.get(workspace, float("-inf")) > self.clock()
        if not limited:
            try:
                if respond is None:
                    await self.platform.send_private(channel, user_id, message, blocks=blocks)
                else:
                    await self.platform.send_private_now(channel, user_id, message, blocks=blocks)
                return
            except PlatformError as exc:
                if exc.retry_after is not None:
                    self._ephemerals_limited[workspace] = self.clock() + exc.retry_after
                log.info(
                    "chat.postEphemeral refused (%s); replying through the response_url",
                    exc,
                    extra={"platform": PLATFORM, "workspace": workspace, "channel": channel.channel_id},
                )
        if respond is None:
            return
        try:
            await self._respond(
                respond,
                text=message_text(message),
                blocks=blocks or message_blocks(message),
                response_type="ephemeral",
                replace_original=False,
            )
        except Exception as exc:
            log.warning(
                "could not reply to a click: %s",
                exc,
                extra={"platform": PLATFORM, "workspace": channel.workspace_id, "channel": channel.channel_id},
            )

    async def _respond(self, respond: Respond, **message: Any) -> None:
        """`respond(**message)`, through the Web API client's pool of kept-alive connections while it serves: Bolt's
        respond opens a new connection (and TLS session) to Slack for each reply."""
        url = getattr(respond, "response_url", None)
        if not isinstance(url, str):
            await respond(**message)
            return
        await response_url_client(self.platform.client, url).send(**message)

    # --- errors ------------------------------------------------------------------------------------

    async def on_error(self, error: Exception, body: dict[str, Any]) -> None:
        """Anything a listener did not handle: one log line with the traceback, nothing for the user to see."""
        log.error("Slack request failed: %s", error, exc_info=error, extra={"platform": PLATFORM})
