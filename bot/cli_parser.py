"""The `quizbot` command line's declaration (argparse): every command, its options and its help, which
`quizbot completion` and the docs' command reference read. `bot.cli` runs them.

Adapters add their own commands (e.g. `quizbot discord sync`) through the `quizbot.cli` entry-point group: each
entry point is a function that takes the subparsers and adds one parser whose defaults carry
`plugin_main(args, settings) -> exit status`. The core never imports the adapters.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib.metadata import entry_points
from pathlib import Path
from typing import NoReturn

from bot import __version__
from bot.content.cli import add_content_commands
from bot.domain.names import nearest
from bot.wording import cli as words
from bot.wording import operator as operator_words

CLI_GROUP = "quizbot.cli"


class _Parser(argparse.ArgumentParser):
    """argparse, with a did-you-mean for a mistyped command (`quizbot runn`) instead of the list of choices, and the
    commands for a missing one (`quizbot db`) instead of the name of argparse's field."""

    def error(self, message: str) -> NoReturn:
        """Print the usage and one line, and exit 2 (as argparse does). The commands come from the parser's own
        subcommand action, not from the text of argparse's message (whose list of choices is worded differently
        from one Python to the next), and an option's bad choice (`--format xml`) keeps argparse's own line."""
        for action in self._actions:
            if not isinstance(action, argparse._SubParsersAction):
                continue
            name = re.escape(action.metavar if isinstance(action.metavar, str) else action.dest)
            invalid = re.match(rf"argument {name}: invalid choice: '(.*?)'", message)
            if invalid is not None:
                word, commands = invalid.group(1), list(action.choices)
                message = operator_words.unknown_command(self.prog, word, nearest(word, commands), commands)
            if re.fullmatch(rf"the following arguments are required: {name}", message):  # `quizbot db`
                message = operator_words.missing_command(self.prog, list(action.choices))
        super().error(message)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """As argparse's, except that a command without subcommands (`quizbot run --bogus`) refuses what it does not
        know itself, with its own usage, rather than leaving it to `quizbot`'s, whose usage says nothing of it."""
        parsed, extras = super().parse_known_args(args, namespace)
        is_leaf = not any(isinstance(action, argparse._SubParsersAction) for action in self._actions)
        if extras and is_leaf and " " in self.prog:
            self.error(operator_words.unrecognized_arguments(self.prog, extras))
        return parsed, extras


def build_parser() -> argparse.ArgumentParser:
    """The `quizbot` command line's parser: the core's commands and those the installed adapters add."""
    parser = _Parser(prog="quizbot", description=words.description())
    parser.add_argument("--version", action="version", version=f"quizbot {__version__}")
    commands: argparse._SubParsersAction[argparse.ArgumentParser] = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True, parser_class=_Parser
    )

    commands.add_parser("run", help=words.help_for("run"))

    db = commands.add_parser("db", help=words.help_for("db")).add_subparsers(dest="db_command", required=True)
    upgrade = db.add_parser("upgrade", help=words.help_for("db upgrade"))
    upgrade.add_argument("revision", nargs="?", default="head")
    db.add_parser("current", help=words.help_for("db current"))

    content = add_content_commands(commands)
    flags = content.add_parser("flags", help=words.help_for("content flags"))
    flags.add_argument("--platform", help=words.help_for("content flags", "--platform"))
    flags.add_argument("--workspace", help=words.help_for("content flags", "--workspace"))
    doctor = commands.add_parser("doctor", help=words.help_for("doctor"))
    doctor.add_argument("--online", action="store_true", help=words.help_for("doctor", "--online"))
    doctor.add_argument("--json", action="store_true", help=words.help_for("--json"))
    doctor.add_argument("--workspace", metavar="PLATFORM:ID", help=words.help_for("doctor", "--workspace"))
    health = commands.add_parser("healthcheck", help=words.help_for("healthcheck"))
    health.add_argument("--url", help=words.help_for("healthcheck", "--url"))

    export = commands.add_parser("export", help=words.help_for("export"))
    export.add_argument("--format", choices=["json", "csv"], default="json")
    export.add_argument("--since", type=_date, help=words.help_for("export", "--since"))
    export.add_argument("--out", type=Path, help=words.help_for("export", "--out"))
    export.add_argument("--force", action="store_true", help=words.help_for("export", "--force"))
    export.add_argument("--json", action="store_true", help=words.help_for("export", "--json"))

    forget = commands.add_parser("forget-user", help=words.help_for("forget-user"))
    forget.add_argument("platform", help=words.help_for("forget-user", "platform"))
    forget.add_argument("user_id", help=words.help_for("forget-user", "user_id"))
    forget.add_argument("--workspace", help=words.help_for("forget-user", "--workspace"))
    forget.add_argument("-y", "--yes", action="store_true", help=words.help_for("forget-user", "--yes"))

    report = commands.add_parser("report", help=words.help_for("report"))
    report.add_argument("--cohort", help=words.help_for("report", "--cohort"))
    report.add_argument("--workspace", help=words.help_for("report", "--workspace"))
    report.add_argument("--platform", help=words.help_for("report", "--platform"))
    report.add_argument("-o", "--out", type=Path, default=Path("report.html"), help=words.help_for("report", "--out"))
    report.add_argument("--force", action="store_true", help=words.help_for("report", "--force"))
    report.add_argument("--json", action="store_true", help=words.help_for("--json"))
    completion = commands.add_parser("completion", help=words.help_for("completion"))
    completion.add_argument("shell", choices=["bash", "zsh", "fish"], help=words.help_for("completion", "shell"))
    _plugin_commands(commands)
    return parser


def _date(text: str) -> datetime:
    try:
        return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(words.not_a_date(text)) from exc


def _plugin_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Let installed adapters add their commands; a broken one is reported, not fatal."""
    for entry_point in entry_points(group=CLI_GROUP):
        try:
            entry_point.load()(commands)
        except Exception as exc:
            print(words.plugin_commands_unavailable(entry_point.name, exc), file=sys.stderr)
