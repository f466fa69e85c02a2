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
from datetime import UTC, datetime
from importlib.metadata import entry_points
from pathlib import Path
from typing import NoReturn

from bot import __version__
from bot.content.cli import add_content_commands
from bot.domain.names import nearest
from bot.wording import operator as operator_words

CLI_GROUP = "quizbot.cli"
JSON_HELP = "print the result as one JSON object on stdout (schema: docs/json.md)"


class _Parser(argparse.ArgumentParser):
    """argparse, with a did-you-mean for a mistyped command (`quizbot runn`) instead of the list of choices."""

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
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    """The `quizbot` command line's parser: the core's commands and those the installed adapters add."""
    parser = _Parser(prog="quizbot", description="A quiz bot for team chat.")
    parser.add_argument("--version", action="version", version=f"quizbot {__version__}")
    commands: argparse._SubParsersAction[argparse.ArgumentParser] = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True, parser_class=_Parser
    )

    commands.add_parser("run", help="run the bot (the terminal adapter unless a platform is configured)")

    db = commands.add_parser("db", help="database schema").add_subparsers(dest="db_command", required=True)
    upgrade = db.add_parser("upgrade", help="migrate the database to the newest schema")
    upgrade.add_argument("revision", nargs="?", default="head")
    db.add_parser("current", help="show the schema revision of the database")

    content = add_content_commands(commands)
    flags = content.add_parser("flags", help="questions people reported as wrong, with pack and question ids to edit")
    flags.add_argument("--platform", help="the platform (an adapter's name; default: every platform)")
    flags.add_argument("--workspace", help="the platform's workspace id (default: every one)")
    doctor = commands.add_parser("doctor", help="check settings, database, migrations, content and tokens")
    doctor.add_argument(
        "--online", action="store_true", help="also ask each platform about the tokens: scopes, intents, permissions"
    )
    doctor.add_argument("--json", action="store_true", help=JSON_HELP)
    health = commands.add_parser("healthcheck", help="exit 0 if the running bot's /healthz says healthy")
    health.add_argument("--url", help="default: http://127.0.0.1:$QUIZBOT_HTTP_PORT/healthz")

    export = commands.add_parser("export", help="export answers, posts and leaderboards")
    export.add_argument("--format", choices=["json", "csv"], default="json")
    export.add_argument("--since", type=_date, help="only answers and posts from this date (YYYY-MM-DD, UTC) on")
    export.add_argument("--out", type=Path, help="file (json) or folder (csv; required); json defaults to stdout")
    export.add_argument("--force", action="store_true", help="overwrite existing files")
    export.add_argument("--json", action="store_true", help=JSON_HELP + "; needs --out")

    forget = commands.add_parser("forget-user", help="delete one person's answers and identity")
    forget.add_argument("platform", help="the platform: an installed adapter's name (slack, discord, console)")
    forget.add_argument("user_id", help="the platform's user id (Slack U..., Discord snowflake, console name)")
    forget.add_argument("--workspace", help="only in this workspace (Slack team id, Discord guild id)")
    forget.add_argument("-y", "--yes", action="store_true", help="do not ask first (needed without a terminal)")

    report = commands.add_parser(
        "report", help="write an HTML report with charts: participation, accuracy, most-missed, leaderboard"
    )
    report.add_argument("--cohort", help="report on this cohort (default: the whole workspace)")
    report.add_argument("--workspace", help="workspace id: Slack team, Discord guild, `local` for the terminal")
    report.add_argument("--platform", help="the platform, when a workspace id is ambiguous (an adapter's name)")
    report.add_argument("-o", "--out", type=Path, default=Path("report.html"), help="default: report.html")
    report.add_argument("--force", action="store_true", help="overwrite the -o file if it exists")
    report.add_argument("--json", action="store_true", help=JSON_HELP)
    completion = commands.add_parser("completion", help="print a shell completion script (bash, zsh or fish)")
    completion.add_argument("shell", choices=["bash", "zsh", "fish"], help="the shell to complete in")
    _plugin_commands(commands)
    return parser


def _date(text: str) -> datetime:
    try:
        return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date like 2026-01-31") from exc


def _plugin_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Let installed adapters add their commands; a broken one is reported, not fatal."""
    for entry_point in entry_points(group=CLI_GROUP):
        try:
            entry_point.load()(commands)
        except Exception as exc:
            print(f"quizbot: the {entry_point.name} commands are unavailable: {exc}", file=sys.stderr)
