"""What the Docker image relies on, checked without Docker: the wheel installs and runs on its own (packs and
migrations bundled, adapters registered), and the process serves /healthz and stops cleanly on SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUIZBOT_")}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(out), str(REPO)],
        check=True,
        timeout=300,
    )
    (built,) = out.glob("quizbot-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(target), str(wheel)],
        check=True,
        timeout=300,
    )
    return target


def test_wheel_bundles_packs_migrations_and_entry_points(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        entry_points = next(archive.read(n).decode() for n in names if n.endswith("entry_points.txt"))
    assert "bot/_bundled/content/data-parallelism.yaml" in names
    assert "bot/_bundled/content/model-pipeline-parallelism.yaml" in names
    assert "bot/_bundled/migrations/env.py" in names
    assert "bot/_bundled/migrations/versions/0001_initial_schema.py" in names
    assert "adapters/console/adapter.py" in names
    assert not any(n.startswith("tests/") for n in names)
    assert "quizbot = bot.cli:main" in entry_points
    assert "console = adapters.console:build" in entry_points


def _installed_quizbot(
    installed: Path, cwd: Path, *args: str, stdin: str = "", **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main())", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=_env(PYTHONPATH=str(installed), **env),
        timeout=120,
        check=False,
    )


def test_the_installed_wheel_runs_from_anywhere(installed: Path, tmp_path: Path) -> None:
    probe = _installed_quizbot(installed, tmp_path, "content", "check")
    assert probe.returncode == 0, probe.stderr
    assert "ok   data-parallelism" in probe.stdout
    upgrade = _installed_quizbot(installed, tmp_path, "db", "upgrade")
    assert upgrade.returncode == 0, upgrade.stderr
    run = _installed_quizbot(installed, tmp_path, "run", stdin="/quiz now\n1\n/quiz me\n", QUIZBOT_CONSOLE_USER="dana")
    assert run.returncode == 0, run.stderr
    assert "❓" in run.stdout
    assert "Answered: 1" in run.stdout
    where = _installed_quizbot(installed, tmp_path, "--version")
    assert where.stdout.startswith("quizbot ")
    origin = subprocess.run(
        [sys.executable, "-c", "import bot.resources as r; print(r.bundled_content_dir()); print(r.migrations_dir())"],
        capture_output=True,
        text=True,
        env=_env(PYTHONPATH=str(installed)),
        cwd=tmp_path,
        check=True,
    ).stdout.split()
    assert all(path.startswith(str(installed)) for path in origin)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _read_until(fd: int, needle: bytes, *, within: float) -> str:
    """What the child wrote to `fd` up to and including `needle` (read unbuffered, so that `communicate` reads the
    rest); fails if `needle` does not come within `within` seconds."""
    seen = bytearray()

    def read() -> None:
        while needle not in seen:
            chunk = os.read(fd, 4096)
            if not chunk:
                return
            seen.extend(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(within)
    assert needle in seen, f"no {needle!r} within {within} s: {seen.decode(errors='replace')}"
    return seen.decode()


def test_quizbot_serves_healthz_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    port = _free_port()
    env = _env(QUIZBOT_HTTP_PORT=str(port), QUIZBOT_HTTP_HOST="127.0.0.1", QUIZBOT_CONSOLE_USER="op")
    bot = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "run"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    try:
        deadline = time.monotonic() + 60
        healthy = None
        while time.monotonic() < deadline:
            healthy = subprocess.run(
                [sys.executable, "-m", "bot.cli", "healthcheck"], capture_output=True, text=True, env=env, check=False
            )
            if healthy.returncode == 0:
                break
            time.sleep(0.3)
        assert healthy is not None
        assert healthy.returncode == 0, healthy.stdout
        assert '"database": "ok"' in healthy.stdout
        assert bot.stdin is not None
        bot.stdin.write("/quiz now\n")
        bot.stdin.flush()
        assert bot.stdout is not None
        shown = _read_until(bot.stdout.fileno(), "❓".encode(), within=60)  # not a pause: the question is on screen
        bot.send_signal(signal.SIGTERM)
        rest, err = bot.communicate(timeout=30)
        out = shown + rest
    finally:
        if bot.poll() is None:
            bot.kill()
    assert bot.returncode == 0, err
    assert "❓" in out
    assert out.rstrip().endswith("Bye.")
    down = subprocess.run(
        [sys.executable, "-m", "bot.cli", "healthcheck"], capture_output=True, text=True, env=env, check=False
    )
    assert down.returncode == 1
    assert "cannot reach" in down.stdout
