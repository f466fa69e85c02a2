"""The `/quiz` application command group, generated from the command specs (bot/commands/ `SPECS`).

Each spec becomes one subcommand (a group's action becomes a subcommand of a nested group: `/quiz schedule add`),
with its typed options, their choices, descriptions and autocomplete, and the description its spec names, with who
may run it added from its permission. Nothing here is written per command: a new spec appears by itself.

A subcommand builds the core's command object (`PostNow`, `ShowLeaderboard`, `AddSchedule`, ...) straight from its
typed options with the spec's `build`, and hands it to the adapter, which runs it with `QuizApp.execute`: nothing
is turned back into text for a parser to split again. Options are checked at the edge, as discord.py's
transformers do, by the same validators the `/quiz` text grammar uses, so a mistake in an option gets the
grammar's own one-line message.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Sequence
from typing import Any, Protocol, cast

import discord
from discord import app_commands

from adapters.discord.uploads import UploadRunner, attached, run_import
from bot.commands import SPECS, Command
from bot.commandspec import Autocomplete, CommandSpec, Option, OptionKind, Permission
from bot.wording import commands as words
from bot.wording import help as help_words

DESCRIPTION_LIMIT = 100
AUTOCOMPLETE_LIMIT = 25
CHOICE_LIMIT = 100
"""Discord's limit on an autocomplete choice's name and value."""

_LAST_ITEM = re.compile(r"(?P<head>.*[,\s])?(?P<last>[^,\s]*)", re.DOTALL)
_MENTION_NAME_UNSAFE = re.compile(r"[<>|\x00-\x1f\x7f]")
_OPTION_TYPES = {
    OptionKind.STRING: discord.AppCommandOptionType.string,
    OptionKind.INTEGER: discord.AppCommandOptionType.integer,
    OptionKind.BOOLEAN: discord.AppCommandOptionType.boolean,
    OptionKind.MENTION: discord.AppCommandOptionType.mentionable,
    OptionKind.ATTACHMENT: discord.AppCommandOptionType.attachment,
}


class CommandHandler(Protocol):
    """What the command group hands its work to (the adapter)."""

    async def run_command(self, interaction: discord.Interaction[discord.Client], command: Command) -> None:
        """Run a command object for this interaction and answer it."""
        ...

    def pack_choices(self, current: str) -> list[app_commands.Choice[str]]:
        """Packs matching what the user typed so far, for autocomplete."""
        ...


OptionChoices = list[app_commands.Choice[Any]]


class GrammarOption(app_commands.Transformer[discord.Client]):
    """An option checked at the edge by one of the `/quiz` grammar's validators, straight into the typed value.

    The validator's CommandError (the grammar's message for that mistake) makes discord.py raise a
    TransformerError caused by it; the adapter's tree error handler answers with that message.
    """

    def __init__(
        self,
        validate: Callable[[str], Any],
        *,
        option_type: discord.AppCommandOptionType = discord.AppCommandOptionType.string,
        choices: Sequence[app_commands.Choice[str]] | None = None,
        min_value: int | None = None,
        max_value: int | None = None,
    ) -> None:
        self.validate = validate
        self._type = option_type
        self._choices: OptionChoices | None = list(choices) if choices is not None else None
        self._min_value = min_value
        self._max_value = max_value

    @property
    def type(self) -> discord.AppCommandOptionType:
        """The option type Discord shows and sends (a string unless told otherwise)."""
        return self._type

    @property
    def choices(self) -> OptionChoices | None:
        """The fixed choices Discord offers, if any."""
        return self._choices

    @property
    def min_value(self) -> int | None:
        """The smallest number Discord lets a user enter (integer options)."""
        return self._min_value

    @property
    def max_value(self) -> int | None:
        """The largest number Discord lets a user enter (integer options)."""
        return self._max_value

    async def transform(self, interaction: discord.Interaction[discord.Client], value: Any, /) -> Any:
        """The validated value; the grammar's CommandError when it is not valid. A person or a role picked in
        Discord's menu is handed to the grammar as its mention (`<@id|name>`, `<@&id|name>`)."""
        if self._type is discord.AppCommandOptionType.mentionable:
            return self.validate(mention_text(value))
        if self._type is discord.AppCommandOptionType.attachment:
            return value  # read when the command runs (adapters/discord/uploads.py), after its size is checked
        return self.validate(str(value))


def mention_text(value: Any) -> str:
    """A picked member, user or role (or a bare `discord.Object` when Discord sent no resolved data) as the text
    grammar's mention: `<@id|name>` for a person, `<@&id|name>` for a role."""
    name = _MENTION_NAME_UNSAFE.sub("", str(getattr(value, "display_name", None) or getattr(value, "name", "") or ""))
    sign = "&" if isinstance(value, discord.Role) else ""
    return f"<@{sign}{value.id}|{name}>" if name else f"<@{sign}{value.id}>"


def description(spec: CommandSpec) -> str:
    """A spec's description as Discord shows it: its words and who may run it, within Discord's limit."""
    return words.described(spec.description, spec.permission.value)[:DESCRIPTION_LIMIT]


def group_description(name: str) -> str:
    """A group's description: its summary in `/quiz help`."""
    return help_words.description(help_words.summary(name))[:DESCRIPTION_LIMIT]


def option_transformer(option: Option) -> GrammarOption:
    """The transformer of a spec's option: its type, choices and bounds, checked by the grammar's validator."""
    choices = None
    if option.choices is not None:
        choices = [app_commands.Choice(name=choice.label, value=choice.value) for choice in option.choices()]
    return GrammarOption(
        option.validate,
        option_type=_OPTION_TYPES[option.kind],
        choices=choices,
        min_value=option.min_value,
        max_value=option.max_value,
    )


def default_permissions(specs: Sequence[CommandSpec]) -> discord.Permissions | None:
    """Who Discord shows `/quiz` to by default: Manage Server when every command is for admins, else everyone
    (Discord sets default permissions per top-level command only; each command's own is checked in the core)."""
    if specs and all(access.permission is Permission.ADMIN for spec in specs for access in spec.builds):
        return discord.Permissions(manage_guild=True)
    return None


class QuizCommands(app_commands.Group):
    """`/quiz ...`: one subcommand per spec, the groups (`/quiz schedule`, `/quiz cohort`, ...) nested.

    `handler` is None when the group is built only to register it with Discord (`quizbot discord sync`).
    """

    def __init__(self, handler: CommandHandler | None, specs: Sequence[CommandSpec] = SPECS) -> None:
        super().__init__(
            name="quiz", description=words.described(words.QUIZ_GROUP), default_permissions=default_permissions(specs)
        )
        self.handler = handler
        groups: dict[str, app_commands.Group] = {}
        for spec in specs:
            parent: app_commands.Group = self
            if spec.group is not None:
                if spec.group not in groups:
                    groups[spec.group] = app_commands.Group(name=spec.group, description=group_description(spec.group))
                    self.add_command(groups[spec.group])
                parent = groups[spec.group]
            parent.add_command(self._command(spec))

    async def _run(self, interaction: discord.Interaction[discord.Client], command: Command) -> None:
        if self.handler is None:  # pragma: no cover - a registration-only group never receives interactions
            await interaction.response.send_message(words.not_running(), ephemeral=True)
            return
        await self.handler.run_command(interaction, command)

    def _command(self, spec: CommandSpec) -> app_commands.Command[Any, ..., None]:
        """The subcommand of one spec: a callback whose signature is the spec's options, typed by transformers."""

        async def callback(interaction: discord.Interaction[discord.Client], **values: Any) -> None:
            given = {option.name: values.get(option.name) for option in spec.options}
            files = [o.name for o in spec.options if o.kind is OptionKind.ATTACHMENT and attached(given[o.name])]
            if files and self.handler is not None:  # `/quiz import` with its file: read it, then run
                attachment = attached(given[files[0]])
                assert attachment is not None

                def build(name: str, data: bytes) -> Command:
                    return spec.build(**(given | {files[0]: (name, data)}))  # type: ignore[no-any-return]

                await run_import(cast(UploadRunner, self.handler), interaction, attachment, build)
                return
            await self._run(interaction, spec.build(**given))

        parameters = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        parameters += [
            inspect.Parameter(
                option.name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=option_transformer(option),
                default=inspect.Parameter.empty if option.required else None,
            )
            for option in spec.options
        ]
        callback.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
        if spec.options:
            app_commands.describe(
                **{option.name: words.option_words(option.description, **option.values) for option in spec.options}
            )(callback)
        command: app_commands.Command[Any, ..., None] = app_commands.Command(
            name=spec.name, description=description(spec), callback=callback
        )
        for option in spec.options:
            if option.autocomplete is Autocomplete.PACK:
                command.autocomplete(option.name)(self._pack_autocomplete)
            elif option.autocomplete is Autocomplete.PACK_LIST:
                command.autocomplete(option.name)(self._pack_list_autocomplete)
        return command

    def _packs(self, current: str) -> list[app_commands.Choice[str]]:
        return self.handler.pack_choices(current)[:AUTOCOMPLETE_LIMIT] if self.handler else []

    async def _pack_autocomplete(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[str]]:
        """Completes one pack id."""
        return self._packs(current)

    async def _pack_list_autocomplete(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[str]]:
        """Completes the last pack id of a list, keeping the ones already typed."""
        match = _LAST_ITEM.fullmatch(current)
        head, last = (match.group("head") or "", match.group("last")) if match else ("", current)
        return [
            app_commands.Choice(name=(head + choice.name)[:CHOICE_LIMIT], value=head + choice.value)
            for choice in self._packs(last)
            if len(head + choice.value) <= CHOICE_LIMIT
        ]
