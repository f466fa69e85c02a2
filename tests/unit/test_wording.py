"""The wording package: plurals, window words for every window, the translation hook, structured reveals."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.domain import LeaderboardRow, QuestionCard, RevealView, Tally
from bot.domain.windows import Window
from bot.wording import plural, use_translator
from bot.wording.answers import verdict
from bot.wording.boards import window_words
from bot.wording.cards import reveal_lines, reveal_text


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
