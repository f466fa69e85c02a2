"""`/quiz import`: a pack file uploaded in chat (its one declaration, `UPLOAD_SPECS`, added to SPECS in specs.py).

The file is an attachment option (`OptionKind.ATTACHMENT`): Discord sends it with the command; Slack takes a file
shared with the bot in a direct message (adapters/slack/uploads.py). Typed alone, as text, `/quiz import` says how
to attach one."""

from __future__ import annotations

from bot.commands.types import Command, ImportPack
from bot.commandspec import Access, CommandSpec, Example, Option, OptionKind, Permission
from bot.errors import CommandError
from bot.wording import commands as command_words
from bot.wording import help as help_words
from bot.wording import uploads as words


def _parse_import(args: list[str]) -> Command:
    if args:
        raise CommandError(command_words.takes_no_arguments, name="import", got=args)
    return ImportPack()


def _attached(value: object) -> object:
    """An attachment option's value as the adapter handed it: `(filename, bytes)`."""
    return value


def _build(file: tuple[str, bytes] | None) -> ImportPack:
    return ImportPack() if file is None else ImportPack(file[0], file[1])


UPLOAD_SPECS: tuple[CommandSpec, ...] = (
    CommandSpec(
        ("import",),
        (Access(ImportPack, Permission.LEAD, "import packs"),),
        help_words.summary("import"),
        _parse_import,
        _build,
        options=(Option("file", words.OPTION_FILE, _attached, kind=OptionKind.ATTACHMENT),),
        example=Example("import"),
    ),
)
"""`/quiz import`: leads and admins import a pack file as a workspace pack."""
