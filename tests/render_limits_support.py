"""Schema-maximal packs, and checks that a rendered Discord message or Slack payload is within every limit and
shows a given text in full (helpers for tests/test_render_limits*.py)."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import discord

from adapters.discord import limits as discord_limits
from adapters.discord import markup as discord_markup
from adapters.slack import limits as slack_limits
from adapters.slack import markup as slack_markup
from adapters.text_safety import ELLIPSIS, INVISIBLE, ZWSP
from bot.content.schema import PackModel
from bot.domain import Pack, PostSource, QuestionCard, RevealView

MARKUP = "_*~|>`"
HOSTILE_NAMES = [
    "[Free Nitro](https://evil.example/x)",
    "@everyone",
    "<@123456789012345678>",
    "<!channel> <https://evil.example|click me>",
    "a\u200bdmin",
    "evil\u202etxt.exe",
    "*bold* _it_ ~s~ `code` ||spoiler||",
]


def markup_text(length: int, seed: int, *, alphabet: str = MARKUP, lead: str = "") -> str:
    """`length` characters full of markup (no leading/trailing space, so the schema keeps them as they are)."""
    rng = random.Random(seed)
    body = "".join(rng.choice(alphabet) for _ in range(length - len(lead)))
    return (lead + body)[:length]


def max_pack(*, alphabet: str = MARKUP, choices: int = 10, pack_id: str = "max") -> Pack:
    """A pack at the schema's maxima, validated by the schema itself."""
    model = PackModel.model_validate(
        {
            "id": pack_id,
            "title": markup_text(2000, 1, alphabet=alphabet, lead="T"),
            "questions": [
                {
                    "id": "q1",
                    "prompt": markup_text(2000, 2, alphabet=alphabet, lead="P"),
                    "choices": [markup_text(300, 10 + i, alphabet=alphabet, lead=f"C{i}") for i in range(choices)],
                    "answer": min(3, choices),
                    "explanation": markup_text(2000, 3, alphabet=alphabet, lead="E"),
                }
            ],
        }
    )
    return model.to_domain()


def names(count: int, seed: int = 0) -> tuple[str, ...]:
    """`count` display names of 100 characters of markup."""
    return tuple(markup_text(100, 1000 + seed + i, alphabet=MARKUP + "[]()<>@#", lead=f"N{i}") for i in range(count))


COHORT_NAME_MAX = 64  # bot/commands/arguments.py refuses longer cohort names; the card's origin line names the cohort
OPENED_AT = datetime(2026, 3, 28, 23, 30, tzinfo=UTC)


def card_of(pack: Pack, *, answers: int = 0, reveal: RevealView | None = None, post_id: int = 42) -> QuestionCard:
    """The pack's first question as the largest card it can be: a cohort post with the longest markup cohort
    name, closing on another local day (so its origin-and-closing line is as long as it gets)."""
    question = pack.questions[0]
    order = list(reversed(range(len(question.choices))))
    return QuestionCard(
        post_id=post_id,
        pack_title=pack.title,
        question_number=1,
        question_count=len(pack.questions),
        prompt=question.prompt,
        choices=tuple(question.choices[i] for i in order),
        choice_ids=tuple(order),
        answer_count=answers,
        reveal=reveal,
        source=PostSource.COHORT,
        cohort=markup_text(COHORT_NAME_MAX, 77, alphabet=MARKUP + "[]()<>@#", lead="C"),
        opened_at=OPENED_AT,
        closes_at=OPENED_AT + timedelta(days=6, hours=23, minutes=59),
        timezone="America/Argentina/ComodRivadavia",
    )


def reveals(pack: Pack) -> list[RevealView]:
    """Reveal shapes: nobody answered, nobody right, many right with long names, huge counts."""
    question = pack.questions[0]
    n = len(question.choices)
    correct = n - 1 - question.correct_index  # its shown position (card_of reverses the order)
    return [
        RevealView(correct, (0,) * n, question.explanation, ()),
        RevealView(correct, tuple(1 if i != correct else 0 for i in range(n)), question.explanation, ()),
        RevealView(correct, tuple(range(1, n + 1)), question.explanation, names(30)),
        RevealView(correct, (99_999_999,) * n, question.explanation, names(5)),
    ]


# --- Discord --------------------------------------------------------------------------------------------


def assert_discord_message(embeds: Sequence[discord.Embed], view: discord.ui.View | None = None) -> None:
    """One message's embeds (and buttons) are within every documented limit, and carry no invisible character."""
    assert 1 <= len(embeds) <= discord_limits.EMBEDS
    total = 0
    for embed in embeds:
        data = embed.to_dict()
        title, description = data.get("title", ""), data.get("description", "")
        footer = data.get("footer", {}).get("text", "")
        author = data.get("author", {}).get("name", "")
        fields = data.get("fields", [])
        assert len(title) <= discord_limits.TITLE, len(title)
        assert len(description) <= discord_limits.DESCRIPTION, len(description)
        assert len(footer) <= discord_limits.FOOTER
        assert len(author) <= discord_limits.AUTHOR_NAME
        assert len(fields) <= discord_limits.FIELDS
        for fld in fields:
            assert 1 <= len(fld["name"]) <= discord_limits.FIELD_NAME
            assert 1 <= len(fld["value"]) <= discord_limits.FIELD_VALUE
        assert title or description or fields
        total += len(title) + len(description) + len(footer) + len(author)
        total += sum(len(f["name"]) + len(f["value"]) for f in fields)
        # The one zero-width space allowed: the guard after a backtick another follows inside code.
        texts = (title, description, footer, author, *(f["value"] for f in fields))
        shown = [re.sub(f"`{ZWSP}(?=`)", "`", text) for text in texts]
        assert not any(ch in INVISIBLE for text in shown for ch in text), "an invisible character is shown"
    assert total <= discord_limits.EMBED_TOTAL, total
    if view is not None:
        rows = view.to_components()
        assert len(rows) <= discord_limits.ROWS
        buttons = [c for row in rows for c in row["components"]]
        assert all(len(row["components"]) <= discord_limits.BUTTONS_PER_ROW for row in rows)
        assert len(buttons) <= discord_limits.COMPONENTS
        for button in buttons:
            assert 1 <= len(button["label"]) <= discord_limits.BUTTON_LABEL
            assert len(button["custom_id"]) <= discord_limits.CUSTOM_ID
            assert not any(ch in INVISIBLE for ch in button["label"])


def discord_texts(embeds: Iterable[discord.Embed | dict[str, Any]]) -> list[str]:
    """The escaped texts of embeds in reading order: titles, descriptions, field values."""
    texts: list[str] = []
    for embed in embeds:
        data = embed.to_dict() if isinstance(embed, discord.Embed) else embed
        texts.append(data.get("title") or "")
        texts.append(data.get("description") or "")
        texts += [f["value"] for f in data.get("fields") or []]
    return texts


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text.replace(ELLIPSIS, ""))


def discord_shown(embeds: Iterable[discord.Embed | dict[str, Any]]) -> str:
    """What a reader sees, as plain text without whitespace or continuation marks (for 'appears in full')."""
    ours_removed = ["".join(a for a in discord_markup.atoms(t) if a != "*") for t in discord_texts(embeds)]
    return squash(discord_markup.unescape("\n".join(ours_removed)))


def appears(text: str, shown: str) -> bool:
    """Whether `text` (as written in the pack, invisibles aside) is in what was shown, in full."""
    visible = "".join(ch for ch in text if ch not in INVISIBLE)
    return squash(visible) in shown


def assert_no_discord_markup_from(escaped: str) -> None:
    """No masked link, mention or special `<...>` form can render from escaped text."""
    units = discord_markup.atoms(escaped)
    raw = "".join(a if len(a) == 1 else " " * len(a) for a in units)  # escape pairs and kept tokens blanked
    assert "<" not in raw, escaped
    assert not re.search(r"\[[^\]]*\]\(", raw), escaped


# --- Slack ----------------------------------------------------------------------------------------------


def _mrkdwn_texts(blocks: Sequence[dict[str, Any]]) -> list[str]:
    texts = []
    for block in blocks:
        if block["type"] == "section":
            texts.append(block["text"]["text"])
        elif block["type"] == "context":
            texts += [el["text"] for el in block["elements"] if el.get("type") == "mrkdwn"]
    return texts


def assert_slack_blocks(blocks: Sequence[dict[str, Any]], text: str | None = None) -> None:
    """A Slack payload's blocks (and fallback text) are within every documented limit, without invisibles."""
    from tests.fakes.slack_api import validate_blocks  # the fake's own validator must agree

    assert validate_blocks(list(blocks)) == []
    assert len(blocks) <= slack_limits.BLOCKS
    for block in blocks:
        assert len(block.get("block_id", "")) <= slack_limits.BLOCK_ID
        if block["type"] == "section":
            assert 1 <= len(block["text"]["text"]) <= slack_limits.SECTION_TEXT
        elif block["type"] == "context":
            assert len(block["elements"]) <= slack_limits.CONTEXT_ELEMENTS
            assert all(1 <= len(el["text"]) <= slack_limits.TEXT_OBJECT for el in block["elements"])
        elif block["type"] == "header":
            assert len(block["text"]["text"]) <= slack_limits.HEADER_TEXT
        elif block["type"] == "actions":
            assert len(block["elements"]) <= slack_limits.ACTIONS_ELEMENTS
            for button in block["elements"]:
                assert 1 <= len(button["text"]["text"]) <= slack_limits.BUTTON_TEXT
                assert len(button["action_id"]) <= slack_limits.ACTION_ID
                assert len(button["value"]) <= slack_limits.BUTTON_VALUE
                assert not any(ch in INVISIBLE for ch in button["text"]["text"])
    for mrkdwn in _mrkdwn_texts(blocks):
        assert "<" not in mrkdwn and ">" not in mrkdwn, mrkdwn
        guards_removed = "".join(a for a in slack_markup.atoms(mrkdwn) if ZWSP not in a)
        assert not any(ch in INVISIBLE for ch in guards_removed), "an invisible character is shown"
    if text is not None:
        assert 1 <= len(text) <= slack_limits.MESSAGE_TEXT
        assert "<" not in text


def slack_shown(blocks: Sequence[dict[str, Any]]) -> str:
    """What a reader sees in the sections and context lines, as plain text (see `discord_shown`)."""
    ours_removed = ["".join(a for a in slack_markup.atoms(t) if a != "*") for t in _mrkdwn_texts(blocks)]
    return squash(slack_markup.unescape("\n".join(ours_removed)))
