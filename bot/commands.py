"""The `/quiz` commands: their dataclasses, the one text grammar every adapter uses, and each command's one
declaration (`SPECS`, shaped by bot/commandspec.py), from which the grammar's dispatch tables, `/quiz help`, the
permissions, confirmations and the Discord tree are read."""

from __future__ import annotations

import dataclasses
import re
import shlex
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from bot.commandspec import (
    Access,
    Autocomplete,
    Choice,
    CommandSpec,
    Example,
    Option,
    OptionKind,
    Permission,
    by_type,
)
from bot.domain import Delivery, QuestionKey
from bot.domain.flags import REASON_MAX, flag_reason
from bot.domain.names import nearest
from bot.domain.schedules import Rule, is_timezone
from bot.domain.windows import Scope, Window
from bot.errors import CommandError
from bot.ports import Message
from bot.schedule_rules import parse_duration, parse_rule, parse_timezone, split_rule
from bot.wording import boards as board_words
from bot.wording import cohorts as cohort_words
from bot.wording import commands as words
from bot.wording import flags as flag_words
from bot.wording import help as help_words
from bot.wording import schedules as schedule_words
from bot.wording import seasons as season_words


@dataclass(frozen=True, slots=True)
class PostNow:
    """`/quiz now [pack]`: post a question here now."""

    pack: str | None = None


@dataclass(frozen=True, slots=True)
class Reveal:
    """`/quiz reveal`: close the current question and show the answer and the distribution."""


@dataclass(frozen=True, slots=True)
class ShowLeaderboard:
    """`/quiz leaderboard [week|month|season [NAME]|all] [channel|workspace|cohort NAME|cohorts]`.

    `cohort` is set for COHORT; `season` names a season for the SEASON window (None: the one running now).
    """

    window: Window = Window.ALL
    scope: Scope = Scope.CHANNEL
    cohort: str | None = None
    season: str | None = None


@dataclass(frozen=True, slots=True)
class ShowMe:
    """`/quiz me`: your own record."""


@dataclass(frozen=True, slots=True)
class ListPacks:
    """`/quiz packs`: the packs there are."""


@dataclass(frozen=True, slots=True)
class ShowHelp:
    """`/quiz help [command]`."""

    topic: str | None = None


@dataclass(frozen=True, slots=True)
class AddSchedule:
    """`/quiz schedule add <when> [pack...] [tz:Area/City] [close:DURATION]`: post questions here on a rule.

    No packs means every pack; no timezone means the channel's; no close means until the next fire (at most 24 h).
    """

    rule: Rule
    packs: tuple[str, ...] = ()
    timezone: str | None = None
    close_after: timedelta | None = None


@dataclass(frozen=True, slots=True)
class AddCohortSchedule:
    """`/quiz schedule add <when> cohort:NAME [tz:Area/City] [close:DURATION]` (admins and the cohort's creator):
    each fire delivers the cohort's next curriculum question, here or to each member privately (its delivery)."""

    rule: Rule
    name: str
    """The cohort (named `name`, as every command the cohort's creator may run)."""
    timezone: str | None = None
    close_after: timedelta | None = None


@dataclass(frozen=True, slots=True)
class ListSchedules:
    """`/quiz schedule list [all]`: this channel's schedules, or the whole workspace's."""

    everywhere: bool = False


@dataclass(frozen=True, slots=True)
class RemoveSchedule:
    """`/quiz schedule remove ID`; asks its runner to confirm first (`confirmed` is set only by that click)."""

    schedule_id: int
    confirmed: bool = False


@dataclass(frozen=True, slots=True)
class PauseSchedule:
    """`/quiz schedule pause ID`."""

    schedule_id: int


@dataclass(frozen=True, slots=True)
class ResumeSchedule:
    """`/quiz schedule resume ID`."""

    schedule_id: int


@dataclass(frozen=True, slots=True)
class NextSchedule:
    """`/quiz schedule next`: what fires next in this channel."""


ScheduleCommand = (
    AddSchedule | AddCohortSchedule | ListSchedules | RemoveSchedule | PauseSchedule | ResumeSchedule | NextSchedule
)


class CohortCommand:
    """Base of the `/quiz cohort ...` commands (handled together by the cohort service)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class CreateCohort(CohortCommand):
    """`/quiz cohort create NAME [start:YYYY-MM-DD] [packs:a,b]`: a cohort on a curriculum (default: every pack)."""

    name: str
    start: date | None = None
    packs: tuple[str, ...] = ()
    delivery: Delivery = Delivery.CHANNEL
    """`deliver:dm`: its schedules send each member the curriculum privately (default `channel`)."""


@dataclass(frozen=True, slots=True)
class JoinCohort(CohortCommand):
    """`/quiz cohort join NAME`."""

    name: str


@dataclass(frozen=True, slots=True)
class LeaveCohort(CohortCommand):
    """`/quiz cohort leave NAME`."""

    name: str


@dataclass(frozen=True, slots=True)
class AddToCohort(CohortCommand):
    """`/quiz cohort add NAME @user...` (admins and the cohort's creator); `users` are platform user ids."""

    name: str
    users: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RemoveFromCohort(CohortCommand):
    """`/quiz cohort remove NAME @user...` (admins and the cohort's creator)."""

    name: str
    users: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ListCohorts(CohortCommand):
    """`/quiz cohort list` (or `/quiz cohorts`)."""


@dataclass(frozen=True, slots=True)
class ShowCohort(CohortCommand):
    """`/quiz cohort show NAME`: members and progress through the curriculum."""

    name: str


@dataclass(frozen=True, slots=True)
class PostCohortQuestion(CohortCommand):
    """`/quiz cohort next NAME`: post the cohort's next curriculum question here (admins and the creator)."""

    name: str


@dataclass(frozen=True, slots=True)
class RemindCohort(CohortCommand):
    """`/quiz cohort remind NAME` (admins and the creator): privately nudge each member who is behind."""

    name: str


@dataclass(frozen=True, slots=True)
class SetCohort(CohortCommand):
    """`/quiz cohort set NAME deliver:dm|channel` (admins and the creator): how its schedules deliver."""

    name: str
    delivery: Delivery


@dataclass(frozen=True, slots=True)
class DeleteCohort(CohortCommand):
    """`/quiz cohort delete NAME` (admins and the creator); answers stay, the cohort and its board go.

    Asks its runner to confirm first; `confirmed` is set only when they do (bot/service/confirmations.py).
    """

    name: str
    confirmed: bool = False


@dataclass(frozen=True, slots=True)
class StartReview:
    """`/quiz review`: privately get the missed question that has been due longest."""


@dataclass(frozen=True, slots=True)
class AnswerReview:
    """`/quiz review N`: answer the review question with the number of a choice."""

    number: int


@dataclass(frozen=True, slots=True)
class ShowReport:
    """`/quiz report [cohort NAME]`: a short summary of the workspace or one cohort."""

    cohort: str | None = None


@dataclass(frozen=True, slots=True)
class FlagQuestion:
    """`/quiz flag [reason]`: report a problem with a question (one flag per person and question).

    Without `post_id` it is the question you last answered in this channel, else the channel's newest one. A
    "Report a problem" button sets `post_id` to the post it was shown under; the text grammar never does.
    """

    reason: str | None = None
    post_id: int | None = None


@dataclass(frozen=True, slots=True)
class ListFlags:
    """`/quiz flags`: the flagged questions, with how many flagged them, their reasons and accuracy (admins)."""


@dataclass(frozen=True, slots=True)
class ClearFlags:
    """`/quiz flags clear PACK/QUESTION`: clear a question's flags, putting it back in rotation (admins)."""

    pack_id: str
    question_key: str


FlagCommand = FlagQuestion | ListFlags | ClearFlags


@dataclass(frozen=True, slots=True)
class StartSeason:
    """`/quiz season start NAME [until:YYYY-MM-DD]` (admins): a season of the workspace from now (through `until`)."""

    name: str
    until: date | None = None


@dataclass(frozen=True, slots=True)
class EndSeason:
    """`/quiz season end` (admins): end the running season and post its final boards; asks to confirm first."""

    confirmed: bool = False


@dataclass(frozen=True, slots=True)
class ListSeasons:
    """`/quiz season list`: the workspace's seasons, the running one first."""


SeasonCommand = StartSeason | EndSeason | ListSeasons


Command = (
    PostNow
    | Reveal
    | ShowLeaderboard
    | ShowMe
    | ListPacks
    | ShowHelp
    | CreateCohort
    | JoinCohort
    | LeaveCohort
    | AddToCohort
    | RemoveFromCohort
    | ListCohorts
    | ShowCohort
    | PostCohortQuestion
    | RemindCohort
    | SetCohort
    | DeleteCohort
    | StartReview
    | AnswerReview
    | ShowReport
    | ScheduleCommand
    | FlagCommand
    | SeasonCommand
)


@dataclass(frozen=True, slots=True)
class Subcommand:
    """One subcommand of `/quiz`: its usage line, a summary, and how to parse its arguments."""

    name: str
    usage: str
    summary: str
    parse: Callable[[list[str]], Command]
    free_text: bool = False
    """Its argument is free text (a reason), handed over whole and unsplit: quotes and apostrophes are just text."""


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


_COHORT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
_MENTION = re.compile(r"<@!?([A-Za-z0-9_.-]+)(?:\|[^>]*)?>")
_LEADERBOARD_USAGE = words.LEADERBOARD_USAGE


def cohort_name(text: str) -> str:
    """A valid cohort name, or CommandError saying what names look like."""
    if not _COHORT_NAME.fullmatch(text):
        raise CommandError(words.not_a_cohort_name, text=text)
    return text


def user_ids(parts: Sequence[str]) -> tuple[str, ...]:
    """Platform user ids from mentions (`<@U123>`, `<@U123|ann>` on Slack, `<@123>`, `<@!123>` on Discord),
    `@name`, or plain ids; commas separate too. Duplicates are dropped, order kept."""
    found: list[str] = []
    for word in parts:
        for raw in word.split(","):
            part = raw.strip()
            if not part:
                continue
            mention = _MENTION.fullmatch(part)
            user = mention.group(1) if mention else part.removeprefix("@")
            if not user or not re.fullmatch(r"[^\s<>@|\x00-\x1f\x7f]{1,64}", user):  # no control characters
                raise CommandError(words.not_a_user, part=part)
            found.append(user)
    return tuple(dict.fromkeys(found))


_WINDOWS = {w.value: w for w in Window} | {"all-time": Window.ALL, "alltime": Window.ALL}
_SCOPES = {scope.value: scope for scope in Scope}


def _not_a_leaderboard_option(word: str) -> CommandError:
    return CommandError(words.not_a_leaderboard_option, word=word, nearest=nearest(word, [*_WINDOWS, *_SCOPES]))


def leaderboard_window(word: str) -> Window:
    """The leaderboard window a word names (`week`, `month`, `all`, `all-time`), or the grammar's CommandError."""
    window = _WINDOWS.get(word.casefold())
    if window is None:
        raise _not_a_leaderboard_option(word)
    return window


def leaderboard_scope(word: str) -> Scope:
    """The leaderboard scope a word names (`channel`, `workspace`, `cohort`, `cohorts`), or the grammar's error."""
    scope = _SCOPES.get(word.casefold())
    if scope is None:
        raise _not_a_leaderboard_option(word)
    return scope


def leaderboard_cohort(name: str | None) -> str:
    """The cohort a one-cohort leaderboard ranks: a valid name, or CommandError asking which cohort."""
    if name is None:
        raise CommandError(words.which_cohort)
    return cohort_name(name)


def _once(kind: str, first: str | None, second: str, example: str) -> None:
    """Refuse a second value where one is meant (`week month`, two `tz:`), naming both and how to give one."""
    if first is not None:
        raise CommandError(words.two_of, kind=kind, first=first, second=second, example=example)


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


def start_date(text: str) -> date:
    """A cohort's start date written as YYYY-MM-DD, or CommandError saying how to write it."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CommandError(words.not_a_date, text=text) from None


def curriculum(pack_ids: Iterable[str]) -> tuple[str, ...]:
    """A cohort's curriculum: the pack ids in the order given, each once, blanks dropped."""
    return tuple(dict.fromkeys(p.strip() for p in pack_ids if p.strip()))


def _parse_create(args: list[str]) -> Command:
    if not args:
        raise CommandError(words.name_the_cohort)
    name = cohort_name(args[0])
    start: date | None = None
    packs: tuple[str, ...] = ()
    start_word: str | None = None
    packs_word: str | None = None
    delivery = Delivery.CHANNEL
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


def delivery_mode(word: str) -> Delivery:
    """How a cohort is delivered, as typed after `deliver:` (`dm`, `channel`), or CommandError naming both."""
    aliases = {"dm": Delivery.DM, "dms": Delivery.DM, "private": Delivery.DM, "channel": Delivery.CHANNEL}
    found = aliases.get(word.strip().casefold())
    if found is None:
        raise CommandError(cohort_words.unknown_delivery, word=word)
    return found


def _parse_set(args: list[str]) -> Command:
    if len(args) != 2 or args[1].partition(":")[0].casefold() not in {"deliver", "delivery"}:
        raise CommandError(cohort_words.set_usage)
    return SetCohort(name=cohort_name(args[0]), delivery=delivery_mode(args[1].partition(":")[2]))


members_usage = words.members_usage
"""What `/quiz cohort add|remove` says when it is not given a cohort and members (bot/wording/commands.py)."""


def _parse_members(action: str, args: list[str]) -> tuple[str, tuple[str, ...]]:
    if len(args) < 2:
        raise CommandError(members_usage, action=action)
    return cohort_name(args[0]), user_ids(args[1:])


def _parse_review(args: list[str]) -> Command:
    given = args[1:] if args and args[0].casefold() == "answer" else args
    if not given and not args:
        return StartReview()
    if len(given) == 1 and given[0].isdigit():
        return AnswerReview(int(given[0]))
    raise CommandError(words.review_usage)


def _parse_report(args: list[str]) -> Command:
    if not args or (len(args) == 1 and args[0].casefold() == "workspace"):
        return ShowReport()
    if len(args) == 2 and args[0].casefold() == "cohort":
        return ShowReport(cohort=cohort_name(args[1]))
    raise CommandError(words.report_usage)


CLOSE_MIN = timedelta(minutes=1)
CLOSE_MAX = timedelta(days=7)


def schedule_id(word: str) -> int:
    """A schedule id as typed (`3` or `#3`), or CommandError pointing at `/quiz schedule list`."""
    digits = word.removeprefix("#")
    if not digits.isascii() or not digits.isdigit() or len(digits) > 18:
        raise CommandError(words.not_a_schedule_id, word=word)
    return int(digits)


def _looks_like_a_timezone(word: str) -> bool:
    """A pack word that is a timezone typed without `tz:`: it has a `/` (`Europe/Helsinki`), or it is a zone name
    written with a capital (`UTC`, `EST`; pack ids are lower case), or `utc`/`gmt` in any case."""
    if "/" in word:
        return True
    if word.casefold() in {"utc", "gmt"}:
        return True
    return word != word.casefold() and is_timezone(word)


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


def schedule_packs(names: Iterable[str]) -> tuple[str, ...]:
    """The packs a schedule draws from: case-folded, in order, each once; `all` and `any` mean every pack."""
    return tuple(dict.fromkeys(word.casefold() for word in names if word.casefold() not in {"all", "any"}))


def close_after(text: str) -> timedelta:
    """How long each scheduled question stays open (`30m`, `2h`, `1d`), within CLOSE_MIN and CLOSE_MAX."""
    return parse_duration(text, minimum=CLOSE_MIN, maximum=CLOSE_MAX)


_QUESTION_PART = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")  # pack and question ids (bot/content/schema.py SLUG)


def question_ref(text: str) -> QuestionKey:
    """(pack id, question id) from `PACK/QUESTION` (or `PACK QUESTION`), or CommandError saying how to write it."""
    parts = [part.casefold() for part in re.split(r"[\s/]+", text) if part]
    if len(parts) != 2 or not all(_QUESTION_PART.fullmatch(part) for part in parts):
        raise CommandError(flag_words.not_a_question, text=text)
    return QuestionKey(parts[0], parts[1])


def _parse_flag(args: list[str]) -> Command:
    return FlagQuestion(reason=flag_reason(" ".join(args)) if args else None)


def help_topic(word: str) -> str:
    """The command `/quiz help WORD` explains (aliases resolved), or CommandError suggesting the nearest one."""
    folded = word.casefold()
    name = _ALIASES.get(folded, folded)
    names = [sub.name for sub in SUBCOMMANDS]
    if name in names:
        return name
    close = nearest(word, [*names, *_ALIASES])
    raise CommandError(
        words.unknown_help_topic, word=word, nearest=list(dict.fromkeys(_ALIASES.get(n, n) for n in close))
    )


def season_name(text: str) -> str:
    """A valid season name (the same shape as a cohort name), or CommandError saying what names look like."""
    if not _COHORT_NAME.fullmatch(text):
        raise CommandError(season_words.not_a_season_name, text=text)
    return text


def season_until(text: str) -> date:
    """A season's last day written as YYYY-MM-DD, or CommandError saying how to write it."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CommandError(season_words.not_a_date, text=text) from None


def _parse_help(args: list[str]) -> Command:
    if len(args) > 1:
        raise CommandError(words.help_takes_one)
    return ShowHelp(topic=help_topic(args[0]) if args else None)


# --- the specs: one declaration per command ---------------------------------------------------------------------
# Each `/quiz` command is declared once, below: its path and other words, the command types it builds (with who may
# run them and whether they ask to confirm), its typed options and how its text and its typed options become its
# command. The grammar's dispatch tables, `/quiz help`, the permission check, confirmations and the Discord tree
# are all read from SPECS and GROUPS (bot/commandspec.py says how).


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


_ITEM_SEPARATORS = re.compile(r"[,\s]+")


def _items(text: str) -> list[str]:
    """A typed list option (`a, b c`) as its items: commas and spaces both separate."""
    return [item for item in _ITEM_SEPARATORS.split(text) if item]


def _members(action: str) -> Callable[[str], tuple[str, ...]]:
    """The validator of a typed `members` option of `cohort add|remove`: mentions or ids, at least one."""

    def members(text: str) -> tuple[str, ...]:
        users = user_ids(text.split())
        if not users:
            raise CommandError(members_usage, action=action)
        return users

    return members


def _typed_leaderboard(
    window: Window | None, scope: Scope | None, cohort: str | None, season: str | None
) -> ShowLeaderboard:
    """A leaderboard from typed options: a season named picks its window, a cohort named (or the one-cohort scope)
    picks the one-cohort scope and asks which cohort when none is named."""
    window = Window.SEASON if season is not None else (window or Window.ALL)
    if cohort is not None or scope is Scope.COHORT:
        return ShowLeaderboard(window=window, scope=Scope.COHORT, cohort=leaderboard_cohort(cohort), season=season)
    return ShowLeaderboard(window=window, scope=scope or Scope.CHANNEL, season=season)


def _window_choices() -> list[Choice]:
    return [Choice(board_words.window_words(window.value), window.value) for window in Window]


def _scope_choices() -> list[Choice]:
    return [Choice(words.scope_choice(scope.value), scope.value) for scope in Scope]


def _delivery_choices() -> list[Choice]:
    return [Choice(words.delivery_choice(mode.value), mode.value) for mode in (Delivery.CHANNEL, Delivery.DM)]


def _help_choices() -> list[Choice]:
    return [Choice(sub.name, sub.name) for sub in SUBCOMMANDS]


_COHORT_OPTION = Option("name", words.OPTION_COHORT, cohort_name, required=True)
_SCHEDULE_ID = Option("id", words.OPTION_SCHEDULE_ID, schedule_id, kind=OptionKind.INTEGER, required=True, min_value=1)
_DELIVER = Option("deliver", words.OPTION_DELIVER, delivery_mode, choices=_delivery_choices)
_ADMIN = Permission.ADMIN
_LEAD = Permission.CREATOR_OR_ADMIN

SPECS: tuple[CommandSpec, ...] = (
    CommandSpec(
        ("now",),
        (Access(PostNow),),
        help_words.summary("now"),
        _parse_now,
        lambda pack: PostNow(pack=pack or None),
        options=(Option("pack", words.OPTION_PACK, autocomplete=Autocomplete.PACK),),
        aliases=("question",),
        example=Example("now data-parallelism", {"pack": "data-parallelism"}),
    ),
    CommandSpec(
        ("reveal",),
        (Access(Reveal),),
        help_words.summary("reveal"),
        _no_args("reveal", Reveal()),
        Reveal,
        example=Example("reveal"),
    ),
    CommandSpec(
        ("leaderboard",),
        (Access(ShowLeaderboard),),
        help_words.summary("leaderboard"),
        _parse_leaderboard,
        _typed_leaderboard,
        options=(
            Option("window", words.OPTION_WINDOW, leaderboard_window, choices=_window_choices),
            Option("scope", words.OPTION_SCOPE, leaderboard_scope, choices=_scope_choices),
            Option("cohort", words.OPTION_BOARD_COHORT, cohort_name),
            Option("season", words.OPTION_BOARD_SEASON, season_name),
        ),
        aliases=("lb", "top"),
        example=Example("leaderboard month workspace", {"window": "month", "scope": "workspace"}),
    ),
    CommandSpec(
        ("me",),
        (Access(ShowMe),),
        help_words.summary("me"),
        _no_args("me", ShowMe()),
        ShowMe,
        aliases=("stats",),
        example=Example("me"),
    ),
    CommandSpec(
        ("packs",),
        (Access(ListPacks),),
        help_words.summary("packs"),
        _no_args("packs", ListPacks()),
        ListPacks,
        example=Example("packs"),
    ),
    CommandSpec(
        ("review",),
        (Access(StartReview), Access(AnswerReview)),
        words.DESCRIBE_REVIEW,
        _parse_review,
        lambda answer: StartReview() if answer is None else AnswerReview(answer),
        options=(Option("answer", words.OPTION_ANSWER, int, kind=OptionKind.INTEGER, min_value=1, max_value=99),),
        example=Example("review 2", {"answer": 2}),
    ),
    CommandSpec(
        ("report",),
        (Access(ShowReport),),
        help_words.summary("report"),
        _parse_report,
        lambda cohort: ShowReport(cohort=cohort),
        options=(Option("cohort", words.OPTION_REPORT_COHORT, cohort_name),),
        example=Example("report cohort spring-26", {"cohort": "spring-26"}),
    ),
    CommandSpec(
        ("flag",),
        (Access(FlagQuestion),),
        help_words.summary("flag"),
        _parse_flag,
        lambda reason: FlagQuestion(reason=reason or None),
        options=(Option("reason", words.OPTION_REASON, flag_reason, values={"limit": REASON_MAX}),),
        free_text=True,
        example=Example("flag two choices are right", {"reason": "two choices are right"}),
    ),
    CommandSpec(
        ("help",),
        (Access(ShowHelp),),
        help_words.summary("help"),
        _parse_help,
        lambda command: ShowHelp(topic=command),
        options=(Option("command", words.OPTION_HELP, help_topic, choices=_help_choices),),
        aliases=("?",),
        example=Example("help schedule", {"command": "schedule"}),
    ),
    CommandSpec(
        ("schedule", "add"),
        (Access(AddSchedule, _ADMIN, "add schedules"), Access(AddCohortSchedule, _LEAD, "add schedules")),
        words.DESCRIBE_SCHEDULE_ADD,
        _parse_schedule_add,
        lambda when, packs, tz, close, cohort: (
            AddCohortSchedule(rule=when, name=cohort, timezone=tz, close_after=close)
            if cohort is not None
            else AddSchedule(rule=when, packs=packs or (), timezone=tz, close_after=close)
        ),
        options=(
            Option("when", words.OPTION_WHEN, parse_rule, required=True),
            Option(
                "packs",
                words.OPTION_PACKS,
                lambda text: schedule_packs(_items(text)),
                autocomplete=Autocomplete.PACK_LIST,
            ),
            Option("tz", words.OPTION_TZ, parse_timezone),
            Option("close", words.OPTION_CLOSE, close_after),
            Option("cohort", words.OPTION_SCHEDULE_COHORT, cohort_name),
        ),
        aliases=("new",),
        example=Example(
            "schedule add weekdays 09:30 data-parallelism", {"when": "weekdays 09:30", "packs": "data-parallelism"}
        ),
    ),
    CommandSpec(
        ("schedule", "list"),
        (Access(ListSchedules),),
        words.DESCRIBE_SCHEDULE_LIST,
        _parse_list_schedules,
        lambda all: ListSchedules(everywhere=bool(all)),
        options=(Option("all", words.OPTION_ALL, lambda text: text == "True", kind=OptionKind.BOOLEAN),),
        aliases=("ls", "show"),
        example=Example("schedule list all", {"all": True}),
    ),
    CommandSpec(
        ("schedule", "remove"),
        (Access(RemoveSchedule, _ADMIN, "remove schedules", confirm=True),),
        words.DESCRIBE_SCHEDULE_REMOVE,
        _schedule_by_id(RemoveSchedule, "remove"),
        lambda id: RemoveSchedule(schedule_id=id),
        options=(_SCHEDULE_ID,),
        aliases=("rm", "delete", "del"),
        example=Example("schedule remove 3", {"id": 3}),
    ),
    CommandSpec(
        ("schedule", "pause"),
        (Access(PauseSchedule, _ADMIN, "pause and resume schedules"),),
        words.DESCRIBE_SCHEDULE_PAUSE,
        _schedule_by_id(PauseSchedule, "pause"),
        lambda id: PauseSchedule(schedule_id=id),
        options=(_SCHEDULE_ID,),
        example=Example("schedule pause 3", {"id": 3}),
    ),
    CommandSpec(
        ("schedule", "resume"),
        (Access(ResumeSchedule, _ADMIN, "pause and resume schedules"),),
        words.DESCRIBE_SCHEDULE_RESUME,
        _schedule_by_id(ResumeSchedule, "resume"),
        lambda id: ResumeSchedule(schedule_id=id),
        options=(_SCHEDULE_ID,),
        aliases=("unpause",),
        example=Example("schedule resume 3", {"id": 3}),
    ),
    CommandSpec(
        ("schedule", "next"),
        (Access(NextSchedule),),
        words.DESCRIBE_SCHEDULE_NEXT,
        _takes_nothing(NextSchedule(), words.schedule_next_takes_nothing),
        NextSchedule,
        example=Example("schedule next"),
    ),
    CommandSpec(
        ("flags", "list"),
        (Access(ListFlags, _ADMIN, "see flagged questions"),),
        words.DESCRIBE_FLAGS_LIST,
        _parse_list_flags,
        ListFlags,
        aliases=("ls", "show"),
        example=Example("flags list"),
    ),
    CommandSpec(
        ("flags", "clear"),
        (Access(ClearFlags, _ADMIN, "clear flags"),),
        words.DESCRIBE_FLAGS_CLEAR,
        _parse_clear_flags,
        lambda question: ClearFlags(pack_id=question.pack_id, question_key=question.key),
        options=(Option("question", words.OPTION_QUESTION, question_ref, required=True),),
        aliases=("resolve", "unflag"),
        example=Example("flags clear data-parallelism/dp-gpu-holds", {"question": "data-parallelism/dp-gpu-holds"}),
    ),
    CommandSpec(
        ("cohort", "create"),
        (Access(CreateCohort),),
        words.DESCRIBE_COHORT_CREATE,
        _parse_create,
        lambda name, start, packs, deliver: CreateCohort(
            name=name, start=start, packs=packs or (), delivery=deliver or Delivery.CHANNEL
        ),
        options=(
            _COHORT_OPTION,
            Option("start", words.OPTION_START, start_date),
            Option(
                "packs",
                words.OPTION_CURRICULUM,
                lambda text: curriculum(_items(text)),
                autocomplete=Autocomplete.PACK_LIST,
            ),
            _DELIVER,
        ),
        aliases=("new",),
        example=Example("cohort create spring-26 start:2026-03-02", {"name": "spring-26", "start": "2026-03-02"}),
    ),
    CommandSpec(
        ("cohort", "join"),
        (Access(JoinCohort),),
        words.DESCRIBE_COHORT_JOIN,
        _cohort_named(JoinCohort, "join"),
        JoinCohort,
        options=(_COHORT_OPTION,),
        example=Example("cohort join spring-26", {"name": "spring-26"}),
    ),
    CommandSpec(
        ("cohort", "leave"),
        (Access(LeaveCohort),),
        words.DESCRIBE_COHORT_LEAVE,
        _cohort_named(LeaveCohort, "leave"),
        LeaveCohort,
        options=(_COHORT_OPTION,),
        example=Example("cohort leave spring-26", {"name": "spring-26"}),
    ),
    CommandSpec(
        ("cohort", "add"),
        (Access(AddToCohort, _LEAD, "add members"),),
        words.DESCRIBE_COHORT_ADD,
        lambda args: AddToCohort(*_parse_members("add", args)),
        lambda name, members: AddToCohort(name=name, users=members),
        options=(_COHORT_OPTION, Option("members", words.OPTION_MEMBERS, _members("add"), required=True)),
        example=Example("cohort add spring-26 <@1002>", {"name": "spring-26", "members": "<@1002>"}),
    ),
    CommandSpec(
        ("cohort", "remove"),
        (Access(RemoveFromCohort, _LEAD, "remove members"),),
        words.DESCRIBE_COHORT_REMOVE,
        lambda args: RemoveFromCohort(*_parse_members("remove", args)),
        lambda name, members: RemoveFromCohort(name=name, users=members),
        options=(_COHORT_OPTION, Option("members", words.OPTION_MEMBERS, _members("remove"), required=True)),
        aliases=("kick",),
        example=Example("cohort remove spring-26 1004", {"name": "spring-26", "members": "1004"}),
    ),
    CommandSpec(
        ("cohort", "list"),
        (Access(ListCohorts),),
        words.DESCRIBE_COHORT_LIST,
        _takes_nothing(ListCohorts(), words.cohort_list_takes_nothing),
        ListCohorts,
        aliases=("ls",),
        example=Example("cohort list"),
    ),
    CommandSpec(
        ("cohort", "show"),
        (Access(ShowCohort),),
        words.DESCRIBE_COHORT_SHOW,
        _cohort_named(ShowCohort, "show"),
        ShowCohort,
        options=(_COHORT_OPTION,),
        aliases=("info",),
        example=Example("cohort show spring-26", {"name": "spring-26"}),
    ),
    CommandSpec(
        ("cohort", "next"),
        (Access(PostCohortQuestion, _LEAD, "post for it"),),
        words.DESCRIBE_COHORT_NEXT,
        _cohort_named(PostCohortQuestion, "next"),
        PostCohortQuestion,
        options=(_COHORT_OPTION,),
        example=Example("cohort next spring-26", {"name": "spring-26"}),
    ),
    CommandSpec(
        ("cohort", "remind"),
        (Access(RemindCohort, _LEAD, "remind its members"),),
        words.DESCRIBE_COHORT_REMIND,
        _cohort_named(RemindCohort, "remind"),
        RemindCohort,
        options=(_COHORT_OPTION,),
        aliases=("nudge",),
        example=Example("cohort remind spring-26", {"name": "spring-26"}),
    ),
    CommandSpec(
        ("cohort", "set"),
        (Access(SetCohort, _LEAD, "change how it is delivered"),),
        words.DESCRIBE_COHORT_SET,
        _parse_set,
        lambda name, deliver: SetCohort(name=name, delivery=deliver),
        options=(_COHORT_OPTION, dataclasses.replace(_DELIVER, required=True)),
        example=Example("cohort set spring-26 deliver:dm", {"name": "spring-26", "deliver": "dm"}),
    ),
    CommandSpec(
        ("cohort", "delete"),
        (Access(DeleteCohort, _LEAD, "delete it", confirm=True),),
        words.DESCRIBE_COHORT_DELETE,
        _cohort_named(DeleteCohort, "delete"),
        DeleteCohort,
        options=(_COHORT_OPTION,),
        example=Example("cohort delete spring-26", {"name": "spring-26"}),
    ),
    CommandSpec(
        ("season", "start"),
        (Access(StartSeason, _ADMIN, "start seasons"),),
        words.DESCRIBE_SEASON_START,
        _parse_start_season,
        lambda name, until: StartSeason(name=name, until=until),
        options=(
            Option("name", words.OPTION_SEASON, season_name, required=True),
            Option("until", words.OPTION_UNTIL, season_until),
        ),
        aliases=("new", "begin"),
        example=Example("season start q1", {"name": "q1"}),
    ),
    CommandSpec(
        ("season", "end"),
        (Access(EndSeason, _ADMIN, "end seasons", confirm=True),),
        words.DESCRIBE_SEASON_END,
        _takes_nothing(EndSeason(), season_words.end_takes_nothing),
        EndSeason,
        aliases=("stop", "finish"),
        example=Example("season end"),
    ),
    CommandSpec(
        ("season", "list"),
        (Access(ListSeasons),),
        words.DESCRIBE_SEASON_LIST,
        _takes_nothing(ListSeasons(), season_words.list_takes_nothing),
        ListSeasons,
        aliases=("ls", "show"),
        example=Example("season list"),
    ),
)
"""Every `/quiz` command, once; top-level commands first, then each group's actions, in the order Discord shows."""


@dataclass(frozen=True, slots=True)
class GroupSpec:
    """A group of actions (`/quiz cohort ...`): its other names, what it means alone, and its refusal for a word
    that is none of its actions (given the word and the actions, from the specs)."""

    name: str
    bare: Callable[[], Command]
    unknown: Callable[[str, Sequence[str]], CommandError]
    aliases: tuple[str, ...] = ()


def _schedule_needs_action() -> Command:
    raise CommandError(words.schedule_needs_action)


GROUPS: tuple[GroupSpec, ...] = (
    GroupSpec(
        "schedule",
        _schedule_needs_action,
        lambda word, actions: CommandError(words.not_a_schedule_action, word=word, nearest=nearest(word, actions)),
        aliases=("schedules", "sched"),
    ),
    GroupSpec(
        "flags",
        ListFlags,
        lambda word, actions: CommandError(flag_words.not_a_flags_action, word=word, nearest=nearest(word, actions)),
    ),
    GroupSpec(
        "cohort",
        ListCohorts,
        lambda word, actions: CommandError(
            words.not_a_cohort_command, word=word, nearest=nearest(word, actions), actions=actions
        ),
        aliases=("cohorts",),
    ),
    GroupSpec(
        "season",
        ListSeasons,
        lambda word, actions: CommandError(
            season_words.not_a_season_action, word=word, usage=help_words.usage("season")
        ),
        aliases=("seasons",),
    ),
)
"""The groups of actions; a group's actions are the specs whose path starts with its name."""

ACCESS: dict[type[Any], Access] = by_type(SPECS)
"""Each command type's permission, refusal words and confirmation, from SPECS."""


def _actions_of(group: str) -> list[str]:
    """A group's actions, by their main word, in the specs' order."""
    return [spec.name for spec in SPECS if spec.group == group]


def _group_parser(group: GroupSpec) -> Callable[[list[str]], Command]:
    """The text grammar of a group: its bare meaning, an action by any of its words, or the group's refusal."""
    actions = {word: spec for spec in SPECS if spec.group == group.name for word in (spec.name, *spec.aliases)}

    def parse(args: list[str]) -> Command:
        if not args:
            return group.bare()
        spec = actions.get(args[0].casefold())
        if spec is None:
            raise group.unknown(args[0], _actions_of(group.name))
        try:
            command: Command = spec.parse(args[1:])
        except _NotThisAction:
            raise group.unknown(args[0], _actions_of(group.name)) from None
        return command

    return parse


def _top_level() -> dict[str, tuple[Callable[[list[str]], Command], tuple[str, ...]]]:
    """Each top-level word's parser and other names: a command's own, or its group's dispatcher."""
    found: dict[str, tuple[Callable[[list[str]], Command], tuple[str, ...]]] = {
        spec.name: (spec.parse, spec.aliases) for spec in SPECS if spec.group is None
    }
    for group in GROUPS:
        found[group.name] = (_group_parser(group), group.aliases)
    return found


_PARSERS = _top_level()
_FREE_TEXT = {spec.name: spec.free_text for spec in SPECS if spec.group is None}
SUBCOMMANDS: tuple[Subcommand, ...] = tuple(
    Subcommand(
        name, help_words.usage(name), help_words.summary(name), _PARSERS[name][0], free_text=_FREE_TEXT.get(name, False)
    )
    for name in help_words.COMMANDS
    if name in _PARSERS
)
"""The text grammar's first words, in `/quiz help`'s order, from SPECS and GROUPS (and their help words)."""
_ALIASES = {alias: name for name, (_, aliases) in _PARSERS.items() for alias in aliases}


def help_lines(topic: str | None = None) -> list[str]:
    """Help text: every subcommand with its usage, or one subcommand's usage."""
    if topic:
        name = _ALIASES.get(topic, topic)
        for sub in SUBCOMMANDS:
            if sub.name == name:
                return [help_words.usage_line(sub.usage, sub.summary)]
    return [help_words.usage_line(sub.usage, sub.summary) for sub in SUBCOMMANDS]


def help_message(topic: str | None = None) -> Message:
    """The reply to `/quiz help [command]`: every command, or one in full (its syntax, the details, an example)."""
    if topic is None:
        return help_words.help_message(help_lines())
    name = help_topic(topic)
    return help_words.command_help(help_lines(name)[0], name)


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise CommandError(words.unreadable, problem=str(exc)) from exc


COMMAND_TEXT_MAX = 8000
"""The longest `/quiz` text the grammar reads (every real command is far shorter): splitting a 900 KB text once held
the event loop for seconds, and every click waited behind it."""

_FIRST_WORD = re.compile(r"\s*(\S+)(.*)", re.DOTALL)


def _free_text(text: str, subcommands: Sequence[Subcommand]) -> Command | None:
    """A free-text subcommand (`/quiz flag it's wrong`) parsed from the raw text, or None for every other one."""
    match = _FIRST_WORD.fullmatch(text)
    if match is not None and match[1].casefold() in {"/quiz", "quiz"}:
        match = _FIRST_WORD.fullmatch(match[2])
    if match is None:
        return None
    name = _ALIASES.get(match[1].casefold(), match[1].casefold())
    sub = next((sub for sub in subcommands if sub.name == name and sub.free_text), None)
    if sub is None:
        return None
    rest = match[2].strip()
    return sub.parse([rest] if rest else [])


def parse_command(text: str, *, subcommands: Sequence[Subcommand] = SUBCOMMANDS) -> Command:
    """Parse the text after `/quiz` (a leading `/quiz` is accepted too) into a Command.

    Empty text means help. Unknown or malformed input raises CommandError whose message says what to type; only a
    command the grammar cannot place at all (no near name either) carries the command list as its lines. A text
    longer than COMMAND_TEXT_MAX is refused before anything reads it.
    """
    if len(text) > COMMAND_TEXT_MAX:
        raise CommandError(words.command_too_long(COMMAND_TEXT_MAX))
    free = _free_text(text, subcommands)
    if free is not None:
        return free
    given = _split(text.strip())
    if given and given[0].casefold() in {"/quiz", "quiz"}:
        given = given[1:]
    if not given:
        return ShowHelp()
    name = _ALIASES.get(given[0].casefold(), given[0].casefold())
    for sub in subcommands:
        if sub.name == name:
            return sub.parse(given[1:])
    names = [sub.name for sub in subcommands]
    close = nearest(given[0], [*names, *_ALIASES])
    suggestions = list(dict.fromkeys(_ALIASES.get(word, word) for word in close))
    if suggestions:
        raise CommandError(words.unknown_command, word=given[0], known=names, nearest=suggestions)
    raise CommandError(words.unknown_command, word=given[0], known=names, nearest=(), lines=tuple(help_lines()))


HINT_LIMIT = 30
"""A command's syntax longer than this is hinted by its name and `...`."""


def usage_hint() -> str:
    """A one-line hint of every `/quiz` command (the Slack manifest's `usage_hint`): each command's syntax when it
    is short, else its name and `...`, in `/quiz help`'s order."""
    hints = []
    for sub in SUBCOMMANDS:
        syntax = sub.usage.removeprefix("/quiz ")
        short = len(syntax) <= HINT_LIMIT and " | " not in syntax and sub.name not in {g.name for g in GROUPS}
        hints.append(syntax if short else f"{sub.name} ...")
    return " | ".join(hints)
