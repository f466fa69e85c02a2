"""`quizbot run` with Slack settings, end to end: the composition root builds the Slack adapter from settings."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

import pytest
import yaml
from pydantic import SecretStr
from sqlalchemy import select

from adapters.slack import SlackAdapter
from adapters.slack.admins import AdminDirectory
from adapters.slack.settings import SlackSettings
from bot.commands import SUBCOMMANDS
from bot.config import load_settings
from bot.db import Database
from bot.db.models import Answer, User
from bot.errors import ConfigError
from bot.runtime import Runtime, build_adapters, build_runtime, serve
from bot.service.facade import Invocation, Reply
from tests.conftest import PATIENT_DATABASE_ENV, REPO, SEED_CONTENT, patient_settings
from tests.fakes.slack_api import SIGNING_SECRET, FakeSlack, poll_until
from tests.slack_harness import (
    WAIT,
    RunningSlack,
    choice_action,
    running_adapter,
    without_proxies,
)


async def _answer_rows(database_url: str) -> list[tuple[str, bool]]:
    db = Database.from_url(database_url)
    try:
        async with db.transaction() as session:
            rows = await session.execute(
                select(User.external_id, Answer.is_correct).join(User, User.id == Answer.user_id).order_by(Answer.id)
            )
            return [(row[0], row[1]) for row in rows]
    finally:
        await db.dispose()


async def test_serve_builds_the_slack_adapter_from_settings_and_stops_cleanly(
    database_url: str, fake: FakeSlack
) -> None:
    settings = patient_settings(
        database_url=database_url,
        content_dir=SEED_CONTENT,
        slack_bot_token=SecretStr(fake.bot_token),
        slack_signing_secret=SecretStr(SIGNING_SECRET),
        slack_api_url=fake.api_url,
        slack_host="127.0.0.1",
        slack_port=0,
    )
    assert settings.enabled_adapters() == ["slack"]  # Slack credentials: the terminal adapter stays off
    runtime = await build_runtime(settings)
    [adapter] = build_adapters(runtime)
    assert isinstance(adapter, SlackAdapter) and adapter.mode == "http"
    serving = asyncio.create_task(serve(runtime, [adapter]))
    await asyncio.wait_for(adapter.ready.wait(), WAIT)
    slack = RunningSlack(adapter=adapter, fake=fake, runtime=runtime)

    assert (await slack.command("now"))[0] == 200
    card = await slack.posted_card()
    await slack.idle()
    assert (await slack.click(card, choice_action(runtime, card, correct=True), user_id="U0CAROL"))[0] == 200
    assert (await slack.ephemerals(1))[0]["text"].startswith("Correct!")

    runtime.stopping.set()  # what SIGTERM does
    await asyncio.wait_for(serving, WAIT)
    assert await _answer_rows(database_url) == [("U0CAROL", True)]


async def test_quizbot_run_in_socket_mode_as_a_process(database_url: str, fake: FakeSlack, tmp_path: Path) -> None:
    env = without_proxies()
    env = {k: v for k, v in env.items() if not k.startswith("QUIZBOT_")}
    env.update(PATIENT_DATABASE_ENV)
    env.update(
        QUIZBOT_DATABASE_URL=database_url,
        QUIZBOT_CONTENT_DIR=str(SEED_CONTENT),
        QUIZBOT_SLACK_BOT_TOKEN=fake.bot_token,
        QUIZBOT_SLACK_APP_TOKEN=fake.app_token,
        QUIZBOT_SLACK_API_URL=fake.api_url,
        QUIZBOT_LOG_LEVEL="INFO",
        PYTHONPATH=str(REPO),
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot.cli",
        "run",
        cwd=tmp_path,  # no .env here
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        await fake.wait_for_socket_client(timeout=30)
        await fake.send_slash_command("now model-pipeline-parallelism", user_id="U0BOB")
        [post] = await fake.wait_for_calls("chat.postMessage")
        card = fake.message(post.response["channel"], post.response["ts"])
        assert card is not None
        first_button = next(b for b in card["blocks"] if b["type"] == "actions")["elements"][0]
        await fake.click(card, first_button["action_id"])
        await poll_until(lambda: fake.ephemeral, message="the private reply to the click")
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        stdout, stderr = await asyncio.wait_for(process.communicate(), 30)
    log = stderr.decode()
    assert process.returncode == 0, log
    assert "Slack Socket Mode connected" in log and "Slack Socket Mode closed" in log
    assert "Traceback" not in log
    assert stdout == b""
    assert [user for user, _ in await _answer_rows(database_url)] == ["U0ALICE"]
    await poll_until(lambda: not fake.open_socket_connections(), message="the socket to close")


async def test_a_refused_bot_token_stops_the_bot_with_a_clear_message(runtime: Runtime, fake: FakeSlack) -> None:
    fake.fail_next("auth.test", "invalid_auth")
    with pytest.raises(ConfigError, match="Slack refused QUIZBOT_SLACK_BOT_TOKEN: invalid_auth"):
        async with running_adapter(runtime, fake):
            pass


def test_the_adapter_needs_a_way_to_receive_requests(runtime: Runtime) -> None:
    runtime.settings = runtime.settings.model_copy(update={"slack_bot_token": SecretStr("xoxb-1")})
    with pytest.raises(ConfigError, match=r"QUIZBOT_SLACK_APP_TOKEN .* or QUIZBOT_SLACK_SIGNING_SECRET"):
        SlackAdapter(runtime)
    runtime.settings = runtime.settings.model_copy(update={"slack_bot_token": None})
    with pytest.raises(ConfigError, match="QUIZBOT_SLACK_BOT_TOKEN"):
        SlackAdapter(runtime)


def test_admin_user_ids_setting_is_a_comma_separated_list(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("QUIZBOT_SLACK_ADMIN_USER_IDS", "U0ALICE, U0BOB")
    assert SlackSettings.of(load_settings()).slack_admin_user_ids == ["U0ALICE", "U0BOB"]


async def test_admins_come_from_users_info_briefly_cached_or_from_the_setting(fake: FakeSlack) -> None:
    now = [0.0]
    admins = AdminDirectory(fake.web_client(), admin_user_ids=["U0BOB"], ttl=300, clock=lambda: now[0])
    assert await admins.is_admin("T0001", "U0ADMIN") is True
    assert await admins.is_admin("T0001", "U0ALICE") is False
    assert await admins.is_admin("T0001", "U0BOB") is True  # from the setting, no lookup
    assert await admins.is_admin("T0001", "U0ADMIN") is True
    assert [c.args["user"] for c in fake.calls_to("users.info")] == ["U0ADMIN", "U0ALICE"]
    fake.users["U0ADMIN"]["is_admin"] = fake.users["U0ADMIN"]["is_owner"] = False  # demoted
    now[0] = 301
    assert await admins.is_admin("T0001", "U0ADMIN") is False
    assert await admins.is_admin("T0001", "U404") is False  # users.info fails: not an admin, and logged


async def test_commands_carry_is_admin_from_slack_roles(runtime: Runtime, fake: FakeSlack) -> None:
    seen: list[Invocation] = []
    real = runtime.app.handle_command

    async def recording(invocation: Invocation) -> Reply:
        seen.append(invocation)
        return await real(invocation)

    runtime.app.handle_command = recording  # type: ignore[method-assign]
    async with running_adapter(runtime, fake, slack_admin_user_ids=["U0CAROL"]) as slack:
        for user in ("U0ADMIN", "U0ALICE", "U0CAROL"):
            await slack.command("packs", user_id=user)
        await slack.ephemerals(3)
    assert {(i.user.user_id, i.is_admin) for i in seen} == {("U0ADMIN", True), ("U0ALICE", False), ("U0CAROL", True)}
    assert {(i.channel.platform, i.channel.workspace_id, i.channel.channel_id) for i in seen} == {
        ("slack", "T0001", "C0001")
    }


def test_the_manifest_asks_for_what_the_adapter_uses() -> None:
    manifest = yaml.safe_load((REPO / "adapters" / "slack" / "manifest.yaml").read_text(encoding="utf-8"))
    [command] = manifest["features"]["slash_commands"]
    assert command["command"] == "/quiz"
    hinted = {part.split()[0] for part in command["usage_hint"].split(" | ")}
    assert hinted <= {sub.name for sub in SUBCOMMANDS}  # the hint names only real subcommands of the shared parser
    scopes = manifest["oauth_config"]["scopes"]["bot"]
    assert len(scopes) == len(set(scopes)), "a scope listed twice"
    assert set(scopes) == {
        "commands",
        "chat:write",
        "chat:write.public",
        "users:read",
        "files:write",  # /quiz report's charts
        "files:read",  # a pack file shared in a DM, downloaded (/quiz import)
        "im:write",  # conversations.open: a cohort delivered by direct message
        "channels:history",  # conversations.history: a card posted before a crash is found, not posted twice
        "groups:history",
        "im:history",
    }
    assert manifest["settings"]["interactivity"]["is_enabled"] is True
    assert manifest["features"]["app_home"]["home_tab_enabled"] is True
    assert manifest["settings"]["event_subscriptions"]["bot_events"] == ["app_home_opened", "message.im"]
    assert manifest["settings"]["socket_mode_enabled"] is True
