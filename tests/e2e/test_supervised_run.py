"""`quizbot run` as a process with two platform adapters, Discord (against the loopback fake Discord) and Slack
in HTTP mode (against the loopback fake Slack), one of them knocked over from the outside.

A bad Discord frame is answered and restarts nothing; a gateway that discord.py gives up on restarts the Discord
adapter while Slack keeps acking signed requests, `/healthz` says what each adapter is doing at every step
(`starting` until ready, `restarting`, `running`) and the process does not exit; a failure before the adapter was
ever up still ends the process with one explained line (and one ERROR line in the log). The test holds discord's
READY in the fake while it looks at a state, so nothing here depends on timing; every wait has a deadline.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.click_storm import free_port
from tests.conftest import PATIENT_DATABASE_ENV, REPO, SEED_CONTENT
from tests.discord_support import ANSWER_ID, custom_ids, text_of
from tests.fakes.discord_api import FakeDiscord, GatewayConnection
from tests.fakes.slack_api import SIGNING_SECRET, FakeSlack, signed_headers

DEADLINE = 60.0
"""How long any state may take to show up (a bound for a loaded machine, never an expectation)."""

GIVE_UP = 4012
"""A gateway close code discord.py does not reconnect after: `Client.connect()` raises ConnectionClosed."""


@pytest.fixture
async def discord() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as fake:
        yield fake
        fake.assert_no_unknown_routes()


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    fake = FakeSlack()
    await fake.start()
    try:
        yield fake
    finally:
        await asyncio.wait_for(fake.stop(), DEADLINE)


class ReadyGate:
    """Holds the fake Discord's READY (after the IDENTIFY is recorded) while closed: the client is connected and
    not ready, for as long as the test looks."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.open = asyncio.Event()
        self.open.set()
        send_ready: Callable[[GatewayConnection], Awaitable[None]] = fake._send_ready

        async def held(conn: GatewayConnection) -> None:
            await self.open.wait()
            await send_ready(conn)

        fake._send_ready = held  # type: ignore[method-assign]

    def close(self) -> None:
        self.open.clear()

    def release(self) -> None:
        self.open.set()


@dataclass
class Bot:
    """`quizbot run` as a child process: its /healthz, its Slack endpoint, its log."""

    process: asyncio.subprocess.Process
    ops_port: int
    slack_port: int
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    async def health(self) -> tuple[int, dict[str, Any]]:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as session:
            async with session.get(f"http://127.0.0.1:{self.ops_port}/healthz") as response:
                return response.status, await response.json()

    async def health_when(self, predicate: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
        """Poll /healthz until `predicate(report)` holds; fail (with the last report and the log) at the deadline
        or if the process exits."""
        deadline = time.monotonic() + DEADLINE
        report: dict[str, Any] = {}
        while time.monotonic() < deadline:
            assert self.process.returncode is None, f"quizbot run exited while waiting for {what}: {self.log_text()}"
            try:
                _, report = await self.health()
            except aiohttp.ClientError:
                report = {}
            if report and predicate(report):
                return report
            await asyncio.sleep(0.05)
        raise AssertionError(f"/healthz never showed {what}; last {report}; log: {self.log_text()[-3000:]}")

    async def slack_command(self, slack: FakeSlack, text: str) -> int:
        """A signed `/quiz TEXT` to the Slack endpoint; the HTTP status of the ack."""
        body = slack.slash_command_body(text, user_id="U0ALICE", channel_id="C0001")
        headers = {"Content-Type": "application/x-www-form-urlencoded", **signed_headers(SIGNING_SECRET, body)}
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as session:
            url = f"http://127.0.0.1:{self.slack_port}/slack/events"
            async with session.post(url, data=body.encode(), headers=headers) as response:
                return response.status


@asynccontextmanager
async def quizbot_run(discord: FakeDiscord, slack: FakeSlack, database_url: str, workdir: Path) -> AsyncIterator[Bot]:
    """Start `quizbot run` with both adapters (tests/quizbot_child.py points discord.py at the fake); SIGTERM it at
    the end unless it has exited."""
    ops_port, slack_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUIZBOT_") and "proxy" not in k.lower()}
    env.update(PATIENT_DATABASE_ENV)
    env.update(
        PYTHONPATH=str(REPO),
        QUIZBOT_ADAPTERS="slack,discord",
        QUIZBOT_DATABASE_URL=database_url,
        QUIZBOT_CONTENT_DIR=str(SEED_CONTENT),
        QUIZBOT_DISCORD_TOKEN="fake-bot-token",
        QUIZBOT_SLACK_BOT_TOKEN=slack.bot_token,
        QUIZBOT_SLACK_SIGNING_SECRET=SIGNING_SECRET,
        QUIZBOT_SLACK_API_URL=slack.api_url,
        QUIZBOT_SLACK_HOST="127.0.0.1",
        QUIZBOT_SLACK_PORT=str(slack_port),
        QUIZBOT_HTTP_HOST="127.0.0.1",
        QUIZBOT_HTTP_PORT=str(ops_port),
        QUIZBOT_ADAPTER_RESTART_SECONDS="0.1",
        QUIZBOT_LOG_LEVEL="WARNING",
    )
    log = workdir / "quizbot.log"
    with open(log, "wb") as stderr:  # noqa: ASYNC230 - the child writes it; this process reads it by name
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.quizbot_child",
            discord.api_base,
            discord.gateway_url,
            "run",
            env=env,
            cwd=str(workdir),  # no .env here
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        yield Bot(process, ops_port, slack_port, log)
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), 60)
            except TimeoutError:
                process.kill()
                await process.wait()


def _state(report: dict[str, Any], adapter: str) -> str | None:
    return report.get("supervision", {}).get(adapter, {}).get("state")


def _both_running(report: dict[str, Any]) -> bool:
    return _state(report, "slack") == _state(report, "discord") == "running"


def _all_running(report: dict[str, Any]) -> bool:
    return report.get("state") == "running" and _both_running(report)


async def _discord_card(discord: FakeDiscord, **where: Any) -> dict[str, Any]:
    """`/quiz now` on Discord (in `where`'s guild and channel, else the default one); the card it posted."""
    data = discord.slash_command_interaction(
        "quiz", subcommand="now", options={"pack": "data-parallelism"}, user_name="alice", **where
    )
    if where:
        data["channel"] = {"id": data["channel_id"], "type": 0}  # a guild the client has not cached: partial
    channel_id = data["channel_id"]
    before = len([m for m in discord.channel_messages(channel_id) if custom_ids(m)])
    reply = await discord.send_interaction(data, timeout=DEADLINE)
    assert reply is not None and reply.ephemeral, "the command was not answered"
    cards = await discord.wait_for(
        lambda: [m for m in discord.channel_messages(channel_id) if custom_ids(m)][before:],
        timeout=DEADLINE,
        what="the card",
    )
    return cards[0]


async def test_a_partial_channel_click_is_answered_by_quizbot_run_and_restarts_nothing(
    discord: FakeDiscord, slack: FakeSlack, database_url: str, tmp_path: Path
) -> None:
    async with quizbot_run(discord, slack, database_url, tmp_path) as bot:
        await bot.health_when(_both_running, "both adapters running")
        identified = len(discord.identifies)
        guild = discord.add_guild(name="Elsewhere")  # joined since the client's GUILD_CREATEs: not cached
        card = await _discord_card(discord, guild_id=guild["id"], channel_id=guild["_text_channel_id"])
        click = discord.component_interaction(card, custom_ids(card)[0], user_id=1009, user_name="mallory")
        click["channel"] = {"id": click["channel_id"], "type": 0}

        reply = await discord.send_interaction(click, timeout=DEADLINE)

        assert reply is not None, f"the click was not answered; log: {bot.log_text()}"
        assert reply.type == 4 and reply.ephemeral and "Traceback" not in text_of(reply)
        assert ANSWER_ID.fullmatch(custom_ids(card)[0])
        status, report = await bot.health()
        assert status == 200 and bot.process.returncode is None
        assert report["supervision"]["discord"] == {"state": "running", "restarts": 0}
        assert len(discord.identifies) == identified  # the same connection: nothing restarted
        assert await bot.slack_command(slack, "help") == 200
    assert bot.process.returncode == 0, bot.log_text()
    assert "ERROR" not in bot.log_text() and "Traceback" not in bot.log_text()


async def test_a_discord_adapter_that_fails_is_restarted_while_slack_serves_and_healthz_tells_each_step(
    discord: FakeDiscord, slack: FakeSlack, database_url: str, tmp_path: Path
) -> None:
    gate = ReadyGate(discord)
    gate.close()
    async with quizbot_run(discord, slack, database_url, tmp_path) as bot:
        # starting: Discord has identified and has no READY yet; Slack serves already
        await discord.wait_for(lambda: discord.identifies, timeout=DEADLINE, what="the first IDENTIFY")
        report = await bot.health_when(lambda r: _state(r, "slack") == "running", "slack running")
        assert _state(report, "discord") == "starting" and report["state"] == "starting"
        assert await bot.slack_command(slack, "now") == 200
        await slack.wait_for_calls("chat.postMessage", 1, timeout=DEADLINE, ok=True)
        gate.release()
        report = await bot.health_when(_all_running, "both adapters running")
        assert report["supervision"]["discord"] == {"state": "running", "restarts": 0}
        await _discord_card(discord)

        # the gateway closes with a code discord.py gives up on; the restarted client is held before its READY
        gate.close()
        identified = len(discord.identifies)
        await discord.drop_connection(code=GIVE_UP)
        await discord.wait_for(lambda: len(discord.identifies) > identified, timeout=DEADLINE, what="re-IDENTIFY")
        report = await bot.health_when(lambda r: _state(r, "discord") == "restarting", "discord restarting")
        assert report["supervision"]["discord"] == {
            "state": "restarting",
            "restarts": 1,
            "last_failure": "ConnectionClosed",
        }
        assert report["state"] == "restarting" and _state(report, "slack") == "running"
        assert await bot.slack_command(slack, "now") == 200  # Slack still acks, and posts
        await slack.wait_for_calls("chat.postMessage", 2, timeout=DEADLINE, ok=True)
        assert bot.process.returncode is None

        gate.release()
        report = await bot.health_when(_all_running, "discord running again")
        assert report["supervision"]["discord"]["restarts"] == 1
        await _discord_card(discord)  # the restarted adapter answers
    assert bot.process.returncode == 0, bot.log_text()
    log = bot.log_text()
    restart_lines = [line for line in log.splitlines() if " ERROR " in line and "adapter discord failed" in line]
    assert len(restart_lines) == 1, log
    assert "ConnectionClosed" in restart_lines[0] and "restarting it in" in restart_lines[0]
    assert "Traceback" not in log


async def test_a_discord_adapter_that_fails_before_it_was_ever_up_ends_quizbot_run_with_one_line(
    discord: FakeDiscord, slack: FakeSlack, database_url: str, tmp_path: Path
) -> None:
    gate = ReadyGate(discord)
    gate.close()
    async with quizbot_run(discord, slack, database_url, tmp_path) as bot:
        await discord.wait_for(lambda: discord.identifies, timeout=DEADLINE, what="the first IDENTIFY")
        await bot.health_when(lambda r: _state(r, "slack") == "running", "slack running")
        await discord.connections[-1].ws.close(code=GIVE_UP, message=b"fake drop")  # before READY: never up
        await asyncio.wait_for(bot.process.wait(), DEADLINE)
    gate.release()
    assert bot.process.returncode == 2
    log = bot.log_text()
    assert "Traceback" not in log
    lines = [line for line in log.splitlines() if line.strip() and " WARNING " not in line]
    stopped = "the discord adapter stopped: ConnectionClosed: Shard ID 0 WebSocket closed with 4012"
    assert lines[-1] == f"quizbot: {stopped}"  # the one explained line, last
    [logged] = lines[:-1]  # and one line at ERROR in the log, for whoever reads only the log
    assert " ERROR " in logged and logged.endswith(f"bot.cli: {stopped}")
