"""`quizbot completion bash|zsh|fish` (issue 25): a completion script generated from the command declarations, run
in the real shell where it is installed here (bash always; zsh and fish when present)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.integration.test_operator_errors import operator_env, quizbot_process

__all__ = ["operator_env"]  # the fixture, used by name

BASH_PROBE = """
source "$1"
shift
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_quizbot
printf '%s\\n' "${COMPREPLY[@]}"
"""


def script(cwd: Path, shell: str) -> Path:
    done = quizbot_process(cwd, "completion", shell)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    path = cwd / f"quizbot.{shell}"
    path.write_text(done.stdout, encoding="utf-8")
    return path


def bash_completes(cwd: Path, loaded: Path, *words: str) -> list[str]:
    """What bash offers for `quizbot WORDS...` (the last word being the one typed so far)."""
    done = subprocess.run(
        ["bash", "-c", BASH_PROBE, "probe", str(loaded), "quizbot", *words],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return done.stdout.split()


def test_bash_completes_commands_options_choices_and_files(operator_env: Path) -> None:
    loaded = script(operator_env, "bash")
    (operator_env / "packs").mkdir()
    assert bash_completes(operator_env, loaded, "d") == ["db", "doctor", "discord"]
    assert bash_completes(operator_env, loaded, "db", "") == ["upgrade", "current"]
    assert bash_completes(operator_env, loaded, "content", "ex") == ["export"]
    assert bash_completes(operator_env, loaded, "export", "--format", "") == ["json", "csv"]
    assert "--json" in bash_completes(operator_env, loaded, "export", "--")
    assert bash_completes(operator_env, loaded, "doctor", "--") == ["--help", "--online", "--json", "--workspace"]
    assert bash_completes(operator_env, loaded, "content", "check", "pa") == ["packs"]  # a path argument
    assert bash_completes(operator_env, loaded, "report", "--out", "pa") == ["packs"]  # a path option
    assert bash_completes(operator_env, loaded, "report", "--cohort", "") == []  # a free value: nothing to offer
    assert bash_completes(operator_env, loaded, "completion", "") == ["bash", "zsh", "fish"]


def test_an_unknown_shell_is_refused(operator_env: Path) -> None:
    done = quizbot_process(operator_env, "completion", "tcsh")
    assert done.returncode == 2
    assert "argument shell: invalid choice: 'tcsh'" in done.stderr


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_name_every_command(shell: str, operator_env: Path) -> None:
    text = script(operator_env, shell).read_text(encoding="utf-8")
    for word in ("run", "doctor", "export", "forget-user", "upgrade", "check", "--online", "json csv"):
        assert word in text.replace("-l online", "--online"), word


@pytest.mark.skipif(shutil.which("zsh") is None and not os.environ.get("CI"), reason="zsh is not installed here")
def test_zsh_loads_the_script(operator_env: Path) -> None:
    loaded = script(operator_env, "zsh")
    probe = f"autoload -U compinit && compinit -u && source {loaded} && print -r -- ${{_comps[quizbot]}}"
    done = subprocess.run(["zsh", "-c", probe], capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    assert "_bash_complete" in done.stdout or "_quizbot" in done.stdout, done.stdout


@pytest.mark.skipif(shutil.which("fish") is None and not os.environ.get("CI"), reason="fish is not installed here")
def test_fish_completes(operator_env: Path) -> None:
    loaded = script(operator_env, "fish")

    def offered(line: str) -> list[str]:
        probe = f"source {loaded}; complete -C {line!r}"
        done = subprocess.run(["fish", "-c", probe], capture_output=True, text=True, timeout=30, check=True)
        return [row.split("\t")[0] for row in done.stdout.splitlines()]

    assert offered("quizbot d") == ["db", "discord", "doctor"]
    assert offered("quizbot db ") == ["current", "upgrade"]
    assert offered("quizbot export --format ") == ["csv", "json"]
    assert "--online" in offered("quizbot doctor --")
