"""The `/quiz` command grammar, parsed once here and used by every adapter."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from bot.domain import Delivery, QuestionKey
from bot.domain.flags import flag_reason
from bot.domain.names import nearest
from bot.domain.schedules import Rule, is_timezone
from bot.domain.windows import Scope, Window
from bot.errors import CommandError
from bot.ports import Message
from bot.schedule_rules import parse_duration, parse_timezone, split_rule
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
            raise CommandError(words.takes_no_arguments(name, args))
        return command

    return parse


def _parse_now(args: list[str]) -> Command:
    if len(args) > 1:
        raise CommandError(words.now_takes_one_pack())
    return PostNow(pack=args[0] if args else None)


_COHORT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
_MENTION = re.compile(r"<@!?([A-Za-z0-9_.-]+)(?:\|[^>]*)?>")
_LEADERBOARD_USAGE = words.LEADERBOARD_USAGE


def cohort_name(text: str) -> str:
    """A valid cohort name, or CommandError saying what names look like."""
    if not _COHORT_NAME.fullmatch(text):
        raise CommandError(words.not_a_cohort_name(text))
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
                raise CommandError(words.not_a_user(part))
            found.append(user)
    return tuple(dict.fromkeys(found))


_WINDOWS = {w.value: w for w in Window} | {"all-time": Window.ALL, "alltime": Window.ALL}
_SCOPES = {scope.value: scope for scope in Scope}


def _not_a_leaderboard_option(word: str) -> CommandError:
    return CommandError(words.not_a_leaderboard_option(word, nearest(word, [*_WINDOWS, *_SCOPES])))


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
        raise CommandError(words.which_cohort())
    return cohort_name(name)


def _once(kind: str, first: str | None, second: str, example: str) -> None:
    """Refuse a second value where one is meant (`week month`, two `tz:`), naming both and how to give one."""
    if first is not None:
        raise CommandError(words.two_of(kind, first, second, example))


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
        raise CommandError(words.takes_one_cohort_name(action))
    return cohort_name(args[0])


def start_date(text: str) -> date:
    """A cohort's start date written as YYYY-MM-DD, or CommandError saying how to write it."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CommandError(words.not_a_date(text)) from None


def curriculum(pack_ids: Iterable[str]) -> tuple[str, ...]:
    """A cohort's curriculum: the pack ids in the order given, each once, blanks dropped."""
    return tuple(dict.fromkeys(p.strip() for p in pack_ids if p.strip()))


def _parse_create(args: list[str]) -> Command:
    if not args:
        raise CommandError(words.name_the_cohort())
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
                raise CommandError(words.start_needs_date())
            _once("start", start_word, arg, f"/quiz cohort create {name} {start_word}")
            start, start_word = start_date(value), arg
        elif sep and option in {"deliver", "delivery"}:
            delivery = delivery_mode(value)
        elif sep and option in {"packs", "curriculum"}:  # a curriculum's id expands to its packs (the catalog's)
            packs = curriculum(value.split(","))
            if not packs:
                raise CommandError(words.packs_needs_ids())
            _once("packs", packs_word, arg, f"/quiz cohort create {name} {packs_word}")
            packs_word = arg
        else:
            raise CommandError(words.not_a_cohort_option(arg))
    return CreateCohort(name=name, start=start, packs=packs, delivery=delivery)


def delivery_mode(word: str) -> Delivery:
    """How a cohort is delivered, as typed after `deliver:` (`dm`, `channel`), or CommandError naming both."""
    aliases = {"dm": Delivery.DM, "dms": Delivery.DM, "private": Delivery.DM, "channel": Delivery.CHANNEL}
    found = aliases.get(word.strip().casefold())
    if found is None:
        raise CommandError(cohort_words.unknown_delivery(word))
    return found


def _parse_set(args: list[str]) -> Command:
    if len(args) != 2 or args[1].partition(":")[0].casefold() not in {"deliver", "delivery"}:
        raise CommandError(cohort_words.set_usage())
    return SetCohort(name=cohort_name(args[0]), delivery=delivery_mode(args[1].partition(":")[2]))


members_usage = words.members_usage
"""What `/quiz cohort add|remove` says when it is not given a cohort and members (bot/wording/commands.py)."""


def _parse_members(action: str, args: list[str]) -> tuple[str, tuple[str, ...]]:
    if len(args) < 2:
        raise CommandError(members_usage(action))
    return cohort_name(args[0]), user_ids(args[1:])


_COHORT_ACTIONS = ("create", "join", "leave", "add", "remove", "list", "show", "next", "remind", "set", "delete")


def _parse_cohort(args: list[str]) -> Command:
    if not args:
        return ListCohorts()
    action, rest = args[0].casefold(), args[1:]
    match action:
        case "create" | "new":
            return _parse_create(rest)
        case "join":
            return JoinCohort(_one_name(action, rest))
        case "leave":
            return LeaveCohort(_one_name(action, rest))
        case "add":
            return AddToCohort(*_parse_members(action, rest))
        case "remove" | "kick":
            return RemoveFromCohort(*_parse_members("remove", rest))
        case "list" | "ls":
            if rest:
                raise CommandError(words.cohort_list_takes_nothing())
            return ListCohorts()
        case "show" | "info":
            return ShowCohort(_one_name("show", rest))
        case "next":
            return PostCohortQuestion(_one_name(action, rest))
        case "remind" | "nudge":
            return RemindCohort(_one_name("remind", rest))
        case "set":
            return _parse_set(rest)
        case "delete":
            return DeleteCohort(_one_name(action, rest))
    raise CommandError(words.not_a_cohort_command(args[0], nearest(args[0], _COHORT_ACTIONS)))


def _parse_review(args: list[str]) -> Command:
    given = args[1:] if args and args[0].casefold() == "answer" else args
    if not given and not args:
        return StartReview()
    if len(given) == 1 and given[0].isdigit():
        return AnswerReview(int(given[0]))
    raise CommandError(words.review_usage())


def _parse_report(args: list[str]) -> Command:
    if not args or (len(args) == 1 and args[0].casefold() == "workspace"):
        return ShowReport()
    if len(args) == 2 and args[0].casefold() == "cohort":
        return ShowReport(cohort=cohort_name(args[1]))
    raise CommandError(words.report_usage())


CLOSE_MIN = timedelta(minutes=1)
CLOSE_MAX = timedelta(days=7)
_SCHEDULE_ACTIONS = {
    "add": "add",
    "new": "add",
    "list": "list",
    "ls": "list",
    "show": "list",
    "remove": "remove",
    "rm": "remove",
    "delete": "remove",
    "del": "remove",
    "pause": "pause",
    "resume": "resume",
    "unpause": "resume",
    "next": "next",
}


def _parse_schedule(args: list[str]) -> Command:
    if not args:
        raise CommandError(words.schedule_needs_action())
    action = _SCHEDULE_ACTIONS.get(args[0].casefold())
    rest = args[1:]
    if action is None:
        suggestions = nearest(args[0], dict.fromkeys(_SCHEDULE_ACTIONS.values()))
        raise CommandError(words.not_a_schedule_action(args[0], suggestions))
    if action == "add":
        return _parse_schedule_add(rest)
    if action == "list":
        if rest and [word.casefold() for word in rest] != ["all"]:
            raise CommandError(words.schedule_list_usage())
        return ListSchedules(everywhere=bool(rest))
    if action == "next":
        if rest:
            raise CommandError(words.schedule_next_takes_nothing())
        return NextSchedule()
    if len(rest) != 1:
        raise CommandError(words.takes_one_schedule_id(action))
    ident = schedule_id(rest[0])
    if action == "remove":
        return RemoveSchedule(ident)
    return PauseSchedule(ident) if action == "pause" else ResumeSchedule(ident)


def schedule_id(word: str) -> int:
    """A schedule id as typed (`3` or `#3`), or CommandError pointing at `/quiz schedule list`."""
    digits = word.removeprefix("#")
    if not digits.isascii() or not digits.isdigit() or len(digits) > 18:
        raise CommandError(words.not_a_schedule_id(word))
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
        raise CommandError(words.say_when())
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
                raise CommandError(words.timezone_needs_name())
            _once("timezone", tz_word, word, f"/quiz schedule add {when} {tz_word}")
            timezone, tz_word = parse_timezone(value), word
        elif sep and key in {"close", "closes", "close-after"}:
            if not value:
                raise CommandError(words.close_needs_duration())
            _once("close", close_word, word, f"/quiz schedule add {when} {close_word}")
            closes, close_word = close_after(value), word
        elif sep and key in {"packs", "pack", "curriculum"}:
            raise CommandError(words.schedule_packs_are_words())
        elif sep and key == "cohort":
            cohort = cohort_name(value)
        elif sep:
            raise CommandError(words.unknown_schedule_option(key))
        elif _looks_like_a_timezone(word):
            raise CommandError(words.looks_like_a_timezone(word))
        else:
            packs.append(word)
    if cohort is not None:
        if packs:
            raise CommandError(schedule_words.cohort_takes_no_packs(cohort))
        return AddCohortSchedule(rule=rule, name=cohort, timezone=timezone, close_after=closes)
    return AddSchedule(rule=rule, packs=schedule_packs(packs), timezone=timezone, close_after=closes)


def schedule_packs(names: Iterable[str]) -> tuple[str, ...]:
    """The packs a schedule draws from: case-folded, in order, each once; `all` and `any` mean every pack."""
    return tuple(dict.fromkeys(word.casefold() for word in names if word.casefold() not in {"all", "any"}))


def close_after(text: str) -> timedelta:
    """How long each scheduled question stays open (`30m`, `2h`, `1d`), within CLOSE_MIN and CLOSE_MAX."""
    return parse_duration(text, minimum=CLOSE_MIN, maximum=CLOSE_MAX)


_QUESTION_PART = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")  # pack and question ids (bot/content/schema.py SLUG)
_CLEAR = {"clear", "resolve", "unflag"}


def question_ref(text: str) -> QuestionKey:
    """(pack id, question id) from `PACK/QUESTION` (or `PACK QUESTION`), or CommandError saying how to write it."""
    parts = [part.casefold() for part in re.split(r"[\s/]+", text) if part]
    if len(parts) != 2 or not all(_QUESTION_PART.fullmatch(part) for part in parts):
        raise CommandError(flag_words.not_a_question(text))
    return QuestionKey(parts[0], parts[1])


def _parse_flag(args: list[str]) -> Command:
    return FlagQuestion(reason=flag_reason(" ".join(args)) if args else None)


def _parse_flags(args: list[str]) -> Command:
    if not args or (len(args) == 1 and args[0].casefold() in {"list", "ls", "show"}):
        return ListFlags()
    if args[0].casefold() not in _CLEAR:
        raise CommandError(flag_words.not_a_flags_action(args[0], nearest(args[0], ["list", "clear"])))
    if not 2 <= len(args) <= 3:
        raise CommandError(flag_words.which_question_to_clear())
    pack, key = question_ref(" ".join(args[1:]))
    return ClearFlags(pack_id=pack, question_key=key)


def help_topic(word: str) -> str:
    """The command `/quiz help WORD` explains (aliases resolved), or CommandError suggesting the nearest one."""
    folded = word.casefold()
    name = _ALIASES.get(folded, folded)
    names = [sub.name for sub in SUBCOMMANDS]
    if name in names:
        return name
    close = nearest(word, [*names, *_ALIASES])
    raise CommandError(words.unknown_help_topic(word, list(dict.fromkeys(_ALIASES.get(n, n) for n in close))))


_SEASON_USAGE = help_words.usage("season")


def season_name(text: str) -> str:
    """A valid season name (the same shape as a cohort name), or CommandError saying what names look like."""
    if not _COHORT_NAME.fullmatch(text):
        raise CommandError(season_words.not_a_season_name(text))
    return text


def season_until(text: str) -> date:
    """A season's last day written as YYYY-MM-DD, or CommandError saying how to write it."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CommandError(season_words.not_a_date(text)) from None


def _parse_season(args: list[str]) -> Command:
    if not args:
        return ListSeasons()
    action, rest = args[0].casefold(), args[1:]
    if action in {"start", "new", "begin"}:
        if not rest:
            raise CommandError(season_words.name_the_season())
        name, until = season_name(rest[0]), None
        for arg in rest[1:]:
            option, _, value = arg.replace("=", ":", 1).partition(":")
            if option.casefold() in {"until", "end", "ends"} and value:
                until = season_until(value)
            else:
                raise CommandError(season_words.not_a_season_option(arg))
        return StartSeason(name=name, until=until)
    if action in {"end", "stop", "finish"}:
        if rest:
            raise CommandError(season_words.end_takes_nothing())
        return EndSeason()
    if action in {"list", "ls", "show"}:
        if rest:
            raise CommandError(season_words.list_takes_nothing())
        return ListSeasons()
    raise CommandError(season_words.not_a_season_action(args[0], _SEASON_USAGE))


def _parse_help(args: list[str]) -> Command:
    if len(args) > 1:
        raise CommandError(words.help_takes_one())
    return ShowHelp(topic=help_topic(args[0]) if args else None)


def _sub(name: str, parse: Callable[[list[str]], Command], *, free_text: bool = False) -> Subcommand:
    """A subcommand with its usage line and summary from bot/wording/help.py."""
    return Subcommand(name, help_words.usage(name), help_words.summary(name), parse, free_text=free_text)


SUBCOMMANDS: tuple[Subcommand, ...] = (
    _sub("now", _parse_now),
    _sub("reveal", _no_args("reveal", Reveal())),
    _sub("leaderboard", _parse_leaderboard),
    _sub("me", _no_args("me", ShowMe())),
    _sub("cohort", _parse_cohort),
    _sub("review", _parse_review),
    _sub("report", _parse_report),
    _sub("packs", _no_args("packs", ListPacks())),
    _sub("schedule", _parse_schedule),
    _sub("flag", _parse_flag, free_text=True),
    _sub("flags", _parse_flags),
    _sub("season", _parse_season),
    _sub("help", _parse_help),
)
_ALIASES = {
    "lb": "leaderboard",
    "top": "leaderboard",
    "stats": "me",
    "question": "now",
    "?": "help",
    "cohorts": "cohort",
    "schedules": "schedule",
    "sched": "schedule",
    "seasons": "season",
}


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
        raise CommandError(words.unreadable(str(exc))) from exc


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
        raise CommandError(words.unknown_command(given[0], names, suggestions))
    raise CommandError(words.unknown_command(given[0], names, ()), lines=tuple(help_lines()))
