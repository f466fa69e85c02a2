"""The `/quiz` command grammar, parsed once here and used by every adapter."""

from __future__ import annotations

import enum
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.errors import CommandError


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


Command = PostNow | Reveal | ShowLeaderboard | ShowMe | ListPacks | ShowHelp


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
    Subcommand("help", "/quiz help [command]", "this help", _parse_help),
)
_ALIASES = {"lb": "leaderboard", "top": "leaderboard", "stats": "me", "question": "now", "?": "help"}


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
