"""A question card as Discord embeds: its pages (one embed each, planned for the largest reveal the card can have),
its choices' button labels, and the message reference that lists the pages' message ids."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import discord

from adapters.discord import limits
from adapters.discord.embeds import (
    CLOSED_COLOUR,
    MAX_PAGES,
    OPEN_COLOUR,
    PAGE_MARGIN,
    EmbedParagraph,
    Layout,
    _embed,
    clip,
    layout,
)
from adapters.discord.markup import escape
from adapters.text_safety import ELLIPSIS, FENCE, plain
from bot.domain import Image, QuestionCard, RevealView
from bot.wording import discord as discord_words
from bot.wording.cards import CHOICE_MARKS, card_about, card_footer, pick_hint, reveal_text

# The largest pack content the schema allows (bot/content/schema.py; tests/test_render_limits.py checks they agree).
EXPLANATION_MAX = 2000
CHOICES_MAX = 10

# Budgets for what a card may shorten: the pack title in the footer, the reveal's "Answer: ..." line (the full
# answer is the marked choice above it), and the names of who got it right.
PACK_TITLE_MAX = 100
ANSWER_LINE_MAX = 160
NAMES_MAX = 600
COUNT_MAX = 99_999_999
"""Counts are reserved room for this many answers to each choice when a card's pages are planned."""


def labels_fit(card: QuestionCard) -> bool:
    """Whether every choice fits on its button; otherwise the embed lists them and buttons carry numbers."""
    return all(0 < len(plain(choice)) <= limits.BUTTON_LABEL for choice in card.choices)


def button_labels(card: QuestionCard) -> list[str]:
    """The label of each shown choice's button (labels are plain text: only invisible characters go)."""
    if labels_fit(card):
        return [plain(choice) for choice in card.choices]
    return [CHOICE_MARKS[position] for position in range(len(card.choices))]


def _title_and_lead(prompt: str) -> tuple[str, list[EmbedParagraph]]:
    """The prompt as the title when it fits once escaped and is one line, else a short title and the prompt
    leading the text (a title shows no code block)."""
    escaped = escape(prompt)
    if 0 < len(escaped) <= limits.TITLE and FENCE not in escaped:
        return escaped, []
    return discord_words.card_title(), [EmbedParagraph(escaped)]


def footer_text(card: QuestionCard) -> str:
    """The card's footer (plain text: Discord shows footers without markdown), with the pack title shortened."""
    title = plain(card.pack_title)
    if len(title) > PACK_TITLE_MAX:
        title = title[: PACK_TITLE_MAX - 1].rstrip() + ELLIPSIS
    return plain(card_footer(dataclasses.replace(card, pack_title=title)))[: limits.FOOTER]


def _open_paragraphs(card: QuestionCard) -> list[EmbedParagraph]:
    paragraphs: list[EmbedParagraph] = []
    if not labels_fit(card):
        paragraphs += [
            EmbedParagraph(f"**{CHOICE_MARKS[i]}.** {escape(choice)}", split=False)
            for i, choice in enumerate(card.choices)
        ]
    paragraphs.append(EmbedParagraph(f"*{pick_hint()}*", split=False, gap=bool(paragraphs)))
    return paragraphs


IMAGE_ALT_MAX = 300
"""The alt text shown under a card with an image (Discord has no alt text for an embed image), as subtext."""


def image_url(image: Image | None, attached: Mapping[str, str] | None = None) -> str | None:
    """What an embed shows (`embed.set_image`): an https URL, or `attachment://NAME` for a pack's image file sent
    with the message under NAME (`attached`: file -> attachment name, adapters/discord/cards.py); else None."""
    if image is None:
        return None
    if image.url is not None:
        return image.url if image.url.startswith("https://") else None
    if image.file is not None and attached and image.file in attached:
        return f"attachment://{attached[image.file]}"
    return None


def _alt_paragraphs(image: Image | None) -> list[EmbedParagraph]:
    """The image's alt text as a subtext line (`-# 🖼 ...`): what the image shows, for those who cannot see it."""
    if image is None:
        return []
    return [EmbedParagraph(f"-# 🖼 {clip(escape(image.alt), IMAGE_ALT_MAX)}", split=False)]


def _reveal_paragraphs(card: QuestionCard) -> list[EmbedParagraph]:
    revealed = reveal_text(card)
    assert revealed is not None
    paragraphs = [EmbedParagraph(escape(line), split=False) for line in revealed.choices]
    paragraphs.append(
        EmbedParagraph(clip(escape(revealed.answer), ANSWER_LINE_MAX - 4), bold=True, split=False, gap=True)
    )
    paragraphs.append(EmbedParagraph(escape(revealed.explanation)))
    paragraphs += _alt_paragraphs(card.explanation_image)
    if revealed.winners:  # who got it right (clipped to the names budget), or that nobody did
        paragraphs.append(EmbedParagraph(clip(escape(revealed.winners), NAMES_MAX), split=False))
    return paragraphs


ABOUT_MAX = 300
"""The card's origin-and-closing line (a cohort name is at most 64 characters, so it is far below)."""


def about_paragraph(card: QuestionCard) -> EmbedParagraph:
    """Where the card came from and when it closes, as Discord's small subtext line (`-# `) under the rest."""
    return EmbedParagraph(f"-# {clip(escape(card_about(card)), ABOUT_MAX)}", split=False, gap=True)


def _paragraphs(card: QuestionCard) -> tuple[str, list[EmbedParagraph]]:
    title, lead = _title_and_lead(card.prompt)
    body = _open_paragraphs(card) if card.reveal is None else _reveal_paragraphs(card)
    return title, [*lead, *_alt_paragraphs(card.image), *body, about_paragraph(card)]


def _largest_reveal(card: QuestionCard) -> QuestionCard:
    """The card as its largest possible reveal: big counts, the longest explanation, the names budget full."""
    n = len(card.choices)
    longest = max(range(n), key=lambda i: len(escape(card.choices[i])))
    reveal = RevealView(
        correct_position=longest,
        counts=(COUNT_MAX,) * n,
        explanation="_" * EXPLANATION_MAX,  # each escapes to two characters, the most any character takes
        correct_users=("_" * 100,) * 21,
    )
    return dataclasses.replace(card, reveal=reveal, answer_count=COUNT_MAX * n)


def planned_pages(card: QuestionCard) -> int:
    """How many pages (messages) to post a card as: enough for it now and for its largest reveal."""
    largest = _largest_reveal(card)
    footer = footer_text(largest)
    needed = 1
    for shape in (dataclasses.replace(card, reveal=None), largest):
        title, paragraphs = _paragraphs(shape)
        needed = max(needed, len(layout(title, paragraphs, footer=footer, margin=PAGE_MARGIN).pages))
    return min(needed, MAX_PAGES)


def card_layout(card: QuestionCard, pages: int) -> Layout:
    """The card laid out over exactly `pages` pages (the number it was posted with)."""
    title, paragraphs = _paragraphs(card)
    # The same room on every page whatever the count says, so an edit lays the card out as it was posted.
    reserved = max(len(footer_text(_largest_reveal(card))), len(footer_text(card)))
    return layout(title, paragraphs, footer=" " * reserved, pages=pages)


def card_embeds(
    card: QuestionCard, pages: int | None = None, attached: Mapping[str, str] | None = None
) -> list[discord.Embed]:
    """The card as one embed per page (the message of each page carries one); the last has the footer. An image
    file shows when `attached` names its attachment (see `image_url`)."""
    count = planned_pages(card) if pages is None else pages
    colour = OPEN_COLOUR if card.reveal is None else CLOSED_COLOUR
    result = card_layout(card, count)
    last = len(result.pages) - 1
    embeds = [_embed(page, colour, footer_text(card) if i == last else None) for i, page in enumerate(result.pages)]
    prompt_image = image_url(card.image, attached)
    if prompt_image:
        embeds[0].set_image(url=prompt_image)
    explanation_image = image_url(card.explanation_image, attached) if card.reveal is not None else None
    if explanation_image:  # on the last page, under the explanation (an embed shows one image: on one page, this)
        embeds[-1].set_image(url=explanation_image)
    return embeds


def card_embed(card: QuestionCard) -> discord.Embed:
    """The card as a single embed (one page), shortened if it had to be: for a card posted as one message."""
    return card_embeds(card, pages=1)[0]


def page_ids(message_ref: str) -> list[int]:
    """The message ids of a card's pages, from its message reference (`123` or `123,456`)."""
    return [int(part) for part in message_ref.split(",") if part.strip()]


def message_ref(ids: Sequence[int]) -> str:
    """The message reference of a card posted as these pages."""
    return ",".join(str(i) for i in ids)
