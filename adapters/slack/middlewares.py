"""The Bolt middlewares in front of every listener: Slack's retries acked without running anything twice, replayed
slash commands (the same trigger_id) acked and dropped, malformed requests refused with one polite line."""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.middleware.async_middleware import AsyncMiddleware
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.blocks import (
    message_blocks,
    message_text,
)
from adapters.slack.payloads import (
    is_slash_command,
    missing_click_fields,
    missing_command_fields,
    retry_number,
    text_of,
)
from adapters.slack.platform import PLATFORM, response_url_client
from bot.ports import Message
from bot.wording import slack as slack_words

log = logging.getLogger(__name__)


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
        trigger_id = text_of(body, "trigger_id") if isinstance(body, dict) and is_slash_command(body) else None
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

    def __init__(self, client: AsyncWebClient) -> None:
        self.client = client  # its connections, for the polite reply through a response_url

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
        if is_slash_command(body):
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
            return BoltResponse(status=200, body=slack_words.incomplete_request())
        await self._respond_via_url(text_of(body, "response_url"), Message(slack_words.incomplete_request()))
        return BoltResponse(status=200, body="")

    async def _respond_via_url(self, response_url: str | None, message: Message) -> None:
        if response_url is None:
            return
        try:
            await response_url_client(self.client, response_url).send(
                text=message_text(message),
                blocks=message_blocks(message),
                response_type="ephemeral",
                replace_original=False,
            )
        except Exception as exc:
            log.warning("could not reply through a response_url: %s", exc)
