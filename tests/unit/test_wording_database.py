"""The database's problems are raised by key and values in bot/db and worded in bot/wording/database.py."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from bot.errors import DatabaseNotReady
from bot.wording import database

PROBLEMS = Path(__file__).resolve().parents[2] / "bot" / "db" / "problems.py"


def test_every_key_bot_db_raises_is_worded_with_the_values_it_gives() -> None:
    raised = [
        node
        for node in ast.walk(ast.parse(PROBLEMS.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "DatabaseNotReady"
    ]
    keys = set()
    for call in raised:
        assert isinstance(call.args[0], ast.Constant), ast.unparse(call)
        key = call.args[0].value
        keys.add(key)
        assert key in database.WORDS, key
        inspect.signature(database.WORDS[key]).bind(**{keyword.arg: None for keyword in call.keywords if keyword.arg})
    assert keys == set(database.WORDS)


def test_the_command_line_gets_what_is_wrong_and_what_to_do_on_one_line() -> None:
    error = DatabaseNotReady("not_at_newest", url="sqlite+aiosqlite:///quiz.db", current=None, head="0007")
    assert database.explained(error) == (
        "the database at sqlite+aiosqlite:///quiz.db is empty (no quizbot schema yet)",
        "run `quizbot db upgrade`",
    )
    assert database.line(error) == (
        "the database at sqlite+aiosqlite:///quiz.db is empty (no quizbot schema yet); run `quizbot db upgrade`"
    )
