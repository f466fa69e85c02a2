"""Issue 12: every operator mistake ends a `quizbot` command with a short message that names the setting or path
and what to do, a non-zero exit status and no traceback (the traceback stays for QUIZBOT_LOG_LEVEL=DEBUG).

Commands run through `bot.cli.main` (stderr captured) or as a `quizbot` process with a clean environment.
"""

from __future__ import annotations

import asyncio
import logging
import os
import pty
import select
import signal
import socket
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from bot.cli import main
from tests.conftest import (
    CONTENT,
    PATIENT_DATABASE_ENV,
    POSTGRES_ADMIN_URL,
    REPO,
    _create_pg_database,
    _drop_pg_database,
    _pg_url,
    patient_settings,
    use_patient_database,
)
from tests.fakes.slack_api import FakeSlack
from tests.slack_harness import without_proxies

READ_ONLY = [["report"], ["export"], ["doctor"], ["db", "current"], ["forget-user", "console", "ann"]]
DATABASE_COMMANDS = [*READ_ONLY, ["db", "upgrade"], ["run"]]
SEED = sorted((REPO / "tests" / "data" / "seeds").glob("*.txt"))[0]
DOWN_URL = make_url(POSTGRES_ADMIN_URL).set(port=1, password="s3cret").render_as_string(hide_password=False)
"""A PostgreSQL URL with a password, on a port nothing listens on."""


@pytest.fixture
def operator_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """No QUIZBOT_ variable but the shipped packs, an empty working folder (no .env), and the log handlers back."""
    for name in list(os.environ):
        if name.upper().startswith("QUIZBOT_"):
            monkeypatch.delenv(name)
    use_patient_database(monkeypatch)
    monkeypatch.setenv("QUIZBOT_CONTENT_DIR", str(CONTENT))
    monkeypatch.chdir(tmp_path)
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        yield tmp_path
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run `quizbot ARGS` in this process: (exit status, stdout, stderr)."""
    capsys.readouterr()
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


async def acli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`cli` from a test whose event loop serves a fake platform."""
    capsys.readouterr()
    status = await asyncio.to_thread(main, list(args))
    out, err = capsys.readouterr()
    return status, out, err


def one_line(text: str, *needles: str) -> str:
    """The only line of `text` (no traceback), which contains every needle."""
    assert "Traceback" not in text, text
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1, text
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def quizbot_process(cwd: Path, *args: str, timeout: float = 60, **env: str) -> subprocess.CompletedProcess[str]:
    """`quizbot ARGS` as its own process, with only PATH, HOME, the given QUIZBOT_ variables and the patient
    database waits."""
    script = Path(sys.executable).with_name("quizbot")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "bot.cli"]
    clean = {k: v for k, v in without_proxies().items() if k in {"PATH", "HOME", "LANG", "SYSTEMROOT"}}
    clean.update(PYTHONPATH=str(REPO), QUIZBOT_CONTENT_DIR=str(CONTENT), **{**PATIENT_DATABASE_ENV, **env})
    return subprocess.run(
        [*command, *args], cwd=cwd, env=clean, capture_output=True, text=True, timeout=timeout, check=False
    )


def closed_port() -> int:
    """A loopback port nobody listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# --- the database -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("args", DATABASE_COMMANDS, ids=" ".join)
def test_postgresql_not_listening(
    args: list[str], operator_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", DOWN_URL)
    status, out, err = cli(capsys, *args)
    assert status != 0
    if args == ["doctor"]:
        assert "FAIL database: cannot connect to PostgreSQL at 127.0.0.1:1: connection refused" in out
        assert "fix: check QUIZBOT_DATABASE_URL" in out
        assert "s3cret" not in out
        assert "Traceback" not in out + err
        return
    line = one_line(
        err, "quizbot: cannot connect to PostgreSQL at 127.0.0.1:1: connection refused", "QUIZBOT_DATABASE_URL"
    )
    assert "postgres:***@127.0.0.1:1" in line
    assert "s3cret" not in line


@pytest.mark.postgres
@pytest.mark.parametrize("args", DATABASE_COMMANDS, ids=" ".join)
def test_postgresql_database_that_does_not_exist(
    args: list[str],
    postgres_template: str,  # fails the test when there is no PostgreSQL server
    operator_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    name = f"quizbot_missing_{uuid.uuid4().hex[:10]}"
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", _pg_url(name))
    status, out, err = cli(capsys, *args)
    assert status != 0
    expected = f'database "{name}" does not exist on the PostgreSQL server'
    if args == ["doctor"]:
        assert f"FAIL database: {expected}" in out
        assert "createdb -h " in out
        assert "Traceback" not in out + err
    else:
        one_line(err, f"quizbot: {expected}", "QUIZBOT_DATABASE_URL=", "createdb -h ", "quizbot db upgrade")


@pytest.mark.parametrize("args", DATABASE_COMMANDS, ids=" ".join)
def test_sqlite_file_in_a_folder_that_does_not_exist(
    args: list[str], operator_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = operator_env / "no" / "such"
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", f"sqlite+aiosqlite:///{folder}/quizbot.db")
    status, out, err = cli(capsys, *args)
    assert status != 0
    expected = f"the folder {folder} of the SQLite database {folder}/quizbot.db does not exist"
    if args == ["doctor"]:
        assert f"FAIL database: {expected}" in out
        assert "Traceback" not in out + err
    else:
        one_line(err, f"quizbot: {expected}", "QUIZBOT_DATABASE_URL", "create the folder")
    assert not (operator_env / "no").exists()


@pytest.mark.parametrize("args", READ_ONLY, ids=" ".join)
def test_read_only_commands_never_create_a_sqlite_database(
    args: list[str], operator_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", "sqlite:///quizbot.db")
    status, out, err = cli(capsys, *args)
    assert not list(operator_env.glob("quizbot.db*"))
    path = operator_env / "quizbot.db"
    if args == ["db", "current"]:  # tells where the database stands: nowhere yet
        assert status == 0
        assert out == f"empty: there is no database at {path} yet; run `quizbot db upgrade` to create it\n"
        return
    assert status != 0
    if args == ["doctor"]:
        assert f"FAIL database: there is no database at {path}" in out
        assert "fix: run `quizbot db upgrade`" in out
        assert "Traceback" not in out + err
        return
    one_line(err, f"quizbot: there is no database at {path}", "QUIZBOT_DATABASE_URL=", "run `quizbot db upgrade`")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def unmigrated_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An existing database without quizbot's schema: an empty SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        path = tmp_path / "empty.db"
        sqlite3.connect(path).close()
        yield f"sqlite+aiosqlite:///{path}"
        return
    request.getfixturevalue("postgres_template")  # fails the test when there is no PostgreSQL server
    name = f"quizbot_empty_{uuid.uuid4().hex[:10]}"
    asyncio.run(_create_pg_database(name))
    try:
        yield _pg_url(name)
    finally:
        asyncio.run(_drop_pg_database(name))


@pytest.mark.parametrize("args", READ_ONLY, ids=" ".join)
def test_read_only_commands_on_an_unmigrated_database_say_to_upgrade(
    args: list[str],
    unmigrated_url: str,
    operator_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", unmigrated_url)
    status, out, err = cli(capsys, *args)
    if args == ["db", "current"]:
        assert status == 0
        assert out.startswith("empty: behind (newest is ")
        assert out.rstrip().endswith("run `quizbot db upgrade`")
    elif args == ["doctor"]:
        assert status == 1
        assert f"FAIL migrations: the database at {unmigrated_url} is at an empty schema" in out
        assert "fix: run `quizbot db upgrade`" in out
    else:
        assert status == 2
        one_line(err, f"quizbot: the database at {unmigrated_url} is empty", "run `quizbot db upgrade`")
    assert "Traceback" not in out + err
    status, out, _ = cli(capsys, "db", "current")
    assert out.startswith("empty: ")  # reading did not migrate it


def test_passwords_are_masked_in_messages() -> None:
    from bot.db.problems import masked_url

    assert masked_url("postgresql+asyncpg://quiz:hunter2@db:5432/quiz") == "postgresql+asyncpg://quiz:***@db:5432/quiz"
    assert masked_url("sqlite+aiosqlite:///quizbot.db") == "sqlite+aiosqlite:///quizbot.db"


def test_postgresql_not_listening_as_a_process(tmp_path: Path) -> None:
    done = quizbot_process(tmp_path, "db", "current", QUIZBOT_DATABASE_URL=DOWN_URL)
    assert done.returncode == 2
    one_line(done.stderr, "quizbot: cannot connect to PostgreSQL at 127.0.0.1:1", "QUIZBOT_DATABASE_URL")
    assert "s3cret" not in done.stderr


# --- URLs people write ----------------------------------------------------------------------------------------------


def test_plain_postgresql_and_sqlite_urls_work(
    database_url: str, operator_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.db.migrate import head_revision

    plain = database_url.replace("+aiosqlite", "").replace("+asyncpg", "")
    for url in {plain, plain.replace("postgresql://", "postgres://")}:
        monkeypatch.setenv("QUIZBOT_DATABASE_URL", url)
        status, out, err = cli(capsys, "db", "current")
        assert (status, out, err) == (0, f"{head_revision()}: up to date\n", "")


# --- the platforms at start -----------------------------------------------------------------------------------------


async def test_slack_refusing_the_bot_token_at_start(fake: FakeSlack, tmp_path: Path) -> None:
    done = await asyncio.to_thread(
        quizbot_process,
        tmp_path,
        "run",
        QUIZBOT_DATABASE_URL=f"sqlite:///{tmp_path}/quizbot.db",
        QUIZBOT_SLACK_BOT_TOKEN="xoxb-not-the-token",
        QUIZBOT_SLACK_SIGNING_SECRET="0" * 32,
        QUIZBOT_SLACK_PORT="0",
        QUIZBOT_SLACK_API_URL=fake.api_url,
        QUIZBOT_LOG_LEVEL="WARNING",
    )
    assert done.returncode == 2
    one_line(
        done.stderr,
        "quizbot: Slack refused QUIZBOT_SLACK_BOT_TOKEN: invalid_auth; copy the Bot User OAuth Token (xoxb-...)",
    )


def test_slack_errors_the_adapter_passes_on_name_the_token() -> None:
    from slack_sdk.errors import SlackApiError

    from bot.plugins import start_failure as _platform_failure

    refused = SlackApiError(
        "The request to the Slack API failed. (url: https://slack.com/api/apps.connections.open)",
        response={"ok": False, "error": "invalid_auth"},
    )
    assert str(_platform_failure("slack", refused)).startswith(
        "Slack refused QUIZBOT_SLACK_APP_TOKEN: invalid_auth; copy the Bot User OAuth Token"
    )
    other = SlackApiError("The request to the Slack API failed.", response={"ok": False, "error": "fatal_error"})
    assert str(_platform_failure("slack", other)) == (
        "Slack answered with an error: fatal_error; try again; if it persists check QUIZBOT_SLACK_BOT_TOKEN"
    )


def test_slack_unreachable_at_start(tmp_path: Path) -> None:
    done = quizbot_process(
        tmp_path,
        "run",
        QUIZBOT_DATABASE_URL=f"sqlite:///{tmp_path}/quizbot.db",
        QUIZBOT_SLACK_BOT_TOKEN="xoxb-1",
        QUIZBOT_SLACK_SIGNING_SECRET="0" * 32,
        QUIZBOT_SLACK_PORT="0",
        QUIZBOT_SLACK_API_URL=f"http://127.0.0.1:{closed_port()}/api/",
        QUIZBOT_LOG_LEVEL="WARNING",
    )
    assert done.returncode == 2
    one_line(done.stderr, "quizbot: could not reach Slack at http://127.0.0.1:", "QUIZBOT_SLACK_API_URL")


@pytest.fixture
async def discord() -> AsyncIterator[object]:
    from tests.fakes.discord_api import FakeDiscord

    async with FakeDiscord(token="the-bot-token") as fake:
        yield fake


async def test_discord_refusing_the_token_at_start(
    discord: object, operator_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", f"sqlite:///{operator_env}/quizbot.db")
    monkeypatch.setenv("QUIZBOT_DISCORD_TOKEN", "not-the-token")
    monkeypatch.setenv("QUIZBOT_LOG_LEVEL", "WARNING")
    status, _, err = await acli(capsys, "run")
    assert status == 2
    one_line(err, "quizbot: Discord refused QUIZBOT_DISCORD_TOKEN", "Developer Portal")


async def test_discord_answering_an_error_at_start(
    discord: object, operator_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.fakes.discord_api import FakeDiscord

    assert isinstance(discord, FakeDiscord)
    discord.fail_next("GET", "/users/@me", "missing_access")  # a discord.HTTPException the adapter passes on
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", f"sqlite:///{operator_env}/quizbot.db")
    monkeypatch.setenv("QUIZBOT_DISCORD_TOKEN", "the-bot-token")
    monkeypatch.setenv("QUIZBOT_LOG_LEVEL", "WARNING")
    status, _, err = await acli(capsys, "run")
    assert status == 2
    one_line(err, "quizbot: Discord answered with an error: 403 Forbidden", "QUIZBOT_DISCORD_TOKEN")


async def test_discord_unreachable_at_start(
    operator_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.fakes.discord_api import patch_discord

    port = closed_port()
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", f"sqlite:///{operator_env}/quizbot.db")
    monkeypatch.setenv("QUIZBOT_DISCORD_TOKEN", "the-bot-token")
    monkeypatch.setenv("QUIZBOT_LOG_LEVEL", "WARNING")
    with patch_discord(f"http://127.0.0.1:{port}/api/v10", f"ws://127.0.0.1:{port}/gw"):
        status, _, err = await acli(capsys, "run")
    assert status == 2
    one_line(err, f"quizbot: cannot reach Discord: Cannot connect to host 127.0.0.1:{port}", "check the network")


async def test_discord_commands_unreachable(
    operator_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.fakes.discord_api import patch_discord

    port = closed_port()
    monkeypatch.setenv("QUIZBOT_DISCORD_TOKEN", "the-bot-token")
    monkeypatch.setenv("QUIZBOT_LOG_LEVEL", "ERROR")  # discord.py warns about intents and voice on its own
    with patch_discord(f"http://127.0.0.1:{port}/api/v10", f"ws://127.0.0.1:{port}/gw"):
        status, _, err = await acli(capsys, "discord", "sync")
    assert status == 2
    one_line(err, "quizbot: cannot reach Discord", "check the network")


class _Failing:
    """An adapter that fails as soon as it runs."""

    name = "console"

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def run(self) -> None:
        raise self.error


def _adapter_start_error() -> Exception:
    from bot.errors import AdapterStartError

    return AdapterStartError("Acme refused QUIZBOT_ACME_TOKEN", setting="QUIZBOT_ACME_TOKEN", fix="copy it again")


@pytest.mark.parametrize(
    ("error", "expected", "logged"),
    [
        (_adapter_start_error, "quizbot: Acme refused QUIZBOT_ACME_TOKEN; copy it again", None),
        (
            lambda: RuntimeError("no luck\ntoday"),
            "quizbot: the console adapter stopped: RuntimeError: no luck today",
            " ERROR   bot.cli: the console adapter stopped: RuntimeError: no luck today",
        ),
    ],
    ids=["AdapterStartError", "anything else"],
)
def test_an_adapter_failing_at_start_is_one_line(
    error: Callable[[], Exception],
    expected: str,
    logged: str | None,
    operator_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The explained line on stderr; an unexpected failure is also one line at ERROR in the log (whoever reads
    only the logs sees it), never a traceback."""
    import bot.runtime

    monkeypatch.setenv("QUIZBOT_DATABASE_URL", f"sqlite:///{operator_env}/quizbot.db")
    monkeypatch.setattr(bot.runtime, "adapter_factories", lambda: {"console": lambda runtime: _Failing(error())})
    status, _, err = cli(capsys, "run")
    assert status == 2
    if logged is None:
        assert one_line(err) == expected
    else:
        assert "Traceback" not in err
        log_line, line = [line for line in err.splitlines() if line.strip()]
        assert line == expected
        assert log_line.endswith(logged)


def test_the_traceback_is_kept_for_debug(
    operator_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import bot.cli

    def broken(url: str | None) -> int:
        raise ValueError("something unexpected")

    monkeypatch.setattr(bot.cli, "_healthcheck", broken)
    status, _, err = cli(capsys, "healthcheck")
    assert status == 1
    assert one_line(err) == ("quizbot: ValueError: something unexpected (QUIZBOT_LOG_LEVEL=DEBUG shows the traceback)")
    monkeypatch.setenv("QUIZBOT_LOG_LEVEL", "DEBUG")
    status, _, err = cli(capsys, "healthcheck")
    assert status == 1
    assert err.startswith("Traceback (most recent call last):")
    assert err.rstrip().endswith("quizbot: ValueError: something unexpected")


# --- files: -o/--out and input -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["export", "--out", "{missing}/all.json"],
        ["export", "--format", "csv", "--out", "{missing}/csv"],
        ["report", "-o", "{missing}/report.html"],
        ["content", "schema", "-o", "{missing}/schema.json"],
        ["content", "import", str(SEED), "-o", "{missing}/pack.yaml"],
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_output_into_a_folder_that_does_not_exist(
    args: list[str],
    database_url: str,
    operator_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", database_url)
    missing = operator_env / "no-such-folder"
    status, _, err = cli(capsys, *(arg.format(missing=missing) for arg in args))
    assert status == 2
    one_line(err, "quizbot: cannot write", f"the folder {missing} does not exist")
    assert not missing.exists()


@pytest.mark.parametrize(
    ("args", "target"),
    [
        (["export", "--out", "all.json"], "all.json"),
        (["export", "--format", "csv", "--out", "csv"], "csv/posts.csv"),
        (["report", "-o", "report.html"], "report.html"),
        (["content", "schema", "-o", "schema.json"], "schema.json"),
    ],
    ids=lambda value: " ".join(value[:2]) if isinstance(value, list) else value,
)
def test_output_onto_an_existing_file_needs_force(
    args: list[str],
    target: str,
    database_url: str,
    operator_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", database_url)
    existing = operator_env / target
    existing.parent.mkdir(exist_ok=True)
    existing.write_text("keep me", encoding="utf-8")
    status, _, err = cli(capsys, *args)
    assert status == 2
    one_line(err, "pass --force to overwrite")
    assert existing.read_text(encoding="utf-8") == "keep me"
    if args[0] == "report":
        return  # an empty database has nothing to report on; --force is checked below on a real report
    status, _, err = cli(capsys, *args, "--force")
    assert status == 0, err
    assert existing.read_text(encoding="utf-8") != "keep me"


def test_report_overwrites_with_force(
    database_url: str, operator_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    asyncio.run(_one_answer(database_url))
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", database_url)
    (operator_env / "report.html").write_text("keep me", encoding="utf-8")
    assert cli(capsys, "report")[0] == 2
    status, out, err = cli(capsys, "report", "--force")
    assert status == 0, err
    assert out.startswith("wrote report.html: ")
    assert (operator_env / "report.html").read_text(encoding="utf-8").startswith("<!doctype html>")


async def _one_answer(url: str) -> None:
    import random

    from bot.clock import ManualClock
    from bot.domain import ChannelRef
    from bot.runtime import build_runtime
    from tests.conftest import make_user
    from tests.fakes.fake_platform import FakePlatform

    settings = patient_settings(database_url=url, content_dir=CONTENT)
    runtime = await build_runtime(settings, clock=ManualClock(), rng=random.Random(1), migrate=False)
    runtime.platforms.register(FakePlatform())
    try:
        card = (await runtime.quiz.post_question(ChannelRef("fake", "W1", "C1"))).card
        await runtime.app.answer(post_id=card.post_id, user=make_user("ann"), choice_index=card.choice_ids[0])
    finally:
        await runtime.aclose()


def test_content_import_onto_an_existing_file(operator_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (operator_env / "pack.yaml").write_text("keep me", encoding="utf-8")
    status, _, err = cli(capsys, "content", "import", str(SEED), "-o", "pack.yaml")
    assert status == 2
    one_line(err, "quizbot: pack.yaml exists", "give another -o")
    assert (operator_env / "pack.yaml").read_text(encoding="utf-8") == "keep me"


def test_a_non_utf8_input_file(operator_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = operator_env / "quiz.txt"
    source.write_bytes("Quiz\n1. Caf\xe9?\n".encode("latin-1"))
    status, _, err = cli(capsys, "content", "import", str(source))
    assert status == 2
    one_line(err, f"quizbot: {source} is not UTF-8 text", "save it as UTF-8")


def test_a_non_utf8_env_file(operator_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (operator_env / ".env").write_bytes("QUIZBOT_CONSOLE_USER=Jos\xe9\n".encode("latin-1"))
    status, _, err = cli(capsys, "db", "current")
    assert status == 2
    one_line(err, f"quizbot: {operator_env / '.env'} is not UTF-8 text", "save it as UTF-8")
    status, out, _ = cli(capsys, "doctor")
    assert status == 1
    assert f"FAIL settings: {operator_env / '.env'} is not UTF-8 text" in out


def test_a_non_utf8_pack(
    operator_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    packs = operator_env / "packs"
    packs.mkdir()
    (packs / "latin.yaml").write_bytes("id: latin\ntitle: Caf\xe9\n".encode("latin-1"))
    monkeypatch.setenv("QUIZBOT_CONTENT_DIR", str(packs))
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", f"sqlite:///{operator_env}/quizbot.db")
    status, _, err = cli(capsys, "run")
    assert status == 2
    one_line(err, f"quizbot: {packs / 'latin.yaml'}: cannot read", "utf-8", "`quizbot content check`")


@pytest.mark.parametrize("folder", ["no-such-folder", "empty"])
def test_a_content_dir_without_packs_says_to_fix_the_setting_not_a_pack(
    operator_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], folder: str
) -> None:
    (operator_env / "empty").mkdir()
    monkeypatch.setenv("QUIZBOT_CONTENT_DIR", str(operator_env / folder))
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", f"sqlite:///{operator_env}/quizbot.db")
    fix = "point QUIZBOT_CONTENT_DIR at a folder of pack files (*.yaml), or unset it to use the shipped packs"
    status, _, err = cli(capsys, "run")
    assert status == 2
    one_line(err, "quizbot: ", "no pack files" if folder == "empty" else "no-such-folder: no such file or folder", fix)
    status, out, _ = cli(capsys, "doctor")
    assert status == 1
    assert f"FAIL content: {'' if folder == 'empty' else operator_env / folder}" in out
    assert f"     fix: {fix}\n" in out and "edit the pack" not in out


def test_a_database_a_newer_quizbot_upgraded_is_named_so_by_every_command(
    operator_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A deploy rolled back after the newer version migrated: the schema is at a revision this quizbot has never
    heard of. Not `CommandError: Can't locate revision`, nor `behind; run quizbot db upgrade`, which cannot help."""
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", f"sqlite:///{operator_env}/quizbot.db")
    assert cli(capsys, "db", "upgrade")[0] == 0
    with sqlite3.connect(operator_env / "quizbot.db") as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999'")
    newer = "the database is at schema revision 9999, which this quizbot does not know"
    fix = "run that newer quizbot again, or restore the backup taken before the upgrade"
    for command in (("run",), ("db", "upgrade"), ("export",)):
        status, _, err = cli(capsys, *command)
        assert status == 2, (command, err)
        one_line(err, f"quizbot: {newer}", fix)
    status, out, _ = cli(capsys, "db", "current")
    assert status == 0
    assert out.startswith("9999: newer than this quizbot knows") and "run `quizbot db upgrade`" not in out, out
    status, out, _ = cli(capsys, "doctor")
    assert status == 1
    assert f"FAIL migrations: {newer}" in out and f"fix: {fix}" in out, out
    with sqlite3.connect(operator_env / "quizbot.db") as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [("9999",)]  # left as it was


def test_db_upgrade_to_a_revision_it_does_not_have_or_is_past_says_so(
    operator_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", f"sqlite:///{operator_env}/quizbot.db")
    status, _, err = cli(capsys, "db", "upgrade", "bogus")
    assert status == 2  # not 1 with `CommandError: Can't locate revision identified by 'bogus'`
    one_line(err, "quizbot: there is no schema revision 'bogus'; run `quizbot db upgrade` for the newest")
    assert cli(capsys, "db", "upgrade")[0] == 0
    head = cli(capsys, "db", "current")[1].split(":", 1)[0]
    status, out, _ = cli(capsys, "db", "upgrade", "0005")
    assert status == 0
    assert (
        out
        == f"the database is at {head}, already past 0005: nothing was changed (`quizbot db upgrade` never goes back)\n"
    )
    assert cli(capsys, "db", "current")[1] == f"{head}: up to date\n"  # not `database upgraded to 0005`


# --- settings -------------------------------------------------------------------------------------------------------


def test_unknown_variables_are_warned_about_with_the_nearest_name(
    operator_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("QUIZBOT_TIMEZON", "Europe/Helsinki")
    monkeypatch.setenv("QUIZBOT_TEST_POSTGRES_URL", POSTGRES_ADMIN_URL)  # read by the tests, not a setting
    (operator_env / ".env").write_text("QUIZBOT_DATABSE_URL=sqlite:///x.db\nOTHER=1\n", encoding="utf-8")
    status, _, err = cli(capsys, "content", "schema", "-o", "schema.json")
    assert status == 0
    assert err.splitlines() == [
        "quizbot: warning: QUIZBOT_DATABSE_URL (in .env) is not a quizbot setting and is ignored; did you mean"
        " QUIZBOT_DATABASE_URL?",
        "quizbot: warning: QUIZBOT_TIMEZON is not a quizbot setting and is ignored; did you mean QUIZBOT_TIMEZONE?",
    ]
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", f"sqlite:///{operator_env}/none.db")
    _, out, err = cli(capsys, "doctor")
    assert (
        "WARN settings: QUIZBOT_TIMEZON is not a quizbot setting and is ignored; did you mean QUIZBOT_TIMEZONE?" in out
    )
    assert "warning" not in err


def test_a_blank_console_user_is_refused(
    operator_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("QUIZBOT_CONSOLE_USER", "   ")
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", f"sqlite:///{operator_env}/quizbot.db")
    status, _, err = cli(capsys, "run")
    assert status == 2
    one_line(err, "quizbot: QUIZBOT_CONSOLE_USER is blank", "unset it")


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("QUIZBOT_ADAPTERS", "console,irc", "QUIZBOT_ADAPTERS item 2 ('irc'): Input should be 'console', 'slack' or"),
        ("QUIZBOT_DISCORD_SHARD_IDS", "0, one", "QUIZBOT_DISCORD_SHARD_IDS item 2 ('one'): Input should be a valid"),
    ],
)
def test_a_bad_list_item_is_named_by_position_and_value(
    name: str,
    value: str,
    expected: str,
    operator_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("QUIZBOT_DISCORD_SHARD_COUNT", "2")
    monkeypatch.setenv(name, value)
    status, _, err = cli(capsys, "db", "current")
    assert status == 2
    line = one_line(err, f"quizbot: {expected}")
    assert ".1" not in line


async def test_slack_socket_mode_refusing_the_app_token_at_start(fake: FakeSlack, tmp_path: Path) -> None:
    done = await asyncio.to_thread(
        quizbot_process,
        tmp_path,
        "run",
        timeout=45,
        QUIZBOT_DATABASE_URL=f"sqlite:///{tmp_path}/quizbot.db",
        QUIZBOT_SLACK_BOT_TOKEN=fake.bot_token,
        QUIZBOT_SLACK_APP_TOKEN="xapp-not-the-token",
        QUIZBOT_SLACK_API_URL=fake.api_url,
        QUIZBOT_LOG_LEVEL="WARNING",
    )
    assert done.returncode == 2, done.stderr
    one_line(done.stderr, "quizbot: Slack refused QUIZBOT_SLACK_APP_TOKEN: invalid_auth")


# --- an operator's first hour: errors that name the fix (issue 25) -------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [["export", "--out", "/sys/quizbot-export.json"], ["export", "--format", "csv", "--out", "/sys/quizbot-export"]],
    ids=["json", "csv"],
)
def test_export_to_a_place_it_may_not_write(args: list[str], database_url: str, operator_env: Path) -> None:
    """/sys refuses new files even to root: the export says which path and what to do, not `PermissionError: ...`."""
    assert quizbot_process(operator_env, "db", "upgrade", QUIZBOT_DATABASE_URL=database_url).returncode == 0
    done = quizbot_process(operator_env, *args, QUIZBOT_DATABASE_URL=database_url)
    assert done.returncode == 2
    one_line(done.stderr, f"quizbot: cannot write {args[-1]}", "choose a place you may write with --out")
    assert "PermissionError" not in done.stderr


def test_forget_user_on_something_that_is_no_platform(database_url: str, operator_env: Path) -> None:
    assert quizbot_process(operator_env, "db", "upgrade", QUIZBOT_DATABASE_URL=database_url).returncode == 0
    done = quizbot_process(operator_env, "forget-user", "irc", "zed", "--yes", QUIZBOT_DATABASE_URL=database_url)
    assert done.returncode == 2
    one_line(done.stderr, "quizbot: 'irc' is not a platform; give one of:", "console", "discord", "slack")
    # a platform: the user is unknown
    done = quizbot_process(operator_env, "forget-user", "slack", "U0NOBODY", "--yes", QUIZBOT_DATABASE_URL=database_url)
    assert done.returncode == 2
    one_line(done.stderr, "No slack user U0NOBODY is known; nothing was deleted.")


def test_a_mistyped_command_gets_the_nearest_one(operator_env: Path) -> None:
    done = quizbot_process(operator_env, "runn")
    assert done.returncode == 2
    assert "quizbot: error: unknown command 'runn'; did you mean `quizbot run`?" in done.stderr
    assert "choose from" not in done.stderr
    done = quizbot_process(operator_env, "db", "upgarde")
    assert done.returncode == 2
    assert "unknown command 'upgarde'; did you mean `quizbot db upgrade`?" in done.stderr
    done = quizbot_process(operator_env, "export", "--format", "xml")
    assert done.returncode == 2
    assert "argument --format: invalid choice: 'xml'" in done.stderr and "unknown command" not in done.stderr


@pytest.mark.parametrize(
    ("args", "commands"),
    [
        ((), "run, db, content, doctor"),
        (("db",), "upgrade, current"),
        (("content",), "check, import, export, schema, flags"),
    ],
)
def test_a_missing_command_is_answered_with_the_commands(
    operator_env: Path, args: tuple[str, ...], commands: str
) -> None:
    done = quizbot_process(operator_env, *args)
    assert done.returncode == 2
    prog = " ".join(("quizbot", *args))
    assert f"{prog}: error: give a command: {commands}" in done.stderr, done.stderr
    assert "_command" not in done.stderr and "required" not in done.stderr


@pytest.mark.parametrize(
    ("args", "prog", "usage"),
    [
        (("run", "--bogus"), "quizbot run", "usage: quizbot run [-h]"),
        (("doctor", "--bogus"), "quizbot doctor", "usage: quizbot doctor [-h] [--online]"),
        (("db", "upgrade", "head", "--bogus"), "quizbot db upgrade", "usage: quizbot db upgrade [-h] [revision]"),
    ],
)
def test_an_unknown_option_is_refused_by_its_command_with_its_usage(
    operator_env: Path, args: tuple[str, ...], prog: str, usage: str
) -> None:
    done = quizbot_process(operator_env, *args)
    assert done.returncode == 2
    assert done.stderr.startswith(usage), done.stderr  # not `usage: quizbot [-h] [--version] COMMAND ...`
    assert f"{prog}: error: unrecognized arguments: --bogus (`{prog} --help` lists what it takes)" in done.stderr


def test_the_log_level_is_read_in_any_case(operator_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.config import load_settings

    monkeypatch.setenv("QUIZBOT_LOG_LEVEL", "debug")
    assert load_settings().log_level == "DEBUG"
    monkeypatch.setenv("QUIZBOT_LOG_LEVEL", " Warning ")
    assert load_settings().log_level == "WARNING"
    # The command itself: `debug` is taken (its INFO line shows), ` Warning ` too (no INFO line).
    database = f"sqlite+aiosqlite:///{operator_env / 'q.db'}"
    done = quizbot_process(operator_env, "db", "upgrade", QUIZBOT_DATABASE_URL=database, QUIZBOT_LOG_LEVEL="debug")
    assert done.returncode == 0, done.stderr
    assert "QUIZBOT_LOG_LEVEL" not in done.stderr and " INFO " in done.stderr
    done = quizbot_process(operator_env, "db", "current", QUIZBOT_DATABASE_URL=database, QUIZBOT_LOG_LEVEL=" Warning ")
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_the_health_port_in_use_names_the_setting(operator_env: Path) -> None:
    """Another process holds QUIZBOT_HTTP_PORT: one line naming the setting, not `OSError: [Errno 98] ...`."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = quizbot_process(
            operator_env,
            "run",
            QUIZBOT_DATABASE_URL=f"sqlite+aiosqlite:///{operator_env / 'q.db'}",
            QUIZBOT_HTTP_HOST="127.0.0.1",
            QUIZBOT_HTTP_PORT=str(port),
            QUIZBOT_ADAPTERS="console",
        )
    assert done.returncode == 2, done.stderr
    line = one_line(done.stderr, f"127.0.0.1:{port}", "set QUIZBOT_HTTP_PORT to a free one")
    assert "Errno" not in line


async def test_the_slack_port_in_use_names_the_setting(fake: FakeSlack, operator_env: Path) -> None:
    """Another process holds QUIZBOT_SLACK_PORT: Slack HTTP mode names the setting, not "cannot reach Slack"."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = await asyncio.to_thread(
            quizbot_process,
            operator_env,
            "run",
            QUIZBOT_DATABASE_URL=f"sqlite+aiosqlite:///{operator_env / 'q.db'}",
            QUIZBOT_SLACK_BOT_TOKEN=fake.bot_token,
            QUIZBOT_SLACK_SIGNING_SECRET="0" * 32,
            QUIZBOT_SLACK_HOST="127.0.0.1",
            QUIZBOT_SLACK_PORT=str(port),
            QUIZBOT_SLACK_API_URL=fake.api_url,
            QUIZBOT_LOG_LEVEL="WARNING",
        )
    assert done.returncode == 2, done.stderr
    line = one_line(
        done.stderr, "quizbot: cannot listen for Slack's requests (", f"{port}", "set QUIZBOT_SLACK_PORT to a free one"
    )
    assert "cannot reach" not in line and "Errno" not in line


def _on_a_terminal(cwd: Path, *args: str, answer: bytes | None, **env: str) -> tuple[int, str]:
    """`quizbot ARGS` with a pseudo-terminal as its input and output: once it asks (`[y/N]`), types `answer`, or
    with None presses Ctrl-C (SIGINT, as the terminal sends it). (exit status, everything it printed)."""
    script = Path(sys.executable).with_name("quizbot")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "bot.cli"]
    clean = {k: v for k, v in without_proxies().items() if k in {"PATH", "HOME", "LANG", "SYSTEMROOT"}}
    clean.update(PYTHONPATH=str(REPO), QUIZBOT_CONTENT_DIR=str(CONTENT), **{**PATIENT_DATABASE_ENV, **env})
    leader, follower = pty.openpty()
    child = subprocess.Popen(
        [*command, *args], cwd=cwd, env=clean, stdin=follower, stdout=follower, stderr=follower, start_new_session=True
    )
    os.close(follower)
    seen = b""
    try:
        while b"[y/N]" not in seen:
            ready, _, _ = select.select([leader], [], [], 60)
            assert ready, f"never asked: {seen!r}"
            seen += os.read(leader, 4096)
        if answer is None:
            child.send_signal(signal.SIGINT)
        else:
            os.write(leader, answer)
        status = child.wait(timeout=60)  # before the fix, Ctrl-C was ignored until Enter: this timed out
        while select.select([leader], [], [], 0)[0]:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the child is gone and its side closed
                break
            if not chunk:
                break
            seen += chunk
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(leader)
    return status, seen.decode("utf-8", "replace").replace("\r\n", "\n")


def test_forget_user_is_cancelled_by_ctrl_c_and_ctrl_d_at_its_question(operator_env: Path) -> None:
    database = f"sqlite+aiosqlite:///{operator_env / 'q.db'}"
    done = subprocess.run(  # bob answers a question in the terminal
        [sys.executable, "-m", "bot.cli", "run"],
        input="/quiz now\n1\n",
        capture_output=True,
        text=True,
        cwd=operator_env,
        env={**os.environ, "QUIZBOT_DATABASE_URL": database, "QUIZBOT_CONSOLE_USER": "bob", "PYTHONPATH": str(REPO)},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    forget = ("forget-user", "console", "bob", "--workspace", "local")

    status, shown = _on_a_terminal(operator_env, *forget, answer=None, QUIZBOT_DATABASE_URL=database)
    assert status == 130, shown
    assert shown.endswith("[y/N] \nCancelled: nothing was deleted.\n"), shown
    assert "Traceback" not in shown

    status, shown = _on_a_terminal(operator_env, *forget, answer=b"\x04", QUIZBOT_DATABASE_URL=database)
    assert status == 1, shown
    assert shown.endswith("[y/N] \nCancelled: nothing was deleted.\n"), shown  # not on the question's line

    status, shown = _on_a_terminal(operator_env, *forget, answer=b"y\r", QUIZBOT_DATABASE_URL=database)
    assert status == 0, shown
    assert "forgot console user bob" in shown  # it was still there to forget


@pytest.mark.parametrize(
    ("adapters", "expected"),
    [
        ("slack", "quizbot: the Slack adapter needs QUIZBOT_SLACK_BOT_TOKEN"),
        ("discord", "quizbot: QUIZBOT_DISCORD_TOKEN is not set; the Discord adapter needs a bot token"),
    ],
)
def test_an_adapter_asked_for_without_its_token_is_refused_before_the_database_is_touched(
    adapters: str,
    expected: str,
    operator_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    database = operator_env / "never-made.db"
    monkeypatch.setenv("QUIZBOT_ADAPTERS", adapters)
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", f"sqlite:///{database}")
    status, _, err = cli(capsys, "run")
    assert status == 2
    one_line(err, expected)
    assert not database.exists()  # refused first: nothing was created or migrated


def test_slack_asked_for_without_a_mode_is_refused_before_the_database_is_touched(
    operator_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    database = operator_env / "never-made.db"
    monkeypatch.setenv("QUIZBOT_ADAPTERS", "slack")
    monkeypatch.setenv("QUIZBOT_SLACK_BOT_TOKEN", "xoxb-not-a-real-token")
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", f"sqlite:///{database}")
    status, _, err = cli(capsys, "run")
    assert status == 2
    one_line(err, "QUIZBOT_SLACK_APP_TOKEN (Socket Mode) or QUIZBOT_SLACK_SIGNING_SECRET (HTTP mode)")
    assert not database.exists()
