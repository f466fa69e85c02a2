"""The terminal adapter: a local team channel in your shell, no account needed."""

from __future__ import annotations

from typing import Any

from adapters.console.adapter import ConsoleAdapter
from adapters.console.settings import ConsoleSettings
from bot.plugins import AdapterPlugin


def _build(host: Any) -> ConsoleAdapter:
    return ConsoleAdapter(host)


build = AdapterPlugin(name="console", settings=ConsoleSettings, factory=_build, order=0)
"""Entry point of the `quizbot.adapters` group: the terminal adapter on the process's stdin/stdout."""

__all__ = ["ConsoleAdapter", "ConsoleSettings", "build"]
