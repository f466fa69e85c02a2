"""The Discord adapter's settings (QUIZBOT_DISCORD_*), its doctor checks and its words for a refused start.

Cheap to import (pydantic only, no discord.py): the core loads it through the plugin.
"""

from __future__ import annotations

import re

from pydantic import Field, SecretStr, field_validator, model_validator

from bot.plugins import AdapterSettings, Finding, StartFailure, StartWords, split_commas
from bot.wording import discord as words

_DISCORD_TOKEN = re.compile(r"^[A-Za-z0-9_-]{18,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$")


class DiscordSettings(AdapterSettings):
    """The bot token (which turns the adapter on), command sync target, sharding and the admin role."""

    discord_token: SecretStr | None = None
    discord_guild_id: int | None = Field(default=None, description=words.setting_description("discord_guild_id"))
    discord_shard_count: int | None = Field(
        default=None, ge=1, description=words.setting_description("discord_shard_count")
    )
    discord_shard_ids: list[int] | None = Field(
        default=None, description=words.setting_description("discord_shard_ids")
    )
    discord_admin_role_id: int | None = Field(
        default=None, description=words.setting_description("discord_admin_role_id")
    )

    discord_ack_deadline: float = Field(
        default=1.5,
        gt=0.0,
        le=2.0,
        description=words.setting_description("discord_ack_deadline"),
    )

    _split = field_validator("discord_shard_ids", mode="before")(split_commas)

    @model_validator(mode="after")
    def _shards_consistent(self) -> DiscordSettings:
        if self.discord_shard_ids is None:
            return self
        if self.discord_shard_count is None:
            raise ValueError(words.shard_ids_need_count())
        wrong = [i for i in self.discord_shard_ids if not 0 <= i < self.discord_shard_count]
        if wrong or not self.discord_shard_ids:
            raise ValueError(words.shard_ids_out_of_range(self.discord_shard_count, self.discord_shard_ids))
        return self

    def configured(self) -> bool:
        """Whether a Discord bot token is present."""
        return self.discord_token is not None

    def start_refusal(self) -> str | None:
        """No token (QUIZBOT_ADAPTERS asked for Discord without one): the adapter could not start, and saying so
        first leaves the database untouched."""
        return words.adapter_needs_token() if self.discord_token is None else None

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
            return [Finding("ok", words.check_token(), words.token_looks_right())]
        return [Finding("fail", words.check_token(), words.token_wrong_shape(), words.token_shape_fix())]


START_WORDS = StartWords(
    platform="Discord",
    setting="QUIZBOT_DISCORD_TOKEN",
    refused_fix=words.start_refused_fix(),
    unreachable_fix=words.start_unreachable_fix(),
)


def classify(exc: BaseException) -> StartFailure | None:
    """discord.py's LoginFailure (the token) and HTTPException (an error answer), by class name."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    if "LoginFailure" in names:
        return StartFailure("refused")
    if "HTTPException" in names:
        return StartFailure("answered")
    return None
