"""Question cards and replies as Discord embeds and buttons (the wording comes from `bot.render`)."""

from __future__ import annotations

import re

import discord

from bot.domain import AnswerOutcome, AnswerResult, QuestionCard
from bot.ports import Message
from bot.wording.answers import answer_message
from bot.wording.cards import CHOICE_MARKS, card_footer, pick_hint, reveal_text

# Discord's limits (https://discord.com/developers/docs/resources/message#embed-object-embed-limits).
TITLE_LIMIT = 256
DESCRIPTION_LIMIT = 4096
FOOTER_LIMIT = 2048
LABEL_LIMIT = 80
CUSTOM_ID_LIMIT = 100

ANSWER_PREFIX = "quiz:answer:"
# Bounded digits: a post id of up to 18 digits always fits a 64-bit database id, so a forged custom_id
# cannot make the database raise an overflow; longer ones fall to the "unknown button" reply.
ANSWER_TEMPLATE = r"quiz:answer:(?P<post_id>\d{1,18}):(?P<choice>\d{1,2})"

OPEN_COLOUR = discord.Colour.blurple()
CLOSED_COLOUR = discord.Colour.green()
RIGHT_COLOUR = discord.Colour.green()
WRONG_COLOUR = discord.Colour.red()
NEUTRAL_COLOUR = discord.Colour.light_grey()
PROBLEM_COLOUR = discord.Colour.orange()

_INLINE_MARKUP = re.compile(r"([\\*_~|])")
_LINE_MARKUP = re.compile(r"^(\s*)([>#-])", re.MULTILINE)
_LIST_NUMBER = re.compile(r"^(\s*\d+)\.(\s)", re.MULTILINE)


def escape(text: str) -> str:
    """Neutralise Discord markdown in plain text (bold, italics, spoilers, quotes, headings, lists).

    Numbered lines stay as written: Discord would renumber `1. alice` / `1. bob` (a shared rank) as 1, 2.
    Backticks are kept: core wording uses `code` spans for commands, which Discord renders as intended.
    """
    escaped = _LINE_MARKUP.sub(r"\1\\\2", _INLINE_MARKUP.sub(r"\\\1", text))
    return _LIST_NUMBER.sub(r"\1\\.\2", escaped)


def clip(text: str, limit: int) -> str:
    """Cut text to a Discord length limit, marking the cut with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def answer_custom_id(post_id: int, choice_id: int) -> str:
    """The custom_id of an answer button: the post and the pack's own index of the choice."""
    custom_id = f"{ANSWER_PREFIX}{post_id}:{choice_id}"
    if len(custom_id) > CUSTOM_ID_LIMIT:  # pragma: no cover - 18 + 2 digits keep it far below
        raise ValueError(f"custom_id too long: {custom_id}")
    return custom_id


def labels_fit(card: QuestionCard) -> bool:
    """Whether every choice fits on its button; otherwise the embed lists them and buttons carry numbers."""
    return all(len(choice) <= LABEL_LIMIT for choice in card.choices)


def button_labels(card: QuestionCard) -> list[str]:
    """The label of each shown choice's button."""
    if labels_fit(card):
        return list(card.choices)
    return [CHOICE_MARKS[position] for position in range(len(card.choices))]


def _title_and_lead(prompt: str) -> tuple[str, list[str]]:
    """The prompt as the title when it fits, else a short title and the prompt leading the description."""
    if len(prompt) <= TITLE_LIMIT:
        return escape(prompt), []
    return "Question", [escape(prompt), ""]


def card_embed(card: QuestionCard) -> discord.Embed:
    """A question card: the prompt, the choices when they do not fit their buttons, the reveal once closed."""
    title, lines = _title_and_lead(card.prompt)
    if card.reveal is None:
        if not labels_fit(card):
            lines += [f"**{CHOICE_MARKS[i]}.** {escape(choice)}" for i, choice in enumerate(card.choices)]
            lines.append("")
        lines.append(f"*{pick_hint()}*")
        colour = OPEN_COLOUR
    else:
        revealed = reveal_text(card)
        assert revealed is not None
        lines += [escape(line) for line in revealed.choices]
        lines.append("")
        lines.append(f"**{escape(revealed.answer)}**")
        lines.append(escape(revealed.explanation))
        if revealed.winners:
            lines.append(escape(revealed.winners))
        colour = CLOSED_COLOUR
    embed = discord.Embed(title=title, description=clip("\n".join(lines).strip(), DESCRIPTION_LIMIT), colour=colour)
    embed.set_footer(text=clip(card_footer(card), FOOTER_LIMIT))
    return embed


def message_embed(message: Message, *, colour: discord.Colour | None = None) -> discord.Embed:
    """A core Message (plain title and lines) as an embed; a title too long for an embed title leads the text."""
    lines = [escape(line) for line in message.lines]
    if len(message.title) <= TITLE_LIMIT:
        title: str | None = escape(message.title)
    else:
        title, lines = None, [f"**{escape(message.title)}**", *lines]
    description = clip("\n".join(lines), DESCRIPTION_LIMIT) if lines else None
    return discord.Embed(title=title, description=description, colour=colour or NEUTRAL_COLOUR)


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
