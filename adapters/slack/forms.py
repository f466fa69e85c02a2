"""Forms and page buttons on Slack: a reply's `form` opens a modal (views.open with the command's or the click's
trigger_id), its submission goes to `QuizCore.submit_form`, and a page button (`Action` with a value) to
`QuizCore.act`.

A modal's `callback_id` is `quiz:form:{kind}`; its `private_metadata` holds the form's state and the channel it
was opened from (JSON), so the reply to the submission is posted there, privately (chat.postEphemeral; where Slack
refuses it, a direct message from the app). Each field is an input block whose `block_id` is the field's key, so
the core's problems come back inside the modal (`response_action: errors`, block_id -> problem). The submission is
acknowledged within QUIZBOT_SLACK_ACK_DEADLINE (Slack closes the exchange at 3 s): when the core is slower, the
modal is closed and the reply (its problems in words) follows privately.

A view_submission or a page button that is not ours, or names a kind this bot does not know (forged, or from an
older version), gets one private line and nothing runs.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack import limits
from adapters.slack.admins import AdminDirectory
from adapters.slack.blocks import Block
from adapters.slack.home import PAGE_ACTION_PREFIX, page_blocks
from adapters.slack.payloads import channel_of_click, enterprise_of_click, team_of_click, text_of
from adapters.slack.platform import PLATFORM, SlackPlatform
from adapters.text_safety import plain
from bot.domain import ChannelRef, UserRef
from bot.domain.forms import Form, FormField, FormKind
from bot.ports import ActionKind, Message, PlatformError
from bot.service.facade import AdapterHost, Context, Reply, error_reply
from bot.wording import forms as words
from bot.wording.errors import unknown_button

log = logging.getLogger(__name__)

CALLBACK_PREFIX = "quiz:form:"
"""A modal's callback_id: `quiz:form:{FormKind.value}`."""
CALLBACK_PATTERN = re.compile(r"^quiz:form:(?P<kind>[a-z-]{1,32})$")
PAGE_ACTION_PATTERN = re.compile(r"^quiz:act:(?P<kind>[a-z-]{1,32})(:|$)")

MODAL_TEXT = 24
"""A modal's title, submit and close labels: at most 24 characters (https://docs.slack.dev/reference/views/modal-view)."""
INPUT_MAX_LENGTH = 3000
"""A plain_text_input's `max_length` (and so its initial value): at most 3000
(https://docs.slack.dev/reference/block-kit/block-elements/plain-text-input-element)."""
PLACEHOLDER = 150
LABEL = 2000
METADATA = 3000
"""`private_metadata`: at most 3000 characters."""
ERROR_TEXT = 300
"""A field's problem as shown under it (Slack does not document a limit; a problem is one line)."""

Respond = Callable[..., Awaitable[Any]]
Ack = Callable[..., Awaitable[None]]


class Host(Protocol):
    """What the forms need of the listeners: the core, the platform, admins, the ack deadline, running work after an
    ack, and a private reply."""

    runtime: AdapterHost
    platform: SlackPlatform
    admins: AdminDirectory
    ack_deadline: float

    def _spawn(self, work: Coroutine[Any, Any, None], what: str) -> None: ...

    async def reply_privately(
        self,
        channel: ChannelRef,
        user_id: str,
        message: Message,
        respond: Respond | None,
        *,
        blocks: list[Block] | None = None,
    ) -> None: ...


def _text(text: str, limit: int) -> dict[str, Any]:
    return {"type": "plain_text", "text": plain(text)[:limit] or "·", "emoji": True}


def _input(field: FormField) -> Block:
    max_length = max(1, min(field.max_length, INPUT_MAX_LENGTH))
    element: Block = {
        "type": "plain_text_input",
        "action_id": field.key[: limits.ACTION_ID],  # unique in the view, as the block_id
        "multiline": field.multiline,
        "max_length": max_length,
    }
    if field.value:
        element["initial_value"] = field.value[:max_length]
    if field.hint:
        element["placeholder"] = _text(field.hint, PLACEHOLDER)
    return {
        "type": "input",
        "block_id": field.key[: limits.BLOCK_ID],
        "optional": not field.required,
        "label": _text(field.label, LABEL),
        "element": element,
    }


def modal_view(form: Form, channel_id: str) -> dict[str, Any]:
    """The modal of a form: one input per field (block_id = the field's key), the kind in its callback_id, the state
    and the channel it was opened from in its private_metadata. Problems a form is opened with head it."""
    metadata = json.dumps({"state": form.state, "channel": channel_id}, separators=(",", ":"))
    blocks: list[Block] = []
    if form.errors:
        problems = words.problems(form)
        blocks.append({"type": "context", "elements": [_text("\n".join(problems.lines), limits.TEXT_OBJECT)]})
    blocks += [_input(field) for field in form.fields]
    return {
        "type": "modal",
        "callback_id": f"{CALLBACK_PREFIX}{form.kind.value}",
        "title": _text(form.title, MODAL_TEXT),
        "submit": _text(form.submit, MODAL_TEXT),
        "close": _text(words.cancel(), MODAL_TEXT),
        "private_metadata": metadata[:METADATA],
        "blocks": blocks,
    }


def field_errors(form: Form) -> dict[str, str]:
    """The answer to a refused submission: each problem under its field (block_id = key); a problem of a key the
    form does not have goes under the first field."""
    keys = {field.key for field in form.fields}
    errors: dict[str, str] = {}
    for key, problem in form.errors.items():
        block = key if key in keys else form.fields[0].key
        errors[block] = (f"{errors[block]} {problem}" if block in errors else problem)[:ERROR_TEXT]
    return errors


@dataclass(frozen=True, slots=True)
class Submission:
    """A view_submission, taken apart: the form's kind and state, where it was opened, and what was typed."""

    kind: FormKind
    state: str
    channel_id: str | None
    values: dict[str, str]


def read_submission(view: Mapping[str, Any]) -> Submission | None:
    """A view_submission's form, or None when its callback_id or metadata is not one of ours."""
    match = CALLBACK_PATTERN.match(text_of(view, "callback_id") or "")
    if match is None:
        return None
    try:
        kind = FormKind(match["kind"])
        metadata = json.loads(text_of(view, "private_metadata") or "{}")
    except ValueError:
        return None
    if not isinstance(metadata, dict) or not isinstance(metadata.get("state", ""), str):
        return None
    channel = metadata.get("channel")
    state = view.get("state")
    blocks = state.get("values") if isinstance(state, Mapping) else None
    values: dict[str, str] = {}
    for block_id, inputs in (blocks if isinstance(blocks, Mapping) else {}).items():
        entry = inputs.get(block_id) if isinstance(inputs, Mapping) else None
        value = entry.get("value") if isinstance(entry, Mapping) else None
        values[str(block_id)] = value if isinstance(value, str) else ""
    channel_id = channel if isinstance(channel, str) and channel else None
    return Submission(kind, metadata.get("state", ""), channel_id, values)


def read_page_action(action_id: str) -> ActionKind | None:
    """The kind of a page button from its action_id (`quiz:act:{kind}:...`), or None when it names none we know."""
    match = PAGE_ACTION_PATTERN.match(action_id)
    if match is None:
        return None
    try:
        return ActionKind(match["kind"])
    except ValueError:
        return None


class SlackForms:
    """Opens forms as modals, answers their submissions, and runs page buttons through the core."""

    def __init__(self, host: Host, client: AsyncWebClient) -> None:
        self.host = host
        self.client = client

    # --- opening ------------------------------------------------------------------------------------

    async def open(
        self, trigger_id: str | None, reply: Reply, channel: ChannelRef, user_id: str, respond: Respond | None
    ) -> None:
        """Open the form with the trigger_id; without one, or when Slack refuses (a trigger lives 3 s), say the
        reply's words privately instead, and that the form could not open."""
        form = reply.form
        assert form is not None
        if trigger_id is not None:
            try:
                await self.client.views_open(trigger_id=trigger_id, view=modal_view(form, channel.channel_id))
                return
            except SlackApiError as exc:
                log.warning(
                    "could not open a form (%s): %s",
                    form.kind.value,
                    exc.response.get("error"),
                    extra={"platform": PLATFORM, "workspace": channel.workspace_id, "channel": channel.channel_id},
                )
            except Exception as exc:  # Slack unreachable
                log.warning("could not open a form: %s", exc, extra={"platform": PLATFORM})
        message = Message(reply.message.title, (*reply.message.lines, words.form_not_opened()))
        await self.host.reply_privately(channel, user_id, message, respond)

    # --- submissions ----------------------------------------------------------------------------------

    async def on_submission(self, ack: Ack, body: dict[str, Any], context: dict[str, Any]) -> None:
        """A view_submission: ack with the problems inside the modal, or close it and reply privately."""
        view = body.get("view")
        submission = read_submission(view) if isinstance(view, Mapping) else None
        team_id, user_id = team_of_click(body), text_of(body.get("user"), "id")
        if team_id is None or user_id is None:
            log.warning("ignored a view_submission without a team or user", extra={"platform": PLATFORM})
            await ack()
            return
        user = body["user"]
        user_ref = UserRef(PLATFORM, team_id, user_id, text_of(user, "username") or text_of(user, "name") or user_id)
        if submission is None:
            log.warning(
                "a submitted form that is not ours: %r",
                text_of(view, "callback_id") if isinstance(view, Mapping) else None,
                extra={"platform": PLATFORM, "workspace": team_id},
            )
            await ack(response_action="clear")
            self.host._spawn(self._tell(ChannelRef(PLATFORM, team_id, user_id), user_ref, words.unknown_form()), "form")
            return
        channel = ChannelRef(
            PLATFORM, team_id, submission.channel_id or user_id, enterprise_id=enterprise_of_click(body)
        )
        loop = asyncio.get_running_loop()
        received = context.get("quizbot_received")  # listeners.RECEIVED: when the HTTP intake got the request
        started = received if isinstance(received, float) else loop.time()
        work = asyncio.ensure_future(self._submit(submission, channel, user_ref))
        budget = self.host.ack_deadline - (loop.time() - started)
        if budget > 0:
            await asyncio.wait({work}, timeout=budget)
        if not work.done():  # past the deadline: close the modal now, answer in words when the core has
            log.info("a form submission acked before the core answered", extra={"platform": PLATFORM})
            self.host.runtime.app.acknowledged_late(PLATFORM)  # counted as a late click is
            await ack(response_action="clear")
            self.host._spawn(self._answer_late(work, channel, user_ref), "form reply")
            return
        reply = work.result()
        form = reply.form
        if form is not None and form.errors:
            await ack(response_action="errors", errors=field_errors(form))
            return
        if form is not None:  # another form follows this one
            await ack(response_action="update", view=modal_view(form, channel.channel_id))
            return
        await ack(response_action="clear")
        self.host._spawn(self._deliver(reply, channel, user_ref), "form reply")

    async def _submit(self, submission: Submission, channel: ChannelRef, user: UserRef) -> Reply:
        try:
            is_admin = await self.host.admins.is_admin(channel.workspace_id, user.user_id)
            return await self.host.runtime.app.submit_form(
                kind=submission.kind,
                state=submission.state,
                values=submission.values,
                context=Context(channel, user, is_admin=is_admin),
            )
        except Exception as exc:  # the core turns its errors into replies; this is the directory or a bug
            log.exception("a form submission failed", extra={"platform": PLATFORM})
            return error_reply(exc)

    async def _answer_late(self, work: asyncio.Future[Reply], channel: ChannelRef, user: UserRef) -> None:
        reply = await work
        if reply.form is not None and reply.form.errors:
            problems = words.problems(reply.form)
            await self._tell(channel, user, Message(problems.title, (*problems.lines, reply.message.text)))
            return
        await self._deliver(reply, channel, user)

    async def _deliver(self, reply: Reply, channel: ChannelRef, user: UserRef) -> None:
        """A submission's reply: privately, unless it is for the channel."""
        if reply.quiet:
            return
        if reply.ok and not reply.private:
            try:
                await self.host.platform.post_message(channel, reply.message)
                return
            except PlatformError as exc:
                log.info("could not post a form's reply in its channel: %s", exc, extra={"platform": PLATFORM})
        blocks = page_blocks(reply.page) if reply.page is not None else None
        await self._tell(channel, user, reply.message, blocks=blocks)

    async def _tell(
        self, channel: ChannelRef, user: UserRef, message: Message, *, blocks: list[Block] | None = None
    ) -> None:
        """Privately in the channel (chat.postEphemeral); where Slack refuses, a direct message from the app."""
        try:
            await self.host.platform.send_private(channel, user.user_id, message, blocks=blocks)
            return
        except PlatformError as exc:
            log.info("chat.postEphemeral refused (%s); sending a direct message", exc, extra={"platform": PLATFORM})
        try:
            await self.host.platform.send_direct(user, message)
        except PlatformError as exc:
            log.warning("could not answer a form: %s", exc, extra={"platform": PLATFORM, "user": user.user_id})

    # --- page buttons ---------------------------------------------------------------------------------

    async def on_page_action(self, ack: Ack, body: dict[str, Any], action: dict[str, Any], respond: Respond) -> None:
        """A click on a page button (a draft's Approve, Edit or Reject): ack, then run it through the core."""
        await ack()
        self.host._spawn(self._act(body, action, respond), "page button")

    async def _act(self, body: dict[str, Any], action: dict[str, Any], respond: Respond) -> None:
        team_id, channel_id = team_of_click(body), channel_of_click(body)
        assert team_id is not None  # RejectMalformed let only complete clicks through
        user = body["user"]
        name = text_of(user, "username") or text_of(user, "name") or user["id"]
        user_ref = UserRef(PLATFORM, team_id, user["id"], name)
        # From the Home tab (no channel) the reply goes to the person's conversation with the app.
        channel = ChannelRef(PLATFORM, team_id, channel_id or user_ref.user_id, enterprise_id=enterprise_of_click(body))
        reply_to: Respond | None = respond if channel_id is not None else None
        kind = read_page_action(str(action.get("action_id", "")))
        if kind is None or kind is ActionKind.START_REVIEW:
            log.warning("ignored a page button %r", action.get("action_id"), extra={"platform": PLATFORM})
            await self._private(channel, user_ref, unknown_button(), reply_to)
            return
        value = action.get("value")
        context = Context(channel, user_ref, is_admin=await self.host.admins.is_admin(team_id, user_ref.user_id))
        reply = await self.host.runtime.app.act(
            action=kind, value=value if isinstance(value, str) else "", context=context
        )
        if reply.form is not None:
            await self.open(text_of(body, "trigger_id"), reply, channel, user_ref.user_id, reply_to)
            return
        if reply.quiet:
            return
        if reply.ok and not reply.private:
            try:
                await self.host.platform.post_message(channel, reply.message)
                return
            except PlatformError as exc:
                log.info("could not post a button's reply in its channel: %s", exc, extra={"platform": PLATFORM})
        blocks = page_blocks(reply.page) if reply.page is not None and reply.ok else None
        await self._private(channel, user_ref, reply.message, reply_to, blocks=blocks)

    async def _private(
        self,
        channel: ChannelRef,
        user: UserRef,
        message: Message,
        respond: Respond | None,
        *,
        blocks: list[Block] | None = None,
    ) -> None:
        if respond is None:  # the Home tab: a direct message from the app, as its review button's question
            try:
                await self.host.platform.send_direct(user, message)
            except PlatformError as exc:
                log.warning("could not answer a Home tab button: %s", exc, extra={"platform": PLATFORM})
            return
        await self.host.reply_privately(channel, user.user_id, message, respond, blocks=blocks)


__all__ = [
    "CALLBACK_PREFIX",
    "PAGE_ACTION_PREFIX",
    "SlackForms",
    "field_errors",
    "modal_view",
    "read_page_action",
    "read_submission",
]
