"""The one translation hook and the number words every wording module uses."""

from __future__ import annotations

from collections.abc import Callable

Translator = Callable[[str], str]
"""Maps an English template (with `{name}` fields) to the template in the reader's language."""


def _identity(template: str) -> str:
    return template


_translator: Translator = _identity


def use_translator(translator: Translator | None) -> None:
    """Install a translator for every message built from now on (None restores English)."""
    global _translator  # noqa: PLW0603 - one process-wide hook, set once at start-up
    _translator = translator or _identity


def translate(template: str, /, **values: object) -> str:
    """The template in the reader's language, with `values` filled in (`translate("{n} pts", n=3)`)."""
    text = _translator(template)
    return text.format(**values) if values else text


def plural(count: int, noun: str, plural_noun: str | None = None) -> str:
    """`1 day`, `3 days`; `plural(2, "person", "people")` -> `2 people`."""
    word = noun if count == 1 else (plural_noun or noun + "s")
    return f"{count} {_translator(word)}"


ECHO_LIMIT = 40
"""How much of something a user typed a reply quotes back; the rest is cut at an ellipsis."""


def echo(text: str, limit: int = ECHO_LIMIT) -> str:
    """User input as a reply quotes it: its first `limit` characters, then `…` (a 5,000-character word is not echoed
    whole); line breaks become spaces so a quote stays on its line."""
    flat = " ".join(text.split()) if any(ch in text for ch in "\r\n\t") else text
    return flat if len(flat) <= limit else flat[:limit].rstrip() + "…"


def how_often(count: int) -> str:
    """How often: `once`, `twice`, `3 times` (`1 person answered once`)."""
    if count == 1:
        return _translator("once")
    if count == 2:
        return _translator("twice")
    return plural(count, "time")


def percent(value: float) -> str:
    """0.756 -> '76%'."""
    return f"{round(value * 100)}%"


def shorten(text: str, width: int) -> str:
    """`text` on one line, cut to `width` characters with an ellipsis when longer (names and prompts in tables)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"
