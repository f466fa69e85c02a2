"""The shape of a command's one declaration: a `CommandSpec` per `/quiz` command (bot/commands/ `SPECS`).

A spec says everything the surfaces need to know about a command, once: its path (`cohort create`) and the other
words that name it (`new`), the command types it builds with who may run each and whether each asks to confirm, its
typed options (kind, validator, choices, autocomplete, the wording key of each description), how the text grammar
reads its arguments, how typed options build its command, its Discord description's wording key and an example.

From the specs come the text grammar's dispatch tables and `/quiz help` (bot/commands/), the permission check and
the confirmable commands (bot/service/handlers.py, confirmations.py) and the Discord application-command tree
(adapters/discord/commands.py). Every sentence here is an English wording key from bot/wording, translated at the
edge. This module imports nothing from the application: it is a leaf the grammar and the service both read.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


class Permission(enum.Enum):
    """Who may run a command; declared in its spec, checked in one place (`handlers.check_permission`)."""

    ANYONE = "anyone"
    ADMIN = "admin"
    """Platform admins, the environment's bootstrap admins, and people granted `admin` (`/quiz role grant`)."""
    LEAD = "lead"
    """Leads and admins (`/quiz role grant @user lead`)."""
    CREATOR_OR_ADMIN = "creator-or-admin"
    """Leads, admins and the creator of the cohort the command names (usually the onboarding lead)."""
    POSTER_OR_LEAD = "poster-or-lead"
    """The current question's poster when it was posted on demand; leads and admins for any question (a scheduled
    or cohort question is otherwise revealed by its schedule)."""


class OptionKind(enum.Enum):
    """The type of a typed option, as a platform with typed options (Discord) shows and sends it."""

    STRING = "string"
    INTEGER = "integer"
    BOOLEAN = "boolean"
    MENTION = "mention"
    """A person (or a platform's role): a mention typed in text (`<@U123|ann>`, `<@123>`, `<@&456>`, a plain id or
    name), Discord's menu of members and roles (a mentionable option)."""
    ATTACHMENT = "attachment"
    """A file attached to the command (a Discord attachment option): the adapter hands its build `(name, bytes)`;
    a text grammar has none (`/quiz import` typed alone says how to attach one)."""


class Autocomplete(enum.Enum):
    """What a typed option completes from while the user types."""

    PACK = "pack"
    """One pack id."""
    PACK_LIST = "pack-list"
    """The last pack id of a list, keeping the ones already typed."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One fixed choice of a typed option: its label (worded when the choices are asked for) and the value sent."""

    label: str
    value: str


@dataclass(frozen=True, slots=True)
class Option:
    """One typed option of a command: its name, kind, description (a wording key) and the validator that reads it.

    The validator is the text grammar's own (bot/commands/), so a mistake in a typed option gets the grammar's
    one-line message; it is given the value as text.
    """

    name: str
    description: str
    validate: Callable[[str], Any] = str
    kind: OptionKind = OptionKind.STRING
    required: bool = False
    choices: Callable[[], Sequence[Choice]] | None = None
    autocomplete: Autocomplete | None = None
    min_value: int | None = None
    max_value: int | None = None
    values: Mapping[str, object] = field(default_factory=dict)
    """The values its description's wording key is filled with (`{limit}`)."""


@dataclass(frozen=True, slots=True)
class Access:
    """One command type a spec builds: who may run it, what a refusal says was tried, and whether it asks first."""

    type: type[Any]
    permission: Permission = Permission.ANYONE
    action: str = ""
    """What a refusal names (`add schedules`), a wording key (bot/wording/commands.py `action_words`)."""
    confirm: bool = False
    """It asks its runner to confirm first (a `confirmed: bool = False` field the grammar never sets)."""


@dataclass(frozen=True, slots=True)
class Example:
    """A command as typed (after `/quiz`) and the same command with typed options; both build the same object."""

    text: str
    options: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CommandSpec:
    """One `/quiz` command: every surface (text grammar, help, permissions, confirmations, Discord) reads it."""

    path: tuple[str, ...]
    """`("now",)` or `("cohort", "create")`: a command, or an action of a group."""
    builds: tuple[Access, ...]
    """The command types it builds (usually one), the first being the one its description speaks for."""
    description: str
    """Its one-line description on a platform with typed commands (a wording key, bot/wording)."""
    parse: Callable[[list[str]], Any]
    """The text grammar for its arguments (the words after its path)."""
    build: Callable[..., Any]
    """Its command from its typed options, by option name (None for one not given)."""
    options: tuple[Option, ...] = ()
    aliases: tuple[str, ...] = ()
    """Other words for its last path word (`new` for `cohort create`)."""
    example: Example | None = None
    free_text: bool = False
    """Its argument is free text (a reason), handed over whole and unsplit: quotes and apostrophes are just text."""

    @property
    def name(self) -> str:
        """Its last path word: the command, or the group's action."""
        return self.path[-1]

    @property
    def group(self) -> str | None:
        """The group it is an action of (`cohort`), or None for a top-level command."""
        return self.path[0] if len(self.path) > 1 else None

    @property
    def permission(self) -> Permission:
        """Who may run the command its description speaks for (its first type)."""
        return self.builds[0].permission


def by_type(specs: Sequence[CommandSpec]) -> dict[type[Any], Access]:
    """Each command type's access (permission, refusal words, confirmation), from the specs; a type built twice is
    a mistake in the specs."""
    found: dict[type[Any], Access] = {}
    for spec in specs:
        for access in spec.builds:
            if access.type in found:
                raise TypeError(f"{access.type.__name__} is built by two specs")
            found[access.type] = access
    return found
