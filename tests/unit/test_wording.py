"""The wording package: plurals, window words for every window, the translation hook, structured reveals."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import pytest

from bot.content import Catalog
from bot.domain import (
    CohortBoard,
    CohortStanding,
    Leaderboard,
    LeaderboardRow,
    Pack,
    PostSource,
    Question,
    QuestionCard,
    RevealView,
    Tally,
)
from bot.domain.views import CohortView, CurriculumPack, MemberProgress, Report
from bot.domain.windows import Window
from bot.wording import cohorts as cohort_words
from bot.wording import echo, how_often, plural, use_translator
from bot.wording import reports as report_words
from bot.wording import schedules as schedule_words
from bot.wording.answers import verdict
from bot.wording.boards import cohort_board_message, leaderboard_message, window_words
from bot.wording.cards import card_about, card_closing, card_footer, card_origin, reveal_lines, reveal_text
from bot.wording.help import packs_message


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


# --- issue 12: every count reads right with 1 and with 2 -------------------------------------------------------


def _pack(questions: int) -> Pack:
    question = Question(pack_id="p", key="q", prompt="Q?", choices=("a", "b"), correct_index=0, explanation="E.")
    return Pack(id="p", title="P", description="", questions=(question,) * questions)


def _cohort(count: int) -> CohortView:
    return CohortView(
        name="spring",
        start_date=date(2026, 1, 5),
        created_by="lead",
        curriculum=(CurriculumPack(pack_id="p", title="P", posted=0, total=count),),
        members=tuple(MemberProgress(name=f"m{i}", answered=0, correct=0, points=count) for i in range(count)),
    )


def _report(count: int) -> Report:
    return Report(
        title="W",
        workspace="W1",
        timezone="UTC",
        generated_at=datetime(2026, 1, 5, tzinfo=UTC),
        since=None,
        participants=count,
        answers=count,
        correct=count,
        points=count,
        leaderboard=Leaderboard(scope="workspace", window="all", rows=()),
        questions=(),
        curriculum=(CurriculumPack(pack_id="p", title="P", posted=0, total=count),),
    )


def _renders(count: int) -> dict[str, str]:
    card = replace(_closed_card(), answer_count=count, reveal=None)
    row = LeaderboardRow(rank=1, name="Ann", points=count, correct=1, answered=1)
    standing = CohortStanding(rank=1, name="spring", members=2, active=1, points=count, correct=1, answered=1)
    return {
        "packs": packs_message(Catalog(packs=(_pack(count),))).text,
        "card": card_footer(card),
        "cohort list": cohort_words.list_message([_cohort(count)]).text,
        "cohort show": cohort_words.show_message(_cohort(count)).text,
        "report": report_words.summary_message(_report(count)).text,
        "schedules": schedule_words.too_many(count),
        "board": leaderboard_message(Leaderboard(scope="channel", window="all", rows=(row,))).text,
        "cohort board": cohort_board_message(CohortBoard(window="all", rows=(standing,))).text,
        "how often": how_often(count),
    }


@pytest.mark.parametrize(
    ("area", "one", "two"),
    [
        ("packs", "p — P (1 question)", "p — P (2 questions)"),
        ("card", "· 1 answer", "· 2 answers"),
        ("cohort list", "· 1 member · 0/1 question asked", "· 2 members · 0/2 questions asked"),
        ("cohort show", "Curriculum: 0 of 1 question asked", "Curriculum: 0 of 2 questions asked"),
        ("cohort show", "· 1 member", "· 2 members"),
        ("cohort show", "0 right · 1 pt", "0 right · 2 pts"),
        (
            "report",
            "1 person answered once · accuracy 100% · 1 point",
            "2 people answered twice · accuracy 100% · 2 points",
        ),
        ("report", "Curriculum: 0 of 1 question asked", "Curriculum: 0 of 2 questions asked"),
        ("schedules", "This channel has 1 schedule, the most", "This channel has 2 schedules, the most"),
        ("board", "1. Ann — 1 pt ·", "1. Ann — 2 pts ·"),
        ("cohort board", "· 1 pt · accuracy", "· 2 pts · accuracy"),
        ("how often", "once", "twice"),
    ],
)
def test_every_count_reads_right_with_one_and_with_two(area: str, one: str, two: str) -> None:
    assert one in _renders(1)[area]
    assert two in _renders(2)[area]


def test_how_often_and_plural_past_two() -> None:
    assert how_often(3) == "3 times"
    assert how_often(0) == "0 times"


def test_an_echo_is_capped_in_one_place() -> None:
    assert echo("short") == "short"
    assert echo("x" * 5000) == "x" * 40 + "…"
    assert echo("a\nb") == "a b"


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
