"""Posting and editing a question card that may span several messages (its pages, see adapters/discord/embeds.py).

A card is one message in all but the longest cases; then the first pages are posted before the last, which carries
the answer buttons, so the card reads top to bottom. The post's message reference lists every page's id.
"""

from __future__ import annotations

import contextlib
from datetime import datetime, timedelta

import discord

from adapters.discord.buttons import answer_view
from adapters.discord.embeds import card_embeds, message_ref, page_ids
from bot.domain import QuestionCard


def page_nonce(post_id: int, page: int) -> str:
    """The nonce of a card's page: the same for every attempt to post it, from any replica (Discord keeps a nonce
    at most 25 characters long)."""
    return f"quiz{post_id}p{page}"


async def send_card(channel: discord.abc.Messageable, card: QuestionCard) -> str:
    """Post the card's pages; returns its message reference. A failure deletes the pages already posted.

    Each page carries a nonce derived from the post's id, and discord.py asks Discord to enforce it
    (`enforce_nonce`): a page posted again within a few minutes, by a process recovering from the death of the one
    whose post Discord had taken, is answered with the first message instead of a second one.
    """
    embeds = card_embeds(card)
    posted: list[discord.Message] = []
    last = len(embeds) - 1
    try:
        for page, embed in enumerate(embeds[:-1]):
            posted.append(await channel.send(embed=embed, nonce=page_nonce(card.post_id, page)))
        posted.append(
            await channel.send(embed=embeds[-1], view=answer_view(card), nonce=page_nonce(card.post_id, last))
        )
    except discord.HTTPException:
        for message in posted:
            with contextlib.suppress(discord.HTTPException):
                await message.delete()
        raise
    return message_ref([message.id for message in posted])


HISTORY_MARGIN = timedelta(minutes=10)
"""How much earlier than the post's own time `find_card` starts reading: this host's clock and Discord's may differ."""
HISTORY_LIMIT = 200
"""Messages read at most when looking for a card (a channel rarely gets more since the post)."""


async def find_card(
    channel: discord.abc.Messageable, card: QuestionCard, *, author_id: int, since: datetime
) -> str | None:
    """The message reference of `card` if the bot (`author_id`) posted it in the channel since `since`: a message
    of the bot's whose answer buttons name the card's post. Only a card of one page is looked for (a longer one's
    earlier pages carry nothing to know them by); None otherwise."""
    if len(card_embeds(card)) != 1:
        return None
    prefix = f"quiz:answer:{card.post_id}:"
    after = discord.Object(id=discord.utils.time_snowflake(since - HISTORY_MARGIN))
    async for message in channel.history(limit=HISTORY_LIMIT, after=after, oldest_first=True):
        if message.author.id != author_id:
            continue
        for row in message.components:
            children = row.children if isinstance(row, discord.ActionRow) else [row]
            if any(str(getattr(item, "custom_id", "") or "").startswith(prefix) for item in children):
                return message_ref([message.id])
    return None


async def edit_card(channel: discord.PartialMessageable, reference: str, card: QuestionCard) -> None:
    """Edit a posted card: a new answer count changes only its last page; the reveal edits every page.

    The card is laid out over as many pages as it was posted with, so its text stays where it was.
    """
    ids = page_ids(reference)
    embeds = card_embeds(card, pages=len(ids))
    last = channel.get_partial_message(ids[-1])
    if card.reveal is None:
        await last.edit(embed=embeds[-1])
        return
    for page_id, embed in zip(ids[:-1], embeds[:-1], strict=True):
        await channel.get_partial_message(page_id).edit(embed=embed)
    await last.edit(embed=embeds[-1], view=None)
