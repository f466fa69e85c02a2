"""How question cards and replies look as Discord embeds and buttons, within Discord's limits."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime, timedelta

import discord

from adapters.discord.buttons import answer_view
from adapters.discord.card_pages import card_embed
from adapters.discord.custom_ids import ANSWER_TEMPLATE
from adapters.discord.embeds import CLOSED_COLOUR, OPEN_COLOUR, escape, message_embed
from bot.domain import PostSource, QuestionCard, RevealView
from bot.ports import Message


def _card(
    *,
    prompt: str = "Which collective keeps replicas in sync?",
    choices: tuple[str, ...] | None = None,
    reveal: RevealView | None = None,
) -> QuestionCard:
    shown = choices or ("Broadcast", "All-reduce", "Scatter", "Nothing")
    return QuestionCard(
        post_id=42,
        pack_title="Data Parallelism Quiz",
        question_number=2,
        question_count=8,
        prompt=prompt,
        choices=shown,
        choice_ids=tuple(reversed(range(len(shown)))),
        answer_count=3 if reveal is None else sum(reveal.counts),
        reveal=reveal,
    )


def _buttons(view: discord.ui.View) -> list[dict[str, object]]:
    return [c for row in view.to_components() for c in row["components"]]


async def test_short_choices_are_the_button_labels_one_per_row() -> None:
    card = _card()
    embed = card_embed(card)
    assert embed.title == card.prompt
    assert embed.colour == OPEN_COLOUR
    assert embed.footer.text == "Data Parallelism Quiz · question 2 · 8 questions in the pack · 3 answers"
    assert "Broadcast" not in (embed.description or "")
    buttons = _buttons(answer_view(card))
    assert [b["label"] for b in buttons] == list(card.choices)
    assert [b["custom_id"] for b in buttons] == [
        "quiz:answer:42:3",
        "quiz:answer:42:2",
        "quiz:answer:42:1",
        "quiz:answer:42:0",
    ]
    assert len(answer_view(card).to_components()) == 4  # one row each: long labels stay readable


async def test_long_choices_are_listed_in_the_embed_and_buttons_carry_numbers() -> None:
    long_choice = "A" * 81
    card = _card(choices=("Short", long_choice, "Also short"))
    embed = card_embed(card)
    assert "**1.** Short" in (embed.description or "")
    assert f"**2.** {long_choice}" in (embed.description or "")
    buttons = _buttons(answer_view(card))
    assert [b["label"] for b in buttons] == ["1", "2", "3"]
    assert len(answer_view(card).to_components()) == 1


async def test_ten_choices_fit_discords_rows() -> None:
    card = _card(choices=tuple(f"choice {i}" for i in range(10)))
    rows = answer_view(card).to_components()
    assert len(rows) <= 5
    assert all(len(row["components"]) <= 5 for row in rows)
    assert len(_buttons(answer_view(card))) == 10


def test_a_prompt_too_long_for_a_title_leads_the_description() -> None:
    prompt = "Why " + "x" * 300 + "?"
    embed = card_embed(_card(prompt=prompt))
    assert embed.title == "Question"
    assert (embed.description or "").startswith(prompt)


def test_markdown_in_plain_text_is_neutralised_but_code_spans_are_kept() -> None:
    assert (
        escape("*bold* _it_ ~~s~~ ||spoiler|| a\\b") == "\\*bold\\* \\_it\\_ \\~\\~s\\~\\~ \\|\\|spoiler\\|\\| a\\\\b"
    )
    assert escape("> quote\n# heading\n- item") == "\\> quote\n\\# heading\n\\- item"
    assert escape("run `/quiz now`") == "run `/quiz now`"
    assert escape("1. alice\n1. bob\n3. carol") == "1\\. alice\n1\\. bob\n3\\. carol"  # shared ranks stay shared
    assert escape("version 2.7 is 1.5x faster") == "version 2.7 is 1.5x faster"
    embed = card_embed(_card(prompt="What does all_reduce_sum do?"))
    assert embed.title == "What does all\\_reduce\\_sum do?"


def test_the_revealed_card_shows_counts_the_answer_and_who_was_right() -> None:
    reveal = RevealView(
        correct_position=1, counts=(1, 2, 0, 0), explanation="Because *gradients*.", correct_users=("a_b", "c")
    )
    embed = card_embed(_card(reveal=reveal))
    description = embed.description or ""
    assert embed.colour == CLOSED_COLOUR
    assert description.splitlines()[:4] == [
        "▫️ 1. Broadcast — 1 (33%)",
        "✅ 2. All-reduce — 2 (67%)",
        "▫️ 3. Scatter — 0 (0%)",
        "▫️ 4. Nothing — 0 (0%)",
    ]
    assert "**Answer: All-reduce**" in description
    assert "Because \\*gradients\\*." in description
    assert "Got it right: a\\_b, c" in description
    assert embed.footer.text == "Data Parallelism Quiz · question 2 · 8 questions in the pack · 3 answers · closed"


def test_everything_stays_within_discords_embed_limits() -> None:
    reveal = RevealView(correct_position=0, counts=(1, 0, 0, 0), explanation="y" * 5000, correct_users=())
    embed = card_embed(_card(reveal=reveal))
    assert len(embed.description or "") <= 4096
    assert (embed.description or "").endswith("…")
    long_title = message_embed(Message("t" * 300, ("line",)))
    assert long_title.title is None
    assert (long_title.description or "").startswith("**" + "t" * 300 + "**")
    assert len(embed) <= 6000


def test_the_button_template_accepts_only_ids_a_database_can_hold() -> None:
    template = re.compile(ANSWER_TEMPLATE)
    assert template.fullmatch("quiz:answer:42:3")
    assert template.fullmatch("quiz:answer:999999999999999999:9")
    assert not template.fullmatch("quiz:answer:9999999999999999999:9")  # 19 digits may not fit a BIGINT
    assert not template.fullmatch("quiz:answer:42:100")
    assert not template.fullmatch("quiz:answer:abc:1")
    assert not template.fullmatch("quiz:answer:-1:1")


def test_the_card_says_where_it_came_from_and_when_it_closes() -> None:
    opened = datetime(2026, 1, 5, 7, 30, tzinfo=UTC)
    card = dataclasses.replace(
        _card(),
        source=PostSource.SCHEDULE,
        opened_at=opened,
        closes_at=opened + timedelta(hours=2),
        timezone="Europe/Helsinki",
    )
    embed = card_embed(card)
    assert (embed.description or "").endswith("\n\n-# Scheduled · open 2 h, closes at 11:30 EET")
    cohort = dataclasses.replace(card, source=PostSource.COHORT, cohort="spring_26")
    assert "-# Cohort spring\\_26 · open 2 h" in (card_embed(cohort).description or "")  # escaped, not markdown
    reveal = RevealView(correct_position=1, counts=(1, 2, 0, 0), explanation="Because.", correct_users=("alice",))
    closed = card_embed(dataclasses.replace(card, reveal=reveal, answer_count=3))
    assert (closed.description or "").endswith("-# Scheduled")
