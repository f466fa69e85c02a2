"""`quizbot doctor --online` for Discord: what Discord makes of the configured token.

- `GET /users/@me`: the token logs in, as a bot;
- `GET /applications/@me`: the application's flags enable every privileged intent the bot asks for;
- `GET /users/@me/guilds`: in each server, the bot's permissions cover what it needs (the invite's permissions),
  and QUIZBOT_DISCORD_GUILD_ID, when set, is one of them.

Loaded (with discord.py) only when the doctor goes online; requests go to discord.py's own base URL.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from typing import Any

import discord
from discord.http import HTTPClient, Route

from adapters.discord.adapter import intents, invite_permissions
from adapters.discord.settings import DiscordSettings
from bot.plugins import Finding, failed_finding
from bot.wording import discord as discord_words
from bot.wording import operator as words

PRIVILEGED: Mapping[str, tuple[str, str]] = {
    # intent -> (the application flag, its "limited" twin for bots in fewer than 100 servers); the Portal's switch
    # that turns each on is named by bot/wording/discord.py (`intent_switch`)
    "members": ("gateway_guild_members", "gateway_guild_members_limited"),
    "presences": ("gateway_presence", "gateway_presence_limited"),
    "message_content": ("gateway_message_content", "gateway_message_content_limited"),
}
"""Discord's privileged gateway intents, which an application must have switched on to receive."""


def intent_findings(intents: discord.Intents, application_flags: int) -> list[Finding]:
    """One finding per privileged intent the bot uses: enabled for the application, or the switch to turn on."""
    flags = discord.ApplicationFlags._from_value(application_flags)
    used = [name for name in PRIVILEGED if getattr(intents, name)]
    if not used:
        enabled = ", ".join(name for name, value in intents if value)
        return [Finding("ok", discord_words.check_intents(), words.discord_no_privileged_intents(enabled))]
    findings = []
    for name in used:
        flag, limited = PRIVILEGED[name]
        if getattr(flags, flag) or getattr(flags, limited):
            findings.append(Finding("ok", discord_words.check_intents(), words.discord_intent_enabled(name)))
        else:
            findings.append(
                Finding(
                    "fail",
                    discord_words.check_intents(),
                    *words.discord_intent_missing(name, discord_words.intent_switch(name)),
                )
            )
    return findings


def permission_names(permissions: discord.Permissions) -> list[str]:
    """`Attach Files`, `Embed Links`: the names Discord's server settings show."""
    return [name.replace("_", " ").title() for name, value in permissions if value]


def guild_findings(
    guilds: Iterable[Mapping[str, Any]], needed: discord.Permissions, guild_id: int | None
) -> list[Finding]:
    """The bot's permissions in each server it is in against `needed`; the configured guild must be one of them."""
    findings = []
    joined = []
    for guild in guilds:
        name, gid = str(guild.get("name")), str(guild["id"])
        joined.append(gid)
        have = discord.Permissions(int(guild.get("permissions") or 0))
        missing = needed if have.administrator else discord.Permissions(needed.value & ~have.value)
        if missing.value and not have.administrator:
            detail, fix = words.discord_guild_permissions_missing(name, gid, permission_names(missing))
            findings.append(Finding("fail", discord_words.check_permissions(), detail, fix))
        else:
            findings.append(
                Finding("ok", discord_words.check_permissions(), words.discord_guild_permissions_ok(name, gid))
            )
    if not joined:
        findings.append(Finding("warn", discord_words.check_permissions(), *words.discord_no_guilds()))
    if guild_id is not None and str(guild_id) not in joined:
        findings.append(Finding("fail", discord_words.check_guild(), *words.discord_guild_not_joined(guild_id)))
    return findings


async def online_findings(settings: DiscordSettings) -> list[Finding]:
    """Log in over REST (no gateway), read the application's flags and the bot's servers."""
    assert settings.discord_token is not None  # asked only when the adapter is configured
    http = HTTPClient(asyncio.get_running_loop())
    try:
        try:
            me: Any = await http.static_login(settings.discord_token.get_secret_value())
        except Exception as exc:
            return [failed_finding("discord", discord_words.check_token(), exc)]
        name, user_id = str(me.get("username")), str(me.get("id"))
        if not me.get("bot"):
            return [Finding("fail", discord_words.check_token(), *words.discord_not_a_bot(name))]
        findings = [Finding("ok", discord_words.check_token(), words.discord_identity(name, user_id))]
        try:
            application: Any = await http.request(Route("GET", "/applications/@me"))
            findings.extend(intent_findings(intents(), int(application.get("flags") or 0)))
        except Exception as exc:
            findings.append(failed_finding("discord", discord_words.check_intents(), exc))
        try:
            guilds: Any = await http.get_guilds(200)
            findings.extend(guild_findings(guilds, invite_permissions(), settings.discord_guild_id))
        except Exception as exc:
            findings.append(failed_finding("discord", discord_words.check_permissions(), exc))
        return findings
    finally:
        await http.close()
