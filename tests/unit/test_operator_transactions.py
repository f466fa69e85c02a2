"""Item 2 of issue 21 for the operator commands: `Database.transaction()` is opened nowhere outside bot/db (the unit
of work opens its session itself), and the operator unit of work is opened by the CLI's operator commands only."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO


def _calls(name: str, *, under: tuple[str, ...]) -> dict[str, int]:
    """Modules (relative to the repository) that call `name(...)` or `x.name(...)`, with how many times."""
    found: dict[str, int] = {}
    for folder in under:
        for path in sorted((REPO / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            count = sum(
                1
                for node in ast.walk(tree)
                if isinstance(node, ast.Call)
                and (
                    (isinstance(node.func, ast.Attribute) and node.func.attr == name)
                    or (isinstance(node.func, ast.Name) and node.func.id == name)
                )
            )
            if count:
                found[str(path.relative_to(REPO))] = count
    return found


def test_database_transactions_are_opened_only_in_bot_db() -> None:
    outside = {
        module: n
        for module, n in _calls("transaction", under=("bot", "adapters")).items()
        if Path(module).parts[:2] != ("bot", "db")
    }
    assert outside == {}


def test_only_the_cli_opens_the_operator_unit_of_work() -> None:
    callers = _calls("operator_unit_of_work", under=("bot", "adapters"))
    assert set(callers) == {"bot/cli.py"}
