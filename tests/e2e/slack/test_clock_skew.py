"""Clock skew: Slack refuses every request signed more than five minutes from its own clock, so a host whose clock
is that far off serves nothing. The bot measures the offset from the `Date` of Slack's answers and says so: in
/healthz (degraded, with the offset in seconds), in one ERROR line, and in `quizbot doctor`."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.cli import main
from bot.clock_skew import MAX_ROUND_TRIP
from tests.click_storm import running_bot
from tests.conftest import PATIENT_DATABASE_ENV
from tests.fakes.slack_api import FakeSlack

TEN_MINUTES = 600.0
LEEWAY = MAX_ROUND_TRIP / 2 + 1
"""How far a measured offset may be from the true one: half the slowest round trip the bot uses (it dates a `Date`
at the round trip's middle) plus the header's one-second resolution, so a loaded machine's slow loopback passes."""


@pytest.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    """A fake Slack whose clock is ten minutes ahead of this host's: the host's is ten minutes behind."""
    slack = FakeSlack()
    slack.clock_skew = TEN_MINUTES
    await slack.start()
    try:
        yield slack
    finally:
        await slack.stop()


async def test_healthz_says_degraded_with_the_offset_and_the_log_says_it_once(
    database_url: str, fake: FakeSlack, tmp_path: Path
) -> None:
    async with running_bot(fake, database_url, tmp_path, env=PATIENT_DATABASE_ENV) as bot:
        await fake.wait_for_calls("auth.test")
        for _ in range(3):  # more answers from Slack: still one ERROR line
            await fake.web_client().api_test()
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{bot.port}/healthz") as response:
                assert response.status == 200  # restarting the process would not fix the clock
                report = await response.json()
    assert report["status"] == "degraded", report
    assert report["clock"]["compared_with"] == "slack"
    assert -TEN_MINUTES - LEEWAY <= report["clock"]["offset_seconds"] <= -TEN_MINUTES + LEEWAY
    assert "10 minutes behind Slack's" in report["clock"]["problem"]
    assert "NTP" in report["clock"]["fix"]
    errors = [line for line in bot.log_text().splitlines() if "clock is 10 minutes behind" in line]
    assert len(errors) == 1 and "ERROR" in errors[0], bot.log_text()[-2000:]


async def test_healthz_says_nothing_of_a_clock_within_the_limit(
    database_url: str, fake: FakeSlack, tmp_path: Path
) -> None:
    fake.clock_skew = 3.0
    async with running_bot(fake, database_url, tmp_path, env=PATIENT_DATABASE_ENV) as bot:
        await fake.wait_for_calls("auth.test")
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{bot.port}/healthz") as response:
                report = await response.json()
    assert report["status"] == "ok" and "clock" not in report, report


async def test_doctor_names_the_offset_and_the_fix(
    database_url: str, fake: FakeSlack, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in [name for name in os.environ if name.startswith("QUIZBOT_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", database_url)
    monkeypatch.setenv("QUIZBOT_SLACK_BOT_TOKEN", fake.bot_token)
    monkeypatch.setenv("QUIZBOT_SLACK_SIGNING_SECRET", "0123456789abcdef" * 2)  # as Slack issues them
    monkeypatch.setenv("QUIZBOT_SLACK_API_URL", fake.api_url)
    assert await asyncio.to_thread(main, ["doctor"]) == 1
    out = capsys.readouterr().out
    [line] = [line for line in out.splitlines() if line.startswith("FAIL clock")]
    assert "this host's clock is 10 minutes behind Slack's" in line, out
    assert "fix: sync this host's clock (run NTP" in out
    assert out.strip().endswith("1 problem to fix"), out

    fake.clock_skew = 0.0
    assert await asyncio.to_thread(main, ["doctor"]) == 0
    assert "OK   clock: within" in capsys.readouterr().out
