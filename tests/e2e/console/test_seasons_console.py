"""Seasons and confirmations in the terminal adapter: `/quiz season ...`, and `y/N` for destructive commands."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

from adapters.console import ConsoleAdapter
from bot.clock import ManualClock
from bot.runtime import Runtime


async def test_a_season_in_the_terminal_asks_y_n_before_it_ends(runtime: Runtime, clock: ManualClock) -> None:
    out = io.StringIO()
    console = ConsoleAdapter(runtime, stdin=io.StringIO(""), stdout=out)
    runtime.platforms.register(console)
    await console.handle_line("/quiz season start winter")
    await console.handle_line("/quiz now data-parallelism")
    await console.handle_line("1")
    clock.advance(timedelta(minutes=1))
    await console.handle_line("/quiz leaderboard season")
    assert "Season winter has started." in out.getvalue()
    assert "Leaderboard (channel, season winter)" in out.getvalue()

    await console.handle_line("/quiz season end")
    assert out.getvalue().endswith(
        "End season winter (running since 2026-01-05) now?\n"
        "  Each channel with answers in it gets its final board; the season can't be restarted.\n"
        "End the season? [y/N] "
    )
    await console.handle_line("")  # Enter: no
    assert "Cancelled: nothing was changed." in out.getvalue()
    await console.handle_line("/quiz season list")
    assert "winter — running since 2026-01-05" in out.getvalue()

    await console.handle_line("/quiz season end")
    before = len(out.getvalue())
    await console.handle_line("yes")
    ended = out.getvalue()[before:]
    assert "Season winter is over. This channel's top three:" in ended  # the final board, in the channel
    assert "1st: " in ended
    assert "Season winter has ended." in ended
    await console.handle_line("/quiz leaderboard season winter")
    assert out.getvalue().count("Leaderboard (channel, season winter)") == 2


def test_quizbot_run_asks_y_n_for_a_cohort_delete(tmp_path: Path) -> None:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("QUIZBOT_")}
    environment.update({"QUIZBOT_CONSOLE_USER": "alice"})
    result = subprocess.run(
        [sys.executable, "-m", "bot.cli", "run"],
        input="/quiz cohort create spring\n/quiz cohort delete spring\nn\n/quiz cohort delete spring\ny\n"
        "/quiz cohort list\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environment,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("Delete cohort spring and its board (0 members)?") == 2
    assert "Delete the cohort? [y/N] n\nCancelled: nothing was changed." in result.stdout
    assert "Delete the cohort? [y/N] y\nDeleted cohort spring." in result.stdout
    assert "No cohorts yet." in result.stdout
    assert "Traceback" not in result.stderr
