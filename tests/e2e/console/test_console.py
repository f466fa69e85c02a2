"""The terminal adapter, driven line by line and as a whole `quizbot run` process with piped input."""

from __future__ import annotations

import io
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.console import ConsoleAdapter
from bot.runtime import Runtime
from bot.wording.console import intro
from tests.conftest import CONTENT, PATIENT_DATABASE_ENV, REPO
from tests.e2e.console.keyboard import Keyboard


def _console(runtime: Runtime, script: str) -> tuple[ConsoleAdapter, io.StringIO]:
    out = io.StringIO()
    return ConsoleAdapter(runtime, stdin=io.StringIO(script), stdout=out), out


def _correct_number(runtime: Runtime, output: str) -> tuple[int, int]:
    """From the last printed card: the number of the correct choice and of a wrong one."""
    card = output.rsplit("❓", 1)[1]
    prompt = card.splitlines()[1]
    question = next(q for p in runtime.catalog.packs for q in p.questions if q.prompt == prompt)
    shown = re.findall(r"^\s+\[(\d+)\] (.*)$", card, flags=re.MULTILINE)
    right = next(int(n) for n, text in shown if text == question.correct_choice)
    wrong = next(int(n) for n, text in shown if text != question.correct_choice)
    return right, wrong


async def test_a_round_in_the_terminal(runtime: Runtime) -> None:
    console, out = _console(runtime, "")
    runtime.platforms.register(console)
    await console.handle_line("/quiz now data-parallelism")
    right, wrong = _correct_number(runtime, out.getvalue())
    await console.handle_line(str(right))
    await console.handle_line(str(wrong))
    await console.handle_line("/as Bob")
    await console.handle_line(str(wrong))
    await console.handle_line("/quiz reveal")
    await console.handle_line("/quiz leaderboard")
    text = out.getvalue()
    user = console.user
    assert user.display_name == "Bob"
    assert "Correct!" in text
    assert "You already answered" in text
    assert "(only Bob sees this) Not quite." in text
    assert "🔔 Closed:" in text
    assert "— 1 (50%)" in text
    assert re.search(r"1\. \S+ — 20 pts · 1/1 correct \(100%\)", text)
    assert "2. Bob — 0 pts · 0/1 correct (0%)" in text


async def _two_answer(runtime: Runtime, first: str, second: str) -> str:
    """`first` answers the newest question right, then `second` answers it wrong; then the channel's board."""
    console, out = _console(runtime, "")
    runtime.platforms.register(console)
    await console.handle_line("/quiz now data-parallelism")
    right, wrong = _correct_number(runtime, out.getvalue())
    for name, choice in ((first, right), (second, wrong)):
        await console.handle_line(f"/as {name}")
        await console.handle_line(str(choice))
    await console.handle_line("/quiz leaderboard")
    return out.getvalue()


@pytest.mark.parametrize(("first", "second"), [("李", "王"), ("Zoë", "Zoé"), ("José", "Josè")])
async def test_names_in_other_scripts_are_different_people(runtime: Runtime, first: str, second: str) -> None:
    text = await _two_answer(runtime, first, second)
    assert "You already answered" not in text
    board = text.rsplit("Leaderboard (channel, all time)", 1)[1]
    assert re.search(rf"1\. {first} — \d+ pts · 1/1 correct", board), board
    assert f"2. {second} — 0 pts · 0/1 correct" in board


async def test_long_names_fit_the_database_and_stay_two_people(runtime: Runtime) -> None:
    first, second = "A" * 100 + " the first", "A" * 100 + " the second"  # ids longer than users.external_id
    text = await _two_answer(runtime, first, second)
    assert "Could not reach the quiz database" not in text
    assert "You already answered" not in text
    board = text.rsplit("Leaderboard (channel, all time)", 1)[1]
    assert re.search(rf"1\. {first} — \d+ pts · 1/1 correct", board), board
    assert f"2. {second} — 0 pts · 0/1 correct" in board


async def test_a_name_too_long_to_keep_is_shown_as_kept(runtime: Runtime) -> None:
    console, out = _console(runtime, "")
    await console.handle_line("/as " + "B" * 5000)
    assert out.getvalue().splitlines()[-1] == f"You are now {'B' * 200}."


@pytest.mark.parametrize(
    "command",
    [
        "/quiz season start {long}",
        "/quiz season {long}",
        "/quiz season start spring until:{long}",
        "/quiz season start spring {long}",
        "/quiz leaderboard season {long}",
        "/quiz cohort create spring deliver:{long}",
    ],
)
async def test_a_refusal_quotes_at_most_40_characters_of_what_was_typed(runtime: Runtime, command: str) -> None:
    console, out = _console(runtime, "")
    runtime.platforms.register(console)
    await console.handle_line(command.format(long="w" * 300))
    reply = out.getvalue().splitlines()[-1]  # the line before it echoes the command
    assert "w" * 41 not in reply, reply
    assert "w" * 40 + "…" in reply


async def test_input_that_ends_at_a_y_n_question_cancels_the_command_and_says_so(runtime: Runtime) -> None:
    console, out = _console(runtime, "/quiz cohort create spring\n/quiz cohort delete spring\n")
    await console.run()
    text = out.getvalue()
    assert "Delete the cohort? [y/N] \nCancelled: nothing was changed.\nBye.\n" in text  # not `[y/N] Bye.`
    await console.handle_line("/quiz cohort list")
    assert "spring — from" in out.getvalue()[len(text) :]


class Screen(io.StringIO):
    """The terminal's output, which tells the keyboard when a y/N question is shown."""

    def __init__(self, keyboard: Keyboard) -> None:
        super().__init__()
        self.keyboard = keyboard

    def write(self, text: str) -> int:
        if text.endswith("[y/N] "):
            self.keyboard.asked.set()
        return super().write(text)


async def test_ctrl_d_at_a_y_n_question_cancels_the_command_and_the_terminal_reads_on(runtime: Runtime) -> None:
    keyboard = Keyboard(["/quiz cohort create spring\n", "/quiz cohort delete spring\n", "", "/quiz cohort list\n"])
    screen = Screen(keyboard)
    await ConsoleAdapter(runtime, stdin=keyboard, stdout=screen).run()
    text = screen.getvalue()
    assert "Delete the cohort? [y/N] \nCancelled: nothing was changed.\n" in text
    assert "spring — from" in text.split("Cancelled: nothing was changed.", 1)[1]  # it read on; the cohort is kept
    assert text.rstrip().endswith("Bye.")


async def test_the_end_of_input_at_the_prompt_says_bye_on_a_line_of_its_own(runtime: Runtime) -> None:
    keyboard = Keyboard(["/quiz packs\n"])  # then the input ends while `alice> ` waits
    screen = Screen(keyboard)
    console = ConsoleAdapter(runtime, stdin=keyboard, stdout=screen)
    await console.run()
    assert screen.getvalue().endswith(f"\n{console.user.display_name}> \nBye.\n")  # not `alice> Bye.`


async def test_a_setting_changed_without_saying_whose_is_told_how(runtime: Runtime) -> None:
    console, out = _console(runtime, "")
    runtime.platforms.register(console)
    await console.handle_line("/quiz settings timezone Europe/Helsinki")  # as `[channel|workspace]` in the help reads
    assert out.getvalue().splitlines()[-1] == (
        "Say whose `timezone` to change: `/quiz settings channel timezone VALUE` for this channel (leads) or "
        "`/quiz settings workspace timezone VALUE` for the workspace (admins); `/quiz settings` shows them."
    )
    await console.handle_line("/quiz settings frob")
    assert "`frob` is not something `/quiz settings` does" in out.getvalue().splitlines()[-1]


async def test_numbers_that_are_no_answer_get_a_line_not_a_crash(runtime: Runtime) -> None:
    """`²` is a digit int() refuses, and 5,000 digits are more than it converts: each crashed the adapter."""
    console, out = _console(runtime, "")
    runtime.platforms.register(console)
    await console.handle_line("/quiz now data-parallelism")
    right, _ = _correct_number(runtime, out.getvalue())
    for line in ("²", "/press ²", "9" * 5000, "/press " + "1" * 5000):
        shown = len(out.getvalue())
        assert await console.handle_line(line) is True
        reply = out.getvalue()[shown:].splitlines()[-1]
        assert reply in {
            "Pick a number from 1 to 4.",
            "There is no button to press: the last reply had none.",
            "Type a number to answer, `/quiz help` for commands, `/as NAME` to switch user, `/press N` to press a "
            "button, `/quit` to leave.",
        }, reply
    await console.handle_line(chr(0x0660 + right))  # an Arabic-Indic digit (٣) is a decimal one: it answers
    assert "Correct!" in out.getvalue()


def test_quizbot_run_reads_on_after_a_superscript_digit(tmp_path: Path) -> None:
    result = _quizbot(tmp_path, "/quiz now\n²\n/quiz me\n")
    assert result.returncode == 0, result.stderr
    assert "adapter console failed" not in result.stderr and "ValueError" not in result.stderr
    assert "alice: no answers yet." in result.stdout  # the line after it was read


async def test_a_line_whose_handling_fails_unexpectedly_is_answered_and_the_session_reads_on(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug in one line's handling (here, made one) gets the line a reply and leaves the session going: not the
    adapter's end, the rest of the input lost, and a restart that finds no input."""
    handle = runtime.app.handle_command

    async def failing_once(invocation: object) -> object:
        monkeypatch.setattr(runtime.app, "handle_command", handle)
        raise RuntimeError("a bug")

    monkeypatch.setattr(runtime.app, "handle_command", failing_once)
    console, out = _console(runtime, "/quiz packs\n/quiz packs\n")
    await console.run()  # before, RuntimeError came out of run()
    text = out.getvalue()
    assert "Something went wrong" in text.split("/quiz packs", 2)[1]
    assert "data-parallelism — Data Parallelism Quiz (8 questions)" in text.split("/quiz packs", 2)[2]
    assert text.rstrip().endswith("Bye.")


HUGE = "9" * 5000
"""More digits than int() converts (4,300): each of these commands failed with `Something went wrong`."""


@pytest.mark.parametrize(
    "command",
    [
        "/quiz review ²",
        f"/quiz review {HUGE}",
        "/quiz drafts approve ²",
        f"/quiz drafts reject {HUGE}",
        f"/quiz settings channel now-limit {HUGE}",
        f"/quiz settings channel now-cooldown {HUGE}",
        f"/quiz settings channel edit {HUGE}",
        f"/quiz schedule add daily 09:00 close:{HUGE}m",
        f"/quiz schedule add 0 9 {HUGE} * *",
    ],
)
async def test_a_number_no_command_takes_is_refused_in_one_line(
    runtime: Runtime, command: str, caplog: pytest.LogCaptureFixture
) -> None:
    console, out = _console(runtime, "")
    runtime.platforms.register(console)
    assert await console.handle_line(command) is True
    reply = out.getvalue().splitlines()[1:]  # after the echoed command
    assert len(reply) == 1 and "Something went wrong" not in reply[0], reply
    assert not [record for record in caplog.records if record.levelname == "ERROR"]


async def test_bad_input_gets_help_not_a_crash(runtime: Runtime) -> None:
    console, out = _console(runtime, "")
    runtime.platforms.register(console)
    assert await console.handle_line("/quiz dance") is True
    assert await console.handle_line("3") is True
    assert await console.handle_line("hello?") is True
    assert await console.handle_line("/quiz now no-such-pack") is True
    assert await console.handle_line("/quiz reveal") is True
    await console.handle_line("/quiz now")
    assert await console.handle_line("9") is True
    text = out.getvalue()
    assert "Unknown command `dance`" in text
    assert "There is no open question" in text
    assert "Type a number to answer" in text
    assert "There is no pack called `no-such-pack`" in text
    assert "Pick a number from 1 to 4." in text
    assert await console.handle_line("/quit") is False


async def test_run_reads_until_end_of_input(runtime: Runtime) -> None:
    console, out = _console(runtime, "/quiz packs\n/quiz help\n")
    await console.run()
    text = out.getvalue()
    assert "data-parallelism — Data Parallelism Quiz (8 questions)" in text
    assert "/quiz leaderboard [week|month|all] [channel|workspace|cohort NAME|cohorts]" in text
    assert text.rstrip().endswith("Bye.")


def _quizbot(tmp_path: Path, script: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("QUIZBOT_")}
    environment.update({"QUIZBOT_CONSOLE_USER": "alice", **PATIENT_DATABASE_ENV, **env})
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", "run"],
        input=script,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environment,
        timeout=60,
        check=False,
    )


def test_quizbot_run_end_to_end_with_piped_input_and_a_restart(tmp_path: Path) -> None:
    first = _quizbot(tmp_path, "/quiz now model-pipeline-parallelism\n1\n/as bob\n2\n2\n/quiz me\n/quit\n")
    assert first.returncode == 0, first.stderr
    out = first.stdout
    assert "❓ Model and Pipeline Parallelism Quiz · question" in out
    db_file = tmp_path / "quizbot.db"
    assert db_file.exists()
    prompt = out.split("❓", 1)[1].splitlines()[1]
    shown = dict(re.findall(r"^\s+\[(\d+)\] (.*)$", out, flags=re.MULTILINE))
    import yaml

    pack = yaml.safe_load((CONTENT / "model-pipeline-parallelism.yaml").read_text(encoding="utf-8"))
    question = next(q for q in pack["questions"] if q["prompt"] == prompt)
    correct_text = question["choices"][question["answer"] - 1]
    alice_verdict = "Correct!" if shown["1"] == correct_text else "Not quite."
    bob_verdict = "Correct!" if shown["2"] == correct_text else "Not quite."
    assert f"(only alice sees this) {alice_verdict}" in out
    assert f"(only bob sees this) {bob_verdict}" in out
    assert "(only bob sees this) You already answered" in out

    # A second process keeps the data, but a bare number never answers a question this session did not show:
    # the person typing has not seen it (issue 12).
    second = _quizbot(tmp_path, "3\n/quiz reveal\n/quiz me\n/quit\n")
    assert second.returncode == 0, second.stderr
    assert "There is no open question" in second.stdout
    assert "You already answered" not in second.stdout and "Correct!" not in second.stdout
    winners = (
        "Got it right: alice"
        if alice_verdict == "Correct!"
        else "Got it right"
        if bob_verdict == "Correct!"
        else "Nobody got it right"
    )
    assert "🔔 Closed:" in second.stdout and winners in second.stdout  # /quiz reveal finds the first process's post
    assert "Answered: 1" in second.stdout  # alice's record survived the restart

    with sqlite3.connect(db_file) as conn:
        rows = conn.execute(
            "SELECT u.display_name, a.is_correct FROM answers a JOIN users u ON u.id = a.user_id ORDER BY u.display_name"
        ).fetchall()
        posts = conn.execute("SELECT count(*), count(closed_at) FROM posts").fetchone()
    assert rows == [("alice", alice_verdict == "Correct!"), ("bob", bob_verdict == "Correct!")]
    assert posts == (1, 1)


def test_quizbot_run_refuses_a_bad_setting_with_its_name(tmp_path: Path) -> None:
    result = _quizbot(tmp_path, "", QUIZBOT_TIMEZONE="Nowhere/Land")
    assert result.returncode == 2
    assert "QUIZBOT_TIMEZONE" in result.stderr
    assert "Traceback" not in result.stderr


def test_quizbot_run_refuses_an_invalid_pack_folder(tmp_path: Path) -> None:
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "broken.yaml").write_text("id: x\ntitle: X\nquestions:\n  - id: q\n    prompt: P\n", encoding="utf-8")
    result = _quizbot(tmp_path, "", QUIZBOT_CONTENT_DIR=str(packs))
    assert result.returncode == 2
    assert "broken.yaml: question q (#1): choices: Field required" in result.stderr


@pytest.mark.postgres
def test_quizbot_run_on_postgresql(tmp_path: Path, postgres_template: str) -> None:
    result = _quizbot(tmp_path, "/quiz now\n1\n/quiz leaderboard workspace\n", QUIZBOT_DATABASE_URL=postgres_template)
    assert result.returncode == 0, result.stderr
    assert "Leaderboard (workspace, all time)" in result.stdout
    assert "alice" in result.stdout.split("Leaderboard", 1)[1]
    assert not (tmp_path / "quizbot.db").exists()
    assert REPO.exists()


async def test_the_terminals_help_lists_its_own_commands(runtime: Runtime) -> None:
    console, out = _console(runtime, "")
    runtime.platforms.register(console)
    assert await console.handle_line("/quiz help") is True
    listing = out.getvalue()
    assert "/quiz now [pack]" in listing
    assert "/as NAME - be someone else from now on" in listing
    assert "/quit - leave the terminal" in listing
    assert "/press N - press the N-th button of the last reply" in listing
    assert await console.handle_line("/quiz help now") is True
    one = out.getvalue()[len(listing) :]
    assert "Example: `/quiz now data-parallelism`" in one and "/as NAME" not in one
    assert "`/press N` presses a button of the last reply" in intro()
    shown = len(out.getvalue())
    assert await console.handle_line("what now") is True
    assert "`/press N` to press a button" in out.getvalue()[shown:]


def test_quizbot_run_leaves_one_invalid_pack_out_and_names_it(tmp_path: Path) -> None:
    packs = tmp_path / "packs"
    packs.mkdir()
    seed = REPO / "tests" / "data" / "seed-content" / "data-parallelism.yaml"
    (packs / "data-parallelism.yaml").write_text(seed.read_text(encoding="utf-8"), encoding="utf-8")
    (packs / "broken.yaml").write_text("id: x\ntitle: X\nquestions:\n  - id: q\n    prompt: P\n", encoding="utf-8")
    result = _quizbot(tmp_path, "/quiz packs\n/quiz now\n/quit\n", QUIZBOT_CONTENT_DIR=str(packs))
    assert result.returncode == 0, result.stderr
    assert "broken.yaml: question q (#1): choices: Field required" in result.stderr  # the log names it
    listing = result.stdout.split("Quiz packs", 1)[1]
    assert "data-parallelism" in listing
    assert "Not loaded" in listing and "broken.yaml" in listing  # the terminal user is an admin
    assert "❓ Data Parallelism Quiz" in result.stdout
    assert "Traceback" not in result.stderr


async def test_cohort_show_and_remind_in_the_terminal(runtime: Runtime) -> None:
    console, out = _console(runtime, "")
    runtime.platforms.register(console)
    await console.handle_line("/quiz cohort create spring packs:data-parallelism")
    await console.handle_line("/as ben")
    await console.handle_line("/quiz cohort join spring")
    await console.handle_line("/as lead")
    for _ in range(3):
        await console.handle_line("/quiz cohort next spring")
    await console.handle_line("/quiz cohort show spring")
    await console.handle_line("/quiz cohort remind spring")
    text = out.getvalue()
    assert "   Cohort spring · open until revealed" in text  # each card says where it came from
    assert "ben — 0/3 answered · 0 right · 0 pts · never answered · ⚠ behind" in text
    assert "(direct message to ben) You have 3 questions waiting in cohort spring." in text
    assert "Nudged 1 member of spring privately." in text


def test_quizbot_run_with_no_platform_and_no_input_names_the_settings(tmp_path: Path) -> None:
    """A container started without credentials and without a terminal: one line that says what to set, and a
    non-zero exit (not `Bye.` and 0, which a restart policy repeats forever)."""
    done = _quizbot(tmp_path, "")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""  # not the terminal's greeting: nobody is there to read it
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("quizbot: no chat platform is configured")
    assert "QUIZBOT_SLACK_BOT_TOKEN (Slack) or QUIZBOT_DISCORD_TOKEN (Discord)" in lines[0]
    assert ".env.example" in lines[0]


def test_quizbot_run_asked_for_the_terminal_ends_an_empty_input_with_bye(tmp_path: Path) -> None:
    """The terminal named in QUIZBOT_ADAPTERS was asked for: empty input is a session that ended, exit 0."""
    done = _quizbot(tmp_path, "", QUIZBOT_ADAPTERS="console")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(intro())
    assert done.stdout.rstrip().endswith("Bye.")


def test_quizbot_run_with_piped_lines_greets_first_and_exits_0(tmp_path: Path) -> None:
    """Piped input with lines keeps working: the greeting, then each line echoed and answered, `Bye.`, exit 0."""
    done = _quizbot(tmp_path, "/quiz packs\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(intro())
    assert "alice> /quiz packs" in done.stdout
    assert done.stdout.rstrip().endswith("Bye.")
