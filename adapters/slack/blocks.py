"""Block Kit rendering of question cards and replies, with every piece of content neutralised for mrkdwn.

Slack parses `<...>` in mrkdwn as links and mentions (`<!channel>`, `<@U123>`, `<https://x|y>`), and `*_~` and
backticks as formatting; `neutralise` (adapters/slack/markup.py) escapes the first and guards the second, and drops
zero-width and bidirectional control characters, in anything that comes from a pack or a user. Only then is text
measured against Slack's limits (adapters/slack/limits.py): a text too long for one section continues in the next,
cut between atoms (never inside an `&amp;` or a guarded character) and marked with an ellipsis, so every choice is
shown in full on the card and in the reveal. Plain "@here" typed as text does not notify: only the `<!here>` form
does, and text objects are sent `verbatim`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from adapters.slack import limits
from adapters.slack.markup import atoms, escape, guard_line_starts, neutralise
from adapters.text_safety import ELLIPSIS, FENCE, cut, plain, strip_invisible
from adapters.text_safety import clip as _clip
from bot.domain import Image, QuestionCard
from bot.domain.views import ConfirmationRequest
from bot.ports import Message
from bot.wording import slack as slack_words
from bot.wording.cards import CHOICE_MARKS, card_about, card_footer, reveal_text
from bot.wording.flags import report_button

__all__ = ["escape", "neutralise"]

Block = dict[str, Any]

ACTION_PREFIX = "quiz:answer"
ACTION_PATTERN = re.compile(r"^quiz:answer:(?P<post_id>\d{1,18}):(?P<choice_id>\d{1,3})$")
"""What an answer button carries in its action_id and value: the post and the pack's own choice index."""
FLAG_PREFIX = "quiz:flag"
FLAG_PATTERN = re.compile(r"^quiz:flag:(?P<post_id>\d{1,18})$")
"""What the "Report a problem" button under a private answer reply carries: the post it was an answer to."""

CONFIRM_PREFIX = "quiz:confirm"
CONFIRM_PATTERN = re.compile(r"^quiz:confirm:(?P<answer>yes|no):(?P<token>[A-Za-z0-9_-]{16,64})$")
"""What a confirmation's buttons carry: yes or no, and the pending confirmation's token (service/confirmations.py)."""

BUTTON_TEXT_LIMIT = limits.BUTTON_TEXT
SECTION_TEXT_LIMIT = limits.SECTION_TEXT
CONTEXT_TEXT_LIMIT = 2000  # a context line is small print; well under the text object's 3000
FALLBACK_TEXT_LIMIT = 3000  # notifications show a line or two; Slack's own limit is 40 000
MAX_BLOCKS = limits.BLOCKS
PACK_TITLE_MAX = 100  # the pack title in a card's context line
ANSWER_LINE_MAX = 600  # the reveal's "Answer: ..." repeats the marked choice, which is shown in full above it
NAMES_MAX = SECTION_TEXT_LIMIT  # "Got it right: ..." takes at most one section


def clip(text: str, limit: int) -> str:
    """Shorten escaped text to at most `limit` characters without cutting an `&amp;`-style entity in half."""
    return _clip(text, limit, atoms)


def answer_action_id(post_id: int, choice_id: int) -> str:
    """`quiz:answer:{post_id}:{choice_id}`; `choice_id` is the pack's index of the choice, not its shown position."""
    action_id = f"{ACTION_PREFIX}:{post_id}:{choice_id}"
    if len(action_id) > min(limits.ACTION_ID, limits.BUTTON_VALUE):  # pragma: no cover - ids keep it far below
        raise ValueError(f"action_id too long: {action_id}")
    return action_id


class AnswerAction(NamedTuple):
    """What an answer button carries: the post and the pack's index of the choice."""

    post_id: int
    choice_id: int


def parse_answer_action(value: str) -> AnswerAction | None:
    """`(post_id, choice_id)` from an answer button's action_id or value, or None if it is not one."""
    match = ACTION_PATTERN.match(value)
    if match is None:
        return None
    return AnswerAction(int(match["post_id"]), int(match["choice_id"]))


def flag_action_id(post_id: int) -> str:
    """`quiz:flag:{post_id}`: the "Report a problem" button of an answer to this post."""
    action_id = f"{FLAG_PREFIX}:{post_id}"
    if len(action_id) > min(limits.ACTION_ID, limits.BUTTON_VALUE):  # pragma: no cover - ids keep it far below
        raise ValueError(f"action_id too long: {action_id}")
    return action_id


def parse_flag_action(value: str) -> int | None:
    """The post id of a "Report a problem" button's action_id or value, or None if it is not one."""
    match = FLAG_PATTERN.match(value)
    return int(match["post_id"]) if match else None


def _mrkdwn(text: str) -> dict[str, Any]:
    # verbatim: Slack does not auto-link URLs, channel names or mentions in it (our own markup still renders).
    return {"type": "mrkdwn", "text": text, "verbatim": True}


def _section(text: str) -> Block:
    return {"type": "section", "text": _mrkdwn(clip(text, SECTION_TEXT_LIMIT))}


def _context(text: str) -> Block:
    return {"type": "context", "elements": [_mrkdwn(clip(text, CONTEXT_TEXT_LIMIT))]}


@dataclass(frozen=True, slots=True)
class BlockParagraph:
    """Neutralised text for a section: a line, bold or not, with a prefix before its first piece."""

    text: str
    bold: bool = False
    prefix: str = ""

    def rendered(self, text: str, prefix: str) -> str:
        return prefix + (f"*{text}*" if self.bold and text else text)


def _pieces(paragraph: BlockParagraph, limit: int) -> list[str]:
    """The paragraph rendered in pieces of at most `limit`, each but the last ending with an ellipsis."""
    pieces: list[str] = []
    text, prefix = paragraph.text, paragraph.prefix
    wrap = 2 if paragraph.bold else 0
    while len(paragraph.rendered(text, prefix)) > limit:
        piece = cut(text, limit - wrap - len(prefix) - len(ELLIPSIS), atoms, prefer_within=0.05)
        pieces.append(paragraph.rendered(piece.head + ELLIPSIS, prefix))
        text, prefix = guard_line_starts(piece.tail), ""
    pieces.append(paragraph.rendered(text, prefix))
    return pieces


def _sections(paragraphs: list[BlockParagraph], limit: int = SECTION_TEXT_LIMIT) -> list[Block]:
    """Paragraphs packed into as few sections as fit Slack's section limit; a long one continues in the next."""
    texts: list[str] = []
    current = ""
    for paragraph in paragraphs:
        for piece in _pieces(paragraph, limit):
            if current and len(current) + 1 + len(piece) <= limit:
                current += "\n" + piece
                continue
            if current:
                texts.append(current)
            current = piece
    if current:
        texts.append(current)
    return [_section(text) for text in texts]


def section_blocks(paragraphs: list[BlockParagraph]) -> list[Block]:
    """Paragraphs packed into as few section blocks as fit; a long one continues in the next (see `_sections`)."""
    return _sections(paragraphs)


def _fallback(text: str) -> str:
    # The top-level text is what notifications show, as plain text: it needs no formatting guards, but `<!here>`
    # must not form in it, and invisible characters go.
    return clip(escape(strip_invisible(text)), FALLBACK_TEXT_LIMIT)


def _button_labels(card: QuestionCard) -> tuple[list[str], bool]:
    """Button texts, and whether the choices must be listed in the section because they do not fit a button."""
    full = [f"{CHOICE_MARKS[i]}. {plain(choice)}" for i, choice in enumerate(card.choices)]
    if all(len(label) <= BUTTON_TEXT_LIMIT for label in full):
        return full, False
    return [CHOICE_MARKS[i] for i in range(len(card.choices))], True


def _footer(card: QuestionCard) -> Block:
    """The small print: the pack, number and answers, then where the card came from and when it closes."""
    title = card.pack_title if len(card.pack_title) <= PACK_TITLE_MAX else card.pack_title[: PACK_TITLE_MAX - 1] + "…"
    footer = _context(neutralise(card_footer(dataclasses.replace(card, pack_title=title))))
    footer["elements"].append(_mrkdwn(clip(neutralise(card_about(card)), CONTEXT_TEXT_LIMIT)))
    return footer


IMAGE_ALT_LIMIT = 2000  # https://docs.slack.dev/reference/block-kit/blocks/image-block: alt_text, 2000 characters
IMAGE_URL_LIMIT = 3000  # ... and image_url, 3000 (the pack schema allows 2000, https only)


def image_blocks(image: Image | None, files: Mapping[str, str] | None = None) -> list[Block]:
    """An image block for an https image or an uploaded image file (`files`: Slack file ids by file name,
    adapters/slack/images.py), with its alt text (plain text: Slack parses no markup in it); an image file not
    uploaded shows its alt text on a context line instead."""
    if image is None:
        return []
    alt = plain(image.alt)[:IMAGE_ALT_LIMIT] or "image"
    if image.url is not None and image.url.startswith("https://") and len(image.url) <= IMAGE_URL_LIMIT:
        return [{"type": "image", "image_url": image.url, "alt_text": alt}]
    if image.file is not None and files and image.file in files:
        return [{"type": "image", "slack_file": {"id": files[image.file]}, "alt_text": alt}]
    return [_context(f"🖼 {neutralise(image.alt)}")]


def _prompt(prompt: str, prefix: str = "") -> BlockParagraph:
    """The prompt, bold unless it holds a code block (mrkdwn bold cannot span one: it would show its asterisks)."""
    text = neutralise(prompt)
    if prefix and text.startswith(FENCE):
        prefix = prefix.rstrip() + "\n"  # a fence opens a block only at the start of a line
    return BlockParagraph(text, bold=FENCE not in text, prefix=prefix)


def card_blocks(card: QuestionCard, files: Mapping[str, str] | None = None) -> list[Block]:
    """The blocks of a question card: the prompt, its answer buttons (or the reveal once closed), a context line.

    `files`: the Slack file ids of the card's uploaded image files, by file name.
    """
    if card.reveal is not None:
        return _revealed_blocks(card, files)
    labels, listed = _button_labels(card)
    paragraphs = [_prompt(card.prompt)]
    if listed:
        paragraphs += [
            BlockParagraph(f"*{CHOICE_MARKS[i]}.* {neutralise(choice)}") for i, choice in enumerate(card.choices)
        ]
    buttons = [
        {
            "type": "button",
            "action_id": answer_action_id(card.post_id, choice_id),
            "value": answer_action_id(card.post_id, choice_id),
            # plain_text is never parsed for mentions or links, so it needs no escaping; only clipping.
            "text": {"type": "plain_text", "text": label[:BUTTON_TEXT_LIMIT], "emoji": True},
        }
        for label, choice_id in zip(labels, card.choice_ids, strict=True)
    ]
    return [
        *_sections(paragraphs),
        *image_blocks(card.image, files),
        {"type": "actions", "block_id": f"quiz:answers:{card.post_id}", "elements": buttons},
        _footer(card),
    ]


def _revealed_blocks(card: QuestionCard, files: Mapping[str, str] | None) -> list[Block]:
    assert card.reveal is not None
    revealed = reveal_text(card)
    assert revealed is not None
    correct = revealed.correct_position
    shown = [
        BlockParagraph(neutralise(line), bold=position == correct) for position, line in enumerate(revealed.choices)
    ]
    blocks = _sections([_prompt(card.prompt, prefix="🔔 ")]) + image_blocks(card.image, files) + _sections(shown)
    paragraphs = [
        BlockParagraph(clip(neutralise(revealed.answer), ANSWER_LINE_MAX), bold=True),
        BlockParagraph(neutralise(revealed.explanation)),
    ]
    winners = [BlockParagraph(clip(neutralise(revealed.winners), NAMES_MAX - 2))] if revealed.winners else []
    if card.explanation_image is None:
        blocks += _sections(paragraphs + winners)
    else:  # the explanation's image follows the explanation, before who got it right
        blocks += _sections(paragraphs) + image_blocks(card.explanation_image, files) + _sections(winners)
    blocks.append(_footer(card))
    return blocks[:MAX_BLOCKS]


def card_text(card: QuestionCard) -> str:
    """The top-level `text` of a card: what notifications and screen readers show."""
    if card.reveal is not None:
        return _fallback(slack_words.reveal_notification(card.choices[card.reveal.correct_position], card.prompt))
    return _fallback(slack_words.card_notification(card.prompt))


def message_blocks(message: Message) -> list[Block]:
    """A core Message (title and plain lines) as blocks: a bold title, then the lines."""
    blocks = _sections([BlockParagraph(neutralise(message.title), bold=True)])
    blocks += _sections([BlockParagraph(neutralise(line)) for line in message.lines])
    if len(blocks) > MAX_BLOCKS:
        blocks = [*blocks[: MAX_BLOCKS - 1], _context(f"{ELLIPSIS} (shortened)")]
    return blocks


def answer_reply_blocks(message: Message, post_id: int) -> list[Block]:
    """A private reply to an answer click: the message, then a "Report a problem" button for the post.

    The button opens nothing: a click records a flag and is answered privately (adapters/slack/listeners.py).
    """
    button = {
        "type": "button",
        "action_id": flag_action_id(post_id),
        "value": flag_action_id(post_id),
        "text": {"type": "plain_text", "text": plain(report_button())[:BUTTON_TEXT_LIMIT], "emoji": True},
    }
    actions = {"type": "actions", "block_id": f"quiz:flags:{post_id}", "elements": [button]}
    return [*message_blocks(message)[: MAX_BLOCKS - 1], actions]


def confirm_action_id(token: str, *, accept: bool) -> str:
    """`quiz:confirm:yes:{token}` or `quiz:confirm:no:{token}`."""
    action_id = f"{CONFIRM_PREFIX}:{'yes' if accept else 'no'}:{token}"
    if len(action_id) > min(limits.ACTION_ID, limits.BUTTON_VALUE):  # pragma: no cover - tokens are 22 characters
        raise ValueError(f"action_id too long: {action_id}")
    return action_id


class ConfirmAction(NamedTuple):
    """What a confirmation button carries: the token, and whether it is the confirm (not the cancel) button."""

    token: str
    accept: bool


def parse_confirm_action(value: str) -> ConfirmAction | None:
    """`(token, accept)` from a confirmation button's action_id or value, or None if it is not one."""
    match = CONFIRM_PATTERN.match(value)
    return ConfirmAction(match["token"], match["answer"] == "yes") if match else None


def confirm_blocks(message: Message, request: ConfirmationRequest) -> list[Block]:
    """A destructive command's question: the message, who may confirm and for how long, then Confirm and Cancel."""

    def button(label: str, *, accept: bool) -> Block:
        action_id = confirm_action_id(request.token, accept=accept)
        element: Block = {
            "type": "button",
            "action_id": action_id,
            "value": action_id,
            "text": {"type": "plain_text", "text": plain(label)[:BUTTON_TEXT_LIMIT], "emoji": True},
        }
        if accept:
            element["style"] = "danger"
        return element

    actions = {
        "type": "actions",
        "block_id": f"quiz:confirm:{request.token}",
        "elements": [button(request.confirm_label, accept=True), button(request.cancel_label, accept=False)],
    }
    return [*message_blocks(message)[: MAX_BLOCKS - 2], _context(neutralise(request.note)), actions]


def message_text(message: Message) -> str:
    """The top-level `text` of a message."""
    return _fallback(message.text)
