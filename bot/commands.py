"""The `/quiz` command grammar, parsed once here and used by every adapter."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from bot.domain import Delivery, QuestionKey
from bot.domain.flags import flag_reason
from bot.domain.windows import Scope, Window
from bot.errors import CommandError
from bot.scheduling.rules import Rule, parse_duration, parse_timezone, split_rule
from bot.wording import cohorts as cohort_words
from bot.wording import flags as flag_words
from bot.wording import schedules as schedule_words


@dataclass(frozen=True, slots=True)
class PostNow:
    """`/quiz now [pack]`: post a question here now."""

    pack: str | None = None


@dataclass(frozen=True, slots=True)
class Reveal:
    """`/quiz reveal`: close the current question and show the answer and the distribution."""


@dataclass(frozen=True, slots=True)
class ShowLeaderboard:
    """`/quiz leaderboard [week|month|all] [channel|workspace|cohort NAME|cohorts]`; `cohort` is set for COHORT."""

    window: Window = Window.ALL
    scope: Scope = Scope.CHANNEL
    cohort: str | None = None


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
    """`/quiz schedule remove ID`."""

    schedule_id: int


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
class SetCohort(CohortCommand):
    """`/quiz cohort set NAME deliver:dm|channel` (admins and the creator): how its schedules deliver."""

    name: str
    delivery: Delivery


@dataclass(frozen=True, slots=True)
class DeleteCohort(CohortCommand):
    """`/quiz cohort delete NAME` (admins and the creator); answers stay, the cohort and its board go."""

    name: str


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
    | SetCohort
    | DeleteCohort
    | StartReview
    | AnswerReview
    | ShowReport
    | ScheduleCommand
    | FlagCommand
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
            raise CommandError(f"`/quiz {name}` takes no arguments (got `{' '.join(args)}`).")
        return command

    return parse


def _parse_now(args: list[str]) -> Command:
    if len(args) > 1:
        raise CommandError("`/quiz now` takes at most one pack id, e.g. `/quiz now data-parallelism`.")
    return PostNow(pack=args[0] if args else None)


_COHORT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
_MENTION = re.compile(r"<@!?([A-Za-z0-9_.-]+)(?:\|[^>]*)?>")
_LEADERBOARD_USAGE = "/quiz leaderboard [week|month|all] [channel|workspace|cohort NAME|cohorts]"


def cohort_name(text: str) -> str:
    """A valid cohort name, or CommandError saying what names look like."""
    if not _COHORT_NAME.fullmatch(text):
        raise CommandError(
            f"`{text}` is not a cohort name: use 1 to 40 letters, digits, `-`, `_` or `.`, starting with a letter "
            "or digit (e.g. `2026-spring`)."
        )
    return text


def user_ids(words: Sequence[str]) -> tuple[str, ...]:
    """Platform user ids from mentions (`<@U123>`, `<@U123|ann>` on Slack, `<@123>`, `<@!123>` on Discord),
    `@name`, or plain ids; commas separate too. Duplicates are dropped, order kept."""
    found: list[str] = []
    for word in words:
        for raw in word.split(","):
            part = raw.strip()
            if not part:
                continue
            mention = _MENTION.fullmatch(part)
            user = mention.group(1) if mention else part.removeprefix("@")
            if not user or not re.fullmatch(r"[^\s<>@|]{1,64}", user):
                raise CommandError(f"`{part}` is not a user: mention them (`@name`) or give their user id.")
            found.append(user)
    return tuple(dict.fromkeys(found))


_WINDOWS = {w.value: w for w in Window} | {"all-time": Window.ALL, "alltime": Window.ALL}
_SCOPES = {scope.value: scope for scope in Scope}


def _not_a_leaderboard_option(word: str) -> CommandError:
    return CommandError(f"`{word}` is not a leaderboard option. Try `{_LEADERBOARD_USAGE}`.")


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
        raise CommandError(f"Which cohort? Try `/quiz leaderboard cohort NAME` (`{_LEADERBOARD_USAGE}`).")
    return cohort_name(name)


def _parse_leaderboard(args: list[str]) -> Command:
    window, scope, cohort = Window.ALL, Scope.CHANNEL, None
    words = iter(args)
    for arg in words:
        word = arg.casefold()
        if word in _WINDOWS:
            window = _WINDOWS[word]
        elif word == Scope.COHORT.value:
            scope, cohort = Scope.COHORT, leaderboard_cohort(next(words, None))
        elif word in _SCOPES:
            scope, cohort = _SCOPES[word], None
        else:
            raise _not_a_leaderboard_option(arg)
    return ShowLeaderboard(window=window, scope=scope, cohort=cohort)


_COHORT_USAGE = "/quiz cohort create|join|leave|add|remove|list|show|next|set|delete NAME ..."


def _one_name(action: str, args: list[str]) -> str:
    if len(args) != 1:
        raise CommandError(f"`/quiz cohort {action}` takes one cohort name, e.g. `/quiz cohort {action} 2026-spring`.")
    return cohort_name(args[0])


def start_date(text: str) -> date:
    """A cohort's start date written as YYYY-MM-DD, or CommandError saying how to write it."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"`{text}` is not a date: write it as YYYY-MM-DD, e.g. `start:2026-03-02`.") from None


def curriculum(pack_ids: Iterable[str]) -> tuple[str, ...]:
    """A cohort's curriculum: the pack ids in the order given, each once, blanks dropped."""
    return tuple(dict.fromkeys(p.strip() for p in pack_ids if p.strip()))


def _parse_create(args: list[str]) -> Command:
    if not args:
        raise CommandError("Name the cohort: `/quiz cohort create NAME [start:YYYY-MM-DD] [packs:a,b]`.")
    name = cohort_name(args[0])
    start: date | None = None
    packs: tuple[str, ...] = ()
    delivery = Delivery.CHANNEL
    for arg in args[1:]:
        option, _, value = arg.partition(":")
        option = option.casefold()
        if option == "start" and value:
            start = start_date(value)
        elif option in {"deliver", "delivery"}:
            delivery = delivery_mode(value)
        elif option in {"packs", "curriculum"} and value:  # a curriculum's id expands to its packs (the catalog's)
            packs = curriculum(value.split(","))
            if not packs:
                raise CommandError("`packs:` needs pack ids, e.g. `packs:data-parallelism,model-pipeline-parallelism`.")
        else:
            raise CommandError(
                f"`{arg}` is not a cohort option. Try `/quiz cohort create NAME [start:YYYY-MM-DD] [packs:a,b] "
                "[deliver:dm|channel]`."
            )
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


def members_usage(action: str) -> str:
    """What `/quiz cohort add|remove` says when it is not given a cohort and members."""
    return f"Usage: `/quiz cohort {action} NAME @user...` (mentions or user ids)."


def _parse_members(action: str, args: list[str]) -> tuple[str, tuple[str, ...]]:
    if len(args) < 2:
        raise CommandError(members_usage(action))
    return cohort_name(args[0]), user_ids(args[1:])


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
                raise CommandError("`/quiz cohort list` takes no arguments.")
            return ListCohorts()
        case "show" | "info":
            return ShowCohort(_one_name("show", rest))
        case "next":
            return PostCohortQuestion(_one_name(action, rest))
        case "set":
            return _parse_set(rest)
        case "delete":
            return DeleteCohort(_one_name(action, rest))
    raise CommandError(f"`{args[0]}` is not a cohort command. Try `{_COHORT_USAGE}`.")


def _parse_review(args: list[str]) -> Command:
    words = args[1:] if args and args[0].casefold() == "answer" else args
    if not words and not args:
        return StartReview()
    if len(words) == 1 and words[0].isdigit():
        return AnswerReview(int(words[0]))
    raise CommandError("`/quiz review` gives you a question to review; answer it with `/quiz review N` (a number).")


def _parse_report(args: list[str]) -> Command:
    if not args or (len(args) == 1 and args[0].casefold() == "workspace"):
        return ShowReport()
    if len(args) == 2 and args[0].casefold() == "cohort":
        return ShowReport(cohort=cohort_name(args[1]))
    raise CommandError("Try `/quiz report` (this workspace) or `/quiz report cohort NAME`.")


CLOSE_MIN = timedelta(minutes=1)
CLOSE_MAX = timedelta(days=7)
_SCHEDULE_USAGE = (
    "`/quiz schedule add <when> [pack...] [tz:Area/City] [close:DURATION]`, `/quiz schedule list [all]`, "
    "`/quiz schedule remove|pause|resume ID`, `/quiz schedule next`"
)
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
        raise CommandError(f"`/quiz schedule` needs an action: {_SCHEDULE_USAGE}.")
    action = _SCHEDULE_ACTIONS.get(args[0].casefold())
    rest = args[1:]
    if action is None:
        raise CommandError(f"`{args[0]}` is not a schedule action. Use {_SCHEDULE_USAGE}.")
    if action == "add":
        return _parse_schedule_add(rest)
    if action == "list":
        if rest and [word.casefold() for word in rest] != ["all"]:
            raise CommandError("`/quiz schedule list` takes nothing, or `all` for the whole workspace.")
        return ListSchedules(everywhere=bool(rest))
    if action == "next":
        if rest:
            raise CommandError("`/quiz schedule next` takes no arguments.")
        return NextSchedule()
    if len(rest) != 1:
        raise CommandError(f"`/quiz schedule {action}` takes one schedule id, e.g. `/quiz schedule {action} 3`.")
    ident = schedule_id(rest[0])
    if action == "remove":
        return RemoveSchedule(ident)
    return PauseSchedule(ident) if action == "pause" else ResumeSchedule(ident)


def schedule_id(word: str) -> int:
    """A schedule id as typed (`3` or `#3`), or CommandError pointing at `/quiz schedule list`."""
    digits = word.removeprefix("#")
    if not digits.isascii() or not digits.isdigit() or len(digits) > 18:
        raise CommandError(f"`{word}` is not a schedule id; `/quiz schedule list` shows the ids.")
    return int(digits)


def _parse_schedule_add(args: list[str]) -> AddSchedule | AddCohortSchedule:
    if not args:
        raise CommandError(
            "Say when, e.g. `/quiz schedule add weekdays 09:30`, `/quiz schedule add mon,wed,fri 14:00 "
            "data-parallelism tz:Europe/Helsinki close:2h` or a cron rule such as `30 9 * * 1-5`."
        )
    rule, rest = split_rule(args)
    packs: list[str] = []
    timezone: str | None = None
    closes: timedelta | None = None
    cohort: str | None = None
    for word in rest:
        key, sep, value = word.replace("=", ":", 1).partition(":")
        key = key.casefold()
        if sep and key in {"tz", "timezone", "zone"}:
            if not value:
                raise CommandError("Give the timezone after `tz:`, e.g. `tz:Europe/Helsinki`.")
            timezone = parse_timezone(value)
        elif sep and key in {"close", "closes", "close-after"}:
            closes = close_after(value)
        elif sep and key == "cohort":
            cohort = cohort_name(value)
        elif sep:
            raise CommandError(
                f"Unknown option `{key}:`. Options are `tz:Area/City`, `close:DURATION` and `cohort:NAME`."
            )
        elif "/" in word:
            raise CommandError(f"`{word}` looks like a timezone; write it as `tz:{word}`.")
        else:
            packs.append(word)
    if cohort is not None:
        if packs:
            raise CommandError(schedule_words.cohort_takes_no_packs(cohort))
        return AddCohortSchedule(rule=rule, name=cohort, timezone=timezone, close_after=closes)
    return AddSchedule(rule=rule, packs=schedule_packs(packs), timezone=timezone, close_after=closes)


def schedule_packs(words: Iterable[str]) -> tuple[str, ...]:
    """The packs a schedule draws from: case-folded, in order, each once; `all` and `any` mean every pack."""
    return tuple(dict.fromkeys(word.casefold() for word in words if word.casefold() not in {"all", "any"}))


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
        raise CommandError(flag_words.not_a_flags_action(args[0]))
    if not 2 <= len(args) <= 3:
        raise CommandError(flag_words.which_question_to_clear())
    pack, key = question_ref(" ".join(args[1:]))
    return ClearFlags(pack_id=pack, question_key=key)


def _parse_help(args: list[str]) -> Command:
    return ShowHelp(topic=args[0].casefold() if args else None)


SUBCOMMANDS: tuple[Subcommand, ...] = (
    Subcommand("now", "/quiz now [pack]", "post a question here now (from one pack, or any)", _parse_now),
    Subcommand(
        "reveal",
        "/quiz reveal",
        "close the current question and show the answer",
        _no_args("reveal", Reveal()),
    ),
    Subcommand(
        "leaderboard",
        _LEADERBOARD_USAGE,
        "who leads, by points (with streaks); `cohorts` ranks cohorts by points per active member",
        _parse_leaderboard,
    ),
    Subcommand(
        "me",
        "/quiz me",
        "your points, rank, accuracy, streaks, review and most-missed topics",
        _no_args("me", ShowMe()),
    ),
    Subcommand(
        "cohort",
        "/quiz cohort create NAME [start:YYYY-MM-DD] [packs:a,b] [deliver:dm] | join NAME | leave NAME | "
        "add NAME @user... | remove NAME @user... | list | show NAME | next NAME | set NAME deliver:dm|channel | "
        "delete NAME",
        "onboarding cohorts: members, a curriculum of packs, their own leaderboard",
        _parse_cohort,
    ),
    Subcommand(
        "review",
        "/quiz review [N]",
        "privately review a question you missed; `/quiz review N` answers it",
        _parse_review,
    ),
    Subcommand(
        "report", "/quiz report [cohort NAME]", "a short summary: participation, accuracy, leaders", _parse_report
    ),
    Subcommand("packs", "/quiz packs", "the quiz packs you can pick from", _no_args("packs", ListPacks())),
    Subcommand(
        "schedule",
        "/quiz schedule add <when> [pack...|cohort:NAME] [tz:Area/City] [close:2h] | list [all] | remove ID | "
        "pause ID | resume ID | next",
        "post questions on a schedule, e.g. `add weekdays 09:30` (admins add, remove, pause and resume)",
        _parse_schedule,
    ),
    Subcommand(
        "flag",
        "/quiz flag [reason]",
        "report a problem with the question you last answered here (or the newest one)",
        _parse_flag,
        free_text=True,
    ),
    Subcommand(
        "flags",
        "/quiz flags | flags clear PACK/QUESTION",
        "flagged questions: counts, reasons, accuracy; `clear` puts one back in rotation (admins)",
        _parse_flags,
    ),
    Subcommand("help", "/quiz help [command]", "this help", _parse_help),
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
}


def help_lines(topic: str | None = None) -> list[str]:
    """Help text: every subcommand with its usage, or one subcommand's usage."""
    if topic:
        name = _ALIASES.get(topic, topic)
        for sub in SUBCOMMANDS:
            if sub.name == name:
                return [f"{sub.usage} - {sub.summary}"]
    return [f"{sub.usage} - {sub.summary}" for sub in SUBCOMMANDS]


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise CommandError(f"Could not read that command: {exc}. Check your quotes.") from exc


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

    Empty text means help. Unknown or malformed input raises CommandError whose message says what to type.
    """
    free = _free_text(text, subcommands)
    if free is not None:
        return free
    words = _split(text.strip())
    if words and words[0].casefold() in {"/quiz", "quiz"}:
        words = words[1:]
    if not words:
        return ShowHelp()
    name = _ALIASES.get(words[0].casefold(), words[0].casefold())
    for sub in subcommands:
        if sub.name == name:
            return sub.parse(words[1:])
    known = ", ".join(f"`{sub.name}`" for sub in subcommands)
    raise CommandError(f"Unknown command `{words[0]}`. Commands: {known}. Type `/quiz help` for more.")
