"""Each `/quiz` command's words to its command: the text parsers the specs name (and the typed leaderboard's
builder), over the argument validators."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

from bot.commands.arguments import (
    _SCOPES,
    _WINDOWS,
    _looks_like_a_timezone,
    _not_a_leaderboard_option,
    _once,
    close_after,
    cohort_name,
    curriculum,
    delivery_mode,
    leaderboard_cohort,
    members_usage,
    question_ref,
    schedule_id,
    schedule_packs,
    season_name,
    season_until,
    start_date,
    user_ids,
)
from bot.commands.types import (
    AddCohortSchedule,
    AddSchedule,
    AnswerReview,
    ClearFlags,
    Command,
    CreateCohort,
    FlagQuestion,
    ListFlags,
    ListSchedules,
    PostNow,
    SetCohort,
    ShowLeaderboard,
    ShowReport,
    StartReview,
    StartSeason,
)
from bot.domain import Delivery
from bot.domain.flags import flag_reason
from bot.domain.text import whole_number
from bot.domain.windows import Scope, Window
from bot.errors import CommandError
from bot.schedule_rules import parse_timezone, split_rule
from bot.wording import cohorts as cohort_words
from bot.wording import commands as words
from bot.wording import flags as flag_words
from bot.wording import schedules as schedule_words
from bot.wording import seasons as season_words


def _no_args(name: str, command: Command) -> Callable[[list[str]], Command]:
    def parse(args: list[str]) -> Command:
        if args:
            raise CommandError(words.takes_no_arguments, name=name, got=args)
        return command

    return parse


def _parse_now(args: list[str]) -> Command:
    if len(args) > 1:
        raise CommandError(words.now_takes_one_pack)
    return PostNow(pack=args[0] if args else None)


def _parse_leaderboard(args: list[str]) -> Command:
    window, scope, cohort, season = Window.ALL, Scope.CHANNEL, None, None
    window_word: str | None = None
    scope_word: str | None = None
    position = 0
    while position < len(args):
        arg = args[position]
        word = arg.casefold()
        position += 1
        if word in _WINDOWS:
            _once("window", window_word, arg, f"/quiz leaderboard {window_word}")
            window, window_word, season = _WINDOWS[word], arg, None
            following = args[position].casefold() if position < len(args) else None
            # `season NAME`: a word after `season` that is no other option names a past (or the running) season
            if window is Window.SEASON and following is not None and following not in _WINDOWS | _SCOPES:
                season = season_name(args[position])
                window_word = f"{arg} {season}"
                position += 1
        elif word == Scope.COHORT.value:
            name = leaderboard_cohort(args[position] if position < len(args) else None)
            position += 1
            _once("scope", scope_word, f"{arg} {name}", f"/quiz leaderboard {scope_word}")
            scope, cohort, scope_word = Scope.COHORT, name, f"{arg} {name}"
        elif word in _SCOPES:
            _once("scope", scope_word, arg, f"/quiz leaderboard {scope_word}")
            scope, cohort, scope_word = _SCOPES[word], None, arg
        else:
            raise _not_a_leaderboard_option(arg)
    return ShowLeaderboard(window=window, scope=scope, cohort=cohort, season=season)


def _one_name(action: str, args: list[str]) -> str:
    if len(args) != 1:
        raise CommandError(words.takes_one_cohort_name, action=action)
    return cohort_name(args[0])


def _parse_create(args: list[str]) -> Command:
    if not args:
        raise CommandError(words.name_the_cohort)
    name = cohort_name(args[0])
    start: date | None = None
    packs: tuple[str, ...] = ()
    start_word: str | None = None
    packs_word: str | None = None
    delivery: Delivery | None = None
    for arg in args[1:]:
        option, sep, value = arg.partition(":")
        option = option.casefold()
        if sep and option == "start":
            if not value:
                raise CommandError(words.start_needs_date)
            _once("start", start_word, arg, f"/quiz cohort create {name} {start_word}")
            start, start_word = start_date(value), arg
        elif sep and option in {"deliver", "delivery"}:
            delivery = delivery_mode(value)
        elif sep and option in {"packs", "curriculum"}:  # a curriculum's id expands to its packs (the catalog's)
            packs = curriculum(value.split(","))
            if not packs:
                raise CommandError(words.packs_needs_ids)
            _once("packs", packs_word, arg, f"/quiz cohort create {name} {packs_word}")
            packs_word = arg
        else:
            raise CommandError(words.not_a_cohort_option, arg=arg)
    return CreateCohort(name=name, start=start, packs=packs, delivery=delivery)


def _parse_set(args: list[str]) -> Command:
    if len(args) != 2 or args[1].partition(":")[0].casefold() not in {"deliver", "delivery"}:
        raise CommandError(cohort_words.set_usage)
    return SetCohort(name=cohort_name(args[0]), delivery=delivery_mode(args[1].partition(":")[2]))


def _parse_members(action: str, args: list[str]) -> tuple[str, tuple[str, ...]]:
    if len(args) < 2:
        raise CommandError(members_usage, action=action)
    return cohort_name(args[0]), user_ids(args[1:])


def _parse_review(args: list[str]) -> Command:
    given = args[1:] if args and args[0].casefold() == "answer" else args
    if not given and not args:
        return StartReview()
    if len(given) == 1 and (number := whole_number(given[0])) is not None:
        return AnswerReview(number)
    raise CommandError(words.review_usage)


def _parse_report(args: list[str]) -> Command:
    if not args or (len(args) == 1 and args[0].casefold() == "workspace"):
        return ShowReport()
    if len(args) == 2 and args[0].casefold() == "cohort":
        return ShowReport(cohort=cohort_name(args[1]))
    raise CommandError(words.report_usage)


def _parse_schedule_add(args: list[str]) -> AddSchedule | AddCohortSchedule:
    if not args:
        raise CommandError(words.say_when)
    rule, rest = split_rule(args)
    when = " ".join(args[: len(args) - len(rest)])  # the rule as typed, for a hint that repeats it
    packs: list[str] = []
    timezone: str | None = None
    closes: timedelta | None = None
    tz_word: str | None = None
    close_word: str | None = None
    cohort: str | None = None
    for word in rest:
        key, sep, value = word.replace("=", ":", 1).partition(":")
        key = key.casefold()
        if sep and key in {"tz", "timezone", "zone"}:
            if not value:
                raise CommandError(words.timezone_needs_name)
            _once("timezone", tz_word, word, f"/quiz schedule add {when} {tz_word}")
            timezone, tz_word = parse_timezone(value), word
        elif sep and key in {"close", "closes", "close-after"}:
            if not value:
                raise CommandError(words.close_needs_duration)
            _once("close", close_word, word, f"/quiz schedule add {when} {close_word}")
            closes, close_word = close_after(value), word
        elif sep and key in {"packs", "pack", "curriculum"}:
            raise CommandError(words.schedule_packs_are_words)
        elif sep and key == "cohort":
            cohort = cohort_name(value)
        elif sep:
            raise CommandError(words.unknown_schedule_option, key=key)
        elif _looks_like_a_timezone(word):
            raise CommandError(words.looks_like_a_timezone, word=word)
        else:
            packs.append(word)
    if cohort is not None:
        if packs:
            raise CommandError(schedule_words.cohort_takes_no_packs, cohort=cohort)
        return AddCohortSchedule(rule=rule, name=cohort, timezone=timezone, close_after=closes)
    return AddSchedule(rule=rule, packs=schedule_packs(packs), timezone=timezone, close_after=closes)


def _parse_flag(args: list[str]) -> Command:
    return FlagQuestion(reason=flag_reason(" ".join(args)) if args else None)


def _takes_nothing(command: Command, refusal: Callable[[], str]) -> Callable[[list[str]], Command]:
    """A group action that takes no arguments: its command, or the refusal's message for any extra word."""

    def parse(args: list[str]) -> Command:
        if args:
            raise CommandError(refusal)
        return command

    return parse


def _cohort_named(kind: Callable[[str], Command], action: str) -> Callable[[list[str]], Command]:
    """A cohort action that takes one cohort name (`join NAME`)."""
    return lambda args: kind(_one_name(action, args))


def _parse_list_schedules(args: list[str]) -> Command:
    if args and [word.casefold() for word in args] != ["all"]:
        raise CommandError(words.schedule_list_usage)
    return ListSchedules(everywhere=bool(args))


def _schedule_by_id(kind: Callable[[int], Command], action: str) -> Callable[[list[str]], Command]:
    """A schedule action that takes one schedule id (`pause 3`)."""

    def parse(args: list[str]) -> Command:
        if len(args) != 1:
            raise CommandError(words.takes_one_schedule_id, action=action)
        return kind(schedule_id(args[0]))

    return parse


class _NotThisAction(Exception):
    """An action's words do not fit it at all: the group refuses the action word as it refuses an unknown one."""


def _parse_list_flags(args: list[str]) -> Command:
    if args:  # `/quiz flags list x`: as before the specs, `list` followed by more is no flags action
        raise _NotThisAction
    return ListFlags()


def _parse_clear_flags(args: list[str]) -> Command:
    if not 1 <= len(args) <= 2:
        raise CommandError(flag_words.which_question_to_clear)
    pack, key = question_ref(" ".join(args))
    return ClearFlags(pack_id=pack, question_key=key)


def _parse_start_season(args: list[str]) -> Command:
    if not args:
        raise CommandError(season_words.name_the_season)
    name, until = season_name(args[0]), None
    for arg in args[1:]:
        option, _, value = arg.replace("=", ":", 1).partition(":")
        if option.casefold() in {"until", "end", "ends"} and value:
            until = season_until(value)
        else:
            raise CommandError(season_words.not_a_season_option, arg=arg)
    return StartSeason(name=name, until=until)


def _typed_leaderboard(
    window: Window | None, scope: Scope | None, cohort: str | None, season: str | None
) -> ShowLeaderboard:
    """A leaderboard from typed options: a season named picks its window, a cohort named (or the one-cohort scope)
    picks the one-cohort scope and asks which cohort when none is named."""
    window = Window.SEASON if season is not None else (window or Window.ALL)
    if cohort is not None or scope is Scope.COHORT:
        return ShowLeaderboard(window=window, scope=Scope.COHORT, cohort=leaderboard_cohort(cohort), season=season)
    return ShowLeaderboard(window=window, scope=scope or Scope.CHANNEL, season=season)
