"""Posting and editing a question card that may span several messages (its pages, see adapters/discord/card_pages.py).

A card is one message in all but the longest cases; then the first pages are posted before the last, which carries
the answer buttons, so the card reads top to bottom. The post's message reference lists every page's id.

A pack's image file (`image: {file: ...}` under content/images/) travels with the message that shows it, as an
attachment its embed names (`attachment://NAME`): the prompt's with the first page, the explanation's with the last
page's reveal. Discord's links to an attachment expire, so there is no upload to reuse across messages as on Slack;
what is reused is the file, read once and named by its SHA-256 (`CardFiles`), so every card sends the same bytes
under the same name.
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import discord

from adapters.discord.buttons import answer_view
from adapters.discord.card_pages import card_embeds, message_ref, page_ids
from adapters.pack_images import read_image_file
from bot.domain import Image, QuestionCard


@dataclass(frozen=True, slots=True)
class CardFile:
    """A pack's image file as sent: its attachment name (its hash, with the file's suffix) and its bytes."""

    name: str
    data: bytes

    def upload(self) -> discord.File:
        """A fresh `discord.File` of it (discord.py consumes one per send)."""
        return discord.File(io.BytesIO(self.data), filename=self.name)


class CardFiles:
    """The image files of the packs, read once each and named by their SHA-256, for the cards that show them."""

    def __init__(self, content_dir: Path | None) -> None:
        self.content_dir = content_dir
        self._read: dict[str, CardFile | None] = {}

    async def of(self, image: Image | None) -> CardFile | None:
        """The file `image` names, or None (no file, no content folder, or a file that cannot be read)."""
        if image is None or image.file is None:
            return None
        if image.file not in self._read:
            read = await read_image_file(self.content_dir, image)
            name = f"{read.digest[:32]}{read.path.suffix.lower()}" if read is not None else ""
            self._read[image.file] = CardFile(name, read.data) if read is not None else None
        return self._read[image.file]

    async def attached(self, card: QuestionCard) -> dict[str, str]:
        """Each image file of the card (prompt and explanation) -> its attachment name."""
        found: dict[str, str] = {}
        for image in (card.image, card.explanation_image):
            sent = await self.of(image)
            if image is not None and image.file is not None and sent is not None:
                found[image.file] = sent.name
        return found


def page_nonce(post_id: int, page: int) -> str:
    """The nonce of a card's page: the same for every attempt to post it, from any replica (Discord keeps a nonce
    at most 25 characters long)."""
    return f"quiz{post_id}p{page}"


async def send_card(channel: discord.abc.Messageable, card: QuestionCard, files: CardFiles | None = None) -> str:
    """Post the card's pages; returns its message reference. A failure deletes the pages already posted.

    Each page carries a nonce derived from the post's id, and discord.py asks Discord to enforce it
    (`enforce_nonce`): a page posted again within a few minutes, by a process recovering from the death of the one
    whose post Discord had taken, is answered with the first message instead of a second one.
    """
    files = files or CardFiles(None)
    embeds = card_embeds(card, attached=await files.attached(card))
    prompt_file = await files.of(card.image)
    first: dict[str, Any] = {"file": prompt_file.upload()} if prompt_file is not None else {}
    posted: list[discord.Message] = []
    last = len(embeds) - 1
    try:
        for page, embed in enumerate(embeds[:-1]):
            extra = first if page == 0 else {}
            posted.append(await channel.send(embed=embed, nonce=page_nonce(card.post_id, page), **extra))
        posted.append(
            await channel.send(
                embed=embeds[-1],
                view=answer_view(card),
                nonce=page_nonce(card.post_id, last),
                **(first if last == 0 else {}),
            )
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


async def edit_card(
    channel: discord.PartialMessageable, reference: str, card: QuestionCard, files: CardFiles | None = None
) -> None:
    """Edit a posted card: a new answer count changes only its last page; the reveal edits every page.

    The card is laid out over as many pages as it was posted with, so its text stays where it was. An edit without
    new files keeps the message's attachments; the reveal sends the last page's files again with the
    explanation's (an edit that names attachments replaces them).
    """
    files = files or CardFiles(None)
    ids = page_ids(reference)
    embeds = card_embeds(card, pages=len(ids), attached=await files.attached(card))
    last = channel.get_partial_message(ids[-1])
    if card.reveal is None:
        await last.edit(embed=embeds[-1])
        return
    for page_id, embed in zip(ids[:-1], embeds[:-1], strict=True):
        await channel.get_partial_message(page_id).edit(embed=embed)
    explanation_file = await files.of(card.explanation_image)
    if explanation_file is None:
        await last.edit(embed=embeds[-1], view=None)
        return
    prompt_file = await files.of(card.image) if len(ids) == 1 else None
    kept = [sent for sent in (prompt_file, explanation_file) if sent is not None]
    unique = list({sent.name: sent for sent in kept}.values())
    await last.edit(embed=embeds[-1], view=None, attachments=[sent.upload() for sent in unique])
