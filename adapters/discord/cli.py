"""`quizbot discord ...`: register the `/quiz` commands with Discord, print the invite link.

Found by the core CLI through the `quizbot.cli` entry-point group, so the core never imports discord.py;
discord.py itself is imported only when one of these commands runs.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING

from adapters.discord.settings import DiscordSettings
from bot.config import Settings
from bot.errors import ConfigError, QuizError
from bot.wording import discord as words

if TYPE_CHECKING:
    import discord

SCOPES = ("bot", "applications.commands")


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `quizbot discord sync|invite` to the CLI (entry point of the `quizbot.cli` group)."""
    parser = commands.add_parser("discord", help=words.cli_help("discord"))
    sub = parser.add_subparsers(dest="discord_command", metavar="COMMAND", required=True)
    sync = sub.add_parser("sync", help=words.cli_help("sync"))
    sync.add_argument("--guild", type=int, metavar="ID", help=words.cli_help("sync --guild"))
    sync.add_argument("--global", dest="everywhere", action="store_true", help=words.cli_help("sync --global"))
    sync.set_defaults(plugin_main=_sync_main)
    invite = sub.add_parser("invite", help=words.cli_help("invite"))
    invite.set_defaults(plugin_main=_invite_main)


def _token(settings: Settings) -> str:
    token = DiscordSettings.of(settings).discord_token
    if token is None:
        raise ConfigError(words.cli_token_missing())
    return token.get_secret_value()


def _sync_main(args: argparse.Namespace, settings: Settings) -> int:
    guild_id = None if args.everywhere else (args.guild or DiscordSettings.of(settings).discord_guild_id)
    names = asyncio.run(sync_commands(_token(settings), guild_id=guild_id))
    print(words.registered(names, guild_id))
    return 0


def _invite_main(args: argparse.Namespace, settings: Settings) -> int:
    print(asyncio.run(invite_url(_token(settings))))
    return 0


async def _logged_in(token: str) -> discord.Client:
    """A client logged in over REST only (no gateway connection)."""
    import discord

    client = discord.Client(intents=discord.Intents.none(), allowed_mentions=discord.AllowedMentions.none())
    try:
        await client.login(token)
    except discord.LoginFailure as exc:
        await client.close()
        raise ConfigError(words.token_refused(exc)) from exc
    except BaseException:
        await client.close()
        raise
    return client


async def sync_commands(token: str, *, guild_id: int | None = None) -> list[str]:
    """Register `/quiz` and its subcommands, globally or in one guild; returns the registered command paths."""
    import discord
    from discord import app_commands

    from adapters.discord.commands import QuizCommands

    client = await _logged_in(token)
    try:
        tree: app_commands.CommandTree[discord.Client] = app_commands.CommandTree(client)
        tree.add_command(QuizCommands(None))
        guild = discord.Object(id=guild_id) if guild_id else None
        if guild is not None:
            tree.copy_global_to(guild=guild)
        try:
            synced = await tree.sync(guild=guild)
        except discord.Forbidden as exc:
            raise QuizError(words.sync_refused_in_guild(guild_id, exc.text)) from exc
        except discord.HTTPException as exc:
            raise QuizError(words.sync_refused(exc)) from exc
    finally:
        await client.close()
    paths = []
    for command in synced:
        subcommands = [o.name for o in command.options if isinstance(o, app_commands.AppCommandGroup)]
        paths += [f"/{command.name} {name}" for name in subcommands] or [f"/{command.name}"]
    return paths


async def invite_url(token: str) -> str:
    """The OAuth2 link that adds the bot to a server with the scopes and permissions it needs."""
    import discord

    from adapters.discord.gateway import invite_permissions

    client = await _logged_in(token)
    try:
        application_id = client.application_id
    finally:
        await client.close()
    if application_id is None:  # pragma: no cover - login always sets it
        raise QuizError(words.no_application_id())
    return discord.utils.oauth_url(application_id, permissions=invite_permissions(), scopes=SCOPES)
