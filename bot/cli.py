"""The `quizbot` command line: run the bot, migrate the database, check and import content,
write reports.

Adapters add their own commands (e.g. `quizbot discord sync`) through the `quizbot.cli` entry-point group: each
entry point is a function that takes the subparsers and adds one parser whose defaults carry
`plugin_main(args, settings) -> exit status`. The core never imports the adapters.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import os
import re
import sys
import traceback
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from bot import __version__
from bot.config import Settings, load_settings, unknown_variables
from bot.content.cli import add_content_commands, run_content_command
from bot.domain.names import nearest
from bot.errors import ConfigError, InvalidPack, QuizError
from bot.logs import configure_logging
from bot.plugins import installed_plugins, one_line, start_failure
from bot.wording import operator as operator_words
from bot.wording.i18n import plural

CLI_GROUP = "quizbot.cli"
if TYPE_CHECKING:
    from bot.db import Database
    from bot.domain.views import Report

log = logging.getLogger(__name__)


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


def _parser() -> argparse.ArgumentParser:
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
    health = commands.add_parser("healthcheck", help="exit 0 if the running bot's /healthz says healthy")
    health.add_argument("--url", help="default: http://127.0.0.1:$QUIZBOT_HTTP_PORT/healthz")

    export = commands.add_parser("export", help="export answers, posts and leaderboards")
    export.add_argument("--format", choices=["json", "csv"], default="json")
    export.add_argument("--since", type=_date, help="only answers and posts from this date (YYYY-MM-DD, UTC) on")
    export.add_argument("--out", type=Path, help="file (json) or folder (csv; required); json defaults to stdout")
    export.add_argument("--force", action="store_true", help="overwrite existing files")

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


def _settings() -> Settings:
    return load_settings()


def _write(text: str, output: Path | None, flag: str = "--out") -> int:
    if output is None:
        sys.stdout.write(text)
    else:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise QuizError(operator_words.cannot_write(str(output), exc.strerror or str(exc), flag)) from exc
    return 0


def _check_output(path: Path | None, *, force: bool, flag: str, can_force: bool = True) -> None:
    """Refuse, before any work, an output file in a folder that does not exist, or one that exists (unless --force)."""
    if path is None:
        return
    folder = path.absolute().parent
    if not folder.is_dir():
        raise QuizError(f"cannot write {path}: the folder {folder} does not exist; create it or give another {flag}")
    if path.is_dir():
        raise QuizError(f"cannot write {path}: it is a folder; give a file name with {flag}")
    if path.exists() and not force:
        remedy = "pass --force to overwrite it" if can_force else "remove it first"
        raise QuizError(f"{path} exists; {remedy}, or give another {flag}")


def _check_csv_folder(folder: Path, *, force: bool) -> None:
    """A CSV export goes into a folder (created if missing): its parent must exist, its files are not overwritten."""
    from bot.ops.data import CSV_FILES

    parent = folder.absolute().parent
    if not parent.is_dir():
        raise QuizError(
            f"cannot write into {folder}: the folder {parent} does not exist; create it or give another --out"
        )
    if folder.exists() and not folder.is_dir():
        raise QuizError(f"cannot write into {folder}: it is a file; --format csv needs a folder with --out")
    existing = [name for name in CSV_FILES if (folder / name).exists()]
    if existing and not force:
        raise QuizError(f"{folder} already has {', '.join(existing)}; pass --force to overwrite, or give another --out")


async def _db(settings: Settings, command: str, revision: str) -> int:
    from bot.db import Database
    from bot.db.migrate import current_revision, head_revision, upgrade
    from bot.db.problems import UPGRADE, database_errors, require_sqlite_folder, sqlite_file

    url = settings.database_url
    require_sqlite_folder(url)
    if command == "current" and (path := sqlite_file(url)) is not None and not path.exists():
        print(f"empty: there is no database at {path.absolute()} yet; {UPGRADE} to create it")  # and do not create it
        return 0
    timeouts = settings.database_timeouts()
    db = Database.from_url(url, timeouts=timeouts.unbounded_statements() if command == "upgrade" else timeouts)
    try:
        with database_errors(url):
            if command == "upgrade":
                await upgrade(db, revision)
                print(f"database upgraded to {revision} ({head_revision()})")
            else:
                current = await current_revision(db)
                head = head_revision()
                state = "up to date" if current == head else f"behind (newest is {head}); {UPGRADE}"
                print(f"{current or 'empty'}: {state}")
    finally:
        await db.dispose()
    return 0


async def _content_flags(settings: Settings, platform: str | None, workspace: str | None) -> int:
    from bot.db.problems import database_errors
    from bot.ops.flags import flags_for_authors

    db = await _open_existing(settings)
    try:
        with database_errors(settings.database_url):
            message = await flags_for_authors(
                db, threshold=settings.flag_pause_threshold, platform=platform, workspace=workspace
            )
    finally:
        await db.dispose()
    print(message.text)
    return 0


async def _doctor(settings: Settings, *, online: bool) -> int:
    from bot.ops.doctor import diagnose

    findings = await diagnose(settings, online=online)
    for finding in findings:
        print(finding.line())
    failed = sum(f.level == "fail" for f in findings)
    print("all good" if not failed else f"{plural(failed, 'problem')} to fix")
    return 1 if failed else 0


async def _open_existing(settings: Settings) -> Database:
    """The configured database, for commands that read it: it must exist and be migrated (nothing is created)."""
    from bot.db import Database
    from bot.db.problems import require_existing, require_schema

    require_existing(settings.database_url)
    # An operator's one-off read (a whole export) may take longer than a click's statement; connecting is bounded.
    db = Database.from_url(settings.database_url, timeouts=settings.database_timeouts().unbounded_statements())
    try:
        await require_schema(db, settings.database_url)
    except BaseException:
        await db.dispose()
        raise
    return db


async def _export(settings: Settings, fmt: str, since: datetime | None, out: Path | None, force: bool) -> int:
    from bot.db.problems import database_errors
    from bot.ops.data import export_data, write_csv_folder

    if fmt == "csv" and out is None:
        raise QuizError("--format csv writes answers.csv, posts.csv and leaderboard.csv: give a folder with --out")
    if fmt == "csv":
        assert out is not None
        _check_csv_folder(out, force=force)
    else:
        _check_output(out, force=force, flag="--out")
    db = await _open_existing(settings)
    try:
        with database_errors(settings.database_url):
            data = await export_data(db, since=since)
    finally:
        await db.dispose()
    if fmt == "csv":
        assert out is not None
        try:
            written = write_csv_folder(data, out)
        except OSError as exc:
            raise QuizError(operator_words.cannot_write(str(out), exc.strerror or str(exc), "--out")) from exc
        for path in written:
            print(f"wrote {path}", file=sys.stderr)
        return 0
    return _write(json.dumps(data, indent=2, ensure_ascii=False) + "\n", out)


def _confirmed(question: str) -> bool:
    """Ask a y/N question on the terminal; only `y` or `yes` is yes (end of input is no)."""
    sys.stdout.write(question)
    sys.stdout.flush()
    return sys.stdin.readline().strip().casefold() in {"y", "yes"}


async def _forget(settings: Settings, platform: str, user_id: str, workspace: str | None, *, yes: bool) -> int:
    from bot.db.problems import database_errors
    from bot.ops.data import forget_user, known_user
    from bot.wording import confirmations

    db = await _open_existing(settings)
    try:
        with database_errors(settings.database_url):
            # The user is looked up first: an unknown one, or a database problem, is said before anything is asked.
            await known_user(
                db, platform=platform, user_id=user_id, workspace=workspace, installed=list(installed_plugins())
            )
            if not yes:
                if not sys.stdin.isatty():
                    print(f"quizbot: {confirmations.not_a_terminal()}", file=sys.stderr)
                    return 2
                where = f"workspace {workspace}" if workspace else "every workspace"
                if not _confirmed(confirmations.forget_user_question(f"{platform} user {user_id}", where)):
                    print(confirmations.forget_user_cancelled())
                    return 1
            result = await forget_user(db, platform=platform, user_id=user_id, workspace=workspace)
    finally:
        await db.dispose()
    details = ", ".join(f"{n} {table}" for table, n in result.rows.items() if n)
    print(f"forgot {platform} user {user_id} ({plural(result.users, 'identity row')}; {details or 'no other rows'})")
    return 0


def _healthcheck(url: str | None) -> int:
    import urllib.error
    import urllib.request

    if url is None:
        port = _settings().http_port
        if port is None:
            raise QuizError("QUIZBOT_HTTP_PORT is not set, so the bot serves no /healthz; give --url")
        url = f"http://127.0.0.1:{port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=4) as response:
            body = response.read().decode("utf-8", "replace")
            healthy = response.status == 200
    except urllib.error.HTTPError as exc:
        body, healthy = exc.read().decode("utf-8", "replace"), False
    except OSError as exc:
        body, healthy = f"cannot reach {url}: {exc}", False
    print(body.strip())
    return 0 if healthy else 1


async def _load_report(settings: Settings, cohort: str | None, workspace: str | None, platform: str | None) -> Report:
    from bot.clock import SystemClock
    from bot.db.problems import database_errors
    from bot.service.directory import Directory
    from bot.service.report import ReportService
    from bot.service.stats import Stats
    from bot.service.uow import unit_of_work_factory

    db = await _open_existing(settings)
    try:
        with database_errors(settings.database_url):
            uow = unit_of_work_factory(db, Directory(default_timezone=settings.timezone))
            reports = ReportService(
                uow=uow, stats=Stats(uow), clock=SystemClock(), flag_threshold=settings.flag_pause_threshold
            )
            found_platform, found_workspace = await reports.find_workspace(
                platform=platform, workspace=workspace, cohort=cohort
            )
            return await reports.build(platform=found_platform, workspace=found_workspace, cohort=cohort, top=20)
    finally:
        await db.dispose()


def _report(
    settings: Settings, cohort: str | None, workspace: str | None, platform: str | None, out: Path, *, force: bool
) -> int:
    from bot.report_html import render_html

    _check_output(out, force=force, flag="-o/--out")
    report = asyncio.run(_load_report(settings, cohort, workspace, platform))
    try:
        out.write_text(render_html(report), encoding="utf-8")
    except OSError as exc:
        raise QuizError(f"cannot write {out}: {exc}") from exc
    answers, people = plural(report.answers, "answer"), plural(report.participants, "person", "people")
    print(f"wrote {out}: {report.title}, {answers} by {people}")
    return 0


# --- `quizbot run`, and what an operator reads when a platform will not let the bot in ----------------------


def _refuse_bad_credentials(settings: Settings) -> None:
    """Before anything starts: credentials an enabled adapter must not run with (a user token as the bot's)."""
    enabled = settings.enabled_adapters()
    for name, adapter in settings.adapter_settings().items():
        if name in enabled and (refusal := adapter.start_refusal()) is not None:
            raise ConfigError(refusal)


async def _run(settings: Settings) -> None:
    """`quizbot run`: `bot.runtime.run`, with the database's and the adapters' failures turned into one line."""
    # Start-up imports and builds some hundred thousand objects that live as long as the process; the cyclic
    # collector would walk them again and again meanwhile (about a tenth of the start-up) for little garbage.
    gc.disable()
    try:
        from bot.db.problems import database_errors, require_sqlite_folder
        from bot.runtime import build_adapters, build_runtime, serve
        from bot.supervision import AdapterFailed

        require_sqlite_folder(settings.database_url)
        _refuse_bad_credentials(settings)
        try:
            with database_errors(settings.database_url):
                runtime = await build_runtime(settings)
        except InvalidPack as exc:  # the message names the file; say how to find every problem at once
            fix = f"fix it (QUIZBOT_CONTENT_DIR={settings.content_dir}), then check with `quizbot content check`"
            raise InvalidPack(f"{exc}; {fix}", problems=exc.problems) from exc
        try:
            adapters = build_adapters(runtime)
        except BaseException:
            await runtime.aclose()
            raise
    finally:
        gc.enable()
    log.info("quizbot running with %s", ", ".join(a.name for a in adapters))
    try:
        await serve(runtime, adapters)
    except AdapterFailed as stopped:  # a process-level failure (bot/supervision.py); one that served is restarted
        failure = stopped.error
        explained = start_failure(stopped.adapter, failure)
        if explained is None:  # not the platform's refusal nor a setting: log it too, for whoever reads only logs
            explained = QuizError(
                f"the {stopped.adapter} adapter stopped: {type(failure).__name__}: {one_line(failure)}"
            )
            log.error("%s", explained)
        raise explained from failure


# --- the edge: every error an operator can cause ends here as one line ---------------------------------------


def _debug(settings: Settings | None) -> bool:
    """Whether QUIZBOT_LOG_LEVEL=DEBUG asks for tracebacks (read from the environment if settings did not load)."""
    if settings is not None:
        return settings.log_level == "DEBUG"
    return any(k.upper() == "QUIZBOT_LOG_LEVEL" and v.strip().upper() == "DEBUG" for k, v in os.environ.items())


def _fail(message: str, exc: BaseException, settings: Settings | None, status: int) -> int:
    if _debug(settings):
        traceback.print_exception(exc, file=sys.stderr)
    print(f"quizbot: {message}", file=sys.stderr)
    return status


def _warn_unknown_variables() -> None:
    for warning in unknown_variables():
        print(f"quizbot: warning: {warning}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `quizbot` console script."""
    args = _parser().parse_args(argv)
    settings: Settings | None = None
    try:
        if args.command != "doctor":  # doctor lists them among its findings
            _warn_unknown_variables()
        if args.command == "content":
            if args.content_command == "flags":  # reads the database, unlike the other content commands
                return asyncio.run(_content_flags(_settings(), args.platform, args.workspace))
            return run_content_command(args, lambda: _settings().content_dir)
        if args.command == "healthcheck":
            return _healthcheck(args.url)
        if args.command == "doctor":
            try:
                settings = _settings()
            except ConfigError as exc:
                print(f"FAIL settings: {exc}\n     fix: correct the named environment variables (or .env)")
                return 1
            configure_logging(settings.effective_log_level(), settings.log_format)
            return asyncio.run(_doctor(settings, online=args.online))
        settings = _settings()
        configure_logging(settings.effective_log_level(), settings.log_format)
        if args.command == "db":
            return asyncio.run(_db(settings, args.db_command, getattr(args, "revision", "head")))
        if args.command == "export":
            return asyncio.run(_export(settings, args.format, args.since, args.out, args.force))
        if args.command == "forget-user":
            return asyncio.run(_forget(settings, args.platform, args.user_id, args.workspace, yes=args.yes))
        plugin_main = getattr(args, "plugin_main", None)
        if plugin_main is not None:
            try:
                return int(plugin_main(args, settings))
            except Exception as exc:
                explained = start_failure(args.command, exc)
                if explained is None or explained is exc:
                    raise
                raise explained from exc
        if args.command == "report":
            return _report(settings, args.cohort, args.workspace, args.platform, args.out, force=args.force)
        asyncio.run(_run(settings))
        return 0
    except (ConfigError, InvalidPack, QuizError) as exc:
        return _fail(str(exc), exc, settings, 2)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # not one of ours: its class and message on one line, the traceback with DEBUG
        hint = "" if _debug(settings) else " (QUIZBOT_LOG_LEVEL=DEBUG shows the traceback)"
        return _fail(f"{type(exc).__name__}: {one_line(exc)}{hint}", exc, settings, 1)


if __name__ == "__main__":
    raise SystemExit(main())
