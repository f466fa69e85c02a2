"""The `quizbot` command line: run the bot, migrate the database, check and import content,
write reports.

Adapters add their own commands (e.g. `quizbot discord sync`) through the `quizbot.cli` entry-point group: each
entry point is a function that takes the subparsers and adds one parser whose defaults carry
`plugin_main(args, settings) -> exit status`. The core never imports the adapters.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING

from bot import __version__
from bot.config import Settings, load_settings
from bot.content.cli import add_content_commands, run_content_command
from bot.errors import ConfigError, InvalidPack, QuizError
from bot.logs import configure_logging

CLI_GROUP = "quizbot.cli"
if TYPE_CHECKING:
    from bot.service.report import Report


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="quizbot", description="A quiz bot for team chat.")
    parser.add_argument("--version", action="version", version=f"quizbot {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    commands.add_parser("run", help="run the bot (terminal adapter unless Slack/Discord are configured)")

    db = commands.add_parser("db", help="database schema").add_subparsers(dest="db_command", required=True)
    upgrade = db.add_parser("upgrade", help="migrate the database to the newest schema")
    upgrade.add_argument("revision", nargs="?", default="head")
    db.add_parser("current", help="show the schema revision of the database")

    add_content_commands(commands)
    commands.add_parser("doctor", help="check settings, database, migrations, content and tokens")
    health = commands.add_parser("healthcheck", help="exit 0 if the running bot's /healthz says healthy")
    health.add_argument("--url", help="default: http://127.0.0.1:$QUIZBOT_HTTP_PORT/healthz")

    export = commands.add_parser("export", help="export answers, posts and leaderboards")
    export.add_argument("--format", choices=["json", "csv"], default="json")
    export.add_argument("--since", type=_date, help="only answers and posts from this date (YYYY-MM-DD, UTC) on")
    export.add_argument("--out", type=Path, help="file (json) or folder (csv; required); json defaults to stdout")

    forget = commands.add_parser("forget-user", help="delete one person's answers and identity")
    forget.add_argument("platform", help="slack, discord or console")
    forget.add_argument("user_id", help="the platform's user id (Slack U..., Discord snowflake, console name)")
    forget.add_argument("--workspace", help="only in this workspace (Slack team id, Discord guild id)")

    report = commands.add_parser(
        "report", help="write an HTML report with charts: participation, accuracy, most-missed, leaderboard"
    )
    report.add_argument("--cohort", help="report on this cohort (default: the whole workspace)")
    report.add_argument("--workspace", help="workspace id: Slack team, Discord guild, `local` for the terminal")
    report.add_argument("--platform", help="slack, discord or console (when a workspace id is ambiguous)")
    report.add_argument("-o", "--out", type=Path, default=Path("report.html"), help="default: report.html")
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


def _write(text: str, output: Path | None) -> int:
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
    return 0


async def _db(command: str, revision: str) -> int:
    from bot.db import Database
    from bot.db.migrate import current_revision, head_revision, upgrade

    db = Database.from_url(_settings().database_url)
    try:
        if command == "upgrade":
            await upgrade(db, revision)
            print(f"database upgraded to {revision} ({head_revision()})")
        else:
            current = await current_revision(db)
            head = head_revision()
            state = "up to date" if current == head else f"behind (newest is {head})"
            print(f"{current or 'empty'}: {state}")
    finally:
        await db.dispose()
    return 0


async def _doctor(settings: Settings) -> int:
    from bot.ops.doctor import diagnose

    findings = await diagnose(settings)
    for finding in findings:
        print(finding.line())
    failed = sum(f.level == "fail" for f in findings)
    print("all good" if not failed else f"{failed} problem(s) to fix")
    return 1 if failed else 0


async def _export(settings: Settings, fmt: str, since: datetime | None, out: Path | None) -> int:
    from bot.db import Database
    from bot.ops.data import export_data, write_csv_folder

    if fmt == "csv" and out is None:
        raise QuizError("--format csv writes answers.csv, posts.csv and leaderboard.csv: give a folder with --out")
    db = Database.from_url(settings.database_url)
    try:
        data = await export_data(db, since=since)
    finally:
        await db.dispose()
    if fmt == "csv":
        assert out is not None
        for path in write_csv_folder(data, out):
            print(f"wrote {path}", file=sys.stderr)
        return 0
    return _write(json.dumps(data, indent=2, ensure_ascii=False) + "\n", out)


async def _forget(settings: Settings, platform: str, user_id: str, workspace: str | None) -> int:
    from bot.db import Database
    from bot.ops.data import forget_user

    db = Database.from_url(settings.database_url)
    try:
        result = await forget_user(db, platform=platform, user_id=user_id, workspace=workspace)
    finally:
        await db.dispose()
    details = ", ".join(f"{n} {table}" for table, n in result.rows.items() if n)
    print(f"forgot {platform} user {user_id} ({result.users} identity row(s); {details or 'no other rows'})")
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


async def _load_report(cohort: str | None, workspace: str | None, platform: str | None) -> Report:
    from bot.clock import SystemClock
    from bot.db import Database
    from bot.db.migrate import current_revision, head_revision
    from bot.service.report import ReportService
    from bot.service.stats import Stats

    settings = _settings()
    db = Database.from_url(settings.database_url)
    try:
        current, head = await current_revision(db), head_revision()
        if current != head:
            state = "empty" if current is None else f"at {current}, the newest is {head}"
            raise QuizError(f"the database at {settings.database_url} is {state}: run `quizbot db upgrade` first")
        reports = ReportService(db=db, stats=Stats(db), clock=SystemClock())
        found_platform, found_workspace = await reports.find_workspace(
            platform=platform, workspace=workspace, cohort=cohort
        )
        return await reports.build(platform=found_platform, workspace=found_workspace, cohort=cohort, top=20)
    finally:
        await db.dispose()


def _report(cohort: str | None, workspace: str | None, platform: str | None, out: Path) -> int:
    from bot.report_html import render_html

    report = asyncio.run(_load_report(cohort, workspace, platform))
    try:
        out.write_text(render_html(report), encoding="utf-8")
    except OSError as exc:
        raise QuizError(f"cannot write {out}: {exc}") from exc
    print(f"wrote {out}: {report.title}, {report.answers} answers by {report.participants} people")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `quizbot` console script."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "content":
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
            return asyncio.run(_doctor(settings))
        settings = _settings()
        configure_logging(settings.effective_log_level(), settings.log_format)
        if args.command == "db":
            return asyncio.run(_db(args.db_command, getattr(args, "revision", "head")))
        if args.command == "export":
            return asyncio.run(_export(settings, args.format, args.since, args.out))
        if args.command == "forget-user":
            return asyncio.run(_forget(settings, args.platform, args.user_id, args.workspace))
        plugin_main = getattr(args, "plugin_main", None)
        if plugin_main is not None:
            return int(plugin_main(args, settings))
        if args.command == "report":
            return _report(args.cohort, args.workspace, args.platform, args.out)
        from bot.runtime import run

        asyncio.run(run(settings))
        return 0
    except (ConfigError, InvalidPack, QuizError) as exc:
        print(f"quizbot: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
