"""The platform port on discord.py (`ChatPlatform`): post, find and edit question cards, post messages, send direct
messages. Channels are addressed by id through partial messageables, so nothing but the guild list needs to be
cached."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

import discord

from adapters.discord.cards import CardFiles, edit_card, find_card, send_card
from adapters.discord.embeds import message_embed
from bot.domain import ChannelRef, QuestionCard, UserRef
from bot.ports import Message, PlatformError, PlatformLimits, Rate
from bot.wording import discord as words

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


DISCORD_LIMITS = PlatformLimits(channel=Rate(1.0), workspace=None, platform=Rate(48.0))
"""Five per five seconds per channel route; 50 requests a second per bot, of which 48 go to fan-out.

Interaction callbacks (the replies to clicks) are not under the global limit, so fan-out may take nearly all of
it; the 2 a second left over keep card edits moving, and discord.py itself waits out a global 429 should one come.
At 40 a second, 1,000 channels took 125% of the 20 s the limit allows (bench/fanout.py); at 48, about 105%."""


def platform_error(exc: discord.HTTPException, action: str, *, forbidden: str | None = None) -> PlatformError:
    """A discord.py HTTP error as the port's PlatformError (permanent when retrying cannot help); `action` names
    what the bot was doing by its key in bot/wording/discord.py (`post_card`)."""
    if isinstance(exc, discord.Forbidden):
        return PlatformError(forbidden or words.forbidden(action), permanent=True)
    if isinstance(exc, discord.NotFound):
        return PlatformError(words.gone(action), permanent=True)
    retry_after = getattr(exc, "retry_after", None)
    return PlatformError(words.answered(action, exc.status, exc.text), retry_after=retry_after)


class DiscordPlatform:
    """The ChatPlatform port on a discord.py client: cards, messages and direct messages."""

    name = PLATFORM
    rate_limits = DISCORD_LIMITS  # how fast scheduled fan-out may post (the ChatPlatform port)

    client: discord.Client
    card_files: CardFiles
    _history_refusals: set[str]

    def _messageable(self, channel: ChannelRef) -> discord.PartialMessageable:
        if self.client.is_closed():
            raise PlatformError(words.connection_closed())
        guild_id = None if is_dm_workspace(channel.workspace_id) else int(channel.workspace_id)
        return self.client.get_partial_messageable(int(channel.channel_id), guild_id=guild_id)

    async def post_card(self, channel: ChannelRef, card: QuestionCard) -> str:
        """Send the card (embed and answer buttons; a very long one as several messages): their ids are the ref."""
        try:
            return await send_card(self._messageable(channel), card, self.card_files)
        except discord.HTTPException as exc:
            raise platform_error(exc, "post_card") from exc

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
            raise platform_error(exc, "update_card") from exc

    async def send_private(self, channel: ChannelRef, user_id: str, message: Message) -> None:
        """Send the user a direct message; fails with a permanent PlatformError when they do not accept DMs."""
        if self.client.is_closed():
            raise PlatformError(words.connection_closed())
        try:
            dm = await self.client.create_dm(discord.Object(id=int(user_id)))
            await dm.send(embed=message_embed(message))
        except discord.HTTPException as exc:
            log.info("could not DM user %s: %s", user_id, exc, extra=_extra(channel))
            raise platform_error(exc, "send_direct", forbidden=words.no_direct_messages()) from exc

    async def send_direct(self, user: UserRef, message: Message) -> None:
        """The DirectMessages capability: a DM to the user (as `send_private`, which already is one on Discord)."""
        await self.send_private(ChannelRef(PLATFORM, user.workspace_id, ""), user.user_id, message)

    async def direct_channel(self, user: UserRef) -> ChannelRef:
        """The bot's DM channel with `user` (POST /users/@me/channels), named in the user's guild: the post belongs
        to the guild's boards, and a click in it (which arrives without a guild) counts for that member."""
        if self.client.is_closed():
            raise PlatformError(words.connection_closed())
        try:
            dm = await self.client.create_dm(discord.Object(id=int(user.user_id)))
        except discord.HTTPException as exc:
            raise platform_error(exc, "open_direct", forbidden=words.no_direct_messages()) from exc
        return ChannelRef(PLATFORM, user.workspace_id, str(dm.id))

    async def user_timezone(self, user: UserRef) -> str | None:
        """Discord profiles carry no timezone: the cohort schedule's applies."""
        return None

    async def post_message(self, channel: ChannelRef, message: Message) -> None:
        """Post a message everyone in the channel sees."""
        try:
            await self._messageable(channel).send(embed=message_embed(message))
        except discord.HTTPException as exc:
            raise platform_error(exc, "post_message") from exc


def _extra(channel: ChannelRef, post_id: int | None = None) -> dict[str, Any]:
    """Log fields of a channel (and post)."""
    return {
        "platform": channel.platform,
        "workspace": channel.workspace_id,
        "channel": channel.channel_id,
        "post_id": post_id,
    }
