"""`quizbot discord sync|invite`, the adapter's entry points and its settings, against the loopback fake Discord."""

from __future__ import annotations

import asyncio
import logging
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from pydantic import SecretStr

from adapters.discord.adapter import DiscordAdapter, intents, invite_permissions
from adapters.discord.cli import sync_commands
from adapters.discord.settings import DiscordSettings
from bot.cli import main
from bot.commands import SPECS
from bot.commands import SUBCOMMANDS as CORE_SUBCOMMANDS
from bot.config import load_settings
from bot.errors import ConfigError
from bot.runtime import Runtime, adapter_factories, build_adapters
from tests.conftest import REPO, SEED_CONTENT, patient_settings, use_patient_database
from tests.discord_support import serving, slash, text_of
from tests.fakes.discord_api import WAIT, FakeDiscord

KNOWN_SUBCOMMANDS = [
    "now",
    "reveal",
    "leaderboard",
    "me",
    "packs",
    "review",
    "report",
    "flag",
    "help",
    "schedule",
    "flags",
    "cohort",
    "season",
]
KNOWN_GROUPS = {
    "schedule": ["add", "list", "remove", "pause", "resume", "next"],
    "flags": ["list", "clear"],
    "cohort": ["create", "join", "leave", "add", "remove", "list", "show", "next", "remind", "set", "delete"],
    "season": ["start", "end", "list"],
}


SUBCOMMANDS = KNOWN_SUBCOMMANDS + [
    name for name in dict.fromkeys(spec.path[0] for spec in SPECS) if name not in KNOWN_SUBCOMMANDS
]
"""The options users know stay where they are; a command added since (its spec) comes after them, in spec order
(tests/e2e/discord/test_discord_specs.py checks each against its spec)."""
GROUPS = {
    group: KNOWN_GROUPS.get(group, [])
    + [spec.name for spec in SPECS if spec.group == group and spec.name not in KNOWN_GROUPS.get(group, [])]
    for group in dict.fromkeys(spec.group for spec in SPECS if spec.group is not None)
}


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(token="the-bot-token") as fake:
        yield fake
        fake.assert_no_unknown_routes()


@pytest.fixture
def discord_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """The CLI reads settings from the environment; keep them to what the test sets.

    `main` configures logging (replacing the root handlers); put pytest's back afterwards.
    """
    monkeypatch.chdir(tmp_path)  # no stray .env
    for name in ("QUIZBOT_DISCORD_GUILD_ID", "QUIZBOT_ADAPTERS", "QUIZBOT_LOG_LEVEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("QUIZBOT_DISCORD_TOKEN", "the-bot-token")
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'unused.db'}")
    use_patient_database(monkeypatch)
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


async def test_sync_registers_quiz_and_its_subcommands_globally(fake: FakeDiscord) -> None:
    paths = await sync_commands("the-bot-token")
    assert paths == [f"/quiz {name}" for name in SUBCOMMANDS]
    [quiz] = fake.global_commands
    assert quiz["name"] == "quiz"
    options = {o["name"]: o for o in quiz["options"]}
    assert list(options) == SUBCOMMANDS
    assert [name for name, o in options.items() if o["type"] == 2] == list(GROUPS)  # nested groups
    assert all(o["type"] == 1 for name, o in options.items() if name not in GROUPS)  # subcommands
    for group, actions in GROUPS.items():
        assert [o["name"] for o in options[group]["options"]] == actions
        assert all(o["type"] == 1 for o in options[group]["options"])

    def descriptions(option: dict[str, Any]) -> Iterator[str]:
        yield option["description"]
        for child in option.get("options", []):
            yield from descriptions(child)

    assert all(0 < len(text) <= 100 for text in descriptions(quiz))
    assert len(quiz["options"]) <= 25 and all(len(o.get("options", [])) <= 25 for o in quiz["options"])
    [pack] = options["now"]["options"]
    assert (pack["name"], pack["autocomplete"], pack.get("required", False)) == ("pack", True, False)
    window, scope, cohort, season = options["leaderboard"]["options"]
    assert [c["value"] for c in window["choices"]] == ["week", "month", "season", "all"]
    assert (season["name"], season["type"], season.get("required", False)) == ("season", 3, False)
    assert [c["value"] for c in scope["choices"]] == ["channel", "workspace", "cohort", "cohorts"]
    assert (cohort["name"], cohort["type"], cohort.get("required", False)) == ("cohort", 3, False)
    assert [c["value"] for c in options["help"]["options"][0]["choices"]] == [sub.name for sub in CORE_SUBCOMMANDS]
    [answer] = options["review"]["options"]
    assert (answer["name"], answer["type"], answer.get("required", False)) == ("answer", 4, False)
    assert [o["name"] for o in options["report"]["options"]] == ["cohort"]

    schedule = {o["name"]: o for o in options["schedule"]["options"]}
    add = {o["name"]: o for o in schedule["add"]["options"]}
    assert [(name, o["type"], o.get("required", False)) for name, o in add.items()] == [
        ("when", 3, True),
        ("packs", 3, False),
        ("tz", 3, False),
        ("close", 3, False),
        ("cohort", 3, False),
    ]
    assert add["packs"]["autocomplete"] and "Europe/Helsinki" in add["tz"]["description"]
    for action in ("remove", "pause", "resume"):
        [schedule_id] = schedule[action]["options"]
        assert (schedule_id["name"], schedule_id["type"], schedule_id["required"]) == ("id", 4, True)
    assert [(o["name"], o["type"]) for o in schedule["list"]["options"]] == [("all", 5)]
    assert schedule["next"].get("options", []) == []

    cohort_group = {o["name"]: o for o in options["cohort"]["options"]}
    assert [o["name"] for o in cohort_group["create"]["options"]] == ["name", "start", "packs", "deliver"]
    for action in ("add", "remove"):
        assert [(o["name"], o["required"]) for o in cohort_group[action]["options"]] == [
            ("name", True),
            ("members", True),
        ]
    for action in ("join", "leave", "show", "next", "remind", "delete"):
        assert [o["name"] for o in cohort_group[action]["options"]] == ["name"]
    assert fake.guild_commands.get(fake.guild_id, []) == []


async def test_cli_sync_to_one_guild_then_the_bot_answers_the_guild_command(
    fake: FakeDiscord, discord_env: None, capsys: pytest.CaptureFixture[str], runtime: Runtime
) -> None:
    # `quizbot discord sync --guild ID` runs its own event loop, as it does from a shell.
    status = await asyncio.to_thread(main, ["discord", "sync", "--guild", fake.guild_id])
    assert status == 0
    assert f"in server {fake.guild_id}" in capsys.readouterr().out
    assert fake.global_commands == []
    [quiz] = fake.guild_commands[fake.guild_id]
    assert [o["name"] for o in quiz["options"]] == SUBCOMMANDS

    runtime.settings = runtime.settings.model_copy(
        update={"discord_token": SecretStr("the-bot-token"), "discord_guild_id": int(fake.guild_id)}
    )
    adapter = DiscordAdapter(runtime)
    async with serving(adapter, fake):
        callback = await slash(fake, "packs", user_name="alice")  # carries the guild command's id
        assert callback.interaction["data"]["guild_id"] == fake.guild_id
        assert "data-parallelism" in text_of(callback)


async def test_the_bot_warns_at_start_when_quiz_is_not_registered(
    fake: FakeDiscord, runtime: Runtime, caplog: pytest.LogCaptureFixture
) -> None:
    runtime.settings = runtime.settings.model_copy(update={"discord_token": SecretStr("the-bot-token")})
    with caplog.at_level(logging.WARNING, logger="adapters.discord"):
        async with serving(DiscordAdapter(runtime), fake):
            pass
        assert "run `quizbot discord sync`" in caplog.text
        caplog.clear()
        await sync_commands("the-bot-token")
        async with serving(DiscordAdapter(runtime), fake):
            pass
        assert "not registered" not in caplog.text


async def test_cli_invite_prints_the_link_with_scopes_and_permissions(
    fake: FakeDiscord, discord_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert await asyncio.to_thread(main, ["discord", "invite"]) == 0
    url = capsys.readouterr().out.strip()
    query = parse_qs(urlsplit(url).query)
    assert query["client_id"] == [fake.application_id]
    assert query["scope"] == ["bot applications.commands"]
    assert query["permissions"] == [str(invite_permissions().value)]


async def test_cli_refuses_a_missing_or_wrong_token(
    fake: FakeDiscord, discord_env: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("QUIZBOT_DISCORD_TOKEN", "not-the-token")
    assert await asyncio.to_thread(main, ["discord", "sync"]) == 2
    assert "Discord refused QUIZBOT_DISCORD_TOKEN" in capsys.readouterr().err
    monkeypatch.delenv("QUIZBOT_DISCORD_TOKEN")
    assert await asyncio.to_thread(main, ["discord", "sync"]) == 2
    assert "QUIZBOT_DISCORD_TOKEN is not set" in capsys.readouterr().err
    assert fake.global_commands == []


async def test_cli_explains_a_guild_the_bot_cannot_register_in(
    fake: FakeDiscord, discord_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    fake.fail_next("PUT", "/applications/{app}/guilds/{gid}/commands", "missing_access")
    assert await asyncio.to_thread(main, ["discord", "sync", "--guild", fake.guild_id]) == 2
    err = capsys.readouterr().err
    assert "applications.commands" in err
    assert "Traceback" not in err


async def test_a_wrong_token_stops_the_adapter_with_a_config_error(fake: FakeDiscord, runtime: Runtime) -> None:
    runtime.settings = runtime.settings.model_copy(update={"discord_token": SecretStr("not-the-token")})
    with pytest.raises(ConfigError, match="QUIZBOT_DISCORD_TOKEN"):
        await asyncio.wait_for(DiscordAdapter(runtime).run(), WAIT)


def test_discord_adapter_is_found_through_its_entry_point(runtime: Runtime) -> None:
    assert "discord" in adapter_factories()
    runtime.settings = patient_settings(
        database_url=runtime.settings.database_url,
        content_dir=SEED_CONTENT,
        discord_token="t",
        slack_bot_token="xoxb-t",
    )
    assert runtime.settings.enabled_adapters() == ["slack", "discord"]  # beside Slack
    runtime.settings = runtime.settings.model_copy(update={"adapters": ["discord"]})
    [adapter] = build_adapters(runtime)
    assert isinstance(adapter, DiscordAdapter)
    assert adapter.name == "discord"


def test_the_client_asks_for_no_privileged_intent() -> None:
    wanted = intents()
    assert wanted.guilds
    assert not (wanted.members or wanted.presences or wanted.message_content)
    assert not wanted.guild_messages


def test_shard_and_admin_settings_are_validated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("QUIZBOT_DISCORD_SHARD_COUNT", "4")
    monkeypatch.setenv("QUIZBOT_DISCORD_SHARD_IDS", "2,3")
    monkeypatch.setenv("QUIZBOT_DISCORD_ADMIN_ROLE_ID", "123456789012345678")
    settings = DiscordSettings.of(load_settings())  # the Discord adapter owns these settings
    assert (settings.discord_shard_count, settings.discord_shard_ids) == (4, [2, 3])
    assert settings.discord_admin_role_id == 123456789012345678
    monkeypatch.setenv("QUIZBOT_DISCORD_SHARD_IDS", "3,4")
    with pytest.raises(ConfigError, match="QUIZBOT_DISCORD_SHARD_IDS must list shard numbers from 0 to 3"):
        load_settings()
    monkeypatch.delenv("QUIZBOT_DISCORD_SHARD_COUNT")
    with pytest.raises(ConfigError, match="needs QUIZBOT_DISCORD_SHARD_COUNT"):
        load_settings()


def test_documented_invite_permissions_match_the_code() -> None:
    page = (REPO / "docs" / "getting-started" / "discord.md").read_text(encoding="utf-8")  # moved from the README
    found = re.search(r"permissions=(\d+)", page)
    assert found is not None
    assert int(found.group(1)) == invite_permissions().value


def test_listing_the_cli_commands_loads_no_discord() -> None:
    code = (
        "import sys, bot.cli\nbot.cli._parser()\nprint(sorted(m for m in sys.modules if m.split('.')[0] == 'discord'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"
