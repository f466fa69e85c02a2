"""The one text grammar every adapter uses: `/quiz ...` text to a Command (`parse_command`), `/quiz help`'s lines,
and the Slack manifest's usage hint, read from the specs' tables."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from bot.commands.groups import GROUPS
from bot.commands.specs import _ALIASES, SUBCOMMANDS, help_topic
from bot.commands.types import Command, ShowHelp, Subcommand
from bot.domain.names import nearest
from bot.errors import CommandError
from bot.ports import Message
from bot.wording import commands as words
from bot.wording import help as help_words


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
