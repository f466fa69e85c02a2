"""The Discord adapter's settings (QUIZBOT_DISCORD_*), its doctor checks and its words for a refused start.

Cheap to import (pydantic only, no discord.py): the core loads it through the plugin.
"""

from __future__ import annotations

import re

from pydantic import Field, SecretStr, field_validator, model_validator

from bot.plugins import AdapterSettings, Finding, StartFailure, StartWords, split_commas

_DISCORD_TOKEN = re.compile(r"^[A-Za-z0-9_-]{18,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$")


class DiscordSettings(AdapterSettings):
    """The bot token (which turns the adapter on), command sync target, sharding and the admin role."""

    discord_token: SecretStr | None = None
    discord_guild_id: int | None = Field(default=None, description="Sync slash commands to this guild only.")
    discord_shard_count: int | None = Field(
        default=None, ge=1, description="Total shards of the bot (default: as many as Discord recommends)."
    )
    discord_shard_ids: list[int] | None = Field(
        default=None, description="The shards this process runs (comma-separated); needs the shard count."
    )
    discord_admin_role_id: int | None = Field(
        default=None, description="Members with this role may run admin commands (besides Manage Server)."
    )

    discord_ack_deadline: float = Field(
        default=1.5,
        gt=0.0,
        le=2.0,
        description="Seconds an interaction's response waits for the core (a click: its committed answer); past "
        "it the interaction is deferred and answered when done. Discord allows 3 s, of which 1 s is kept for the "
        "response's own round trip.",
    )

    _split = field_validator("discord_shard_ids", mode="before")(split_commas)

    @model_validator(mode="after")
    def _shards_consistent(self) -> DiscordSettings:
        if self.discord_shard_ids is None:
            return self
        if self.discord_shard_count is None:
            raise ValueError(
                "QUIZBOT_DISCORD_SHARD_IDS needs QUIZBOT_DISCORD_SHARD_COUNT (the total over all processes)"
            )
        wrong = [i for i in self.discord_shard_ids if not 0 <= i < self.discord_shard_count]
        if wrong or not self.discord_shard_ids:
            raise ValueError(
                f"QUIZBOT_DISCORD_SHARD_IDS must list shard numbers from 0 to {self.discord_shard_count - 1}"
                f" (QUIZBOT_DISCORD_SHARD_COUNT - 1); got {self.discord_shard_ids}"
            )
        return self

    def configured(self) -> bool:
        """Whether a Discord bot token is present."""
        return self.discord_token is not None

    async def online_findings(self) -> list[Finding]:
        """The token's login, the application's privileged intents and the bot's permissions in each server
        (adapters/discord/doctor.py, which loads discord.py)."""
        from adapters.discord.doctor import online_findings  # noqa: PLC0415 - the platform library only when asked

        return await online_findings(self)

    def findings(self) -> list[Finding]:
        """The token's shape."""
        if self.discord_token is None:
            return []
        if _DISCORD_TOKEN.match(self.discord_token.get_secret_value()):
            return [Finding("ok", "Discord token", "has the shape of a bot token")]
        return [
            Finding(
                "fail",
                "Discord token",
                "QUIZBOT_DISCORD_TOKEN does not look like a bot token (three dot-separated parts)",
                "reset and copy the token on the Bot page of your application in the Discord Developer Portal",
            )
        ]


START_WORDS = StartWords(
    platform="Discord",
    setting="QUIZBOT_DISCORD_TOKEN",
    refused_fix=(
        "reset the token on the Bot page of your application in the Discord Developer Portal and copy it into "
        "QUIZBOT_DISCORD_TOKEN"
    ),
    unreachable_fix="check the network and the proxy variables, and https://discordstatus.com",
)


def classify(exc: BaseException) -> StartFailure | None:
    """discord.py's LoginFailure (the token) and HTTPException (an error answer), by class name."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    if "LoginFailure" in names:
        return StartFailure("refused")
    if "HTTPException" in names:
        return StartFailure("answered")
    return None
