"""Block Kit rendering of question cards and replies, with every piece of content escaped for mrkdwn.

Slack parses `<...>` in mrkdwn as links and mentions (`<!channel>`, `<@U123>`, `<https://x|y>`), so `&`, `<`
and `>` in anything that comes from a pack or a user are escaped; then no content can ping @channel/@here or
smuggle a link. Plain "@here" typed as text does not notify: only the `<!here>` form does.
"""

from __future__ import annotations

import re
from typing import Any

from bot.domain import QuestionCard
from bot.ports import Message
from bot.wording.cards import CHOICE_MARKS, card_footer, reveal_text

Block = dict[str, Any]

ACTION_PREFIX = "quiz:answer"
ACTION_PATTERN = re.compile(r"^quiz:answer:(?P<post_id>\d{1,18}):(?P<choice_id>\d{1,3})$")
"""What an answer button carries in its action_id and value: the post and the pack's own choice index."""

BUTTON_TEXT_LIMIT = 75
SECTION_TEXT_LIMIT = 3000
CONTEXT_TEXT_LIMIT = 2000
FALLBACK_TEXT_LIMIT = 3000  # notifications show a line or two; Slack's own limit is 40 000
MAX_BLOCKS = 50
ELLIPSIS = "…"
_ENTITY_TAIL = re.compile(r"&[a-z]{0,3}$")


def escape(text: str) -> str:
    """Escape the three characters Slack's mrkdwn treats as control characters."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def clip(text: str, limit: int) -> str:
    """Shorten escaped text to at most `limit` characters without cutting an `&amp;`-style entity in half."""
    if len(text) <= limit:
        return text
    cut = text[: limit - len(ELLIPSIS)]
    cut = _ENTITY_TAIL.sub("", cut)
    return cut + ELLIPSIS


def answer_action_id(post_id: int, choice_id: int) -> str:
    """`quiz:answer:{post_id}:{choice_id}`; `choice_id` is the pack's index of the choice, not its shown position."""
    return f"{ACTION_PREFIX}:{post_id}:{choice_id}"


def parse_answer_action(value: str) -> tuple[int, int] | None:
    """`(post_id, choice_id)` from an answer button's action_id or value, or None if it is not one."""
    match = ACTION_PATTERN.match(value)
    if match is None:
        return None
    return int(match["post_id"]), int(match["choice_id"])


def _section(text: str) -> Block:
    return {"type": "section", "text": {"type": "mrkdwn", "text": clip(text, SECTION_TEXT_LIMIT)}}


def _context(text: str) -> Block:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": clip(text, CONTEXT_TEXT_LIMIT)}]}


def _sections(lines: list[str]) -> list[Block]:
    """Escaped lines packed into as few sections as fit Slack's 3000-character section limit."""
    blocks: list[Block] = []
    current: list[str] = []
    size = 0
    for line in lines:
        if current and size + 1 + len(line) > SECTION_TEXT_LIMIT:
            blocks.append(_section("\n".join(current)))
            current, size = [], 0
        current.append(line)
        size += len(line) + (1 if size else 0)
    if current:
        blocks.append(_section("\n".join(current)))
    return blocks


def _fallback(text: str) -> str:
    return clip(escape(text), FALLBACK_TEXT_LIMIT)


def _button_labels(card: QuestionCard) -> tuple[list[str], bool]:
    """Button texts, and whether the choices must be listed in the section because they do not fit a button."""
    full = [f"{CHOICE_MARKS[i]}. {choice}" for i, choice in enumerate(card.choices)]
    if all(len(label) <= BUTTON_TEXT_LIMIT for label in full):
        return full, False
    return [CHOICE_MARKS[i] for i in range(len(card.choices))], True


def card_blocks(card: QuestionCard) -> list[Block]:
    """The blocks of a question card: the prompt, its answer buttons (or the reveal once closed), a context line."""
    if card.reveal is not None:
        return _revealed_blocks(card)
    labels, listed = _button_labels(card)
    text = f"*{escape(card.prompt)}*"
    if listed:
        text += "\n" + "\n".join(f"*{CHOICE_MARKS[i]}.* {escape(choice)}" for i, choice in enumerate(card.choices))
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
        _section(text),
        {"type": "actions", "block_id": f"quiz:answers:{card.post_id}", "elements": buttons},
        _context(escape(card_footer(card))),
    ]


def _revealed_blocks(card: QuestionCard) -> list[Block]:
    assert card.reveal is not None
    revealed = reveal_text(card)
    assert revealed is not None
    correct = revealed.correct_position
    shown = [
        f"*{escape(line)}*" if position == correct else escape(line) for position, line in enumerate(revealed.choices)
    ]
    blocks = [_section(f"🔔 *{escape(card.prompt)}*"), _section("\n".join(shown))]
    tail = [escape(revealed.explanation), *([escape(revealed.winners)] if revealed.winners else [])]
    blocks += _sections([f"*{escape(revealed.answer)}*", *tail])
    blocks.append(_context(escape(card_footer(card))))
    return blocks[:MAX_BLOCKS]


def card_text(card: QuestionCard) -> str:
    """The top-level `text` of a card: what notifications and screen readers show."""
    if card.reveal is not None:
        return _fallback(f"Answer: {card.choices[card.reveal.correct_position]} (question: {card.prompt})")
    return _fallback(f"Quiz: {card.prompt}")


def message_blocks(message: Message) -> list[Block]:
    """A core Message (title and plain lines) as blocks: a bold title, then the lines."""
    blocks = [_section(f"*{escape(message.title)}*")]
    blocks += _sections([escape(line) for line in message.lines])
    if len(blocks) > MAX_BLOCKS:
        blocks = [*blocks[: MAX_BLOCKS - 1], _context(f"{ELLIPSIS} (shortened)")]
    return blocks


def message_text(message: Message) -> str:
    """The top-level `text` of a message."""
    return _fallback(message.text)
