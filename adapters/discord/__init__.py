"""The Discord adapter (discord.py): `/quiz` slash commands, answer buttons, ephemeral explanations.

Importing this package is cheap and loads no discord.py: the `quizbot` CLI imports it to list its commands, and
the core loads the plugin (`build`) to read the Discord settings; discord.py is imported when the adapter is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from adapters.discord.settings import START_WORDS, DiscordSettings, classify
from bot.plugins import AdapterPlugin

if TYPE_CHECKING:
    from adapters.discord.adapter import DiscordAdapter


def _build(host: Any) -> DiscordAdapter:
    from adapters.discord.adapter import DiscordAdapter

    return DiscordAdapter(host)


build = AdapterPlugin(
    name="discord", settings=DiscordSettings, factory=_build, words=START_WORDS, classify=classify, order=20
)
"""Entry point of the `quizbot.adapters` group."""

__all__ = ["DiscordSettings", "build"]
