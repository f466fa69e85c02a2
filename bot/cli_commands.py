"""The `quizbot` commands that are not about the data: `run`, `db`, `doctor` and `healthcheck` (`bot.cli` parses
the command line and sends each here)."""

# ruff: noqa: PLC0415 - heavy imports only for the command that needs them (as in bot/cli.py)

from __future__ import annotations

import gc
import json
import logging
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from bot.config import Settings, load_settings
from bot.errors import ConfigError, InvalidPack, QuizError
from bot.plugins import Finding, one_line, start_failure
from bot.progress import Progress, watched
from bot.wording import cli as words

if TYPE_CHECKING:
    from bot.db import Database

log = logging.getLogger("bot.cli")  # operators' log filters (and the tests) know a failed run by this name


async def db_command(settings: Settings, command: str, revision: str) -> int:
    """`quizbot db upgrade|current`."""
    from bot.db import Database
    from bot.db.migrate import current_revision, head_revision, is_known_revision, upgrade
    from bot.db.problems import database_errors, require_sqlite_folder, sqlite_file
    from bot.wording.database import upgrade as upgrade_hint

    url = settings.database_url
    require_sqlite_folder(url)
    if command == "current" and (path := sqlite_file(url)) is not None and not path.exists():
        print(words.no_database_yet(path.absolute(), upgrade_hint()))  # and do not create it
        return 0
    timeouts = settings.database_timeouts()
    db = Database.from_url(url, timeouts=timeouts.unbounded_statements() if command == "upgrade" else timeouts)
    try:
        with database_errors(url):
            if command == "upgrade":
                if revision != "head" and not is_known_revision(revision):  # not Alembic's CommandError
                    raise QuizError(words.unknown_revision(revision, head_revision()))
                if watched():
                    await _upgrade_with_progress(db, revision)
                else:
                    await upgrade(db, revision)
                reached = await current_revision(db)
                if revision not in ("head", reached):  # the database was past it: upgrade never goes back
                    print(words.already_past(reached, revision))
                else:
                    print(words.upgraded(revision, head_revision()))
            else:
                current = await current_revision(db)
                known = current is None or is_known_revision(current)
                print(words.revision_state(current, head_revision(), upgrade_hint(), known=known))
    finally:
        await db.dispose()
    return 0


async def _upgrade_with_progress(db: Database, revision: str) -> None:
    """`db upgrade` with a bar that advances as each migration starts (counted from Alembic's own log record)."""
    from alembic.script import ScriptDirectory

    from bot.db.migrate import alembic_config, current_revision, upgrade

    current = await current_revision(db)
    script = ScriptDirectory.from_config(alembic_config())
    steps = len(list(script.iterate_revisions(revision, current or "base")))
    with Progress("db upgrade", steps) as bar, _counting_migrations(bar.advance):
        await upgrade(db, revision)
        bar.update(steps)


@contextmanager
def _counting_migrations(on_step: Callable[[], None]) -> Iterator[None]:
    """Call `on_step` as Alembic starts each migration ("Running upgrade A -> B"). Alembic logs that at INFO, which
    quizbot's logging keeps quiet; the record is taken here and whatever would have been shown is passed on."""
    logger = logging.getLogger("alembic.runtime.migration")
    shown_from = logger.getEffectiveLevel()

    class Steps(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.getMessage().startswith("Running upgrade"):
                on_step()
            if record.levelno >= shown_from and logger.parent is not None:
                logger.parent.handle(record)  # as propagation would have

    handler = Steps()
    level, propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate


async def doctor(
    settings: Settings, *, online: bool, as_json: bool = False, workspace: tuple[str, str] | None = None
) -> int:
    """`quizbot doctor`: each finding on a line, then the count of problems (or all of it as JSON); 1 if any."""
    from bot.ops.doctor import diagnose

    return print_findings(await diagnose(settings, online=online, workspace=workspace), as_json=as_json)


def print_findings(findings: Sequence[Finding], *, as_json: bool) -> int:
    """The doctor's findings as lines and a count, or as docs/json.md's doctor object; 1 if any failed."""
    failed = sum(f.level == "fail" for f in findings)
    if as_json:
        rows = [{"level": f.level, "subject": f.subject, "detail": f.detail, "fix": f.fix or None} for f in findings]
        print_json({"ok": not failed, "problems": failed, "findings": rows})
        return 1 if failed else 0
    for finding in findings:
        print(finding.line())
    print(words.doctor_summary(failed))
    return 1 if failed else 0


def print_json(document: Mapping[str, Any]) -> None:
    """One JSON object on stdout, for scripts (`--json`; the schemas are in docs/json.md)."""
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def healthcheck(url: str | None) -> int:
    """`quizbot healthcheck`: 0 if the running bot's /healthz says healthy."""
    import urllib.error
    import urllib.request

    if url is None:
        port = load_settings().http_port
        if port is None:
            raise QuizError(words.no_health_port())
        url = f"http://127.0.0.1:{port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=4) as response:
            body = response.read().decode("utf-8", "replace")
            healthy = response.status == 200
    except urllib.error.HTTPError as exc:
        body, healthy = exc.read().decode("utf-8", "replace"), False
    except OSError as exc:
        body, healthy = words.cannot_reach(url, exc), False
    print(body.strip())
    return 0 if healthy else 1


# --- `quizbot run`, and what an operator reads when a platform will not let the bot in ----------------------


def _refuse_bad_credentials(settings: Settings) -> None:
    """Before anything starts: credentials an enabled adapter must not run with (a user token as the bot's)."""
    enabled = settings.enabled_adapters()
    for name, adapter in settings.adapter_settings().items():
        if name in enabled and (refusal := adapter.start_refusal()) is not None:
            raise ConfigError(refusal)


def settle_heap() -> None:
    """After start-up (run with the collector off): collect its garbage once, then freeze what is left, which lives
    as long as the process, out of the collector's sight (`gc.freeze`) and turn the collector back on.

    Otherwise the first full collection after start-up walks every object start-up made: 70-87 ms measured inside
    the first click batch (its p99, bench section 1), and again at each later full collection.

    The garbage is looked for in the young generations only, where everything made with the collector off is (off
    since `bot.cli.main` began importing the command line's modules): the oldest holds what was imported before it
    went off (the interpreter's and `bot.cli`'s own few imports, and whatever the caller had imported), with the
    collector on, which collected that garbage as it went. A full collection would walk those objects too, for
    nothing: 85-105 ms against 45-55 ms, about a tenth of the start-up (measured 2026-12-06, when the oldest held
    ~70,000 objects: all of `bot.cli`'s imports were made with the collector on then).
    """
    gc.collect(1)
    gc.freeze()
    gc.enable()


async def run_bot(settings: Settings) -> None:
    """`quizbot run`: `bot.runtime.run`, with the database's and the adapters' failures turned into one line."""
    # Start-up imports and builds some hundred thousand objects that live as long as the process; the cyclic
    # collector would walk them again and again meanwhile (about a tenth of the start-up) for little garbage.
    # (`bot.cli.main` turned it off already, before the command line's imports: this is for other callers.)
    gc.disable()
    try:
        from bot.content.loader import holds_packs
        from bot.db.problems import database_errors, require_sqlite_folder
        from bot.runtime import build_adapters, build_runtime, serve
        from bot.supervision import AdapterFailed
        from bot.wording import operator as operator_words

        require_sqlite_folder(settings.database_url)
        _refuse_bad_credentials(settings)
        try:
            with database_errors(settings.database_url):
                runtime = await build_runtime(settings)
                try:
                    await runtime.warm_up()  # before the heap is settled: what it builds is kept and frozen too
                except BaseException:
                    await runtime.aclose()
                    raise
        except InvalidPack as exc:  # the message names the file; say how to find every problem at once
            fix = (
                words.pack_fix(settings.content_dir)
                if holds_packs(settings.content_dir)
                else operator_words.content_dir_fix()  # no pack to fix: the setting is wrong
            )
            raise InvalidPack(f"{exc}; {fix}", problems=exc.problems) from exc
        try:
            adapters = build_adapters(runtime)
        except BaseException:
            await runtime.aclose()
            raise
    finally:
        settle_heap()
    log.info("quizbot running with %s", ", ".join(a.name for a in adapters))
    try:
        await serve(runtime, adapters)
    except AdapterFailed as stopped:  # a process-level failure (bot/supervision.py); one that served is restarted
        failure = stopped.error
        explained = start_failure(stopped.adapter, failure)
        if explained is None:  # not the platform's refusal nor a setting: log it too, for whoever reads only logs
            explained = QuizError(words.adapter_stopped(stopped.adapter, type(failure).__name__, one_line(failure)))
            log.error("%s", explained)
        raise explained from failure
