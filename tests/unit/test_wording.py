"""The wording package: plurals, window words for every window, the translation hook, structured reveals."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from bot.domain import LeaderboardRow, PostSource, QuestionCard, RevealView, Tally
from bot.domain.windows import Window
from bot.wording import plural, use_translator
from bot.wording.answers import verdict
from bot.wording.boards import window_words
from bot.wording.cards import card_about, card_closing, card_footer, card_origin, reveal_lines, reveal_text


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    yield
    use_translator(None)


def test_plural() -> None:
    assert plural(1, "day") == "1 day"
    assert plural(3, "day") == "3 days"
    assert plural(1, "person", "people") == "1 person"
    assert plural(2, "person", "people") == "2 people"
    assert plural(0, "answer") == "0 answers"


@pytest.mark.parametrize("window", list(Window))
def test_every_window_has_its_words(window: Window) -> None:
    assert window_words(window.value)
    assert window_words(window.value, cohorts=True)


def test_the_translation_hook_reaches_every_message_built_after_it() -> None:
    use_translator({"Correct! “{answer}”": "Oikein! “{answer}”"}.get)
    assert verdict(correct=True, chosen="a", correct_choice="b") == "Oikein! “b”"
    use_translator(None)
    assert verdict(correct=True, chosen="a", correct_choice="b") == "Correct! “b”"


def _closed_card() -> QuestionCard:
    return QuestionCard(
        post_id=1,
        pack_title="P",
        question_number=1,
        question_count=2,
        prompt="Q?",
        choices=("one", "two", "three"),
        choice_ids=(2, 0, 1),
        answer_count=3,
        reveal=RevealView(correct_position=1, counts=(1, 2, 0), explanation="Because.", correct_users=("Ann", "Bo")),
    )


def test_reveal_is_structured_so_no_adapter_slices_it() -> None:
    text = reveal_text(_closed_card())
    assert text is not None
    assert len(text.choices) == 3 and text.choices[1].startswith("✅ 2. two — 2")
    assert text.answer == "Answer: two"
    assert text.explanation == "Because."
    assert text.winners == "Got it right: Ann, Bo"
    assert reveal_lines(_closed_card()) == [*text.choices, text.answer, text.explanation, text.winners]


def test_accuracy_is_written_once() -> None:
    row = LeaderboardRow(rank=1, name="a", points=3, correct=1, answered=4)
    assert isinstance(row, Tally) and row.accuracy == 0.25
    assert LeaderboardRow(rank=1, name="a", points=0, correct=0, answered=0).accuracy == 0.0


def _timed_card(**changes: object) -> QuestionCard:
    opened = datetime(2026, 1, 5, 7, 30, tzinfo=UTC)  # 09:30 in Helsinki (EET, UTC+2)
    card = dataclasses.replace(_closed_card(), reveal=None, opened_at=opened, closes_at=opened + timedelta(hours=2))
    return dataclasses.replace(card, **changes)  # type: ignore[arg-type]


def test_the_card_says_when_it_closes_in_the_channels_timezone() -> None:
    helsinki = _timed_card(source=PostSource.SCHEDULE, timezone="Europe/Helsinki")
    assert card_about(helsinki) == "Scheduled · open 2 h, closes at 11:30 EET"
    assert card_about(_timed_card()) == "On demand · open 2 h, closes at 09:30 UTC"
    overnight = _timed_card(closes_at=datetime(2026, 1, 6, 7, 30, tzinfo=UTC), timezone="Europe/Helsinki")
    assert card_closing(overnight) == "open 24 h, closes Tue 6 Jan 2026 09:30 EET"
    assert card_closing(_timed_card(closes_at=None)) == "open until revealed"
    assert card_closing(_timed_card(timezone="Not/AZone")) == "open 2 h, closes at 09:30 UTC"


def test_the_card_says_where_it_came_from() -> None:
    assert card_origin(_timed_card()) == "On demand"
    assert card_origin(_timed_card(source=PostSource.SCHEDULE)) == "Scheduled"
    assert card_origin(_timed_card(source=PostSource.COHORT, cohort="spring-26")) == "Cohort spring-26"
    assert card_origin(_timed_card(source=PostSource.COHORT)) == "Cohort question"  # the cohort was deleted
    closed = dataclasses.replace(_closed_card(), source=PostSource.COHORT, cohort="spring-26")
    assert card_about(closed) == "Cohort spring-26"  # no closing time once closed


def test_the_footer_of_the_packs_last_question_does_not_read_like_the_last_question() -> None:
    first_post = dataclasses.replace(_timed_card(), question_number=8, question_count=8, answer_count=1)
    footer = card_footer(first_post)
    assert footer == "P · question 8 · 8 questions in the pack · 1 answer"
    assert "8 of 8" not in footer
    assert card_footer(dataclasses.replace(first_post, question_count=1, question_number=1)).startswith(
        "P · question 1 · 1 question in the pack"
    )
