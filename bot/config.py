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
from pydantic import AfterValidator, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.domain.attention import DEFAULT_BEHIND_AFTER, DEFAULT_INACTIVE_DAYS
from bot.errors import ConfigError, QuizError
from bot.plugins import AdapterSettings, adapter_settings_fields, installed_plugins, names_phrase, split_commas
from bot.resources import bundled_content_dir
from bot.schedule_rules import parse_duration
from bot.timeouts import DatabaseTimeouts

PREFIX = "QUIZBOT_"
FALLBACK_ADAPTER = "console"
"""The adapter that runs when no other is configured or named: the terminal, which needs no account."""
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


def _installed_adapter(name: str) -> str:
    installed = list(installed_plugins())
    if name not in installed:
        raise ValueError(f"Input should be {names_phrase(installed)}")
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
        description="SQLAlchemy async URL: sqlite+aiosqlite:///FILE or postgresql+asyncpg://USER@HOST/DB",
    )
    content_dir: Path = Field(default_factory=bundled_content_dir, description="Folder of YAML packs.")
    timezone: str = Field(default="UTC", description="Default IANA timezone of new workspaces and channels.")
    adapters: list[Annotated[str, AfterValidator(_installed_adapter)]] | None = Field(
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
    max_pending_clicks: int = Field(
        default=1000,
        ge=1,
        le=1_000_000,
        description="Clicks accepted but not yet committed, at most; past it a click is told at once that the bot "
        "is busy and to click again, and nothing is recorded (bounds memory under a burst).",
    )
    database_connect_timeout: float = Field(
        default=1.0,
        gt=0.0,
        le=300.0,
        description="Seconds to open a PostgreSQL connection before the database counts as unreachable.",
    )
    database_statement_timeout: float = Field(
        default=1.5,
        gt=0.0,
        le=3600.0,
        description="Seconds one PostgreSQL statement may take before the database counts as unavailable: short, "
        "so that a click is told to retry within the platform's acknowledgement window and /healthz turns 503 "
        "within seconds of a network partition. Migrations have no limit.",
    )
    sqlite_busy_timeout: float = Field(
        default=15.0,
        gt=0.0,
        le=3600.0,
        description="Seconds a SQLite writer waits for another writer to finish before the database counts as "
        "unavailable.",
    )
    database_pool_timeout: float = Field(
        default=1.0,
        gt=0.0,
        le=300.0,
        description="Seconds to wait for a free PostgreSQL connection of the pool when all are busy.",
    )
    adapter_restart_seconds: float = Field(
        default=1.0,
        gt=0.0,
        le=600.0,
        description="An adapter that fails while serving is restarted after this long, doubling (up to 60 s) on "
        "each failure in a row.",
    )
    confirm_seconds: float = Field(
        default=120.0,
        ge=10.0,
        le=3600.0,
        description="How long the Confirm button of a destructive command (cohort delete, schedule remove, season "
        "end) works before the command must be run again.",
    )
    flag_pause_threshold: int = Field(
        default=3,
        ge=1,
        le=1000,
        description="A question flagged by this many people of a workspace leaves its rotation until an admin "
        "clears the flags (`/quiz flags clear PACK/QUESTION`).",
    )

    cohort_behind_after: int = Field(
        default=DEFAULT_BEHIND_AFTER,
        ge=1,
        le=100,
        description="A cohort member who answered none of the cohort's last this many questions is behind "
        "(flagged in `/quiz cohort show` and the report; `/quiz cohort remind` nudges them).",
    )
    cohort_inactive_days: int = Field(
        default=DEFAULT_INACTIVE_DAYS,
        ge=1,
        le=3650,
        description="A cohort member with no answer in this many days is flagged inactive.",
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
        return message if PREFIX in message else f"settings: {message}"
    field = str(loc[0])
    name = PREFIX + field.upper()
    items = [part for part in loc[1:] if isinstance(part, int)]
    if items:
        shown = "" if field in _secret_fields() else f" ({err.get('input')!r})"
        return f"{name} item {items[0] + 1}{shown}: {message}"
    return f"{name}: {message}"


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
        raise ConfigError(f"{len(lines)} settings are invalid:\n  " + "\n  ".join(lines)) from exc  # 2 or more
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
