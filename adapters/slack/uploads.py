"""A pack file shared with the bot in a direct message (Slack's `message` event, `message.im`, with `files`).

Slack has no file option on a slash command, so a lead uploads a pack by sharing the file with the bot in their DM
with it (no command needed); `/quiz import` typed in a channel says so. Only a direct message counts: a file shared
in a channel is never read. The `file_shared` event is not used (it fires for the same share, and would import it
twice).

For each file of the message: its size (as the event says) is checked against QUIZBOT_UPLOAD_MAX_BYTES before
anything is downloaded; it is fetched from `url_private_download` with the bot token (the `files:read` scope), only
from Slack's own file host or the configured API host (the token never goes anywhere else), reading at most the
limit plus one byte; then the core runs `ImportPack(name, bytes)` as the person who shared it (a lead or an admin:
the permission is checked there), and its reply comes back in the DM. The core decides everything else.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import aiohttp

from adapters.slack.payloads import text_of
from adapters.slack.platform import PLATFORM
from adapters.slack.settings import SlackSettings
from bot.commands import ImportPack
from bot.domain import ChannelRef, UserRef
from bot.ports import Message, PlatformError
from bot.service.facade import Context, Reply, error_reply
from bot.wording import uploads as words

if TYPE_CHECKING:
    from slack_bolt.async_app import AsyncApp

    from adapters.slack.listeners import QuizListeners

log = logging.getLogger(__name__)

SLACK_FILE_HOSTS = frozenset({"files.slack.com", "slack-files.com"})
"""Where Slack serves uploaded files; the bot token is sent to these (and the configured API host) only."""
DOWNLOAD_TIMEOUT = 30.0


class DownloadFailed(Exception):
    """The file could not be fetched from Slack (or its URL's host is not Slack's, and the bot token is not sent
    there): the argument is the host, an HTTP status or the error's type, for the log."""


class SlackUploads:
    """Files shared with the bot in a DM, imported as packs (`install` adds the listener to the Bolt app)."""

    def __init__(self, listeners: QuizListeners) -> None:
        self.listeners = listeners
        self.runtime = listeners.runtime
        self.platform = listeners.platform

    def install(self, app: AsyncApp) -> None:
        """Listen to messages in the bot's DMs (the `message.im` event)."""
        app.event("message")(self.on_message)

    async def on_message(self, event: dict[str, Any], body: dict[str, Any]) -> None:
        """A message in a DM with the bot carrying files: import each, after the event is acknowledged."""
        files = event.get("files")
        if event.get("channel_type") != "im" or not isinstance(files, list) or not files or event.get("bot_id"):
            return
        team_id = text_of(body, "team_id") or text_of(event, "team")
        user_id, channel_id = text_of(event, "user"), text_of(event, "channel")
        if team_id is None or user_id is None or channel_id is None:
            return
        channel = ChannelRef(PLATFORM, team_id, channel_id)
        for shared in files:
            if isinstance(shared, dict):
                self.listeners._spawn(self._import(channel, user_id, shared), "upload")

    async def _import(self, channel: ChannelRef, user_id: str, shared: dict[str, Any]) -> None:
        name = text_of(shared, "name") or text_of(shared, "title") or "upload"
        limit = self.runtime.settings.upload_max_bytes
        size = shared.get("size")
        admins = self.listeners.admins
        is_admin = await admins.is_admin(channel.workspace_id, user_id)
        # A message event carries only the user id: the name is the one a command or users.info showed, if any.
        user = UserRef(PLATFORM, channel.workspace_id, user_id, admins.name_of(channel.workspace_id, user_id))
        context = Context(channel, user, is_admin=is_admin)
        if isinstance(size, int) and size > limit:
            reply = Reply(words.refused_line(name, words.too_large(size, limit)), ok=False)
        else:
            try:
                data = await self.download(text_of(shared, "url_private_download") or "", limit)
            except DownloadFailed as exc:
                log.warning("a shared file could not be downloaded: %s", exc, extra=self._extra(channel))
                data = None
            if data is None:
                reply = Reply(words.download_failed(), ok=False)
            elif len(data) > limit:
                reply = Reply(words.refused_line(name, words.too_large(len(data), limit)), ok=False)
            else:
                try:
                    reply = await self.runtime.app.execute(ImportPack(name, data), context)
                except Exception as exc:  # a refusal (the permission), the database down: the category's line
                    reply = error_reply(exc)
        await self._tell(channel, reply.message)

    async def download(self, url: str, limit: int) -> bytes:
        """The file's bytes (at most `limit` + 1 of them), fetched with the bot token from Slack's file host."""
        host = (urlsplit(url).hostname or "").casefold()
        api_host = (urlsplit(SlackSettings.of(self.runtime.settings).slack_api_url or "").hostname or "").casefold()
        if not url or (host not in SLACK_FILE_HOSTS and host != api_host):
            raise DownloadFailed(host or url)  # the token is never sent there
        token = self.platform.client.token or ""
        timeout = aiohttp.ClientTimeout(total=DOWNLOAD_TIMEOUT)
        try:
            async with (
                aiohttp.ClientSession(timeout=timeout, trust_env=False) as session,
                session.get(
                    url,
                    headers={"Authorization": f"Bearer {token}"},
                    proxy=self.platform.client.proxy,
                    allow_redirects=False,
                ) as response,
            ):
                if response.status != 200:
                    raise DownloadFailed(f"HTTP {response.status}")
                data = bytearray()
                async for chunk in response.content.iter_chunked(64 * 1024):
                    data += chunk
                    if len(data) > limit:
                        break  # over the limit: the caller refuses it, and no more is read
                return bytes(data)
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise DownloadFailed(type(exc).__name__) from exc

    async def _tell(self, channel: ChannelRef, message: Message) -> None:
        try:
            await self.platform.post_message(channel, message)
        except PlatformError as exc:
            log.warning("could not answer a shared file: %s", exc, extra=self._extra(channel))

    @staticmethod
    def _extra(channel: ChannelRef) -> dict[str, str]:
        return {"platform": PLATFORM, "workspace": channel.workspace_id, "channel": channel.channel_id}
