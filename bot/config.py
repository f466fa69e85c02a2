"""Settings: environment variables with the QUIZBOT_ prefix (and an optional .env), validated at start."""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any, Literal, get_args
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dotenv import dotenv_values
from pydantic import AfterValidator, Field, SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.commands.settings import setting_value
from bot.domain.attention import DEFAULT_BEHIND_AFTER, DEFAULT_INACTIVE_DAYS
from bot.domain.settings import SettingDefaults, SettingKey
from bot.errors import CommandError, ConfigError, QuizError
from bot.plugins import AdapterSettings, adapter_settings_fields, installed_plugins, names_phrase, split_commas
from bot.resources import bundled_content_dir
from bot.schedule_rules import parse_duration
from bot.timeouts import DatabaseTimeouts
from bot.wording import settings as words
from bot.wording.chat_settings import allowed

PREFIX = "QUIZBOT_"
FALLBACK_ADAPTER = "console"
"""The adapter that runs when no other is configured or named: the terminal, which needs no account."""
ENV_FILE = ".env"
OTHER_VARIABLES = words.OTHER_VARIABLES
"""QUIZBOT_ variables that are not settings but are read elsewhere, so they are not warned about."""

_URL_SCHEMES = (
    ("postgresql+asyncpg://", "postgresql+asyncpg://"),
    ("postgresql://", "postgresql+asyncpg://"),
    ("postgres://", "postgresql+asyncpg://"),
    ("sqlite+aiosqlite://", "sqlite+aiosqlite://"),
    ("sqlite://", "sqlite+aiosqlite://"),
)


_CHAT_SETTING_KEYS = {
    "now_posters": SettingKey.NOW_POSTERS,
    "close_after": SettingKey.CLOSE_AFTER,
    "reveal_policy": SettingKey.REVEAL,
    "speed_points": SettingKey.SPEED_POINTS,
    "cohort_private": SettingKey.COHORT_PRIVATE,
    "language": SettingKey.LANGUAGE,
}
"""The settings whose environment value is the default of a setting changed in chat, by field."""


def _installed_adapter(name: str) -> str:
    installed = list(installed_plugins())
    if name not in installed:
        raise ValueError(words.not_installed_adapter(names_phrase(installed)))
    return name


class Settings(BaseSettings):
    """Every setting of the bot. Each field is read from `QUIZBOT_<NAME>`."""

    model_config = SettingsConfigDict(
        env_prefix="QUIZBOT_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="allow",  # adapters' settings (bot/plugins.py) read the keys meant for them; unknown ones are warned of
        validate_default=True,
    )

    database_url: str = Field(
        default="sqlite+aiosqlite:///quizbot.db",
        description=words.setting_description("database_url"),
    )
    content_dir: Path = Field(default_factory=bundled_content_dir, description=words.setting_description("content_dir"))
    timezone: str = Field(default="UTC", description=words.setting_description("timezone"))
    adapters: list[Annotated[str, AfterValidator(_installed_adapter)]] | None = Field(
        default=None,
        description=words.setting_description("adapters"),
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] | None = Field(
        default=None, description=words.setting_description("log_level")
    )
    log_format: Literal["text", "json"] = "text"
    card_update_interval: float = Field(
        default=2.0, ge=0.0, le=60.0, description=words.setting_description("card_update_interval")
    )
    http_host: str = Field(default="0.0.0.0", description=words.setting_description("http_host"))
    http_port: int | None = Field(default=None, ge=0, le=65535, description=words.setting_description("http_port"))
    schedule_grace: timedelta = Field(
        default=timedelta(hours=1),
        description=words.setting_description("schedule_grace"),
    )
    schedule_tick_seconds: float = Field(
        default=10.0, ge=1.0, le=300.0, description=words.setting_description("schedule_tick_seconds")
    )
    schedule_lease_seconds: float = Field(
        default=300.0,
        ge=10.0,
        le=86400.0,
        description=words.setting_description("schedule_lease_seconds"),
    )
    max_pending_clicks: int = Field(
        default=1000,
        ge=1,
        le=1_000_000,
        description=words.setting_description("max_pending_clicks"),
    )
    database_connect_timeout: float = Field(
        default=1.0,
        gt=0.0,
        le=300.0,
        description=words.setting_description("database_connect_timeout"),
    )
    database_statement_timeout: float = Field(
        default=1.5,
        gt=0.0,
        le=3600.0,
        description=words.setting_description("database_statement_timeout"),
    )
    sqlite_busy_timeout: float = Field(
        default=15.0,
        gt=0.0,
        le=3600.0,
        description=words.setting_description("sqlite_busy_timeout"),
    )
    database_pool_timeout: float = Field(
        default=1.0,
        gt=0.0,
        le=300.0,
        description=words.setting_description("database_pool_timeout"),
    )
    adapter_restart_seconds: float = Field(
        default=1.0,
        gt=0.0,
        le=600.0,
        description=words.setting_description("adapter_restart_seconds"),
    )
    confirm_seconds: float = Field(
        default=120.0,
        ge=10.0,
        le=3600.0,
        description=words.setting_description("confirm_seconds"),
    )
    flag_pause_threshold: int = Field(
        default=3,
        ge=1,
        le=1000,
        description=words.setting_description("flag_pause_threshold"),
    )
    now_cooldown_seconds: int = Field(
        default=0,
        ge=0,
        le=86_400,
        description=words.setting_description("now_cooldown_seconds"),
    )
    now_open_limit: int = Field(
        default=0,
        ge=0,
        le=1000,
        description=words.setting_description("now_open_limit"),
    )
    upload_max_bytes: int = Field(
        default=1_000_000,
        ge=1_000,
        le=50_000_000,
        description=words.setting_description("upload_max_bytes"),
    )

    now_posters: str = Field(default="anyone", description=words.setting_description("now_posters"))
    close_after: str = Field(default="none", description=words.setting_description("close_after"))
    reveal_policy: str = Field(default="leads", description=words.setting_description("reveal_policy"))
    speed_points: str = Field(default="on", description=words.setting_description("speed_points"))
    cohort_private: str = Field(default="off", description=words.setting_description("cohort_private"))
    language: str = Field(default="en", description=words.setting_description("language"))

    cohort_behind_after: int = Field(
        default=DEFAULT_BEHIND_AFTER,
        ge=1,
        le=100,
        description=words.setting_description("cohort_behind_after"),
    )
    cohort_inactive_days: int = Field(
        default=DEFAULT_INACTIVE_DAYS,
        ge=1,
        le=3650,
        description=words.setting_description("cohort_inactive_days"),
    )

    _split_adapters = field_validator("adapters", mode="before")(split_commas)

    @field_validator("log_level", mode="before")
    @classmethod
    def _any_case(cls, value: object) -> object:
        """`debug`, `Info`: a level is a level in any case (and without surrounding spaces)."""
        return value.strip().upper() if isinstance(value, str) else value

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
            raise ValueError(words.must_not_be_negative())
        return value

    @field_validator("now_posters", "close_after", "reveal_policy", "speed_points", "cohort_private", "language")
    @classmethod
    def _chat_setting(cls, value: str, info: ValidationInfo) -> str:
        """The defaults of the settings a team changes in chat (`/quiz settings`), read by the chat's own grammar
        into their canonical text."""
        key = _CHAT_SETTING_KEYS[str(info.field_name)]
        try:
            canonical = setting_value(key, value)
        except CommandError as exc:
            raise ValueError(exc.worded().replace("`", "")) from None
        if canonical is None:
            raise ValueError(words.chat_setting_needs_value(allowed(key).replace("`", "")))
        return canonical

    def setting_defaults(self) -> SettingDefaults:
        """The defaults under every workspace's and channel's settings changed in chat (`/quiz settings`)."""
        return SettingDefaults.of(
            timezone=self.timezone,
            now_cooldown_seconds=self.now_cooldown_seconds,
            now_open_limit=self.now_open_limit,
            now_posters=self.now_posters,
            close_after=self.close_after,
            reveal=self.reveal_policy,
            speed_points=self.speed_points,
            cohort_private=self.cohort_private,
            language=self.language,
        )

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(words.unknown_timezone(value)) from exc
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
        raise ValueError(words.unsupported_database(scheme))

    def database_timeouts(self) -> DatabaseTimeouts:
        """The database timeouts these settings ask for."""
        return DatabaseTimeouts(
            connect=self.database_connect_timeout,
            statement=self.database_statement_timeout,
            pool=self.database_pool_timeout,
            sqlite_busy=self.sqlite_busy_timeout,
        )

    def adapter_settings(self) -> dict[str, AdapterSettings]:
        """Each installed adapter's own settings (validated; a bad one raises pydantic's ValidationError)."""
        return {name: plugin.settings.of(self) for name, plugin in installed_plugins().items()}

    def effective_log_level(self) -> str:
        """The log level to use: as set, else quiet enough not to clutter the terminal adapter."""
        if self.log_level:
            return self.log_level
        return "WARNING" if "console" in self.enabled_adapters() else "INFO"

    def enabled_adapters(self) -> list[str]:
        """The adapters to run: as configured, else every platform with credentials, else the terminal."""
        if self.adapters:
            return list(dict.fromkeys(self.adapters))
        chosen = [name for name, settings in self.adapter_settings().items() if settings.configured()]
        return chosen or [FALLBACK_ADAPTER]


def setting_names() -> list[str]:
    """The environment variable of every setting, the installed adapters' included."""
    return [PREFIX + name.upper() for name in [*Settings.model_fields, *adapter_settings_fields()]]


def _secret_fields() -> set[str]:
    fields = {**Settings.model_fields}
    for settings in adapter_settings_fields().values():
        fields.update(settings.model_fields)
    return {
        name
        for name, field in fields.items()
        if field.annotation is SecretStr or SecretStr in get_args(field.annotation)
    }


"""Settings whose values are never echoed in an error."""


def _error_line(err: Mapping[str, Any]) -> str:
    """One pydantic error as `QUIZBOT_NAME: what is wrong`; a list item is named by its position and value."""
    message = str(err["msg"]).removeprefix("Value error, ")
    loc = list(err["loc"])
    if not loc:
        return message if PREFIX in message else words.invalid_together(message)
    field = str(loc[0])
    name = PREFIX + field.upper()
    items = [part for part in loc[1:] if isinstance(part, int)]
    if items:
        shown = "" if field in _secret_fields() else f" ({err.get('input')!r})"
        return words.invalid_item(name, items[0] + 1, shown, message)
    return words.invalid(name, message)


def load_settings(**overrides: object) -> Settings:
    """Read and validate settings; a bad value raises ConfigError naming the environment variable."""
    try:
        settings = Settings(**overrides)  # type: ignore[arg-type]
        settings.adapter_settings()  # each adapter validates its own settings now, not when it first starts
        return settings
    except ValidationError as exc:
        lines = [_error_line(err) for err in exc.errors()]
        if len(lines) == 1:
            raise ConfigError(lines[0]) from exc
        raise ConfigError("\n  ".join([words.settings_invalid(len(lines)), *lines])) from exc  # 2 or more
    except UnicodeDecodeError as exc:  # the .env file, which pydantic-settings reads as UTF-8
        env_file = overrides.get("_env_file", ENV_FILE)
        where = Path(str(env_file)).absolute() if env_file else words.the_environment_file()
        raise ConfigError(words.not_utf8(where, exc.reason, exc.start)) from exc


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
            found.setdefault(name, words.in_file(env_file))
    suffixes = [name.removeprefix(PREFIX) for name in setting_names()]
    warnings = []
    for name, where in sorted(found.items()):
        upper = name.upper()  # settings are read case-insensitively
        if not upper.startswith(PREFIX) or upper in known:
            continue
        close = difflib.get_close_matches(upper.removeprefix(PREFIX), suffixes, n=1, cutoff=0.6)
        warnings.append(words.unknown_variable(name, where, PREFIX + close[0] if close else None))
    return warnings
