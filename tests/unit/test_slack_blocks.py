"""Block Kit rendering: within Slack's limits (checked by the fake's validator), and no content can ping or link."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from adapters.slack.blocks import (
    BUTTON_TEXT_LIMIT,
    SECTION_TEXT_LIMIT,
    answer_action_id,
    card_blocks,
    card_text,
    clip,
    escape,
    message_blocks,
    message_text,
    parse_answer_action,
)
from bot.domain import PostSource, QuestionCard, RevealView
from bot.ports import Message
from tests.fakes.slack_api import validate_blocks

HOSTILE = "<!channel> <!here> <!everyone> <@U0ADMIN> <https://evil.example|click me> & co"


def _card(
    *, prompt: str = "Which collective syncs gradients?", choices: tuple[str, ...] = (), **kw: object
) -> QuestionCard:
    choices = choices or ("Broadcast", "All-reduce", "Scatter", "Gather")
    defaults: dict[str, object] = {
        "post_id": 42,
        "pack_title": "Data Parallelism Quiz",
        "question_number": 2,
        "question_count": 8,
        "prompt": prompt,
        "choices": choices,
        "choice_ids": tuple(reversed(range(len(choices)))),
        "answer_count": 3,
    }
    defaults.update(kw)
    return QuestionCard(**defaults)  # type: ignore[arg-type]


def _reveal(
    card: QuestionCard, *, users: tuple[str, ...] = ("alice", "carol"), explanation: str = "Because."
) -> QuestionCard:
    counts = tuple(2 if i == 1 else (1 if i == 0 else 0) for i in range(len(card.choices)))
    reveal = RevealView(correct_position=1, counts=counts, explanation=explanation, correct_users=users)
    return QuestionCard(**{**{f: getattr(card, f) for f in card.__dataclass_fields__}, "reveal": reveal})


def _texts(blocks: list[dict]) -> str:
    return json.dumps(blocks)


def _buttons(blocks: list[dict]) -> list[dict]:
    return [el for b in blocks if b["type"] == "actions" for el in b["elements"]]


def test_short_choices_are_the_button_texts_and_carry_post_and_pack_index() -> None:
    card = _card()
    blocks = card_blocks(card)
    assert validate_blocks(blocks) == []
    buttons = _buttons(blocks)
    assert [b["text"]["text"] for b in buttons] == ["1. Broadcast", "2. All-reduce", "3. Scatter", "4. Gather"]
    # The button carries the pack's own index of the choice (choice_ids), not its shown position.
    assert [b["action_id"] for b in buttons] == [f"quiz:answer:42:{i}" for i in (3, 2, 1, 0)]
    assert [b["value"] for b in buttons] == [b["action_id"] for b in buttons]
    assert blocks[0]["text"]["text"] == "*Which collective syncs gradients?*"
    assert (
        blocks[-1]["elements"][0]["text"] == "Data Parallelism Quiz · question 2 · 8 questions in the pack · 3 answers"
    )
    assert card_text(card) == "Quiz: Which collective syncs gradients?"


def test_long_choices_are_listed_in_the_text_with_short_numbered_buttons() -> None:
    long = "Pipeline parallelism with micro-batches, which fills the bubble by overlapping the forward passes"
    card = _card(choices=("Data parallelism", long, "Tensor parallelism"))
    blocks = card_blocks(card)
    assert validate_blocks(blocks) == []
    assert [b["text"]["text"] for b in _buttons(blocks)] == ["1", "2", "3"]
    assert f"*2.* {long}" in blocks[0]["text"]["text"]


def test_the_biggest_card_a_pack_allows_still_fits_slack() -> None:
    choices = tuple(f"{i} " + "&<x>" * 400 for i in range(10))  # 10 choices, each far over any limit once escaped
    card = _card(prompt="<p>" * 2000, choices=choices)
    blocks = card_blocks(card)
    assert validate_blocks(blocks) == []
    assert all(len(b["text"]["text"]) <= BUTTON_TEXT_LIMIT for b in _buttons(blocks))
    revealed = card_blocks(_reveal(card, users=tuple(f"user{i}" for i in range(200)), explanation="&" * 20000))
    assert validate_blocks(revealed) == []
    assert all(len(b.get("text", {}).get("text", "")) <= SECTION_TEXT_LIMIT for b in revealed)
    assert len(card_text(card)) <= 3000


def test_nothing_from_a_pack_or_a_user_can_ping_or_link() -> None:
    card = _card(prompt=HOSTILE, choices=(HOSTILE, "b"), pack_title=HOSTILE)
    for blocks in (card_blocks(card), card_blocks(_reveal(card, users=(HOSTILE,), explanation=HOSTILE))):
        assert validate_blocks(blocks) == []
        mrkdwn = [el["text"] for el in _mrkdwn_objects(blocks)]
        assert mrkdwn and all("<" not in text and ">" not in text for text in mrkdwn)
        assert any("&lt;!channel&gt;" in text for text in mrkdwn)
    assert "<" not in card_text(card) and "<" not in card_text(_reveal(card))
    message = Message(HOSTILE, (HOSTILE,))
    assert "<" not in _texts(message_blocks(message)) and "<" not in message_text(message)


def _mrkdwn_objects(blocks: list[dict]) -> list[dict]:
    found = []
    for block in blocks:
        if block["type"] == "section":
            found.append(block["text"])
        elif block["type"] == "context":
            found.extend(block["elements"])
    return [obj for obj in found if obj["type"] == "mrkdwn"]


def test_revealed_card_has_no_buttons_marks_the_answer_and_names_who_got_it() -> None:
    blocks = card_blocks(_reveal(_card()))
    assert _buttons(blocks) == []
    text = "\n".join(b["text"]["text"] for b in blocks if b["type"] == "section")
    assert "*✅ 2. All-reduce — 2 (67%)*" in text
    assert "▫️ 1. Broadcast — 1 (33%)" in text
    assert "*Answer: All-reduce*" in text and "Because." in text and "Got it right: alice, carol" in text
    assert blocks[-1]["elements"][0]["text"].endswith("· closed")
    assert card_text(_reveal(_card())).startswith("Answer: All-reduce")


def test_messages_become_a_title_and_sections_within_limits() -> None:
    blocks = message_blocks(Message("Leaderboard (channel, all time)", ("1. alice — 20 pts", "2. bob — 0 pts")))
    assert blocks[0]["text"]["text"] == "*Leaderboard (channel, all time)*"
    assert blocks[1]["text"]["text"] == "1. alice — 20 pts\n2. bob — 0 pts"
    huge = message_blocks(Message("t", tuple("x" * 2999 for _ in range(80))))
    assert validate_blocks(huge) == [] and len(huge) == 50
    assert message_text(Message("Title", ("a", "b"))) == "Title\na\nb"


@given(st.text())
def test_escaping_removes_every_control_character_and_is_reversible(text: str) -> None:
    escaped = escape(text)
    assert "<" not in escaped and ">" not in escaped
    assert escaped.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&") == text


@given(st.text(alphabet="&<>ab", max_size=200), st.integers(min_value=2, max_value=100))
def test_clipping_never_cuts_an_entity_in_half(text: str, limit: int) -> None:
    clipped = clip(escape(text), limit)
    assert len(clipped) <= limit
    body = clipped.removesuffix("…")
    for i, char in enumerate(body):
        if char == "&":
            assert body[i:].startswith(("&amp;", "&lt;", "&gt;")), clipped


def test_answer_action_round_trip_and_rejections() -> None:
    assert parse_answer_action(answer_action_id(123, 4)) == (123, 4)
    for bad in ("quiz:answer", "quiz:answer:1", "quiz:answer:x:1", "quiz:answer:1:2:3", "quiz:answer:-1:2", "other"):
        assert parse_answer_action(bad) is None


def test_the_card_says_where_it_came_from_and_when_it_closes() -> None:
    opened = datetime(2026, 1, 5, 7, 30, tzinfo=UTC)
    card = _card(
        source=PostSource.COHORT,
        cohort="spring-26",
        opened_at=opened,
        closes_at=opened + timedelta(hours=2),
        timezone="Europe/Helsinki",
    )
    blocks = card_blocks(card)
    assert validate_blocks(blocks) == []
    footer = blocks[-1]["elements"]
    assert footer[1]["text"] == "Cohort spring-26 · open 2 h, closes at 11:30 EET"
    revealed = card_blocks(_reveal(card))
    assert revealed[-1]["elements"][1]["text"] == "Cohort spring-26"
    assert card_blocks(_card())[-1]["elements"][1]["text"] == "On demand · open until revealed"
