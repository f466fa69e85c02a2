"""Roles in the terminal: with QUIZBOT_CONSOLE_ADMINS naming the admins, a lead granted with a plain name adds a
schedule at once, a member's early reveal of the scheduled question is refused, and an on-demand question is
revealed by whoever posted it (or a lead)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from adapters.console import ConsoleAdapter
from bot.clock import ManualClock
from bot.config import Settings
from bot.runtime import Runtime
from tests.conftest import SEED_CONTENT, patient_settings


@pytest.fixture
def settings(database_url: str) -> Settings:
    """The test bot's settings, with alice the terminal's only admin."""
    return patient_settings(
        database_url=database_url, content_dir=SEED_CONTENT, card_update_interval=0.0, console_admins="alice"
    )


async def test_a_lead_granted_at_the_terminal_schedules_and_a_member_may_not_reveal_early(
    runtime: Runtime, clock: ManualClock
) -> None:
    out = io.StringIO()
    console = ConsoleAdapter(runtime, stdin=io.StringIO(""), stdout=out)
    runtime.platforms.register(console)
    clock.set(datetime(2026, 1, 5, 8, 0, tzinfo=UTC))

    async def as_(name: str, line: str) -> str:
        await console.handle_line(f"/as {name}")
        before = len(out.getvalue())
        await console.handle_line(line)
        return out.getvalue()[before:]

    refused = await as_("bob", "/quiz schedule add daily 09:00 data-parallelism tz:UTC")
    assert "Only leads and admins can add schedules; nothing was changed." in refused
    assert "bob is now lead here." in await as_("alice", "/quiz role grant bob lead")
    added = await as_("bob", "/quiz schedule add daily 09:00 data-parallelism tz:UTC")
    assert "Scheduled #1: a question every day at 09:00, UTC time." in added
    assert "lead: bob (granted by alice)" in await as_("alice", "/quiz role list")
    assert "Only workspace admins can see who has a role" in await as_("bob", "/quiz role list")

    clock.set(datetime(2026, 1, 5, 9, 0, 5, tzinfo=UTC))
    await runtime.ticker.tick()
    assert "Scheduled · open 24 h" in out.getvalue()
    early = await as_("carol", "/quiz reveal")
    assert "Only leads and admins can reveal a scheduled question early; its schedule reveals it." in early
    assert "🔔 Closed:" not in out.getvalue()
    assert "🔔 Closed:" in await as_("bob", "/quiz reveal")  # a lead may

    await as_("carol", "/quiz now")
    not_hers = await as_("dave", "/quiz reveal")
    assert "Only carol, who posted this question, or a lead or admin can reveal it." in not_hers
    assert "🔔 Closed:" in await as_("carol", "/quiz reveal")


def test_quizbot_run_grants_a_lead_who_then_adds_a_schedule(tmp_path: Path) -> None:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("QUIZBOT_")}
    environment.update({"QUIZBOT_CONSOLE_USER": "alice", "QUIZBOT_CONSOLE_ADMINS": "alice"})
    script = (
        "/as bob\n/quiz schedule add weekdays 09:30\n/as alice\n/quiz role grant bob lead\n"
        "/as bob\n/quiz schedule add weekdays 09:30\n/as alice\n/quiz role list\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "bot.cli", "run"],
        input=script,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environment,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.index("Only leads and admins can add schedules") < out.index("bob is now lead here.")
    assert "Scheduled #1: a question every weekday (Mon–Fri) at 09:30" in out
    assert "lead: bob (granted by alice)" in out
    assert "Traceback" not in result.stderr


async def test_an_empty_schedule_list_says_leads_may_add_one_as_they_may(runtime: Runtime) -> None:
    """A lead (not only an admin) adds schedules: the empty list and `next` must not send leads to an admin."""
    out = io.StringIO()
    console = ConsoleAdapter(runtime, stdin=io.StringIO(""), stdout=out)
    runtime.platforms.register(console)
    await console.handle_line("/quiz schedule list")
    await console.handle_line("/quiz schedule next")
    text = out.getvalue()
    assert "Leads and admins can add one, e.g. `/quiz schedule add weekdays 09:30`." in text
    assert "Leads and admins can add a schedule, e.g. `/quiz schedule add weekdays 09:30`." in text
    assert "\n  Admins can add" not in text
