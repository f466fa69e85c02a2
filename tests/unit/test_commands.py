"""The `/quiz` grammar, parsed once in the core for every adapter."""

from __future__ import annotations

import re
from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.commands import (
    SUBCOMMANDS,
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
    help_message,
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
        # issue 12: two scopes used to be resolved silently (the last won); now they are refused
        ("leaderboard cohort spring workspace", "Give one scope, not both `cohort spring` and `workspace`"),
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


# --- issue 12: the grammar helps instead of dumping -------------------------------------------------------------

SPECIFIC_MISTAKES = [
    "now a b",
    "reveal now",
    "leaderboard yearly",
    "leaderboard week month",
    "leaderboard cohort",
    "cohort create",
    "cohort create x packs:",
    "cohort join",
    "cohort frob",
    "review 1 2",
    "report frob",
    "schedule",
    "schedule frob",
    "schedule add",
    "schedule add every 2 hours",
    "schedule add weekdays 09:30 UTC",
    "schedule add daily 9:00 tz:UTC tz:Europe/Helsinki",
    "schedule pause x",
    "flags delete a/b",
    "help leaderbord",
    "leaderbord",
    'now "unclosed',
]


@pytest.mark.parametrize("text", SPECIFIC_MISTAKES)
def test_a_specific_mistake_is_not_followed_by_the_command_list(text: str) -> None:
    with pytest.raises(CommandError) as refused:
        parse_command(text)
    assert refused.value.lines == ()


def test_only_a_command_the_grammar_cannot_place_lists_the_commands() -> None:
    with pytest.raises(CommandError, match="Unknown command `dance`") as refused:
        parse_command("dance")
    assert refused.value.lines == tuple(help_lines())


@pytest.mark.parametrize(
    ("text", "suggestion"),
    [
        ("leaderbord", "Did you mean `leaderboard`?"),
        ("LEADERBORD week", "Did you mean `leaderboard`?"),
        ("sched list", None),  # an alias: parses
        ("schedul list", "Did you mean `schedule`?"),
        ("revew", "Did you mean `review`"),
        ("help leaderbord", "There is no command `leaderbord`. Did you mean `leaderboard`?"),
        ("help shedule", "Did you mean `schedule`?"),
        ("cohort jion spring", "`jion` is not a cohort command. Did you mean `join`?"),
        ("schedule ad daily 09:00", "`ad` is not a schedule action. Did you mean `add`?"),
        ("flags clera a/b", "`clera` is not a flags action. Did you mean `clear`?"),
        ("leaderboard weak", "`weak` is not a leaderboard option. Did you mean `week`?"),
    ],
)
def test_unknown_words_suggest_the_nearest_command(text: str, suggestion: str | None) -> None:
    if suggestion is None:
        parse_command(text)
        return
    with pytest.raises(CommandError, match=re.escape(suggestion)):
        parse_command(text)


def test_help_names_its_command_and_refuses_an_unknown_one() -> None:
    assert parse_command("help LB") == ShowHelp(topic="leaderboard")
    assert parse_command("help schedule") == ShowHelp(topic="schedule")
    with pytest.raises(CommandError, match="explains one command at a time"):
        parse_command("help schedule add")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("leaderboard week month", "Give one window, not both `week` and `month`: e.g. `/quiz leaderboard week`."),
        ("leaderboard week week", "`week` is given twice; give it once, e.g. `/quiz leaderboard week`."),
        ("lb all month", "Give one window, not both `all` and `month`"),
        ("leaderboard channel workspace", "Give one scope, not both `channel` and `workspace`"),
        ("leaderboard cohorts cohort spring", "Give one scope, not both `cohorts` and `cohort spring`"),
        ("leaderboard cohort a cohort b", "Give one scope, not both `cohort a` and `cohort b`"),
        (
            "schedule add daily 09:00 tz:UTC tz:Europe/Helsinki",
            "Give one timezone, not both `tz:UTC` and `tz:Europe/Helsinki`: "
            "e.g. `/quiz schedule add daily 09:00 tz:UTC`.",
        ),
        ("schedule add daily 09:00 tz:UTC timezone=UTC", "Give one timezone, not both"),
        ("schedule add daily 09:00 close:1h close:2h", "Give one closing time, not both `close:1h` and `close:2h`"),
        ("cohort create x start:2026-01-01 start:2026-02-01", "Give one start date, not both"),
        ("cohort create x packs:a packs:b", "Give one `packs:` list, not both `packs:a` and `packs:b`"),
    ],
)
def test_conflicting_arguments_are_refused_not_silently_resolved(text: str, message: str) -> None:
    with pytest.raises(CommandError, match=re.escape(message)):
        parse_command(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("schedule add every 2 hours", "for `every 2 hours` use the cron rule `0 */2 * * *`"),
        ("schedule add every 2h", "use the cron rule `0 */2 * * *`"),
        ("schedule add every 30 minutes", "use the cron rule `*/30 * * * *`"),
        ("schedule add every 5 min", "use the cron rule `*/10 * * * *`"),
        ("schedule add every 3 days", "use the cron rule `0 9 * * *`"),
        ("schedule add every 2", "e.g. `daily 02:00` or `weekdays 02:00`"),
        ("schedule add 9am weekdays", "e.g. `daily 9am` or `weekdays 9am`"),
        ("schedule add weekdays 09:30 UTC", "`UTC` looks like a timezone; write it as `tz:UTC`."),
        ("schedule add weekdays 09:30 Europe/Helsinki", "write it as `tz:Europe/Helsinki`"),
        ("schedule add daily 09:00 gmt", "write it as `tz:gmt`"),
        ("cohort create x packs:", "`packs:` needs pack ids"),
        ("cohort create x packs:,", "`packs:` needs pack ids"),
        ("cohort create x start:", "`start:` needs a date"),
        ("schedule add daily 09:00 close:", "Give the duration after `close:`"),
        ("schedule add daily 09:00 packs:a", "Name the packs after the rule, without `packs:`"),
    ],
)
def test_hints_are_right(text: str, message: str) -> None:
    with pytest.raises(CommandError, match=re.escape(message)):
        parse_command(text)


def test_every_2_hours_does_not_suggest_daily_2() -> None:
    with pytest.raises(CommandError) as refused:
        parse_command("schedule add every 2 hours")
    assert "daily 2`" not in str(refused.value)


EVERY_MISTAKE = [
    *SPECIFIC_MISTAKES,
    "frobnicate",
    "dance",
    "now a b c",
    "me extra",
    "packs extra",
    "leaderboard cohort no/slash",
    "leaderboard cohort a workspace",
    "leaderboard all all",
    "cohort create bad/name",
    "cohort create x start:2026-02-30",
    "cohort create x frob",
    "cohort create x start:2026-01-01 start:2026-01-02",
    "cohort create x packs:a packs:b",
    "cohort add spring",
    "cohort remove",
    "cohort list extra",
    "cohort show",
    "cohort next",
    "cohort delete a b",
    "cohort leave",
    "cohort add spring <>",
    "review x",
    "report cohort",
    "schedule list everything",
    "schedule next 1",
    "schedule remove",
    "schedule resume 1 2",
    "schedule add every",
    "schedule add every 2 hours",
    "schedule add every 1 hour",
    "schedule add every 90 minutes",
    "schedule add every 45m",
    "schedule add every 2",
    "schedule add every 25",
    "schedule add 9:30 weekdays",
    "schedule add weekdays",
    "schedule add mon, wed",
    "schedule add fri-mon 09:00",
    "schedule add frob 09:00",
    "schedule add daily 25:00",
    "schedule add daily 9",
    "schedule add 1 2 3",
    "schedule add * * * * *",
    "schedule add 0 9 30 2 *",
    "schedule add 0 9 * * L",
    "schedule add */0 9 * * *",
    "schedule add 61 9 * * *",
    "schedule add 5-1 9 * * *",
    "schedule add 0 9 * * x",
    "schedule add '30 9 * * 1-5 extra'",
    "schedule add daily 09:00 tz:",
    "schedule add daily 09:00 tz:Mars/Olympus",
    "schedule add daily 09:00 tz:europe/helsinky",
    "schedule add daily 09:00 tz:UTC tz:UTC",
    "schedule add daily 09:00 close:90",
    "schedule add daily 09:00 close:30s",
    "schedule add daily 09:00 close:8d",
    "schedule add daily 09:00 close:1h close:2h",
    "schedule add daily 09:00 close:",
    "schedule add daily 09:00 frob:1",
    "schedule add daily 09:00 packs:a",
    "schedule add weekdays 09:30 UTC",
    "schedule add weekdays 09:30 Europe/Helsinki",
    "flags clear",
    "flags clear a",
    "flags frob",
    "help frob",
    "help a b",
    "settings timezone Europe/Helsinki",
    "settings frob",
]
_SUGGESTED = re.compile(r"`(/quiz [^`]+)`(?! (?:takes|needs|gives|explains))")  # not a subject: `/quiz x` takes
_PLACEHOLDER = re.compile(
    r"<|\[|\||\.\.\.|Area/City|\b(?:NAME|ID|N|PACK/QUESTION|YYYY-MM-DD|DURATION|COMMAND|KEY|VALUE)\b"
)


def _suggested_commands(message: str) -> list[str]:
    """The whole commands a message suggests (`/quiz ...` in backticks), leaving out usage lines with placeholders."""
    return [cmd for cmd in _SUGGESTED.findall(message) if not _PLACEHOLDER.search(cmd.removeprefix("/quiz "))]


def test_every_command_a_hint_suggests_parses() -> None:
    suggested: dict[str, str] = {}
    for text in EVERY_MISTAKE:
        with pytest.raises(CommandError) as refused:
            parse_command(text)
        for command in _suggested_commands(str(refused.value)):
            suggested.setdefault(command, text)
    for command in _suggested_commands(help_message().text) + [
        cmd for name in HELP_TOPICS for cmd in _suggested_commands(help_message(name).text)
    ]:
        suggested.setdefault(command, "help")
    assert len(suggested) >= 25  # the hints really suggest commands, and the test reads them
    for command, source in suggested.items():
        try:
            parse_command(command)
        except CommandError as exc:  # pragma: no cover - the failure message names the culprit
            pytest.fail(f"{source!r} suggests {command!r}, which is refused: {exc}")


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("schedule add every 2 hours", "0 */2 * * *"),
        ("schedule add every 5 min", "*/10 * * * *"),
        ("schedule add every 90 minutes", "0 */2 * * *"),
        ("schedule add every 2", "daily 02:00"),
        ("schedule add 9:30 weekdays", "daily 9:30"),
        ("schedule add weekdays", "weekdays 09:30"),
    ],
)
def test_a_suggested_rule_is_one_schedule_add_accepts(text: str, rule: str) -> None:
    with pytest.raises(CommandError, match=re.escape(f"`{rule}")):
        parse_command(text)
    assert parse_command(f"schedule add {rule}")


@pytest.mark.parametrize(
    "text",
    [
        "reveal {}",
        "leaderboard {}",
        "leaderboard cohort {}",
        "cohort {}",
        "cohort join {}",
        "cohort create {}",
        "cohort create ok start:{}",
        "cohort create ok {}",
        "cohort add ok <{}>",
        "report cohort {}",
        "schedule {}",
        "schedule pause {}",
        "schedule add {}",
        "schedule add daily {}",
        "schedule add daily 09:00 tz:{}",
        "schedule add daily 09:00 close:{}",
        "schedule add daily 09:00 {}:x",
        "schedule add daily 09:00 a/{}",
        "flags {}",
        "flags clear {}",
        "help {}",
        "{}",
    ],
)
def test_echoed_input_is_capped(text: str) -> None:
    long = "x" * 5000
    with pytest.raises(CommandError) as refused:
        parse_command(text.format(long))
    message = str(refused.value)
    assert not re.search("x{41}", message)
    assert re.search("x{30,40}…", message)
    assert len(message) < 600


HELP_TOPICS = [sub.name for sub in SUBCOMMANDS]


@pytest.mark.parametrize("name", HELP_TOPICS)
def test_help_for_one_command_shows_its_full_syntax_and_an_example(name: str) -> None:
    message = help_message(name)
    assert message.title == help_lines(name)[0]
    assert any(line.startswith(("Example: `/quiz ", "Examples: `/quiz ")) for line in message.lines), message


def test_help_for_schedule_cohort_and_leaderboard_covers_their_forms() -> None:
    schedule = help_message("schedule").text
    for needle in ("daily 09:00", "weekdays 09:30", "mon,wed,fri 14:00", "30 9 * * 1-5", "tz:", "close:", "pause ID"):
        assert needle in schedule, needle
    cohort = help_message("cohorts").text
    for action in ("create NAME", "join NAME", "leave NAME", "add NAME", "remove NAME", "show NAME", "next NAME"):
        assert action in cohort, action
    board = help_message("lb").text
    for needle in ("`week`", "`month`", "`all`", "`channel`", "`workspace`", "`cohort NAME`", "`cohorts`"):
        assert needle in board, needle
    for name, needle in [("review", "/quiz review N"), ("report", "/quiz report cohort NAME"), ("flag", "reason")]:
        assert needle in help_message(name).text
    assert "/quiz help COMMAND" in help_message().text
    with pytest.raises(CommandError, match="Did you mean `schedule`"):
        help_message("schedul")


_SPAN = re.compile(r"`([^`]+)`")
_RULE_START = re.compile(r"^(?:daily|weekdays|weekends|mon|tue|wed|thu|fri|sat|sun|[0-9*])")


def test_every_rule_and_option_a_hint_suggests_is_accepted() -> None:
    checked = 0
    for text in EVERY_MISTAKE:
        with pytest.raises(CommandError) as refused:
            parse_command(text)
        for span in _SPAN.findall(str(refused.value)):
            if span.casefold() in text.casefold() or span.startswith("/quiz") or _PLACEHOLDER.search(span):
                continue  # what was typed, a whole command (checked above), or a usage template
            if span.startswith(("tz:", "close:")):
                parse_command(f"schedule add daily 09:00 {span}")
            elif span.startswith(("start:", "packs:")):
                parse_command(f"cohort create spring {span}")
            elif _RULE_START.match(span) and " " in span:
                parse_command(f"schedule add {span}")
            else:
                continue
            checked += 1
    assert checked >= 15
