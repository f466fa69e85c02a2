"""The Discord adapter (discord.py): `/quiz` slash commands, answer buttons, ephemeral explanations.

Importing this package is cheap and loads no discord.py: the `quizbot` CLI imports it to list its commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from adapters.discord.adapter import DiscordAdapter
    from bot.service.facade import AdapterHost


def build(runtime: AdapterHost) -> DiscordAdapter:
    """Entry point of the `quizbot.adapters` group: the Discord adapter for this runtime."""
    from adapters.discord.adapter import DiscordAdapter

    return DiscordAdapter(runtime)


__all__ = ["build"]
