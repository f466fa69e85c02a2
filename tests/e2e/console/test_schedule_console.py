"""Schedules in the terminal adapter: the same commands, and scheduled questions that post and reveal themselves."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import func, select

from adapters.console import ConsoleAdapter
from bot.clock import ManualClock
from bot.db.models import Post
from bot.runtime import Runtime


async def test_schedule_commands_and_scheduled_questions_in_the_terminal(runtime: Runtime, clock: ManualClock) -> None:
    out = io.StringIO()
    console = ConsoleAdapter(runtime, stdin=io.StringIO(""), stdout=out)
    runtime.platforms.register(console)
    clock.set(datetime(2026, 1, 5, 6, 0, tzinfo=UTC))  # Monday 08:00 in Helsinki
    await console.handle_line("/quiz schedule add weekdays 09:00 data-parallelism tz:Europe/Helsinki")
    await console.handle_line("/quiz schedule list")
    await console.handle_line("/quiz schedule next")
    text = out.getvalue()
    assert "Scheduled #1: a question every weekday (Mon–Fri) at 09:00, Europe/Helsinki time." in text
    assert "  Next: Mon 5 Jan 2026 09:00 EET" in text
    assert "  #1 · every weekday (Mon–Fri) at 09:00 · Europe/Helsinki · packs: data-parallelism" in text
    assert "Next question here: Mon 5 Jan 2026 09:00 EET (in 1 h)." in text

    clock.set(datetime(2026, 1, 5, 7, 0, 5, tzinfo=UTC))
    await runtime.ticker.tick()  # the runtime's own scheduler, as `quizbot run` starts it
    posted = out.getvalue()[len(text) :]
    assert "❓ Data Parallelism Quiz · question" in posted
    assert "\n   Scheduled · open 24 h, closes Tue 6 Jan 2026 09:00 EET\n" in posted
    await console.handle_line("1")
    assert "(only" in out.getvalue()

    clock.set(datetime(2026, 1, 6, 7, 0, 5, tzinfo=UTC))
    before = len(out.getvalue())
    await runtime.ticker.tick()
    next_day = out.getvalue()[before:]
    assert next_day.index("🔔 Closed:") < next_day.index("❓ Data Parallelism Quiz")  # reveal, then the next one
    assert "1 answer · closed" in next_day

    await console.handle_line("/quiz schedule pause 1")
    await console.handle_line("/quiz schedule remove 1")
    assert "Remove the schedule? [y/N]" in out.getvalue()
    await console.handle_line("y")
    assert "Paused schedule #1 (every weekday (Mon–Fri) at 09:00)." in out.getvalue()
    assert "Removed schedule #1 (every weekday (Mon–Fri) at 09:00, Europe/Helsinki)." in out.getvalue()


def test_quizbot_run_accepts_schedule_commands_and_shuts_its_scheduler_down(tmp_path: Path) -> None:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("QUIZBOT_")}
    environment.update({"QUIZBOT_CONSOLE_USER": "alice", "QUIZBOT_TIMEZONE": "America/New_York"})
    result = subprocess.run(
        [sys.executable, "-m", "bot.cli", "run"],
        input="/quiz schedule add mon,wed,fri 14:00 close:1h\n/quiz schedule list\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environment,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Scheduled #1: a question every Monday, Wednesday and Friday at 14:00, America/New_York time." in (
        result.stdout
    )
    assert "each question closes after 1 h." in result.stdout
    assert "#1 · every Monday, Wednesday and Friday at 14:00 · America/New_York · packs: all · next:" in result.stdout
    assert "Traceback" not in result.stderr


async def test_nothing_is_posted_after_bye_even_when_a_slot_comes_due(runtime: Runtime, clock: ManualClock) -> None:
    out = io.StringIO()
    script = "/quiz schedule add daily 09:00 data-parallelism tz:UTC\n"
    console = ConsoleAdapter(runtime, stdin=io.StringIO(script), stdout=out)
    clock.set(datetime(2026, 1, 5, 8, 59, 50, tzinfo=UTC))
    await console.run()  # the schedule is added, input ends: `Bye.`
    assert "Scheduled #1" in out.getvalue()
    assert out.getvalue().rstrip().endswith("Bye.")

    clock.set(datetime(2026, 1, 5, 9, 0, 5, tzinfo=UTC))  # the slot comes due while the process shuts down
    await runtime.ticker.tick()
    assert out.getvalue().rstrip().endswith("Bye.")  # nothing printed after it
    async with runtime.db.transaction() as session:
        assert (await session.execute(select(func.count(Post.id)))).scalar_one() == 0  # and nothing posted
