"""Settings: one prefix, validated at start, with messages that name the setting."""

from __future__ import annotations

import pytest

from adapters.console.settings import ConsoleSettings
from adapters.discord.settings import DiscordSettings
from adapters.slack.settings import SlackSettings
from bot.config import load_settings
from bot.errors import ConfigError


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("QUIZBOT_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)  # type: ignore[arg-type]


def test_defaults_need_no_setup() -> None:
    settings = load_settings()
    assert settings.database_url == "sqlite+aiosqlite:///quizbot.db"
    assert settings.enabled_adapters() == ["console"]
    assert (settings.content_dir / "data-parallelism.yaml").exists()
    assert settings.effective_log_level() == "WARNING"


def test_credentials_choose_adapters(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUIZBOT_SLACK_BOT_TOKEN", "xoxb-1")
    monkeypatch.setenv("QUIZBOT_SLACK_SIGNING_SECRET", "s")
    monkeypatch.setenv("QUIZBOT_DISCORD_TOKEN", "abc")
    settings = load_settings()
    assert settings.enabled_adapters() == ["slack", "discord"]
    assert settings.effective_log_level() == "INFO"
    monkeypatch.setenv("QUIZBOT_ADAPTERS", "console, slack")
    assert load_settings().enabled_adapters() == ["console", "slack"]


def test_dotenv_file_is_read(tmp_path: object) -> None:
    from pathlib import Path

    Path(".env").write_text("QUIZBOT_TIMEZONE=Europe/Helsinki\n", encoding="utf-8")
    assert load_settings().timezone == "Europe/Helsinki"


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("QUIZBOT_TIMEZONE", "Mars/Olympus", "QUIZBOT_TIMEZONE: unknown IANA timezone 'Mars/Olympus'"),
        ("QUIZBOT_DATABASE_URL", "mysql://x", "QUIZBOT_DATABASE_URL: must start with"),
        ("QUIZBOT_ADAPTERS", "console,irc", "QUIZBOT_ADAPTERS"),
        ("QUIZBOT_SLACK_PORT", "99999", "QUIZBOT_SLACK_PORT"),
        ("QUIZBOT_CARD_UPDATE_INTERVAL", "soon", "QUIZBOT_CARD_UPDATE_INTERVAL"),
        ("QUIZBOT_SLACK_APP_TOKEN", "xoxb-wrong", "QUIZBOT_SLACK_BOT_TOKEN is required"),
        ("QUIZBOT_LOG_LEVEL", "LOUD", "QUIZBOT_LOG_LEVEL"),
        ("QUIZBOT_MAX_PENDING_CLICKS", "0", "QUIZBOT_MAX_PENDING_CLICKS"),
        ("QUIZBOT_SLACK_ACK_DEADLINE", "3", "QUIZBOT_SLACK_ACK_DEADLINE"),  # past Slack's own 3 s window
        ("QUIZBOT_DISCORD_ACK_DEADLINE", "2.5", "QUIZBOT_DISCORD_ACK_DEADLINE"),
    ],
)
def test_bad_values_name_the_setting(monkeypatch: pytest.MonkeyPatch, name: str, value: str, message: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=message):
        load_settings()


def test_acknowledgement_settings_default_inside_the_platforms_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = load_settings()
    assert settings.max_pending_clicks == 1000
    assert SlackSettings.of(settings).slack_ack_deadline == 2.0
    assert DiscordSettings.of(settings).discord_ack_deadline == 1.5
    monkeypatch.setenv("QUIZBOT_MAX_PENDING_CLICKS", "50")
    monkeypatch.setenv("QUIZBOT_SLACK_ACK_DEADLINE", "1.25")
    settings = load_settings()
    assert (settings.max_pending_clicks, SlackSettings.of(settings).slack_ack_deadline) == (50, 1.25)


def test_app_token_must_be_an_app_level_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUIZBOT_SLACK_BOT_TOKEN", "xoxb-1")
    monkeypatch.setenv("QUIZBOT_SLACK_APP_TOKEN", "xoxb-2")
    with pytest.raises(ConfigError, match="must be an app-level token starting with xapp-"):
        load_settings()


@pytest.mark.parametrize(
    ("given", "used"),
    [
        ("postgresql://quiz@db/quiz", "postgresql+asyncpg://quiz@db/quiz"),
        ("postgres://quiz:pw@db:5433/quiz", "postgresql+asyncpg://quiz:pw@db:5433/quiz"),
        ("sqlite:///data/quizbot.db", "sqlite+aiosqlite:///data/quizbot.db"),
        (" sqlite+aiosqlite:///quizbot.db ", "sqlite+aiosqlite:///quizbot.db"),
        ("postgresql+asyncpg://quiz@db/quiz", "postgresql+asyncpg://quiz@db/quiz"),
    ],
)
def test_common_database_urls_get_the_async_driver(monkeypatch: pytest.MonkeyPatch, given: str, used: str) -> None:
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", given)
    assert load_settings().database_url == used


def test_console_user_may_be_unset_but_not_blank(monkeypatch: pytest.MonkeyPatch) -> None:
    assert ConsoleSettings.of(load_settings()).console_user == ""  # unset: the terminal uses $USER
    monkeypatch.setenv("QUIZBOT_CONSOLE_USER", " ann ")
    assert ConsoleSettings.of(load_settings()).console_user == "ann"
    for blank in ("", "  \t"):
        monkeypatch.setenv("QUIZBOT_CONSOLE_USER", blank)
        with pytest.raises(ConfigError, match="QUIZBOT_CONSOLE_USER is blank"):
            load_settings()


def test_list_items_are_named_by_position_not_pydantic_location(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUIZBOT_DISCORD_SHARD_COUNT", "4")
    monkeypatch.setenv("QUIZBOT_DISCORD_SHARD_IDS", "0,x,2")
    with pytest.raises(ConfigError) as raised:
        load_settings()
    assert str(raised.value) == (
        "QUIZBOT_DISCORD_SHARD_IDS item 2 ('x'): Input should be a valid integer, unable to parse string as an integer"
    )


def test_unknown_variables_get_the_nearest_setting(tmp_path: object) -> None:
    from pathlib import Path

    from bot.config import unknown_variables

    env_file = Path(".env")
    env_file.write_text("QUIZBOT_SLACK_BOT_TOKN=xoxb-1\nPOSTGRES_PASSWORD=x\n", encoding="utf-8")
    environ = {
        "QUIZBOT_TIMEZON": "UTC",
        "quizbot_log_level": "DEBUG",  # settings are read case-insensitively: a real one
        "QUIZBOT_TEST_POSTGRES_URL": "postgresql://",  # the test suite's, not a setting
        "QUIZBOT_BENCH_POSTGRES_URL": "postgresql://",  # the benchmarks'
        "QUIZBOT_WHATEVER": "1",
        "HOME": "/root",
    }
    assert unknown_variables(environ, env_file) == [
        "QUIZBOT_SLACK_BOT_TOKN (in .env) is not a quizbot setting and is ignored; did you mean QUIZBOT_SLACK_BOT_TOKEN?",
        "QUIZBOT_TIMEZON is not a quizbot setting and is ignored; did you mean QUIZBOT_TIMEZONE?",
        "QUIZBOT_WHATEVER is not a quizbot setting and is ignored (see Configuration in README.md)",
    ]
    assert unknown_variables({"QUIZBOT_TIMEZONE": "UTC"}, None) == []


def test_database_timeouts_are_short_by_default_and_settable(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.timeouts import DatabaseTimeouts

    assert load_settings().database_timeouts() == DatabaseTimeouts(
        connect=1.0, statement=1.5, pool=1.0, sqlite_busy=15.0
    )
    monkeypatch.setenv("QUIZBOT_DATABASE_CONNECT_TIMEOUT", "3")
    monkeypatch.setenv("QUIZBOT_DATABASE_STATEMENT_TIMEOUT", "10")
    monkeypatch.setenv("QUIZBOT_DATABASE_POOL_TIMEOUT", "2.5")
    monkeypatch.setenv("QUIZBOT_SQLITE_BUSY_TIMEOUT", "4")
    timeouts = load_settings().database_timeouts()
    assert timeouts == DatabaseTimeouts(connect=3.0, statement=10.0, pool=2.5, sqlite_busy=4.0)
    assert timeouts.unbounded_statements() == DatabaseTimeouts(connect=3.0, statement=None, pool=2.5, sqlite_busy=4.0)
    monkeypatch.setenv("QUIZBOT_DATABASE_STATEMENT_TIMEOUT", "0")
    with pytest.raises(ConfigError, match="QUIZBOT_DATABASE_STATEMENT_TIMEOUT"):
        load_settings()
