"""The `/quiz` grammar, parsed once in the core for every adapter."""

from __future__ import annotations

import re
from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.commands import (
    AnswerReview,
    ClearFlags,
    FlagQuestion,
    ListCohorts,
    ListFlags,
    ListPacks,
    PostNow,
    RemindCohort,
    Reveal,
    Scope,
    ShowHelp,
    ShowLeaderboard,
    ShowMe,
    ShowReport,
    StartReview,
    Window,
    close_after,
    curriculum,
    help_lines,
    leaderboard_cohort,
    leaderboard_scope,
    leaderboard_window,
    parse_command,
    question_ref,
    schedule_id,
    schedule_packs,
    start_date,
)
from bot.domain.flags import REASON_MAX, flag_reason
from bot.errors import CommandError


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", ShowHelp()),
        ("   ", ShowHelp()),
        ("help", ShowHelp()),
        ("help now", ShowHelp(topic="now")),
        ("now", PostNow()),
        ("NOW data-parallelism", PostNow(pack="data-parallelism")),
        ("/quiz now data-parallelism", PostNow(pack="data-parallelism")),
        ("reveal", Reveal()),
        ("leaderboard", ShowLeaderboard(Window.ALL, Scope.CHANNEL)),
        ("leaderboard week", ShowLeaderboard(Window.WEEK, Scope.CHANNEL)),
        ("leaderboard workspace month", ShowLeaderboard(Window.MONTH, Scope.WORKSPACE)),
        ("lb all-time", ShowLeaderboard(Window.ALL, Scope.CHANNEL)),
        ("me", ShowMe()),
        ("stats", ShowMe()),
        ("packs", ListPacks()),
        ("leaderboard cohort Spring-26 week", ShowLeaderboard(Window.WEEK, Scope.COHORT, "Spring-26")),
        ("leaderboard cohort spring workspace", ShowLeaderboard(Window.ALL, Scope.WORKSPACE)),
        ("lb cohorts month", ShowLeaderboard(Window.MONTH, Scope.COHORTS)),
        ("cohorts", ListCohorts()),
        ("cohort", ListCohorts()),
        ("review", StartReview()),
        ("review 2", AnswerReview(2)),
        ("report", ShowReport()),
        ("report cohort spring", ShowReport("spring")),
        ("cohort remind spring-26", RemindCohort("spring-26")),
        ("cohort nudge Spring", RemindCohort("Spring")),
    ],
)
def test_parses(text: str, expected: object) -> None:
    assert parse_command(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("frobnicate", "Unknown command `frobnicate`"),
        ("now a b", "at most one pack"),
        ("reveal now", "takes no arguments"),
        ("leaderboard yearly", "`yearly` is not a leaderboard option"),
        ('now "unclosed', "Check your quotes"),
        ("leaderboard cohort", "Which cohort?"),
        ("leaderboard cohort no/slash", "is not a cohort name"),
        ("review 1 2", "answer it with `/quiz review N`"),
        ("report frob", "Try `/quiz report`"),
    ],
)
def test_errors_say_what_to_type(text: str, message: str) -> None:
    with pytest.raises(CommandError, match=message):
        parse_command(text)


def test_help_lists_every_command_and_one_on_request() -> None:
    lines = help_lines()
    for name in ("now", "reveal", "leaderboard", "me", "packs", "help", "cohort", "review", "report"):
        assert any(line.startswith(f"/quiz {name}") for line in lines)
    assert help_lines("lb") == [line for line in lines if line.startswith("/quiz leaderboard")]


@given(st.text(max_size=200))
def test_any_input_parses_or_raises_a_command_error(text: str) -> None:
    try:
        parse_command(text)
    except CommandError:
        pass


@pytest.mark.xfail(strict=True, reason="known: user_ids accepts control characters, which PostgreSQL refuses")
def test_a_member_id_with_a_control_character_is_refused() -> None:
    with pytest.raises(CommandError, match="is not a user"):
        parse_command("cohort add spring \x00")


def test_the_grammars_validators_are_public_for_typed_options() -> None:
    assert schedule_id("#3") == schedule_id("3") == 3
    assert start_date("2026-03-02") == date(2026, 3, 2)
    assert leaderboard_window("All-Time") is Window.ALL
    assert leaderboard_scope("Cohorts") is Scope.COHORTS
    assert leaderboard_cohort("spring-26") == "spring-26"
    assert curriculum(["b", " a ", "", "b"]) == ("b", "a")
    assert schedule_packs(["B", "all", "a", "b"]) == ("b", "a")
    assert close_after("2h") == timedelta(hours=2)
    for refused, message in [
        (lambda: schedule_id("-1"), "is not a schedule id"),
        (lambda: start_date("2026-02-30"), "is not a date"),
        (lambda: leaderboard_window("yearly"), "`yearly` is not a leaderboard option"),
        (lambda: leaderboard_scope("galaxy"), "`galaxy` is not a leaderboard option"),
        (lambda: leaderboard_cohort(None), "Which cohort?"),
        (lambda: close_after("30s"), "too short"),
        (lambda: close_after("8d"), "too long"),
    ]:
        with pytest.raises(CommandError, match=message):
            refused()


# --- flags (issue 14) -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("flag", FlagQuestion()),
        ("FLAG   ", FlagQuestion()),
        ("flag wrong answer", FlagQuestion(reason="wrong answer")),
        ("/quiz flag it's wrong, isn't it?", FlagQuestion(reason="it's wrong, isn't it?")),  # no shlex for reasons
        ('flag "two  choices\nare right"', FlagQuestion(reason="two choices are right")),
        ("flag \u202ereversed\u200b text\x07", FlagQuestion(reason="reversed text")),
        ("flags", ListFlags()),
        ("flags list", ListFlags()),
        ("flags clear data-parallelism/dp-gpu-holds", ClearFlags("data-parallelism", "dp-gpu-holds")),
        ("flags clear Data-Parallelism DP-GPU-HOLDS", ClearFlags("data-parallelism", "dp-gpu-holds")),
        ("flags resolve a/b", ClearFlags("a", "b")),
    ],
)
def test_flag_grammar(text: str, expected: object) -> None:
    assert parse_command(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("flags clear", "Say which question to clear"),
        ("flags clear data-parallelism", "is not a question: write its pack id and question id as `PACK/QUESTION`"),
        ("flags clear a/b/c", "`a/b/c` is not a question"),
        ("flags clear a b c d", "Say which question to clear"),
        ("flags delete a/b", "`delete` is not a flags action"),
    ],
)
def test_flag_grammar_mistakes_say_what_to_type(text: str, message: str) -> None:
    with pytest.raises(CommandError, match=re.escape(message)):
        parse_command(text)


def test_a_reason_is_capped_and_the_validators_are_public() -> None:
    long = parse_command("flag " + "x" * 700)
    assert isinstance(long, FlagQuestion) and long.reason is not None
    assert len(long.reason) == REASON_MAX and long.reason.endswith("…")
    assert flag_reason("   ") is None and flag_reason(None) is None
    assert question_ref(" pack-1 / q-2 ") == ("pack-1", "q-2")
    assert "/quiz flag [reason]" in "\n".join(help_lines("flag"))
