"""No dependency ships unused: every runtime dependency in pyproject.toml is imported by the bot, or is a driver
that SQLAlchemy loads by the database URL; and every runtime lock entry is needed by one of them."""

from __future__ import annotations

import ast
import re
import tomllib
from importlib.metadata import packages_distributions

from tests.conftest import REPO

LOADED_BY_URL = {"asyncpg": "postgresql+asyncpg://", "aiosqlite": "sqlite+aiosqlite://"}
"""Drivers the code never imports by name: SQLAlchemy loads them from the dialect in QUIZBOT_DATABASE_URL."""


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _imported_distributions() -> set[str]:
    by_module = packages_distributions()
    found: set[str] = set()
    for folder in ("bot", "adapters", "migrations"):
        for path in (REPO / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                modules: list[str] = []
                if isinstance(node, ast.Import):
                    modules = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    modules = [node.module]
                for module in modules:
                    found.update(d.lower().replace("_", "-") for d in by_module.get(module.split(".")[0], []))
    return found


def test_every_runtime_dependency_is_used() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = {_name(r) for r in project["dependencies"]}
    unused = runtime - _imported_distributions() - set(LOADED_BY_URL)
    assert unused == set(), f"shipped but never imported: {sorted(unused)}"


def test_the_runtime_lock_holds_no_test_only_scheduler() -> None:
    lock = (REPO / "requirements" / "lock.txt").read_text(encoding="utf-8")
    pinned = {line.split("==")[0] for line in lock.splitlines() if "==" in line and not line.startswith(" ")}
    assert "apscheduler" not in pinned and "tzlocal" not in pinned
