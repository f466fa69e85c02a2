"""Settings: one prefix, validated at start, with messages that name the setting."""

from __future__ import annotations

import pytest

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
    ],
)
def test_bad_values_name_the_setting(monkeypatch: pytest.MonkeyPatch, name: str, value: str, message: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=message):
        load_settings()


def test_app_token_must_be_an_app_level_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUIZBOT_SLACK_BOT_TOKEN", "xoxb-1")
    monkeypatch.setenv("QUIZBOT_SLACK_APP_TOKEN", "xoxb-2")
    with pytest.raises(ConfigError, match="must be an app-level token starting with xapp-"):
        load_settings()
