"""Settings: environment variables with the QUIZBOT_ prefix (and an optional .env), validated at start."""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal, get_args
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dotenv import dotenv_values
from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.errors import ConfigError, QuizError
from bot.resources import bundled_content_dir
from bot.scheduling.rules import parse_duration

AdapterName = Literal["console", "slack", "discord"]

PREFIX = "QUIZBOT_"
ENV_FILE = ".env"
OTHER_VARIABLES = {
    "QUIZBOT_TEST_POSTGRES_URL": "the PostgreSQL server of the test suite (tests/conftest.py)",
    "QUIZBOT_BENCH_POSTGRES_URL": "the PostgreSQL server of the benchmarks (bench/common.py)",
}
"""QUIZBOT_ variables that are not settings but are read elsewhere, so they are not warned about."""

_URL_SCHEMES = (
    ("postgresql+asyncpg://", "postgresql+asyncpg://"),
    ("postgresql://", "postgresql+asyncpg://"),
    ("postgres://", "postgresql+asyncpg://"),
    ("sqlite+aiosqlite://", "sqlite+aiosqlite://"),
    ("sqlite://", "sqlite+aiosqlite://"),
)


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
    flag_pause_threshold: int = Field(
        default=3,
        ge=1,
        le=1000,
        description="A question flagged by this many people of a workspace leaves its rotation until an admin "
        "clears the flags (`/quiz flags clear PACK/QUESTION`).",
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

    @field_validator("database_url", mode="before")
    @classmethod
    def _supported_database(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        text = value.strip()
        for given, driver in _URL_SCHEMES:  # the drivers quizbot runs on, for the URLs people usually write
            if text.startswith(given):
                return driver + text.removeprefix(given)
        scheme = text.partition("://")[0] + "://" if "://" in text else repr(text[:20])
        raise ValueError(
            f"must start with sqlite+aiosqlite:// or postgresql+asyncpg:// (sqlite://, postgresql:// and "
            f"postgres:// are turned into those); got {scheme}"
        )

    @field_validator("console_user", mode="before")
    @classmethod
    def _trimmed(cls, value: object) -> object:
        return value.strip() if isinstance(value, str) else value

    @model_validator(mode="after")
    def _console_user_not_blank(self) -> Settings:
        # Unset means "use $USER"; set to nothing (or spaces) is a mistake the terminal could only show as "".
        if "console_user" in self.model_fields_set and not self.console_user:
            raise ValueError("QUIZBOT_CONSOLE_USER is blank: set it to the name to play as, or unset it to use $USER")
        return self

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


def setting_names() -> list[str]:
    """The environment variable of every setting."""
    return [PREFIX + name.upper() for name in Settings.model_fields]


_SECRET_FIELDS = {
    name
    for name, field in Settings.model_fields.items()
    if field.annotation is SecretStr or SecretStr in get_args(field.annotation)
}
"""Settings whose values are never echoed in an error."""


def _error_line(err: Mapping[str, Any]) -> str:
    """One pydantic error as `QUIZBOT_NAME: what is wrong`; a list item is named by its position and value."""
    message = str(err["msg"]).removeprefix("Value error, ")
    loc = list(err["loc"])
    if not loc:
        return message if PREFIX in message else f"settings: {message}"
    field = str(loc[0])
    name = PREFIX + field.upper()
    items = [part for part in loc[1:] if isinstance(part, int)]
    if items:
        shown = "" if field in _SECRET_FIELDS else f" ({err.get('input')!r})"
        return f"{name} item {items[0] + 1}{shown}: {message}"
    return f"{name}: {message}"


def load_settings(**overrides: object) -> Settings:
    """Read and validate settings; a bad value raises ConfigError naming the environment variable."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        lines = [_error_line(err) for err in exc.errors()]
        if len(lines) == 1:
            raise ConfigError(lines[0]) from exc
        raise ConfigError(f"{len(lines)} settings are invalid:\n  " + "\n  ".join(lines)) from exc
    except UnicodeDecodeError as exc:  # the .env file, which pydantic-settings reads as UTF-8
        env_file = overrides.get("_env_file", ENV_FILE)
        where = Path(str(env_file)).absolute() if env_file else "the environment file"
        raise ConfigError(f"{where} is not UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8") from exc


def unknown_variables(environ: Mapping[str, str] | None = None, env_file: Path | None = Path(ENV_FILE)) -> list[str]:
    """A warning for each QUIZBOT_ variable (in the environment or the .env file) that no setting reads,
    with the nearest real name when there is one."""
    known = set(setting_names()) | set(OTHER_VARIABLES)
    found: dict[str, str] = {}
    for name in os.environ if environ is None else environ:
        found.setdefault(name, "")
    if env_file is not None and env_file.is_file():
        try:
            keys = dotenv_values(env_file, encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            keys = {}  # load_settings says what is wrong with the file
        for name in keys:
            found.setdefault(name, f" (in {env_file})")
    suffixes = [name.removeprefix(PREFIX) for name in setting_names()]
    warnings = []
    for name, where in sorted(found.items()):
        upper = name.upper()  # settings are read case-insensitively
        if not upper.startswith(PREFIX) or upper in known:
            continue
        close = difflib.get_close_matches(upper.removeprefix(PREFIX), suffixes, n=1, cutoff=0.6)
        hint = f"; did you mean {PREFIX}{close[0]}?" if close else " (see Configuration in README.md)"
        warnings.append(f"{name}{where} is not a quizbot setting and is ignored{hint}")
    return warnings
