"""Question cards and replies as Discord embeds and buttons (the wording comes from `bot.render`).

Everything a pack or a person wrote goes through `escape` (adapters/discord/markup.py) first; only then is it
measured against Discord's limits (adapters/discord/limits.py) and, where it is too long, cut between atoms (never
inside an escape sequence, a URL or a code span) and continued, marked with an ellipsis.

An embed holds its description and then up to 25 fields, 6000 characters in all; a message holds at most 6000
characters of embeds however many it has, so a card too long for one message is posted as several: its "pages",
one embed each, the last carrying the answer buttons and the footer. How many pages a card gets is decided when it
is posted, for the largest reveal it can have (its choices with any counts, the longest explanation a pack may
have, the names budget), because the reveal edits the same messages and can post none of its own. The post's
message reference lists the pages' message ids, comma-separated (see `page_ids`).
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import discord

from adapters.discord import limits
from adapters.discord.markup import atoms, escape, guard_line_starts
from adapters.text_safety import ELLIPSIS, FENCE, ZWSP, cut, plain
from bot.domain import AnswerOutcome, AnswerResult, Image, QuestionCard, RevealView
from bot.ports import Line, Message
from bot.ports import Page as SectionedPage
from bot.wording.answers import answer_message
from bot.wording.cards import CHOICE_MARKS, card_about, card_footer, pick_hint, reveal_text

# Kept for callers of the old names; adapters/discord/limits.py has them all, with their sources.
TITLE_LIMIT = limits.TITLE
DESCRIPTION_LIMIT = limits.DESCRIPTION
FOOTER_LIMIT = limits.FOOTER
LABEL_LIMIT = limits.BUTTON_LABEL
CUSTOM_ID_LIMIT = limits.CUSTOM_ID

ANSWER_PREFIX = "quiz:answer:"
# Bounded digits: a post id of up to 18 digits always fits a 64-bit database id, so a forged custom_id
# cannot make the database raise an overflow; longer ones fall to the "unknown button" reply.
ANSWER_TEMPLATE = r"quiz:answer:(?P<post_id>\d{1,18}):(?P<choice>\d{1,2})"
FLAG_PREFIX = "quiz:flag:"
FLAG_TEMPLATE = r"quiz:flag:(?P<post_id>\d{1,18})"
REVIEW_ID = "quiz:review:start"
"""The custom_id of the "Start a review" button under `/quiz me` (a fixed id: it carries nothing)."""
REVIEW_TEMPLATE = r"quiz:review:start"
"""The "Report a problem" button under a private answer reply: the post it answered (digits bounded as above)."""
CONFIRM_TEMPLATE = r"quiz:confirm:(?P<answer>yes|no):(?P<token>[A-Za-z0-9_-]{16,64})"
"""A destructive command's Confirm or Cancel button: the pending confirmation's token (bot/service/confirmations.py)."""

OPEN_COLOUR = discord.Colour.blurple()
CLOSED_COLOUR = discord.Colour.green()
RIGHT_COLOUR = discord.Colour.green()
WRONG_COLOUR = discord.Colour.red()
NEUTRAL_COLOUR = discord.Colour.light_grey()
PROBLEM_COLOUR = discord.Colour.orange()

UNTITLED = "Question"

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


# --- answer buttons --------------------------------------------------------------------------------------


def answer_custom_id(post_id: int, choice_id: int) -> str:
    """The custom_id of an answer button: the post and the pack's own index of the choice."""
    custom_id = f"{ANSWER_PREFIX}{post_id}:{choice_id}"
    if len(custom_id) > limits.CUSTOM_ID:  # pragma: no cover - 18 + 2 digits keep it far below
        raise ValueError(f"custom_id too long: {custom_id}")
    return custom_id


def confirm_custom_id(token: str, *, accept: bool) -> str:
    """The custom_id of a confirmation's Confirm (`yes`) or Cancel (`no`) button."""
    custom_id = f"quiz:confirm:{'yes' if accept else 'no'}:{token}"
    if len(custom_id) > limits.CUSTOM_ID:  # pragma: no cover - tokens are 22 characters
        raise ValueError(f"custom_id too long: {custom_id}")
    return custom_id


def flag_custom_id(post_id: int) -> str:
    """The custom_id of the "Report a problem" button of an answer to this post."""
    custom_id = f"{FLAG_PREFIX}{post_id}"
    if len(custom_id) > limits.CUSTOM_ID:  # pragma: no cover - 18 digits keep it far below
        raise ValueError(f"custom_id too long: {custom_id}")
    return custom_id


def labels_fit(card: QuestionCard) -> bool:
    """Whether every choice fits on its button; otherwise the embed lists them and buttons carry numbers."""
    return all(0 < len(plain(choice)) <= limits.BUTTON_LABEL for choice in card.choices)


def button_labels(card: QuestionCard) -> list[str]:
    """The label of each shown choice's button (labels are plain text: only invisible characters go)."""
    if labels_fit(card):
        return [plain(choice) for choice in card.choices]
    return [CHOICE_MARKS[position] for position in range(len(card.choices))]


# --- question cards --------------------------------------------------------------------------------------


def _title_and_lead(prompt: str) -> tuple[str, list[EmbedParagraph]]:
    """The prompt as the title when it fits once escaped and is one line, else a short title and the prompt
    leading the text (a title shows no code block)."""
    escaped = escape(prompt)
    if 0 < len(escaped) <= limits.TITLE and FENCE not in escaped:
        return escaped, []
    return UNTITLED, [EmbedParagraph(escaped)]


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


# --- replies ---------------------------------------------------------------------------------------------

_KEEP_WHOLE = 300  # reply lines up to this long are not cut across containers (board rows, short notes)


def message_embed(message: Message, *, colour: discord.Colour | None = None) -> discord.Embed:
    """A core Message (plain title and lines) as one embed; a title too long for an embed title leads the text.

    Lines fill the description, then continuation fields, 6000 characters in all: an answer reply (verdict,
    answer and explanation at the schema's maxima, every character escaped) always fits whole.
    """
    escaped_title = escape(message.title)
    paragraphs = [EmbedParagraph(escape(line), split=len(line) > _KEEP_WHOLE) for line in message.lines]
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
