"""Reading a content Problem back from its plain data (`Problem.as_data()`, e.g. a JSON report): its key names a
function of bot/wording/content.py, imports.py or formats.py."""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

from bot.errors import Problem
from bot.wording import content, formats, imports

WORDS: Mapping[str, ModuleType] = {"content": content, "imports": imports, "formats": formats}
"""The wording modules whose functions a problem's key may name."""


def from_data(data: Mapping[str, Any]) -> Problem:
    """A problem from its plain data: the words its key names, its values, its places (nested problems too)."""

    def problem_or_value(value: Any) -> Any:
        if isinstance(value, Mapping) and {"key", "values", "where"} <= value.keys():
            return from_data(value)
        if isinstance(value, list):
            return tuple(problem_or_value(item) for item in value)
        return value

    module, _dot, name = str(data["key"]).partition(".")
    if module not in WORDS or name.startswith("_") or not callable(getattr(WORDS[module], name, None)):
        raise KeyError(data["key"])
    values = {key: problem_or_value(value) for key, value in data["values"].items()}
    return Problem(getattr(WORDS[module], name), where=[problem_or_value(part) for part in data["where"]], **values)
