"""`quizbot run` loads at start-up what it serves with, not what only some commands need: those load on first use
(bench section 9, start-up; each module is a few ms, and a module-level import would silently bring it back)."""

from __future__ import annotations

import json
import subprocess
import sys

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
}


def test_starting_the_bot_loads_none_of_what_only_some_commands_use() -> None:
    code = (
        "import importlib, json, sys\n"
        f"for name in {START_UP!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(json.dumps(sorted(name for name in {sorted(ON_FIRST_USE)!r} if name in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    loaded = json.loads(out.stdout)
    assert {name: ON_FIRST_USE[name] for name in loaded} == {}
