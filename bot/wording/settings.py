"""The core's settings in words (bot/config.py): what each QUIZBOT_* setting holds, and what an operator is told
when one is wrong, the .env file cannot be read, or a QUIZBOT_ variable is no setting at all.

The adapters word their own settings (bot/wording/slack.py, discord.py).
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.wording.i18n import translate as _

SETTING_DESCRIPTIONS: Mapping[str, str] = {
    "database_url": "SQLAlchemy async URL: sqlite+aiosqlite:///FILE or postgresql+asyncpg://USER@HOST/DB",
    "content_dir": "Folder of YAML packs.",
    "timezone": "Default IANA timezone of new workspaces and channels; `/quiz settings` sets one's own in chat.",
    "adapters": "Adapters to run (comma-separated). Default: those with credentials, else console.",
    "log_level": "Default: INFO, or WARNING when the terminal adapter shares the screen.",
    "card_update_interval": "Seconds between answer-count edits of one question card.",
    "http_host": "Where /healthz and /metrics listen.",
    "http_port": "Port of /healthz and /metrics (off unless set; 8080 in the image).",
    "schedule_grace": "A slot missed while no bot ran is posted late within this window (seconds, or 30m, 2h).",
    "schedule_tick_seconds": "How often each process looks for due schedules.",
    "schedule_lease_seconds": "After this long a claimed slot whose replica went silent is taken over by another.",
    "max_pending_clicks": "Clicks accepted but not yet committed, at most; past it a click is told at once that the "
    "bot is busy and to click again, and nothing is recorded (bounds memory under a burst).",
    "database_connect_timeout": "Seconds to open a PostgreSQL connection before the database counts as unreachable.",
    "database_statement_timeout": "Seconds one PostgreSQL statement may take before the database counts as "
    "unavailable: short, so that a click is told to retry within the platform's acknowledgement window and "
    "/healthz turns 503 within seconds of a network partition. Migrations have no limit.",
    "sqlite_busy_timeout": "Seconds a SQLite writer waits for another writer to finish before the database counts "
    "as unavailable.",
    "database_pool_timeout": "Seconds to wait for a free PostgreSQL connection of the pool when all are busy.",
    "adapter_restart_seconds": "An adapter that fails while serving is restarted after this long, doubling (up to "
    "60 s) on each failure in a row.",
    "confirm_seconds": "How long the Confirm button of a destructive command (cohort delete, schedule remove, "
    "season end) works before the command must be run again.",
    "flag_pause_threshold": "A question flagged by this many people of a workspace leaves its rotation until an "
    "admin clears the flags (`/quiz flags clear PACK/QUESTION`).",
    "now_cooldown_seconds": "Seconds after a `/quiz now` before the next one in the same channel (0: no cooldown); "
    "leads and admins are exempt. The default: a workspace or channel may set its own in chat (`/quiz settings`).",
    "now_open_limit": "How many questions posted with `/quiz now` may be open at once in a channel (0: no limit); "
    "leads and admins are exempt. The default: a workspace or channel may set its own in chat (`/quiz settings`).",
    "now_posters": "Who may post a question with `/quiz now` (anyone, leads): the default of the `now-posters` "
    "setting a workspace or channel may change in chat (`/quiz settings`).",
    "close_after": "How long a `/quiz now` question, and a new schedule's without close:, stays open (30m, 2h, "
    "1d; none: until revealed, or until the schedule's next): the default of `close-after` (`/quiz settings`).",
    "reveal_policy": "Who may reveal a question early: leads (a schedule's question by its schedule or a lead; an "
    "on-demand one by its poster or a lead), schedule (a schedule's only by its schedule), anyone. The default of "
    "`reveal` (`/quiz settings`).",
    "speed_points": "A faster correct answer scores up to 10 more (on, off): the default of `speed-points` "
    "(`/quiz settings`).",
    "cohort_private": "A cohort created without deliver: is delivered by direct message (on) or in the channel "
    "(off): the default of `cohort-private` (`/quiz settings`).",
    "language": "The language the bot answers in (a tag such as en, de, pt-BR; stored for the translations to "
    "come): the default of `language` (`/quiz settings`).",
    "upload_max_bytes": "The largest pack file a lead may upload in chat (`/quiz import`), in bytes; a larger one is "
    "refused before it is downloaded.",
    "cohort_behind_after": "A cohort member who answered none of the cohort's last this many questions is behind "
    "(flagged in `/quiz cohort show` and the report; `/quiz cohort remind` nudges them).",
    "cohort_inactive_days": "A cohort member with no answer in this many days is flagged inactive.",
}
"""What each documented QUIZBOT_* setting of the core holds, by its field."""

OTHER_VARIABLES: Mapping[str, str] = {
    "QUIZBOT_TEST_POSTGRES_URL": "the PostgreSQL server of the test suite (tests/conftest.py)",
    "QUIZBOT_BENCH_POSTGRES_URL": "the PostgreSQL server of the benchmarks (bench/common.py)",
}
"""QUIZBOT_ variables that are not settings but are read elsewhere (so they are not warned about), and by what."""


def setting_description(field: str) -> str:
    """The description of a core setting (`database_url`)."""
    return _(SETTING_DESCRIPTIONS[field])


def not_installed_adapter(installed: str) -> str:
    """QUIZBOT_ADAPTERS names an adapter that is not installed; `installed` lists those that are, in words."""
    return _("Input should be {installed}", installed=installed)


def must_not_be_negative() -> str:
    """A duration below zero."""
    return _("must not be negative")


def unknown_timezone(value: str) -> str:
    """A timezone that is not in the IANA database."""
    return _("unknown IANA timezone {value!r} (try Europe/Berlin or America/New_York)", value=value)


def unsupported_database(scheme: str) -> str:
    """A database URL of a scheme quizbot does not run on."""
    return _(
        "must start with sqlite+aiosqlite:// or postgresql+asyncpg:// (sqlite://, postgresql:// and postgres:// are "
        "turned into those); got {scheme}",
        scheme=scheme,
    )


def settings_invalid(count: int) -> str:
    """The first line over the list of two or more invalid settings."""
    return _("{count} settings are invalid:", count=count)


def the_environment_file() -> str:
    """How the .env file is named when its path is not known."""
    return _("the environment file")


def not_utf8(where: object, reason: str, byte: int) -> str:
    """The .env file is not UTF-8."""
    return _(
        "{where} is not UTF-8 text ({reason} at byte {byte}); save it as UTF-8", where=where, reason=reason, byte=byte
    )


def unknown_variable(name: str, where: str, suggestion: str | None) -> str:
    """A QUIZBOT_ variable that no setting reads (`where`: ` (in .env)` or nothing), with the nearest real name."""
    if suggestion is not None:
        return _(
            "{name}{where} is not a quizbot setting and is ignored; did you mean {suggestion}?",
            name=name,
            where=where,
            suggestion=suggestion,
        )
    return _(
        "{name}{where} is not a quizbot setting and is ignored (see Configuration in README.md)", name=name, where=where
    )


def in_file(path: object) -> str:
    """Where a variable was found: ` (in .env)`."""
    return _(" (in {path})", path=path)


def invalid(name: str, message: str) -> str:
    """One invalid setting: `QUIZBOT_NAME: what is wrong`."""
    return _("{name}: {message}", name=name, message=message)


def invalid_item(name: str, position: int, shown: str, message: str) -> str:
    """One invalid item of a list setting, by its position (and its value, `shown`, unless it is a secret)."""
    return _("{name} item {position}{shown}: {message}", name=name, position=position, shown=shown, message=message)


def invalid_together(message: str) -> str:
    """Settings that are wrong together rather than one by one."""
    return _("settings: {message}", message=message)


def chat_setting_needs_value(what: str) -> str:
    """A chat setting's environment default set to `default` (it has nothing to inherit)."""
    return _("needs a value: {what}", what=what)
