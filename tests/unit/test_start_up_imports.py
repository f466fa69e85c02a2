"""`quizbot run` loads at start-up what it serves with, not what only some commands need: those load on first use
(bench section 9, start-up; each module is a few ms, and a module-level import would silently bring it back)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from tests.conftest import REPO

START_UP = (
    # bot.cli and what `quizbot run` imports (bot.cli_commands.run_bot), and every adapter's modules
    "bot.cli",
    "bot.cli_commands",
    "bot.runtime",
    "bot.db.problems",
    "bot.supervision",
    "adapters.console.adapter",
    "adapters.slack.adapter",
    "adapters.discord.adapter",
)
ON_FIRST_USE = {
    "matplotlib": "charts: the first charted report (bot/chart_images.py, in its worker process)",
    "bot.charts": "charts: the first charted report",
    "bot.report_html": "`quizbot report`",
    "bot.cli_completion": "`quizbot completion`",
    "bot.content.upload": "the readers of uploaded files: the first `/quiz import` with a file",
    "bot.content.formats": "the importers of every format: `/quiz import`, `quizbot content import`",
    "openpyxl": "Kahoot spreadsheets: the first .xlsx uploaded",
    "alembic": "migrations: only when the schema is behind",
    "bot.chart_images": "the charts' process pool: the first charted report (adapters import it there)",
    "multiprocessing": "the charts' process pool: the first charted report",
    "adapters.slack.socket_mode": "Slack's Socket Mode: a Slack adapter with an app token, as it connects",
    "slack_bolt.adapter.socket_mode": "Slack's Socket Mode (Bolt's handler)",
    "slack_sdk.socket_mode": "Slack's Socket Mode (slack_sdk's client)",
}


def _loaded(imports: Sequence[str], among: Iterable[str]) -> list[str]:
    """Which of the modules `among` a fresh interpreter has loaded once it imported `imports`, sorted."""
    code = (
        "import importlib, json, sys\n"
        f"for name in {tuple(imports)!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(json.dumps(sorted(name for name in {sorted(among)!r} if name in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    loaded: list[str] = json.loads(out.stdout)
    return loaded


def test_starting_the_bot_loads_none_of_what_only_some_commands_use() -> None:
    loaded = _loaded(START_UP, ON_FIRST_USE)
    assert {name: ON_FIRST_USE[name] for name in loaded} == {}


def test_starting_the_bot_loads_no_postgresql_dialect() -> None:
    """A start on SQLite loads SQLAlchemy's SQLite dialect only: the PostgreSQL one (~20 ms: its package imports every
    DBAPI module it supports) loads with a PostgreSQL engine or the first PostgreSQL statement built. A model's
    `postgresql_*` keyword argument would bring it back (SQLAlchemy loads a dialect to check its arguments), so would
    a module-level `from sqlalchemy.dialects.postgresql import ...`."""
    assert _loaded(START_UP, ["sqlalchemy.dialects.postgresql"]) == []


COMMAND_LINE_MODULES = (
    "bot.cli_commands",
    "bot.cli_parser",
    "bot.config",
    "bot.content",
    "bot.plugins",
    "pydantic",
    "yaml",
)
"""What `bot.cli.main` imports, not `bot.cli` itself: the command line's modules, the settings and the content's
readers, imported with the cyclic collector off (`bot.cli._collector_off_for_start_up`)."""


def test_importing_the_cli_loads_none_of_its_commands() -> None:
    assert _loaded(["bot.cli"], COMMAND_LINE_MODULES) == []


_COLLECTOR_AT_IMPORT = """
import gc, json, sys
seen = {}
def hook(event, args):
    if event == "import" and args[0] in ("bot.config", "bot.runtime", "bot.db.migrate") and args[0] not in seen:
        seen[args[0]] = gc.isenabled()
sys.addaudithook(hook)
import bot.cli
status = bot.cli.main(sys.argv[1:])
print(json.dumps({"status": status, "collector_on_at_import": seen, "collector_on_after": gc.isenabled()}))
"""
"""Runs `bot.cli.main` with its arguments; says whether the collector was on as each of three modules was first
imported, and after `main` returned."""


def _collector_at_import(tmp_path: Path, url: str, *args: str) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUIZBOT_")}
    env.update(PYTHONPATH=str(REPO), QUIZBOT_DATABASE_URL=url)
    out = subprocess.run(
        [sys.executable, "-c", _COLLECTOR_AT_IMPORT, *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,  # no .env of the repository's
        env=env,
    )
    result: dict[str, object] = json.loads(out.stdout.splitlines()[-1])
    return result


def test_quizbot_run_imports_its_modules_with_the_collector_off_and_turns_it_back_on(tmp_path: Path) -> None:
    # The run stops at once (its database's folder does not exist), after the runtime's imports.
    result = _collector_at_import(tmp_path, f"sqlite+aiosqlite:///{tmp_path}/missing/quizbot.db", "run")
    assert result == {
        "status": 2,
        "collector_on_at_import": {"bot.config": False, "bot.runtime": False, "bot.db.migrate": False},
        "collector_on_after": True,
    }


def test_other_commands_run_with_the_collector_on(tmp_path: Path) -> None:
    # `db current` on a database not created yet: the command imports bot.db.migrate once the line is parsed.
    result = _collector_at_import(tmp_path, f"sqlite+aiosqlite:///{tmp_path}/quizbot.db", "db", "current")
    assert result == {
        "status": 0,
        "collector_on_at_import": {"bot.config": False, "bot.db.migrate": True},
        "collector_on_after": True,
    }
