"""Replies as Discord embeds, and the layout that fits any embed's text to Discord's limits (question cards are
laid out with it in adapters/discord/card_pages.py; the buttons' custom_ids are in custom_ids.py).

Everything a pack or a person wrote goes through `escape` (adapters/discord/markup.py) first; only then is it
measured against Discord's limits (adapters/discord/limits.py) and, where it is too long, cut between atoms (never
inside an escape sequence, a URL or a code span) and continued, marked with an ellipsis.

An embed holds its description and then up to 25 fields, 6000 characters in all; a message holds at most 6000
characters of embeds however many it has, so a card too long for one message is posted as several: its "pages",
one embed each, the last carrying the answer buttons and the footer. How many pages a card gets is decided when it
is posted, for the largest reveal it can have (its choices with any counts, the longest explanation a pack may
have, the names budget), because the reveal edits the same messages and can post none of its own. The post's
message reference lists the pages' message ids, comma-separated (see card_pages.py `page_ids`).
"""

from __future__ import annotations

import dataclasses
import functools
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import discord

from adapters.discord import limits
from adapters.discord.markup import atoms, escape, guard_line_starts
from adapters.text_safety import ELLIPSIS, ZWSP, cut
from bot.domain import AnswerOutcome, AnswerResult
from bot.ports import Line, Message
from bot.ports import Page as SectionedPage
from bot.wording.answers import answer_message

# Kept for callers of the old names; adapters/discord/limits.py has them all, with their sources.
TITLE_LIMIT = limits.TITLE
DESCRIPTION_LIMIT = limits.DESCRIPTION
FOOTER_LIMIT = limits.FOOTER
LABEL_LIMIT = limits.BUTTON_LABEL
CUSTOM_ID_LIMIT = limits.CUSTOM_ID


OPEN_COLOUR = discord.Colour.blurple()
CLOSED_COLOUR = discord.Colour.green()
RIGHT_COLOUR = discord.Colour.green()
WRONG_COLOUR = discord.Colour.red()
NEUTRAL_COLOUR = discord.Colour.light_grey()
PROBLEM_COLOUR = discord.Colour.orange()

MAX_PAGES = 5
"""A schema-legal card never needs more (tests prove it); 5 ids of 20 digits fit the 128-character message_ref."""
PAGE_MARGIN = 100
"""Room each planned page keeps spare, so the real reveal fits wherever the planned (larger) one did."""
_MIN_ROOM = 16
_PREFER_WITHIN = 0.02  # cut at a space or line break only this close to the limit: pages stay full
_FIELD_NAME = ZWSP  # continuation fields have no heading of their own


@dataclass(frozen=True, slots=True)
class EmbedParagraph:
    """Escaped text to lay out: a line (or, with line breaks, a block) of a card or reply."""

    text: str
    bold: bool = False
    split: bool = True
    """Whether it may be cut across containers to fill one; otherwise it moves whole to the next (choices)."""
    gap: bool = False
    """An empty line before it, unless it starts a container."""

    @property
    def wrap(self) -> int:
        """The characters its styling adds around each piece."""
        return 4 if self.bold else 0

    def rendered(self, text: str | None = None) -> str:
        body = self.text if text is None else text
        return f"**{body}**" if self.bold and body else body

    def cost(self) -> int:
        return len(self.rendered())


@dataclass(frozen=True, slots=True)
class EmbedPage:
    """One embed's text: its title (first page only), description and continuation field values."""

    title: str | None
    texts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Layout:
    """Pages, and whether anything had to be left out (never, for schema-legal content)."""

    pages: tuple[EmbedPage, ...]
    clipped: bool


def clip(text: str, limit: int) -> str:
    """Cut escaped text to a Discord length limit between atoms, marking the cut with an ellipsis."""
    if len(text) <= limit:
        return text
    return cut(text, limit - len(ELLIPSIS), atoms).head.rstrip() + ELLIPSIS


def _fill(queue: deque[EmbedParagraph], budget: int, capacities: Sequence[int], *, leave: int) -> tuple[list[str], int]:
    """Pour paragraphs from the queue into containers (a description, then field values) within `budget`.

    Leaves at least `leave` paragraphs in the queue (one for each page still to come). Returns the containers'
    texts and the characters used (field names included).
    """
    texts: list[str] = []
    spent = 0
    for index, capacity in enumerate(capacities):
        name = len(_FIELD_NAME) if index else 0
        room = min(capacity, budget - spent - name)
        if room < _MIN_ROOM or len(queue) <= leave:
            break
        lines: list[str] = []
        used = 0
        while queue and len(queue) > leave:
            para = queue[0]
            separator = (2 if para.gap else 1) if lines else 0
            if used + separator + para.cost() <= room:
                lines.append(("\n" if para.gap and lines else "") + para.rendered())
                used += separator + para.cost()
                queue.popleft()
                continue
            if not para.split and (lines or para.cost() <= capacity):
                break  # a choice is not cut: it starts the next container (or page), where it fits whole
            space = room - used - separator - para.wrap - len(ELLIPSIS)
            if space < _MIN_ROOM:
                break
            piece = cut(para.text, space, atoms, prefer_within=_PREFER_WITHIN)
            if not piece.head:
                break
            head = para.rendered(piece.head + ELLIPSIS)
            lines.append(("\n" if para.gap and lines else "") + head)
            used += separator + len(head)
            queue[0] = dataclasses.replace(para, text=guard_line_starts(piece.tail), gap=False)
            break
        if not lines:
            break
        texts.append("\n".join(lines))
        spent += used + name
    return texts, spent


def layout(
    title: str | None,
    paragraphs: Sequence[EmbedParagraph],
    *,
    footer: str = "",
    pages: int | None = None,
    fields: bool = True,
    margin: int = 0,
) -> Layout:
    """Lay paragraphs out over `pages` embeds (as many as needed when None), each within the embed limits.

    Every page reserves room for `footer` (the last one shows it) and `margin`; the first has the title. With a
    fixed number of pages, each gets something and what does not fit is left out, the last text ending in "…".
    """
    queue = deque(p for p in paragraphs if p.text or p.bold)
    capacities = [limits.DESCRIPTION] + ([limits.FIELD_VALUE] * limits.FIELDS if fields else [])
    built: list[EmbedPage] = []
    while True:
        first = not built
        page_title = title if first else None
        budget = limits.EMBED_TOTAL - len(page_title or "") - len(footer) - margin
        leave = 0 if pages is None else max(0, pages - len(built) - 1)
        texts, _ = _fill(queue, budget, capacities, leave=leave)
        if not texts and page_title is None:
            texts = [ELLIPSIS]  # more pages than paragraphs: keep the page (its message exists) but say little
        built.append(EmbedPage(page_title, tuple(texts)))
        if pages is not None and len(built) == pages:
            break
        if pages is None and (not queue or len(built) >= 4 * MAX_PAGES):
            break
    clipped = bool(queue)
    if clipped:  # say so where the text stops, without growing it (the page is full)
        last = built[-1]
        texts = list(last.texts) or [ELLIPSIS]
        if not texts[-1].endswith((ELLIPSIS, f"{ELLIPSIS}**")):
            texts[-1] = clip(texts[-1], len(texts[-1]) - 1)
        built[-1] = EmbedPage(last.title, tuple(texts))
    return Layout(tuple(built), clipped)


def _embed(page: EmbedPage, colour: discord.Colour, footer: str | None) -> discord.Embed:
    embed = discord.Embed(title=page.title, description=page.texts[0] if page.texts else None, colour=colour)
    for text in page.texts[1:]:
        embed.add_field(name=_FIELD_NAME, value=text, inline=False)
    if footer:
        embed.set_footer(text=footer)
    return embed


# --- replies ---------------------------------------------------------------------------------------------

_KEEP_WHOLE = 300  # reply lines up to this long are not cut across containers (board rows, short notes)
ESCAPED_KEPT = 256
"""How many reply texts `message_embed` keeps escaped: a few MB at most (explanations of the schema's longest)."""


@functools.lru_cache(maxsize=ESCAPED_KEPT)
def escape_kept(text: str) -> str:
    """`escape(text)`, remembered for the texts replies repeat: every click's verdict on a post has one of a few
    titles (one a choice) and the same explanation, and escaping them was most of the verdict's cost (~5% of the
    bot's CPU a click). `escape` is a pure function of the text, so an entry never goes stale: a changed text
    (another post, a reveal's wording, an edited pack) is another key; the least recently used go first."""
    return escape(text)


def message_embed(message: Message, *, colour: discord.Colour | None = None) -> discord.Embed:
    """A core Message (plain title and lines) as one embed; a title too long for an embed title leads the text.

    Lines fill the description, then continuation fields, 6000 characters in all: an answer reply (verdict,
    answer and explanation at the schema's maxima, every character escaped) always fits whole.
    """
    escaped_title = escape_kept(message.title)
    paragraphs = [EmbedParagraph(escape_kept(line), split=len(line) > _KEEP_WHOLE) for line in message.lines]
    title: str | None
    if 0 < len(escaped_title) <= limits.TITLE:
        title = escaped_title
    else:
        title = None
        if escaped_title:
            paragraphs.insert(0, EmbedParagraph(escaped_title, bold=True))
    page = layout(title, paragraphs, pages=1).pages[0]
    return _embed(page, colour or NEUTRAL_COLOUR, None)


def answer_embed(result: AnswerResult) -> discord.Embed:
    """The private reply to a click: right or wrong, the correct answer and the explanation."""
    if result.outcome is AnswerOutcome.RECORDED:
        colour = RIGHT_COLOUR if result.correct else WRONG_COLOUR
    else:
        colour = NEUTRAL_COLOUR
    return message_embed(answer_message(result), colour=colour)


def problem_embed(text: str) -> discord.Embed:
    """A short, polite explanation of why something could not be done."""
    return message_embed(Message(text), colour=PROBLEM_COLOUR)


def _page_line(line: Line) -> str:
    text = escape(line.text)
    return f"<#{line.channel.channel_id}>  {text}" if line.channel is not None else text


def page_embed(page: SectionedPage) -> discord.Embed:
    """A page (the personal home) as one embed: its title, the first section (the record) as the description,
    then one field per other section.

    Falls back to the page's plain Message (description and continuation fields) when the sections would not
    fit Discord's limits.
    """
    title = escape(page.title)
    first, *rest = page.sections or (None,)
    description = "\n".join(_page_line(line) for line in first.lines) if first is not None else ""
    fields = [(escape(section.title), "\n".join(_page_line(line) for line in section.lines)) for section in rest]
    total = len(title) + len(description) + sum(len(name) + len(value) for name, value in fields)
    fits = (
        0 < len(title) <= limits.TITLE
        and len(description) <= limits.DESCRIPTION
        and len(fields) <= limits.FIELDS
        and total <= limits.EMBED_TOTAL
        and all(0 < len(name) <= limits.FIELD_NAME and 0 < len(value) <= limits.FIELD_VALUE for name, value in fields)
    )
    if not fits:
        return message_embed(page.message)
    embed = discord.Embed(title=title, description=description or None, colour=NEUTRAL_COLOUR)
    for name, value in fields:
        embed.add_field(name=name, value=value, inline=False)
    return embed


def chart_embed(title: str, filename: str) -> discord.Embed:
    """An embed showing an attached chart image (`attachment://filename`) under its title."""
    embed = discord.Embed(title=clip(escape(title), limits.TITLE) or None, colour=NEUTRAL_COLOUR)
    embed.set_image(url=f"attachment://{filename}")
    return embed
