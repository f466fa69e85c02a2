"""Settings: environment variables with the QUIZBOT_ prefix (and an optional .env), validated at start."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.errors import ConfigError, QuizError
from bot.resources import bundled_content_dir
from bot.scheduling.rules import parse_duration

AdapterName = Literal["console", "slack", "discord"]


class Settings(BaseSettings):
    """Every setting of the bot. Each field is read from `QUIZBOT_<NAME>`."""

    model_config = SettingsConfigDict(
        env_prefix="QUIZBOT_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        validate_default=True,
    )

    database_url: str = Field(
        default="sqlite+aiosqlite:///quizbot.db",
        description="SQLAlchemy async URL: sqlite+aiosqlite:///FILE or postgresql+asyncpg://USER@HOST/DB",
    )
    content_dir: Path = Field(default_factory=bundled_content_dir, description="Folder of YAML packs.")
    timezone: str = Field(default="UTC", description="Default IANA timezone of new workspaces and channels.")
    adapters: list[AdapterName] | None = Field(
        default=None,
        description="Adapters to run (comma-separated). Default: those with credentials, else console.",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] | None = Field(
        default=None, description="Default: INFO, or WARNING when the terminal adapter shares the screen."
    )
    log_format: Literal["text", "json"] = "text"
    card_update_interval: float = Field(
        default=2.0, ge=0.0, le=60.0, description="Seconds between answer-count edits of one question card."
    )
    http_host: str = Field(default="0.0.0.0", description="Where /healthz and /metrics listen.")
    http_port: int | None = Field(
        default=None, ge=0, le=65535, description="Port of /healthz and /metrics (off unless set; 8080 in the image)."
    )
    console_user: str = Field(default="", description="Simulated user name in the terminal (default: $USER).")
    schedule_grace: timedelta = Field(
        default=timedelta(hours=1),
        description="A slot missed while no bot ran is posted late within this window (seconds, or 30m, 2h).",
    )
    schedule_tick_seconds: float = Field(
        default=10.0, ge=1.0, le=300.0, description="How often each process looks for due schedules."
    )
    schedule_lease_seconds: float = Field(
        default=300.0,
        ge=10.0,
        le=86400.0,
        description="After this long a claimed slot whose replica went silent is taken over by another.",
    )

    slack_bot_token: SecretStr | None = None
    slack_app_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_host: str = "0.0.0.0"
    slack_port: int = Field(default=3000, ge=0, le=65535, description="HTTP mode port (0: any free port).")
    slack_api_url: str | None = Field(default=None, description="Web API base URL (tests point it at a fake).")
    slack_admin_user_ids: list[str] | None = Field(
        default=None, description="Slack user ids that are quiz admins besides workspace admins and owners."
    )

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

    @field_validator("adapters", "discord_shard_ids", "slack_admin_user_ids", mode="before")
    @classmethod
    def _split_commas(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("schedule_grace", mode="before")
    @classmethod
    def _duration(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        text = value.strip()
        try:
            return timedelta(seconds=float(text))  # environment variables arrive as text: `3600`
        except (ValueError, OverflowError):
            pass
        try:
            return parse_duration(text)
        except QuizError as exc:
            raise ValueError(str(exc).replace("`", "")) from None

    @field_validator("schedule_grace")
    @classmethod
    def _not_negative(cls, value: timedelta) -> timedelta:
        if value < timedelta(0):
            raise ValueError("must not be negative")
        return value

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown IANA timezone {value!r} (try Europe/Berlin or America/New_York)") from exc
        return value

    @field_validator("database_url")
    @classmethod
    def _supported_database(cls, value: str) -> str:
        if not value.startswith(("sqlite+aiosqlite://", "postgresql+asyncpg://")):
            raise ValueError("must start with sqlite+aiosqlite:// or postgresql+asyncpg://")
        return value

    @model_validator(mode="after")
    def _slack_complete(self) -> Settings:
        if (self.slack_app_token or self.slack_signing_secret) and not self.slack_bot_token:
            raise ValueError("QUIZBOT_SLACK_BOT_TOKEN is required when a Slack app token or signing secret is set")
        if self.slack_app_token and not self.slack_app_token.get_secret_value().startswith("xapp-"):
            raise ValueError("QUIZBOT_SLACK_APP_TOKEN must be an app-level token starting with xapp-")
        return self

    @model_validator(mode="after")
    def _discord_shards_consistent(self) -> Settings:
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

    @property
    def slack_configured(self) -> bool:
        """Whether Slack credentials are present."""
        return self.slack_bot_token is not None

    @property
    def discord_configured(self) -> bool:
        """Whether a Discord bot token is present."""
        return self.discord_token is not None

    def effective_log_level(self) -> str:
        """The log level to use: as set, else quiet enough not to clutter the terminal adapter."""
        if self.log_level:
            return self.log_level
        return "WARNING" if "console" in self.enabled_adapters() else "INFO"

    def enabled_adapters(self) -> list[AdapterName]:
        """The adapters to run: as configured, else every platform with credentials, else the terminal."""
        if self.adapters:
            return list(dict.fromkeys(self.adapters))
        chosen: list[AdapterName] = []
        if self.slack_configured:
            chosen.append("slack")
        if self.discord_configured:
            chosen.append("discord")
        return chosen or ["console"]


def load_settings(**overrides: object) -> Settings:
    """Read and validate settings; a bad value raises ConfigError naming the environment variable."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        lines = []
        for err in exc.errors():
            field = ".".join(str(part) for part in err["loc"]) if err["loc"] else ""
            name = f"QUIZBOT_{field.upper()}" if field else "settings"
            lines.append(f"{name}: {err['msg'].removeprefix('Value error, ')}")
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(lines)) from exc
