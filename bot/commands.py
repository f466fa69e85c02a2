"""The `/quiz` command grammar, parsed once here and used by every adapter."""

from __future__ import annotations

import enum
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta

from bot.errors import CommandError
from bot.scheduling.rules import Rule, parse_duration, parse_timezone, split_rule


class Window(enum.StrEnum):
    """A leaderboard time window, in the workspace's timezone."""

    WEEK = "week"
    MONTH = "month"
    ALL = "all"


class Scope(enum.StrEnum):
    """Whose answers a leaderboard counts."""

    CHANNEL = "channel"
    WORKSPACE = "workspace"


@dataclass(frozen=True, slots=True)
class PostNow:
    """`/quiz now [pack]`: post a question here now."""

    pack: str | None = None


@dataclass(frozen=True, slots=True)
class Reveal:
    """`/quiz reveal`: close the current question and show the answer and the distribution."""


@dataclass(frozen=True, slots=True)
class ShowLeaderboard:
    """`/quiz leaderboard [week|month|all] [channel|workspace]`."""

    window: Window = Window.ALL
    scope: Scope = Scope.CHANNEL


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


ScheduleCommand = AddSchedule | ListSchedules | RemoveSchedule | PauseSchedule | ResumeSchedule | NextSchedule

Command = PostNow | Reveal | ShowLeaderboard | ShowMe | ListPacks | ShowHelp | ScheduleCommand


@dataclass(frozen=True, slots=True)
class Subcommand:
    """One subcommand of `/quiz`: its usage line, a summary, and how to parse its arguments."""

    name: str
    usage: str
    summary: str
    parse: Callable[[list[str]], Command]


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


def _parse_leaderboard(args: list[str]) -> Command:
    window, scope = Window.ALL, Scope.CHANNEL
    windows = {w.value: w for w in Window} | {"all-time": Window.ALL, "alltime": Window.ALL}
    scopes = {s.value: s for s in Scope}
    for arg in args:
        word = arg.casefold()
        if word in windows:
            window = windows[word]
        elif word in scopes:
            scope = scopes[word]
        else:
            raise CommandError(
                f"`{arg}` is not a leaderboard option. Try `/quiz leaderboard [week|month|all] [channel|workspace]`."
            )
    return ShowLeaderboard(window=window, scope=scope)


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
    schedule_id = _schedule_id(rest[0])
    if action == "remove":
        return RemoveSchedule(schedule_id)
    return PauseSchedule(schedule_id) if action == "pause" else ResumeSchedule(schedule_id)


def _schedule_id(word: str) -> int:
    digits = word.removeprefix("#")
    if not digits.isascii() or not digits.isdigit() or len(digits) > 18:
        raise CommandError(f"`{word}` is not a schedule id; `/quiz schedule list` shows the ids.")
    return int(digits)


def _parse_schedule_add(args: list[str]) -> Command:
    if not args:
        raise CommandError(
            "Say when, e.g. `/quiz schedule add weekdays 09:30`, `/quiz schedule add mon,wed,fri 14:00 "
            "data-parallelism tz:Europe/Helsinki close:2h` or a cron rule such as `30 9 * * 1-5`."
        )
    rule, rest = split_rule(args)
    packs: list[str] = []
    timezone: str | None = None
    close_after: timedelta | None = None
    for word in rest:
        key, sep, value = word.replace("=", ":", 1).partition(":")
        key = key.casefold()
        if sep and key in {"tz", "timezone", "zone"}:
            if not value:
                raise CommandError("Give the timezone after `tz:`, e.g. `tz:Europe/Helsinki`.")
            timezone = parse_timezone(value)
        elif sep and key in {"close", "closes", "close-after"}:
            close_after = parse_duration(value, minimum=CLOSE_MIN, maximum=CLOSE_MAX)
        elif sep:
            raise CommandError(f"Unknown option `{key}:`. Options are `tz:Area/City` and `close:DURATION`.")
        elif "/" in word:
            raise CommandError(f"`{word}` looks like a timezone; write it as `tz:{word}`.")
        elif word.casefold() not in {"all", "any"}:
            packs.append(word.casefold())
    return AddSchedule(rule=rule, packs=tuple(dict.fromkeys(packs)), timezone=timezone, close_after=close_after)


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
        "/quiz leaderboard [week|month|all] [channel|workspace]",
        "who leads, by points",
        _parse_leaderboard,
    ),
    Subcommand("me", "/quiz me", "your answers, accuracy, points and rank", _no_args("me", ShowMe())),
    Subcommand("packs", "/quiz packs", "the quiz packs you can pick from", _no_args("packs", ListPacks())),
    Subcommand(
        "schedule",
        "/quiz schedule add <when> [pack...] [tz:Area/City] [close:2h] | list [all] | remove ID | pause ID | "
        "resume ID | next",
        "post questions on a schedule, e.g. `add weekdays 09:30` (admins add, remove, pause and resume)",
        _parse_schedule,
    ),
    Subcommand("help", "/quiz help [command]", "this help", _parse_help),
)
_ALIASES = {
    "lb": "leaderboard",
    "top": "leaderboard",
    "stats": "me",
    "question": "now",
    "?": "help",
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


def parse_command(text: str, *, subcommands: Sequence[Subcommand] = SUBCOMMANDS) -> Command:
    """Parse the text after `/quiz` (a leading `/quiz` is accepted too) into a Command.

    Empty text means help. Unknown or malformed input raises CommandError whose message says what to type.
    """
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
