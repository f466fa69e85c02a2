"""The ChatPlatform port over Slack's Web API: cards via chat.postMessage/chat.update, private replies via
chat.postEphemeral, direct messages (the DirectMessages capability) via chat.postMessage to a user id."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextvars import ContextVar
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from adapters.slack import limits
from adapters.slack.blocks import Block, card_blocks, card_text, message_blocks, message_text
from adapters.slack.images import ImageFiles
from bot.domain import ChannelRef, QuestionCard, UserRef
from bot.ports import Message, MissingPermission, PlatformError, PlatformLimits, Rate
from bot.wording import slack as slack_words

if TYPE_CHECKING:
    from bot.chart_images import ChartImage  # its process pool is loaded by the first charted report

log = logging.getLogger(__name__)

PLATFORM = "slack"
RATE_LIMIT_RETRIES = 3

# Errors after which the same call can never succeed: retrying or waiting does not help.
PERMANENT_ERRORS = {
    "channel_not_found",
    "not_in_channel",
    "is_archived",
    "msg_too_long",
    "no_text",
    "invalid_blocks",
    "invalid_blocks_format",
    "message_not_found",
    "cant_update_message",
    "user_not_found",
    "user_not_in_channel",
    "restricted_action",
    "restricted_action_read_only_channel",
    "restricted_action_thread_only_channel",
    "not_authed",
    "invalid_auth",
    "account_inactive",
    "token_revoked",
    "missing_scope",
    "team_access_not_granted",
    "ekm_access_denied",
}


_WAIT_OUT_LIMITS: ContextVar[bool] = ContextVar("quizbot_slack_wait_out_limits", default=True)
"""False while a call is made that has another way to answer (SlackPlatform.send_private_now)."""


class _RateLimitRetries(AsyncRateLimitErrorRetryHandler):
    """Waits out a 429 (Retry-After) and tries again, except for a call that would rather be refused at once."""

    async def _can_retry_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> bool:
        if not _WAIT_OUT_LIMITS.get():
            return False
        return await super()._can_retry_async(state=state, request=request, response=response, error=error)


def make_client(*, token: str, base_url: str | None = None) -> AsyncWebClient:
    """An AsyncWebClient that waits out 429s (Retry-After) and retries dropped connections."""
    return AsyncWebClient(
        token=token,
        base_url=base_url or AsyncWebClient.BASE_URL,
        retry_handlers=[
            AsyncConnectionErrorRetryHandler(max_retry_count=2),
            _RateLimitRetries(max_retry_count=RATE_LIMIT_RETRIES),
        ],
    )


def response_url_client(client: AsyncWebClient, url: str) -> AsyncWebhookClient:
    """A client for a response_url that sends through `client`'s kept-alive connections while it serves (its
    session open), else on a connection of its own: Bolt's respond opens a new one (a TLS handshake) each reply."""
    session = client.session if client.session is not None and not client.session.closed else None
    return AsyncWebhookClient(url, session=session, proxy=client.proxy, ssl=client.ssl)


def platform_error(exc: SlackApiError, *, action: str) -> PlatformError:
    """A PlatformError for a Slack API error, with a message a user can act on."""
    response = exc.response
    code = str(response.get("error") or f"HTTP {response.status_code}")
    retry_after = None
    if response.status_code == 429:
        header = response.headers.get("Retry-After") or response.headers.get("retry-after")
        retry_after = float(header) if header and str(header).isdigit() else 1.0
    text = slack_words.refused(action, code)
    if code == "missing_scope":  # Slack names the scope it wanted in `needed`
        return MissingPermission(text, permission=str(response.get("needed") or "unknown"))
    return PlatformError(text, permanent=code in PERMANENT_ERRORS, retry_after=retry_after)


POST_EVENT_TYPE = "quizbot_post"
"""The event_type of the metadata every card carries (its payload: the post's id), by which recovery finds it."""
HISTORY_MARGIN = timedelta(minutes=10)
"""How much earlier than the post's own time recovery starts reading a channel's history: this host's clock and
Slack's may differ (a message's ts is Slack's time)."""
HISTORY_PAGES = 5
"""Pages of 200 messages read at most when looking for a card (a channel rarely gets more since the post)."""


def card_metadata(post_id: int) -> dict[str, Any]:
    """The message metadata of a post's card: how `find_card` recognises it after a crash."""
    return {"event_type": POST_EVENT_TYPE, "event_payload": {"post_id": post_id}}


def _carries_post(message: dict[str, Any], post_id: int) -> bool:
    metadata = message.get("metadata") or {}
    payload = metadata.get("event_payload") or {}
    return bool(metadata.get("event_type") == POST_EVENT_TYPE and str(payload.get("post_id")) == str(post_id))


SLACK_LIMITS = PlatformLimits(channel=Rate(1.0), workspace=Rate(2.0, burst=10), platform=None)
"""chat.postMessage: about one a second per channel, and a workspace-wide limit (kept well under)."""


class SlackPlatform:
    """The ChatPlatform for Slack. Stateless apart from its Web API client, so any replica can serve any post."""

    name = PLATFORM
    rate_limits = SLACK_LIMITS  # how fast scheduled fan-out may post (the ChatPlatform port)

    def __init__(self, client: AsyncWebClient, content_dir: Path | None = None) -> None:
        self.client = client
        self._history_refusals: set[str] = set()  # why conversations.history failed, each logged once
        self.image_files = ImageFiles(client, content_dir)

    async def post_card(self, channel: ChannelRef, card: QuestionCard) -> str:
        """Post a question card; the message's `ts` is its reference."""
        response = await self._call(
            "post_card",
            channel,
            self.client.chat_postMessage,
            channel=channel.channel_id,
            text=card_text(card),
            blocks=card_blocks(card, await self.image_files.for_card(card)),
            metadata=card_metadata(card.post_id),
            unfurl_links=False,
            unfurl_media=False,
        )
        return str(response["ts"])

    async def find_card(self, channel: ChannelRef, card: QuestionCard, *, since: datetime) -> str | None:
        """The ts of `card` in the channel's history since `since` (the FindsPostedCards capability):
        a message whose metadata carries the post's id. None when there is none, or when Slack will not show the
        history (the app lacks channels:history / groups:history / im:history, or is not in the channel): the
        card is then posted again, and the reason logged once."""
        oldest = f"{(since - HISTORY_MARGIN).timestamp():.6f}"
        cursor: str | None = None
        extra = {"platform": PLATFORM, "workspace": channel.workspace_id, "channel": channel.channel_id}
        for _page in range(HISTORY_PAGES):
            try:
                response = await self.client.conversations_history(
                    channel=channel.channel_id, oldest=oldest, include_all_metadata=True, limit=200, cursor=cursor
                )
            except SlackApiError as exc:
                reason = str(exc.response.get("error"))
                if reason == "missing_scope":
                    reason = f"missing_scope {exc.response.get('needed') or ''}".strip()
                if reason not in self._history_refusals:
                    self._history_refusals.add(reason)
                    log.warning(
                        "cannot read a channel's history to find a card posted before a crash (%s): posting it "
                        "again, which may show it twice; add the history scopes of adapters/slack/manifest.yaml",
                        reason,
                        extra=extra,
                    )
                return None
            except (aiohttp.ClientError, TimeoutError) as exc:
                log.warning("could not reach Slack to read a channel's history: %s", exc, extra=extra)
                return None
            for message in response.get("messages") or []:
                if _carries_post(message, card.post_id):
                    return str(message["ts"])
            cursor = (response.get("response_metadata") or {}).get("next_cursor") or None
            if not response.get("has_more") or cursor is None:
                return None
        return None

    async def update_card(self, channel: ChannelRef, message_ref: str, card: QuestionCard) -> None:
        """Edit a card in place (new answer count, or the reveal); 429s are waited out by the client."""
        await self._call(
            "update_card",
            channel,
            self.client.chat_update,
            channel=channel.channel_id,
            ts=message_ref,
            text=card_text(card),
            blocks=card_blocks(card, await self.image_files.for_card(card)),
        )

    async def send_private(
        self, channel: ChannelRef, user_id: str, message: Message, *, blocks: list[Block] | None = None
    ) -> None:
        """An ephemeral message: only `user_id` sees it, in the channel (`blocks`: the message with buttons)."""
        await self._call(
            "send_private",
            channel,
            self.client.chat_postEphemeral,
            channel=channel.channel_id,
            user=user_id,
            text=message_text(message),
            blocks=blocks or message_blocks(message),
        )

    async def send_private_now(
        self, channel: ChannelRef, user_id: str, message: Message, *, blocks: list[Block] | None = None
    ) -> None:
        """`send_private`, but a 429 is raised at once (a PlatformError with its retry_after) instead of waited
        out: for a caller with another way to answer (a click's response_url), which is not rate-limited per
        workspace as chat.postEphemeral is (Tier 4, 100+ a minute)."""
        token = _WAIT_OUT_LIMITS.set(False)
        try:
            await self.send_private(channel, user_id, message, blocks=blocks)
        finally:
            _WAIT_OUT_LIMITS.reset(token)

    async def send_direct(self, user: UserRef, message: Message) -> None:
        """A direct message from the app (the DirectMessages capability): chat.postMessage to the user's id opens
        the app's conversation with them, so it needs no scope beyond chat:write."""
        await self._call(
            "send_direct",
            ChannelRef(PLATFORM, user.workspace_id, user.user_id),
            self.client.chat_postMessage,
            channel=user.user_id,
            text=message_text(message),
            blocks=message_blocks(message),
            unfurl_links=False,
            unfurl_media=False,
        )

    async def direct_channel(self, user: UserRef) -> ChannelRef:
        """The bot's direct-message channel with `user` (conversations.open; the same channel every time)."""
        where = ChannelRef(PLATFORM, user.workspace_id, user.user_id)
        response = await self._call(
            "open_direct", where, self.client.conversations_open, users=user.user_id, return_im=False
        )
        return ChannelRef(PLATFORM, user.workspace_id, str(response["channel"]["id"]))

    async def user_timezone(self, user: UserRef) -> str | None:
        """The timezone of the person's Slack profile (users.info `user.tz`), if it has one."""
        where = ChannelRef(PLATFORM, user.workspace_id, user.user_id)
        response = await self._call("look_up_person", where, self.client.users_info, user=user.user_id)
        timezone = (response.get("user") or {}).get("tz")
        return str(timezone) if timezone else None

    async def post_message(self, channel: ChannelRef, message: Message) -> None:
        """A message everyone in the channel sees."""
        await self._call(
            "post_message",
            channel,
            self.client.chat_postMessage,
            channel=channel.channel_id,
            text=message_text(message),
            blocks=message_blocks(message),
            unfurl_links=False,
            unfurl_media=False,
        )

    async def upload_images(self, channel: ChannelRef, images: Sequence[ChartImage]) -> None:
        """Upload images into the channel with their titles and alt text (files_upload_v2: an upload URL per
        file, the bytes to it, then one files.completeUploadExternal that shares them all in the channel)."""
        if not images:
            return
        await self._call(
            "upload_charts",
            channel,
            self.client.files_upload_v2,
            channel=channel.channel_id,
            file_uploads=[
                {
                    "file": image.png,
                    "filename": image.filename,
                    "title": image.title,
                    "alt_txt": image.alt_text[: limits.ALT_TEXT],
                }
                for image in images
            ],
        )

    async def _call(self, action: str, where: ChannelRef, method: Any, /, **kwargs: Any) -> Any:
        try:
            return await method(**kwargs)
        except SlackApiError as exc:
            log.warning(
                "Slack refused to %s: %s",
                action,
                exc.response.get("error"),
                extra={"platform": PLATFORM, "workspace": where.workspace_id, "channel": where.channel_id},
            )
            raise platform_error(exc, action=action) from exc
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.warning(
                "could not reach Slack to %s: %s",
                action,
                exc,
                extra={"platform": PLATFORM, "workspace": where.workspace_id, "channel": where.channel_id},
            )
            raise PlatformError(slack_words.unreachable(action)) from exc
