"""The Bolt app: `/quiz` commands and answer clicks turned into core calls, and replies turned into Slack messages.

The app runs each listener before its response goes out (`process_before_response=True`), so the ack is sent
exactly when a listener calls `ack()` and returns. Commands and "Report a problem" ack at once and work in a
task of their own. An answer click is acknowledged only after its answer is committed (or refused): Slack's ack
is the promise that the click counts, and if the process dies before the commit no ack goes out, so Slack shows
the person that the click failed and they click again. When the commit outlasts the acknowledgement deadline
(QUIZBOT_SLACK_ACK_DEADLINE, safely inside Slack's 3 s) the click is acked anyway, counted
(quizbot_late_acks_total), and answered once it is recorded, as before. The private right/wrong reply follows
the ack (chat.postEphemeral, else the response_url): a block_actions ack cannot carry a message.

Requests are checked for shape before any listener sees them, so a malformed payload gets a log line and a
polite reply instead of a 500, and Slack's retries (X-Slack-Retry-Num) are acked without running anything twice;
so is a replayed slash command (a byte-identical signed copy, inside the signature's five minutes): its trigger_id
was seen already.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from slack_bolt.async_app import AsyncApp
from slack_bolt.middleware.async_middleware import AsyncMiddleware
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.webhook.async_client import AsyncWebhookClient

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
from adapters.slack.home import REVIEW_ACTION, HomePublisher, page_blocks, page_text
from adapters.slack.platform import PLATFORM, SlackPlatform
from bot.chart_images import render_charts
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

INCOMPLETE = "Sorry, Slack sent an incomplete request, so I could not act on it. Please try again."


@dataclass(frozen=True, slots=True)
class Click:
    """An answer click, taken apart: who, where, and which post and choice the button carries."""

    channel: ChannelRef
    user: UserRef
    post_id: int
    choice_id: int

    def log_extra(self) -> dict[str, object]:
        """The context fields for log lines about this click."""
        return {
            "platform": PLATFORM,
            "workspace": self.channel.workspace_id,
            "channel": self.channel.channel_id,
            "post_id": self.post_id,
            "user": self.user.user_id,
        }


@dataclass(frozen=True, slots=True)
class ClickReply:
    """What a click is told, and the post it answered (None when it failed), which its reply lets them report."""

    message: Message
    post_id: int | None = None
    outcome: str = "refused"
    """What the ack stands for: the AnswerResult's outcome (recorded, already_answered, closed) once committed;
    busy (refused by the intake cap), unavailable (the database), refused (a stale or forged button), failed."""


def _text(mapping: Mapping[str, Any] | None, key: str) -> str | None:
    """A non-empty string field, or None."""
    if not isinstance(mapping, Mapping):
        return None
    value = mapping.get(key)
    return value if isinstance(value, str) and value else None


def retry_number(req: AsyncBoltRequest) -> int:
    """Slack's retry count of this delivery (0 for the first; Socket Mode sends 0 too)."""
    values = req.headers.get("x-slack-retry-num") or ["0"]
    try:
        return int(values[0])
    except (TypeError, ValueError):
        return 0


def _is_slash_command(body: Mapping[str, Any]) -> bool:
    return "command" in body and "type" not in body


def missing_command_fields(body: Mapping[str, Any]) -> list[str]:
    """The fields a slash command needs that this one lacks."""
    return [name for name in ("command", "team_id", "channel_id", "user_id") if _text(body, name) is None]


def missing_click_fields(body: Mapping[str, Any]) -> list[str]:
    """The fields a block_actions click needs that this one lacks (or has in the wrong shape)."""
    missing = []
    actions = body.get("actions")
    if (
        not isinstance(actions, list)
        or not actions
        or not isinstance(actions[0], Mapping)
        or _text(actions[0], "action_id") is None
    ):
        missing.append("actions[0].action_id")
    if _text(body.get("user"), "id") is None:
        missing.append("user.id")
    if _team_of_click(body) is None:
        missing.append("team.id")
    if _channel_of_click(body) is None and not _home_button(body):
        missing.append("channel.id")
    return missing


def _home_button(body: Mapping[str, Any]) -> bool:
    """A click on the App Home tab's review button: the only click that comes from a view, without a channel."""
    actions = body.get("actions")
    first = actions[0] if isinstance(actions, list) and actions and isinstance(actions[0], Mapping) else None
    return _text(first, "action_id") == REVIEW_ACTION and isinstance(body.get("view"), Mapping)


_Carried = TypeVar("_Carried")


def _read_button(
    action: dict[str, Any], parse: Callable[[str], _Carried | None], kind: str, channel: ChannelRef
) -> _Carried | None:
    """What one of our buttons carries, read from its action_id (or its value); None, logged, when neither reads."""
    found = parse(action["action_id"]) or parse(str(action.get("value") or ""))
    if found is None:
        log.warning(
            "ignored %s button with a bad action_id %r / value %r",
            kind,
            action.get("action_id"),
            action.get("value"),
            extra={"platform": PLATFORM, "workspace": channel.workspace_id, "channel": channel.channel_id},
        )
    return found


def _team_of_click(body: Mapping[str, Any]) -> str | None:
    return _text(body.get("team"), "id") or _text(body.get("user"), "team_id")


def _enterprise_of_click(body: Mapping[str, Any]) -> str | None:
    """The Enterprise Grid organisation of the workspace a click came from (None outside Enterprise Grid)."""
    return _text(body.get("team"), "enterprise_id") or _text(body.get("enterprise"), "id")


def _channel_of_click(body: Mapping[str, Any]) -> str | None:
    return _text(body.get("channel"), "id") or _text(body.get("container"), "channel_id")


def _click_extra(body: Mapping[str, Any]) -> dict[str, object]:
    return {"platform": PLATFORM, "workspace": _team_of_click(body), "channel": _channel_of_click(body)}


class SkipRetries(AsyncMiddleware):
    """Acks Slack's retries without running them again: the first delivery is (or was) already being handled.

    Slack retries when an ack was late or failed. Re-running a retried `/quiz now` would post a second card, and
    a retried click would send a confusing "you already answered"; acking is all a retry needs.
    """

    async def async_process(
        self, *, req: AsyncBoltRequest, resp: BoltResponse, next: Callable[[], Awaitable[BoltResponse]]
    ) -> BoltResponse | None:
        """Stop retried deliveries here; pass first deliveries on."""
        number = retry_number(req)
        if number > 0:
            reason = (req.headers.get("x-slack-retry-reason") or [""])[0]
            log.info(
                "acked Slack retry %s (%s) without running it again",
                number,
                reason or "no reason given",
                extra={"platform": PLATFORM, "workspace": req.context.team_id, "channel": req.context.channel_id},
            )
            return BoltResponse(status=200, body="")
        await next()
        return resp


REPLAY_WINDOW = 360.0
"""Seconds a slash command's trigger_id is remembered: Slack's five-minute signature window, plus a minute for the
clocks of Slack and this host to disagree. A copy older than the window fails the signature check instead."""
REPLAY_MEMORY = 20_000
"""At most this many trigger_ids are remembered (the oldest forgotten first): a few MB whatever the traffic."""


class SeenTriggers:
    """The trigger_ids of the slash commands run lately (within `window` seconds, at most `size` of them).

    In this process only, and before the ack: a replay that a load balancer sends to another replica is caught
    after its ack by the core, which keeps the same ids in the database (`Invocation.delivery_id`).
    """

    def __init__(
        self, *, window: float = REPLAY_WINDOW, size: int = REPLAY_MEMORY, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.window = window
        self.size = size
        self.clock = clock
        self._seen: OrderedDict[str, float] = OrderedDict()

    def first_sight(self, trigger_id: str) -> bool:
        """True the first time a trigger_id is offered (remembering it), False for a repeat within the window."""
        now = self.clock()
        while self._seen and (len(self._seen) >= self.size or next(iter(self._seen.values())) <= now - self.window):
            self._seen.popitem(last=False)
        if trigger_id in self._seen:
            return False
        self._seen[trigger_id] = now
        return True


class SkipReplays(AsyncMiddleware):
    """Acks a slash command whose trigger_id was already run, without running it again.

    Slack gives every invocation its own trigger_id, and a signature stays valid for five minutes, so a second
    delivery of one (a byte-identical signed copy, a proxy that resends) would otherwise post a second card. Its
    sender gets the empty ack, which Slack shows as nothing; the first delivery answered already.
    """

    def __init__(self, seen: SeenTriggers | None = None) -> None:
        self.seen = seen or SeenTriggers()

    async def async_process(
        self, *, req: AsyncBoltRequest, resp: BoltResponse, next: Callable[[], Awaitable[BoltResponse]]
    ) -> BoltResponse | None:
        """Stop repeated slash commands here; pass everything else on."""
        body: Any = req.body
        trigger_id = _text(body, "trigger_id") if isinstance(body, dict) and _is_slash_command(body) else None
        if trigger_id is not None and not self.seen.first_sight(trigger_id):
            log.warning(
                "acked a repeated slash command (trigger_id seen already) without running it again",
                extra={"platform": PLATFORM, "workspace": req.context.team_id, "channel": req.context.channel_id},
            )
            return BoltResponse(status=200, body="")
        await next()
        return resp


class RejectMalformed(AsyncMiddleware):
    """Answers a command or click that lacks what it needs with a log line and a polite reply, never a 500.

    A plain middleware class (not a decorated function) so that Bolt does not build listener arguments from
    the malformed body before it is checked: that alone raises on, for example, an empty `actions` list.
    """

    def __init__(self, *, proxy: str | None = None) -> None:
        self.proxy = proxy

    async def async_process(
        self, *, req: AsyncBoltRequest, resp: BoltResponse, next: Callable[[], Awaitable[BoltResponse]]
    ) -> BoltResponse | None:
        """Pass well-formed requests on; answer the others here."""
        body: Any = req.body
        if not isinstance(body, dict):
            log.warning("ignored a Slack request whose body is not an object", extra={"platform": PLATFORM})
            return BoltResponse(status=200, body="")
        missing: list[str] = []
        kind = ""
        if _is_slash_command(body):
            kind, missing = "slash command", missing_command_fields(body)
        elif body.get("type") == "block_actions":
            kind, missing = "button click", missing_click_fields(body)
        if not missing:
            await next()
            return resp
        log.warning(
            "ignored a malformed %s from Slack: missing %s",
            kind,
            ", ".join(missing),
            extra={"platform": PLATFORM, "workspace": req.context.team_id, "channel": req.context.channel_id},
        )
        if kind == "slash command":
            # The body of a slash command's ack is shown to the user who typed it, and only to them.
            return BoltResponse(status=200, body=INCOMPLETE)
        await self._respond_via_url(_text(body, "response_url"), Message(INCOMPLETE))
        return BoltResponse(status=200, body="")

    async def _respond_via_url(self, response_url: str | None, message: Message) -> None:
        if response_url is None:
            return
        try:
            await AsyncWebhookClient(response_url, proxy=self.proxy).send(
                text=message_text(message),
                blocks=message_blocks(message),
                response_type="ephemeral",
                replace_original=False,
            )
        except Exception as exc:
            log.warning("could not reply through a response_url: %s", exc)


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

    def install(self, app: AsyncApp) -> None:
        """Register the middleware and listeners on a Bolt app."""
        app.middleware(SkipRetries())
        app.middleware(RejectMalformed(proxy=self.platform.client.proxy))
        app.middleware(SkipReplays())
        # Any slash command of this app is `/quiz` (a workspace that already has a /quiz may rename it).
        app.command(re.compile(r".+"))(self.on_command)
        app.action(re.compile(rf"^{ACTION_PREFIX}(:|$)"))(self.on_answer)
        app.action(re.compile(rf"^{FLAG_PREFIX}(:|$)"))(self.on_flag)
        app.action(re.compile(rf"^{CONFIRM_PREFIX}(:|$)"))(self.on_confirm)
        app.action(REVIEW_ACTION)(self.on_review)
        app.event("app_home_opened")(self.on_home_opened)
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
        invocation = Invocation(
            # the command's organisation is recorded on its workspace: clicks from the org's other workspaces count
            channel=ChannelRef(PLATFORM, team_id, channel_id, enterprise_id=_text(command, "enterprise_id")),
            user=UserRef(PLATFORM, team_id, user_id, _text(command, "user_name") or user_id),
            text=_text(command, "text") or "",
            is_admin=await self.admins.is_admin(team_id, user_id),
            delivery_id=_text(command, "trigger_id"),  # a replay that reached another replica is not run twice
        )
        reply = await self.runtime.app.handle_command(invocation)
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
            await respond(
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
        team_id, user_id = _text(body, "team_id"), _text(event, "user")
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
        team_id, channel_id = _team_of_click(body), _channel_of_click(body)
        assert team_id is not None  # RejectMalformed let only complete clicks through
        user = body["user"]
        user_ref = UserRef(PLATFORM, team_id, user["id"], _text(user, "username") or _text(user, "name") or user["id"])
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
            log.info("click acked before its answer was committed (deadline passed)", extra=_click_extra(body))
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
        team_id, channel_id = _team_of_click(body), _channel_of_click(body)
        assert team_id is not None  # RejectMalformed let only complete clicks through
        assert channel_id is not None
        user = body["user"]
        user_ref = UserRef(PLATFORM, team_id, user["id"], _text(user, "username") or _text(user, "name") or user["id"])
        return ChannelRef(PLATFORM, team_id, channel_id, enterprise_id=_enterprise_of_click(body)), user_ref

    async def _record_click(self, body: dict[str, Any], action: dict[str, Any]) -> ClickReply:
        """Take a click apart and record it; a button we cannot read gets its polite reply. Never raises."""
        channel, user_ref = self._clicked_by(body)
        parsed = _read_button(action, parse_answer_action, "an answer", channel)
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
        post_id = _read_button(action, parse_flag_action, "a flag", channel)
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
        parsed = _read_button(action, parse_confirm_action, "a confirmation", channel)
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
            await respond(
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
            extra={"platform": PLATFORM, "workspace": _team_of_click(body), "channel": _channel_of_click(body)},
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
        """
        try:
            await self.platform.send_private(channel, user_id, message, blocks=blocks)
            return
        except PlatformError as exc:
            log.info(
                "chat.postEphemeral refused (%s); replying through the response_url",
                exc,
                extra={"platform": PLATFORM, "workspace": channel.workspace_id, "channel": channel.channel_id},
            )
        if respond is None:
            return
        try:
            await respond(
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

    # --- errors ------------------------------------------------------------------------------------

    async def on_error(self, error: Exception, body: dict[str, Any]) -> None:
        """Anything a listener did not handle: one log line with the traceback, nothing for the user to see."""
        log.error("Slack request failed: %s", error, exc_info=error, extra={"platform": PLATFORM})
