"""The `/quiz` application command group.

Each subcommand only turns its options back into the text the core parser reads (`now data-parallelism`,
`leaderboard week workspace`) and hands it on: the grammar lives once, in `bot/commands.py`, for every adapter.
"""

from __future__ import annotations

import shlex
from typing import Protocol

import discord
from discord import app_commands

from bot.commands import SUBCOMMANDS, Scope, Window

DESCRIPTION_LIMIT = 100
AUTOCOMPLETE_LIMIT = 25


class CommandHandler(Protocol):
    """What the command group hands its work to (the adapter)."""

    async def quiz_command(self, interaction: discord.Interaction[discord.Client], text: str) -> None:
        """Run `/quiz <text>` for this interaction and answer it."""
        ...

    def pack_choices(self, current: str) -> list[app_commands.Choice[str]]:
        """Packs matching what the user typed so far, for autocomplete."""
        ...


def _summary(name: str) -> str:
    """A subcommand's description, from the core's command table (so every platform says the same)."""
    summary = next(sub.summary for sub in SUBCOMMANDS if sub.name == name)
    return (summary[0].upper() + summary[1:])[:DESCRIPTION_LIMIT]


WINDOW_CHOICES = [
    app_commands.Choice(name="this week", value=Window.WEEK.value),
    app_commands.Choice(name="this month", value=Window.MONTH.value),
    app_commands.Choice(name="all time", value=Window.ALL.value),
]
SCOPE_CHOICES = [
    app_commands.Choice(name="this channel", value=Scope.CHANNEL.value),
    app_commands.Choice(name="this server", value=Scope.WORKSPACE.value),
]
HELP_CHOICES = [app_commands.Choice(name=sub.name, value=sub.name) for sub in SUBCOMMANDS]


class QuizCommands(app_commands.Group):
    """`/quiz now|reveal|leaderboard|me|packs|help`.

    `handler` is None when the group is built only to register it with Discord (`quizbot discord sync`).
    """

    def __init__(self, handler: CommandHandler | None) -> None:
        super().__init__(name="quiz", description="Quiz questions, answers and leaderboards")
        self.handler = handler

    async def _run(self, interaction: discord.Interaction[discord.Client], *words: str | None) -> None:
        text = " ".join(shlex.quote(word) for word in words if word)
        if self.handler is None:  # pragma: no cover - a registration-only group never receives interactions
            await interaction.response.send_message("quizbot is not running here.", ephemeral=True)
            return
        await self.handler.quiz_command(interaction, text)

    @app_commands.command(name="now", description=_summary("now"))
    @app_commands.describe(pack="The pack to take the question from (default: any)")
    async def now(self, interaction: discord.Interaction[discord.Client], pack: str | None = None) -> None:
        """Post a question in this channel now."""
        await self._run(interaction, "now", pack)

    @now.autocomplete("pack")
    async def _pack_autocomplete(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[str]]:
        return self.handler.pack_choices(current)[:AUTOCOMPLETE_LIMIT] if self.handler else []

    @app_commands.command(name="reveal", description=_summary("reveal"))
    async def reveal(self, interaction: discord.Interaction[discord.Client]) -> None:
        """Close the channel's open question and show the answer."""
        await self._run(interaction, "reveal")

    @app_commands.command(name="leaderboard", description=_summary("leaderboard"))
    @app_commands.describe(window="Which answers count (default: all time)", scope="Whose answers (default: channel)")
    @app_commands.choices(window=WINDOW_CHOICES, scope=SCOPE_CHOICES)
    async def leaderboard(
        self,
        interaction: discord.Interaction[discord.Client],
        window: app_commands.Choice[str] | None = None,
        scope: app_commands.Choice[str] | None = None,
    ) -> None:
        """Show who leads."""
        await self._run(interaction, "leaderboard", window.value if window else None, scope.value if scope else None)

    @app_commands.command(name="me", description=_summary("me"))
    async def me(self, interaction: discord.Interaction[discord.Client]) -> None:
        """Show the caller's own record."""
        await self._run(interaction, "me")

    @app_commands.command(name="packs", description=_summary("packs"))
    async def packs(self, interaction: discord.Interaction[discord.Client]) -> None:
        """List the packs."""
        await self._run(interaction, "packs")

    @app_commands.command(name="help", description=_summary("help"))
    @app_commands.describe(command="Explain one command")
    @app_commands.choices(command=HELP_CHOICES)
    async def help(
        self, interaction: discord.Interaction[discord.Client], command: app_commands.Choice[str] | None = None
    ) -> None:
        """Show the commands."""
        await self._run(interaction, "help", command.value if command else None)
