"""Progress bars on long operator commands (issue 25; bot/progress.py): drawn on stderr when a person watches (the
command's stdout and stderr are a terminal: here a pseudo-terminal), never into a pipe or a file."""

from __future__ import annotations

import asyncio
import io
import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

from alembic.script import ScriptDirectory

from bot.db.migrate import alembic_config
from bot.progress import WIDTH, Progress
from tests.conftest import CONTENT, PATIENT_DATABASE_ENV, REPO
from tests.integration.test_operator_errors import _one_answer, operator_env, quizbot_process
from tests.slack_harness import without_proxies

__all__ = ["operator_env"]  # the fixture, used by name

MIGRATIONS = len(list(ScriptDirectory.from_config(alembic_config()).iterate_revisions("head", "base")))


def on_a_terminal(cwd: Path, *args: str, **env: str) -> tuple[int, str]:
    """`quizbot ARGS` with its stdout and stderr on a pseudo-terminal: (exit status, everything it wrote)."""
    clean = {k: v for k, v in without_proxies().items() if k in {"PATH", "HOME", "LANG"}}
    clean.update(PYTHONPATH=str(REPO), QUIZBOT_CONTENT_DIR=str(CONTENT), **{**PATIENT_DATABASE_ENV, **env})
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", *args], cwd=cwd, env=clean, stdin=subprocess.DEVNULL, stdout=follower,
        stderr=follower,
    )  # fmt: skip
    os.close(follower)
    written = b""
    try:
        while select.select([leader], [], [], 60)[0]:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the command closed the terminal
                break
            if not chunk:
                break
            written += chunk
    finally:
        os.close(leader)
    return process.wait(timeout=60), written.decode("utf-8", "replace").replace("\r\n", "\n")


def final_bar(text: str, label: str) -> str:
    """The last state of the bar labelled `label` (each redraw starts with a carriage return)."""
    states = re.findall(rf"{re.escape(label)} \[[#-]{{{WIDTH}}}\] +\d+% \d+/\d+", text)
    assert states, text
    return states[-1]


def test_db_upgrade_shows_each_migration(operator_env: Path) -> None:
    database = f"sqlite+aiosqlite:///{operator_env / 'q.db'}"
    status, text = on_a_terminal(operator_env, "db", "upgrade", QUIZBOT_DATABASE_URL=database)
    assert status == 0, text
    assert final_bar(text, "db upgrade") == f"db upgrade [{'#' * WIDTH}] 100% {MIGRATIONS}/{MIGRATIONS}"
    assert text.count("\rdb upgrade [") >= MIGRATIONS  # it moved once per migration, not only at the end
    assert text.rstrip().splitlines()[-1].startswith("database upgraded to head (")  # on its own line, after the bar


def test_export_shows_its_steps(database_url: str, operator_env: Path) -> None:
    asyncio.run(_one_answer(database_url))
    status, text = on_a_terminal(operator_env, "export", "--out", "all.json", QUIZBOT_DATABASE_URL=database_url)
    assert status == 0, text
    assert final_bar(text, "export") == f"export [{'#' * WIDTH}] 100% 4/4"
    assert (operator_env / "all.json").read_text(encoding="utf-8").startswith("{")


def test_no_bar_without_a_terminal(database_url: str, operator_env: Path) -> None:
    asyncio.run(_one_answer(database_url))
    done = quizbot_process(operator_env, "export", "--out", "all.json", QUIZBOT_DATABASE_URL=database_url)
    assert done.returncode == 0 and "export [" not in done.stderr + done.stdout
    fresh = f"sqlite+aiosqlite:///{operator_env / 'fresh.db'}"
    done = quizbot_process(operator_env, "db", "upgrade", QUIZBOT_DATABASE_URL=fresh)
    assert done.returncode == 0 and "db upgrade [" not in done.stderr + done.stdout


def test_the_bar_redraws_only_when_it_changes() -> None:
    stream = io.StringIO()
    with Progress("work", 200, enabled=True, stream=stream) as bar:
        for _ in range(200):
            bar.advance()
    drawn = stream.getvalue()
    assert drawn.endswith(f"\rwork [{'#' * WIDTH}] 100% 200/200\n")
    assert drawn.count("\r") == 201  # the start, then every step changes the count shown
    quiet = io.StringIO()
    with Progress("work", 3, enabled=False, stream=quiet) as bar:
        bar.advance(3)
    assert quiet.getvalue() == ""


def test_content_import_to_a_file_shows_its_steps(operator_env: Path) -> None:
    source = REPO / "tests" / "data" / "formats" / "sample.gift"
    status, text = on_a_terminal(operator_env, "content", "import", str(source), "-o", "pack.yaml")
    assert status == 0, text
    assert final_bar(text, "content import") == f"content import [{'#' * WIDTH}] 100% 3/3"
    assert (operator_env / "pack.yaml").read_text(encoding="utf-8").startswith("#")


def test_content_import_to_standard_output_draws_no_bar(operator_env: Path) -> None:
    source = REPO / "tests" / "data" / "formats" / "sample.gift"
    status, text = on_a_terminal(operator_env, "content", "import", str(source))
    assert status == 0, text
    assert "content import [" not in text
