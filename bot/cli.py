"""The `quizbot` command line: run the bot, migrate the database, check and import content, export the data,
write reports.

`bot.cli_parser` declares the commands, `bot.cli_commands` runs those that are not about the data (run, db,
doctor, healthcheck); this module is the entry point and the edge where every operator error becomes one line.

Importing this module loads none of them, nor the settings (pydantic) or the content's readers: `main` imports them
with the cyclic collector off (`_collector_off_for_start_up`), which `quizbot run` keeps off until its start-up is
done (bot/cli_commands.py: `run_bot`, `settle_heap`) and every other command turns back on once it is parsed.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import getpass
import json
import logging
import os
import sys
import traceback
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from bot.errors import ConfigError, DatabaseNotReady, InvalidPack, QuizError
from bot.logs import configure_logging
from bot.progress import Progress
from bot.wording import cli as words
from bot.wording import database as database_words
from bot.wording import operator as operator_words

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.db import Database
    from bot.domain.views import Report
    from bot.service.operator_uow import OperatorUnitOfWork

log = logging.getLogger(__name__)


def _settings() -> Settings:
    from bot.config import load_settings

    return load_settings()


def _parser() -> argparse.ArgumentParser:
    from bot.cli_parser import build_parser

    return build_parser()


def _healthcheck(url: str | None) -> int:
    from bot.cli_commands import healthcheck

    return healthcheck(url)


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
        raise QuizError(words.no_such_folder(path, folder, flag))
    if path.is_dir():
        raise QuizError(words.is_a_folder(path, flag))
    if path.exists() and not force:
        raise QuizError(words.exists(path, flag, can_force=can_force))


def _check_csv_folder(folder: Path, *, force: bool) -> None:
    """A CSV export goes into a folder (created if missing): its parent must exist, its files are not overwritten."""
    from bot.ops.data import CSV_FILES

    parent = folder.absolute().parent
    if not parent.is_dir():
        raise QuizError(words.csv_no_such_folder(folder, parent))
    if folder.exists() and not folder.is_dir():
        raise QuizError(words.csv_is_a_file(folder))
    existing = [name for name in CSV_FILES if (folder / name).exists()]
    if existing and not force:
        raise QuizError(words.csv_files_exist(folder, existing))


async def _content_flags(settings: Settings, platform: str | None, workspace: str | None) -> int:
    from bot.db.problems import database_errors
    from bot.ops.flags import flags_for_authors
    from bot.service.operator_uow import operator_unit_of_work

    db = await _open_existing(settings)
    try:
        with database_errors(settings.database_url):
            async with operator_unit_of_work(db) as uow:
                message = await flags_for_authors(
                    uow, threshold=settings.flag_pause_threshold, platform=platform, workspace=workspace
                )
    finally:
        await db.dispose()
    print(message.text)
    return 0


_T = TypeVar("_T")


async def _in_operator_uow(settings: Settings, work: Callable[[OperatorUnitOfWork], Awaitable[_T]]) -> _T:
    """Run one operator command's work in an operator unit of work on the configured, migrated database."""
    from bot.db.problems import database_errors
    from bot.service.operator_uow import operator_unit_of_work

    db = await _open_existing(settings)
    try:
        with database_errors(settings.database_url):
            async with operator_unit_of_work(db) as uow:
                return await work(uow)
    finally:
        await db.dispose()


async def _team_content(settings: Settings, args: argparse.Namespace) -> int:
    """`content export|import --workspace PLATFORM:ID`: a workspace's own pack out of the database, or a pack file
    into it (bot/ops/team_packs.py)."""
    from bot.content.cli import export_format
    from bot.content.loader import validate_pack_files
    from bot.content.output import write_new_file
    from bot.ops.team_packs import export_team_pack, import_team_pack, read_pack_file, warnings_of
    from bot.wording import drafts as team_words

    if args.content_command == "export":
        fmt = args.format or export_format(args.output)
        text = await _in_operator_uow(settings, lambda uow: export_team_pack(uow, args.workspace, args.pack, fmt))
        if args.output is None:
            sys.stdout.write(text)
        else:
            write_new_file(args.output, text, force=args.force)
            print(team_words.cli_exported(str(args.output), fmt), file=sys.stderr)
        return 0
    model = read_pack_file(args.source, args.format, pack_id=args.pack_id)  # checked before the database is opened
    for warning in warnings_of(model, str(args.source)):
        print(f"WARN {warning.line()}", file=sys.stderr)
    shipped = {found.id for _, found in validate_pack_files([settings.content_dir]).found}
    stored = await _in_operator_uow(
        settings,
        lambda uow: import_team_pack(
            uow, args.workspace, model, shipped=shipped, by=getpass.getuser(), now=datetime.now(UTC)
        ),
    )
    line = team_words.cli_imported(
        stored.pack.slug,
        args.workspace,
        created=stored.created,
        added=stored.added,
        changed=stored.changed,
        retired=stored.retired,
    )
    print(line, file=sys.stderr)
    return 0


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


def _workspace_arg(text: str | None) -> tuple[str, str] | None:
    """`--workspace PLATFORM:ID` as (platform, id), or None when not given."""
    if text is None:
        return None
    platform, sep, workspace = text.partition(":")
    if not sep or not platform.strip() or not workspace.strip():
        raise QuizError(words.not_a_workspace(text))
    return platform.strip(), workspace.strip()


async def _export(
    settings: Settings, fmt: str, since: datetime | None, out: Path | None, force: bool, *, as_json: bool = False
) -> int:
    from bot.cli_commands import print_json
    from bot.db.problems import database_errors
    from bot.ops.data import EXPORT_STEPS, export_data, write_csv_folder
    from bot.service.operator_uow import operator_unit_of_work

    if as_json and out is None:
        raise QuizError(operator_words.json_needs_out())
    if fmt == "csv" and out is None:
        raise QuizError(words.csv_needs_out())
    if fmt == "csv":
        assert out is not None
        _check_csv_folder(out, force=force)
    else:
        _check_output(out, force=force, flag="--out")
    bar = Progress("export", EXPORT_STEPS)  # on stderr, while a person watches
    db = await _open_existing(settings)
    try:
        with database_errors(settings.database_url), bar:
            async with operator_unit_of_work(db) as uow:
                data = await export_data(uow, since=since, progress=bar.update)
    finally:
        await db.dispose()
    if fmt == "csv":
        assert out is not None
        try:
            written = write_csv_folder(data, out)
        except OSError as exc:
            raise QuizError(operator_words.cannot_write(str(out), exc.strerror or str(exc), "--out")) from exc
        for path in written:
            print(words.wrote(path), file=sys.stderr)
    else:
        _write(json.dumps(data, indent=2, ensure_ascii=False) + "\n", out)
        written = [out] if out is not None else []
    if as_json:
        rows = {table: len(data[table]) for table in ("answers", "posts", "leaderboard")}
        since_day = since.date().isoformat() if since else None
        print_json({"format": fmt, "since": since_day, "files": [str(path) for path in written], "rows": rows})
    return 0


def _confirmed(question: str) -> bool:
    """Ask a y/N question on the terminal; only `y` or `yes` is yes (end of input is no). Called outside the event
    loop: a blocking read inside it would hold up the loop's own Ctrl-C handling, so that Ctrl-C did nothing until
    Enter. Ctrl-C here is KeyboardInterrupt, as anywhere else."""
    sys.stdout.write(question)
    sys.stdout.flush()
    answer = sys.stdin.readline()
    if not answer:  # Ctrl-D: the cursor is still after the question
        sys.stdout.write("\n")
    return answer.strip().casefold() in {"y", "yes"}


def _forget(settings: Settings, platform: str, user_id: str, workspace: str | None, *, yes: bool) -> int:
    """`quizbot forget-user`: the user is looked up first (an unknown one, or a database problem, is said before
    anything is asked), then the question is asked outside any event loop (`_confirmed`), then they are deleted."""
    from bot.wording import confirmations

    asyncio.run(_forget_step(settings, platform, user_id, workspace, delete=False))
    if not yes:
        if not sys.stdin.isatty():
            print(words.error_line(confirmations.not_a_terminal()), file=sys.stderr)
            return 2
        question = confirmations.forget_user_question(words.person(platform, user_id), words.where_to_forget(workspace))
        try:
            confirmed = _confirmed(question)
        except KeyboardInterrupt:
            print("\n" + confirmations.forget_user_cancelled())
            return 130
        if not confirmed:
            print(confirmations.forget_user_cancelled())
            return 1
    asyncio.run(_forget_step(settings, platform, user_id, workspace, delete=True))
    return 0


async def _forget_step(settings: Settings, platform: str, user_id: str, workspace: str | None, *, delete: bool) -> None:
    """Look the user up (QuizError when unknown) or, with `delete`, delete them and say what was deleted."""
    from bot.db.problems import database_errors
    from bot.ops.data import forget_user, known_user
    from bot.plugins import installed_plugins
    from bot.service.operator_uow import operator_unit_of_work

    db = await _open_existing(settings)
    try:
        with database_errors(settings.database_url):
            async with operator_unit_of_work(db) as uow:
                if not delete:
                    await known_user(
                        uow,
                        platform=platform,
                        user_id=user_id,
                        workspace=workspace,
                        installed=list(installed_plugins()),
                    )
                    return
                result = await forget_user(uow, platform=platform, user_id=user_id, workspace=workspace)
    finally:
        await db.dispose()
    print(words.forgot(platform, user_id, result.users, result.rows))


async def _load_report(settings: Settings, cohort: str | None, workspace: str | None, platform: str | None) -> Report:
    from bot.clock import SystemClock
    from bot.db.problems import database_errors
    from bot.service.report import ReportService
    from bot.service.repositories.directory import Directory
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
    settings: Settings,
    cohort: str | None,
    workspace: str | None,
    platform: str | None,
    out: Path,
    *,
    force: bool,
    as_json: bool = False,
) -> int:
    from bot.cli_commands import print_json
    from bot.report_html import render_html

    _check_output(out, force=force, flag="-o/--out")
    report = asyncio.run(_load_report(settings, cohort, workspace, platform))
    try:
        out.write_text(render_html(report), encoding="utf-8")
    except OSError as exc:
        raise QuizError(words.cannot_write_report(out, exc)) from exc
    if as_json:
        print_json(
            {
                "path": str(out),
                "title": report.title,
                "workspace": report.workspace,
                "cohort": cohort,
                "timezone": report.timezone,
                "generated_at": report.generated_at.isoformat(),
                "since": report.since.isoformat() if report.since else None,
                "answers": report.answers,
                "correct": report.correct,
                "points": report.points,
                "participants": report.participants,
            }
        )
        return 0
    print(words.report_written(out, report.title, report.answers, report.participants))
    return 0


# --- the edge: every error an operator can cause ends here as one line ---------------------------------------


def _debug(settings: Settings | None) -> bool:
    """Whether QUIZBOT_LOG_LEVEL=DEBUG asks for tracebacks (read from the environment if settings did not load)."""
    if settings is not None:
        return settings.log_level == "DEBUG"
    return any(k.upper() == "QUIZBOT_LOG_LEVEL" and v.strip().upper() == "DEBUG" for k, v in os.environ.items())


def _fail(message: str, exc: BaseException, settings: Settings | None, status: int) -> int:
    if _debug(settings):
        traceback.print_exception(exc, file=sys.stderr)
    print(words.error_line(message), file=sys.stderr)
    return status


def _warn_unknown_variables() -> None:
    from bot.config import unknown_variables

    for warning in unknown_variables():
        print(words.warning_line(warning), file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `quizbot` console script."""
    with _collector_off_for_start_up() as resume_collector:
        return _main(argv, resume_collector)


@contextmanager
def _collector_off_for_start_up() -> Iterator[Callable[[], None]]:
    """The cyclic collector off while the command line's modules are imported and its arguments parsed; turned
    back on by the callable given (for every command but `run`, once parsed), or at the end at the latest.

    `quizbot run` keeps it off until its start-up is done, where `settle_heap` collects the young generations once
    and turns it back on (bot/cli_commands.py: `run_bot`): the collector would otherwise walk these modules'
    hundred thousand objects, which live as long as the process, again and again as they are made (a full
    collection among them) for next to no garbage. `quizbot run`'s collections then take 80-85 ms instead of
    88-100, its CPU up to `settle_heap` 2-3% less (bench section 9's start, measured 2026-12-06). A collector the
    caller had turned off is left off.
    """
    collecting = gc.isenabled()
    resume = gc.enable if collecting else _leave_off
    gc.disable()
    try:
        yield resume
    finally:
        resume()


def _leave_off() -> None:
    """`resume_collector` when the caller had turned the collector off."""


def _main(argv: Sequence[str] | None, resume_collector: Callable[[], None]) -> int:
    from bot.cli_commands import db_command, doctor, print_findings, run_bot
    from bot.content.cli import run_content_command
    from bot.plugins import Finding, one_line, start_failure

    args = _parser().parse_args(argv)
    if args.command != "run":
        resume_collector()
    settings: Settings | None = None
    try:
        if args.command != "doctor":  # doctor lists them among its findings
            _warn_unknown_variables()
        if args.command == "content":
            if args.content_command == "flags":  # reads the database, unlike the other content commands
                return asyncio.run(_content_flags(_settings(), args.platform, args.workspace))
            if args.content_command in ("export", "import") and args.workspace:  # a workspace's own packs: the database
                return asyncio.run(_team_content(_settings(), args))
            return run_content_command(args, lambda: _settings().content_dir)
        if args.command == "completion":
            from bot.cli_completion import completion_script

            sys.stdout.write(completion_script(args.shell, _parser()))
            return 0
        if args.command == "healthcheck":
            return _healthcheck(args.url)
        if args.command == "doctor":
            try:
                settings = _settings()
            except ConfigError as exc:
                return print_findings([Finding("fail", "settings", str(exc), words.settings_fix())], as_json=args.json)
            configure_logging(settings.effective_log_level(), settings.log_format)
            return asyncio.run(
                doctor(settings, online=args.online, as_json=args.json, workspace=_workspace_arg(args.workspace))
            )
        settings = _settings()
        configure_logging(settings.effective_log_level(), settings.log_format)
        if args.command == "db":
            return asyncio.run(db_command(settings, args.db_command, getattr(args, "revision", "head")))
        if args.command == "export":
            return asyncio.run(_export(settings, args.format, args.since, args.out, args.force, as_json=args.json))
        if args.command == "forget-user":
            return _forget(settings, args.platform, args.user_id, args.workspace, yes=args.yes)
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
            return _report(
                settings, args.cohort, args.workspace, args.platform, args.out, force=args.force, as_json=args.json
            )
        asyncio.run(run_bot(settings))
        return 0
    except DatabaseNotReady as exc:
        return _fail(database_words.line(exc), exc, settings, 2)
    except (ConfigError, InvalidPack, QuizError) as exc:
        return _fail(str(exc), exc, settings, 2)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # not one of ours: its class and message on one line, the traceback with DEBUG
        hint = "" if _debug(settings) else words.traceback_hint()
        return _fail(f"{type(exc).__name__}: {one_line(exc)}{hint}", exc, settings, 1)


if __name__ == "__main__":
    raise SystemExit(main())
