"""`quizbot doctor --online` (issue 25): what Slack and Discord make of the configured credentials, each missing piece
one finding with its fix; and `quizbot run` refusing a Slack user token where the bot token belongs.

Every command runs as its own process against the loopback fakes (tests/fakes/), with made-up tokens the fakes
accept; discord.py is pointed at the fake by tests/quizbot_child.py.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import discord
import pytest

from adapters.discord.doctor import intent_findings
from adapters.slack.doctor import manifest_scopes
from tests.conftest import CONTENT, PATIENT_DATABASE_ENV, REPO, patient_settings
from tests.fakes.discord_api import _P, EVERYONE_PERMISSIONS, FakeDiscord
from tests.fakes.slack_api import DEFAULT_SCOPES, FakeSlack
from tests.slack_harness import without_proxies

DISCORD_TOKEN = "MTAxMDEwMTAxMDEwMTAxMDEw.GaBcDe.made-up-token-for-the-fake-0123"
"""Shaped like a bot token (the offline check), accepted by the fake only."""


def quizbot(
    cwd: Path, *args: str, discord_fake: FakeDiscord | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """`quizbot ARGS` as its own process with only the given QUIZBOT_ variables (and discord.py at the fake)."""
    clean = {k: v for k, v in without_proxies().items() if k in {"PATH", "HOME", "LANG", "SYSTEMROOT"}}
    clean.update(PYTHONPATH=str(REPO), QUIZBOT_CONTENT_DIR=str(CONTENT), QUIZBOT_LOG_LEVEL="WARNING")
    clean.update(QUIZBOT_DATABASE_URL=f"sqlite+aiosqlite:///{cwd / 'quizbot.db'}", **{**PATIENT_DATABASE_ENV, **env})
    api, gateway = (
        (discord_fake.api_base, discord_fake.gateway_url)
        if discord_fake
        else ("http://127.0.0.1:9/api/v10", "ws://127.0.0.1:9/gw")
    )
    command = [sys.executable, "-m", "tests.quizbot_child", api, gateway, *args]
    return subprocess.run(command, cwd=cwd, env=clean, capture_output=True, text=True, timeout=90, check=False)


async def doctor(cwd: Path, *, discord_fake: FakeDiscord | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    """`quizbot doctor --online` on a migrated database, from a test whose event loop serves the fakes."""
    upgraded = await asyncio.to_thread(quizbot, cwd, "db", "upgrade")
    assert upgraded.returncode == 0, upgraded.stderr
    return await asyncio.to_thread(quizbot, cwd, "doctor", "--online", discord_fake=discord_fake, **env)


def slack_env(fake: FakeSlack, **env: str) -> dict[str, str]:
    return {
        "QUIZBOT_SLACK_BOT_TOKEN": fake.bot_token,
        "QUIZBOT_SLACK_APP_TOKEN": fake.app_token,
        "QUIZBOT_SLACK_API_URL": fake.api_url,
        **env,
    }


# --- Slack ----------------------------------------------------------------------------------------------------------


async def test_slack_all_granted(fake: FakeSlack, tmp_path: Path) -> None:
    fake.scopes = set(manifest_scopes())
    done = await doctor(tmp_path, **slack_env(fake))
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert f"OK   Slack bot token: a bot token of @{fake.bot_name} ({fake.bot_user_id}) in the workspace" in out
    assert f"OK   Slack scopes: the app was granted every scope the manifest asks for ({len(manifest_scopes())})" in out
    assert "OK   Slack app token: QUIZBOT_SLACK_APP_TOKEN opens Socket Mode connections" in out
    assert out.strip().endswith("all good")
    assert {call.method for call in fake.calls} >= {"auth.test", "apps.connections.open"}


async def test_slack_each_missing_scope_is_a_line_with_its_fix(fake: FakeSlack, tmp_path: Path) -> None:
    fake.scopes = set(DEFAULT_SCOPES)  # the history scopes and a few: not files:write, users:read ...
    missing = [scope for scope in manifest_scopes() if scope not in DEFAULT_SCOPES]
    assert missing
    done = await doctor(tmp_path, **slack_env(fake))
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    for scope in missing:
        [index] = [
            i for i, line in enumerate(lines) if line.startswith(f"FAIL Slack scopes: the app was not granted {scope},")
        ]
        assert lines[index + 1].strip().startswith(f"fix: add {scope} under OAuth & Permissions > Scopes")
        assert "reinstall the app" in lines[index + 1]
    assert f"{len(missing)} problems to fix" in done.stdout


async def test_slack_refusals_name_the_token(fake: FakeSlack, tmp_path: Path) -> None:
    fake.scopes = set(manifest_scopes())
    done = await doctor(tmp_path, **slack_env(fake, QUIZBOT_SLACK_APP_TOKEN="xapp-1-not-the-app-token"))
    assert done.returncode == 1
    assert "FAIL Slack app token: Slack refused QUIZBOT_SLACK_APP_TOKEN: invalid_auth" in done.stdout
    assert "fix: generate an app-level token with the connections:write scope" in done.stdout
    assert "OK   Slack bot token" in done.stdout
    done = await doctor(tmp_path, **slack_env(fake, QUIZBOT_SLACK_BOT_TOKEN="xoxb-not-the-bot-token"))
    assert done.returncode == 1
    assert "FAIL Slack bot token: Slack refused QUIZBOT_SLACK_BOT_TOKEN: invalid_auth" in done.stdout
    assert "fix: copy the Bot User OAuth Token (xoxb-...)" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


async def test_the_doctor_stays_offline_unless_asked(fake: FakeSlack, tmp_path: Path) -> None:
    upgraded = await asyncio.to_thread(quizbot, tmp_path, "db", "upgrade")
    assert upgraded.returncode == 0
    done = await asyncio.to_thread(quizbot, tmp_path, "doctor", **slack_env(fake))
    assert done.returncode == 0, done.stdout
    assert "Slack scopes" not in done.stdout
    assert not {"auth.test", "apps.connections.open"} & {call.method for call in fake.calls}


async def test_run_refuses_a_user_token_as_the_bot_token(fake: FakeSlack, tmp_path: Path) -> None:
    done = await asyncio.to_thread(
        quizbot,
        tmp_path,
        "run",
        QUIZBOT_SLACK_BOT_TOKEN="xoxp-1-a-person-s-token",
        QUIZBOT_SLACK_SIGNING_SECRET="0" * 32,
        QUIZBOT_SLACK_PORT="0",
        QUIZBOT_SLACK_API_URL=fake.api_url,
    )
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith("quizbot: QUIZBOT_SLACK_BOT_TOKEN is a user token (xoxp-...)"), line
    assert "Bot User OAuth Token (xoxb-...)" in line
    assert fake.calls == []  # refused at start: Slack was never asked
    assert not (tmp_path / "quizbot.db").exists()


# --- Discord --------------------------------------------------------------------------------------------------------


async def test_discord_all_good(tmp_path: Path) -> None:
    async with FakeDiscord(token=DISCORD_TOKEN, guild_name="Quiz Guild") as fake:
        done = await doctor(tmp_path, discord_fake=fake, QUIZBOT_DISCORD_TOKEN=DISCORD_TOKEN)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert f"OK   Discord token: logged in as the bot QuizBot ({fake.bot_user_id})" in out
    assert "OK   Discord intents: the bot uses no privileged intent (guilds)" in out
    assert f"OK   Discord permissions: in Quiz Guild ({fake.guild_id}) the bot has every permission it needs" in out


async def test_discord_missing_permissions_and_guild(tmp_path: Path) -> None:
    lacking = EVERYONE_PERMISSIONS & ~(_P["attach_files"] | _P["embed_links"])
    async with FakeDiscord(token=DISCORD_TOKEN) as fake:
        poor = fake.add_guild(name="Poor Guild", bot_permissions=lacking, everyone_permissions=lacking)
        done = await doctor(
            tmp_path,
            discord_fake=fake,
            QUIZBOT_DISCORD_TOKEN=DISCORD_TOKEN,
            QUIZBOT_DISCORD_GUILD_ID="123456789012345678",
        )
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    [index] = [i for i, line in enumerate(lines) if line.startswith("FAIL Discord permissions:")]
    assert (
        lines[index]
        == f"FAIL Discord permissions: in Poor Guild ({poor['id']}) the bot lacks Embed Links, Attach Files"
    )
    assert lines[index + 1].strip().startswith("fix: give the bot's role Embed Links, Attach Files in that server's")
    assert (
        "FAIL Discord guild: QUIZBOT_DISCORD_GUILD_ID is 123456789012345678, a server the bot is not in" in done.stdout
    )
    assert "2 problems to fix" in done.stdout


async def test_discord_refusing_the_token(tmp_path: Path) -> None:
    async with FakeDiscord(token="some-other-token") as fake:
        done = await doctor(tmp_path, discord_fake=fake, QUIZBOT_DISCORD_TOKEN=DISCORD_TOKEN)
    assert done.returncode == 1
    assert "FAIL Discord token: Discord refused QUIZBOT_DISCORD_TOKEN" in done.stdout
    assert "fix: reset the token on the Bot page of your application" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.parametrize(
    ("flags", "level"),
    [(0, "fail"), (1 << 14, "ok"), (1 << 15, "ok")],
    ids=["not enabled", "enabled", "limited"],
)
def test_a_privileged_intent_the_bot_uses_must_be_enabled(flags: int, level: str) -> None:
    [finding] = intent_findings(discord.Intents(guilds=True, members=True), flags)
    assert finding.level == level
    if level == "fail":
        assert (
            finding.detail == "the bot uses the privileged members intent, which the application does not have enabled"
        )
        assert "Server Members Intent" in finding.fix


async def test_a_platform_that_does_not_answer_is_one_finding(tmp_path: Path) -> None:
    """A Web API that takes the connection and never answers: the doctor gives up after its bound, with one line."""
    from bot.ops.doctor import _online_findings

    held: list[asyncio.StreamWriter] = []

    async def never_answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)  # keep the connection open, say nothing

    server = await asyncio.start_server(never_answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    settings = patient_settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'q.db'}",
        slack_bot_token="xoxb-made-up",
        slack_signing_secret="0" * 32,
        slack_api_url=f"http://127.0.0.1:{port}/api/",
    )
    try:
        [finding] = await _online_findings(settings, seconds=0.5)
    finally:
        for writer in held:
            writer.close()
        server.close()
        await server.wait_closed()
    assert finding.level == "fail" and finding.subject == "Slack"
    assert finding.detail == "no answer from Slack within 0.5 s"
    assert finding.fix.startswith("check the network and the proxy variables")
