"""`--json` (issue 25; schemas in docs/json.md): `doctor`, `content check`, `export` and `report` print one JSON object
on stdout for scripts, with the exit status they have without it. Each runs `quizbot` as its own process.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tests.conftest import CONTENT
from tests.integration.test_operator_errors import _one_answer, one_line, operator_env, quizbot_process

__all__ = ["operator_env"]  # the fixture, used by name

FINDING_KEYS = {"level", "subject", "detail", "fix"}


def document(stdout: str) -> dict[str, Any]:
    """stdout is one JSON object and nothing else."""
    parsed = json.loads(stdout)
    assert isinstance(parsed, dict)
    return parsed


def test_doctor(database_url: str, operator_env: Path) -> None:
    done = quizbot_process(operator_env, "doctor", "--json", QUIZBOT_DATABASE_URL=database_url)
    assert done.returncode == 0, done.stdout + done.stderr
    found = document(done.stdout)
    assert found["ok"] is True and found["problems"] == 0
    assert all(set(finding) == FINDING_KEYS for finding in found["findings"])
    assert {"level": "ok", "subject": "migrations"} in [
        {"level": f["level"], "subject": f["subject"]} for f in found["findings"]
    ]
    assert all(f["fix"] is None for f in found["findings"] if f["level"] == "ok")


def test_doctor_with_problems(operator_env: Path) -> None:
    missing = operator_env / "missing" / "quizbot.db"
    done = quizbot_process(
        operator_env,
        "doctor",
        "--json",
        QUIZBOT_DATABASE_URL=f"sqlite+aiosqlite:///{missing}",
        QUIZBOT_SLACK_BOT_TOKEN="xoxp-a-person",
        QUIZBOT_SLACK_SIGNING_SECRET="0" * 32,
    )
    assert done.returncode == 1
    found = document(done.stdout)
    assert found["ok"] is False and found["problems"] == 2
    failed = {f["subject"]: f for f in found["findings"] if f["level"] == "fail"}
    assert set(failed) == {"database", "Slack bot token"}
    assert failed["Slack bot token"]["fix"].startswith("copy the Bot User OAuth Token")
    done = quizbot_process(operator_env, "doctor", "--json", QUIZBOT_TIMEZONE="Atlantis/Capital")
    assert done.returncode == 1
    found = document(done.stdout)
    assert found["problems"] == 1 and found["findings"][0]["subject"] == "settings"
    assert "QUIZBOT_TIMEZONE" in found["findings"][0]["detail"]


def test_content_check(operator_env: Path) -> None:
    done = quizbot_process(operator_env, "content", "check", "--json", str(CONTENT))
    assert done.returncode == 0, done.stderr
    found = document(done.stdout)
    assert found["ok"] is True and found["strict"] is False and found["problems"] == []
    assert found["packs"], found
    for pack in found["packs"]:
        assert set(pack) == {"id", "title", "path", "questions", "verbatim_seed", "warnings"}
        assert pack["questions"] > 0 and Path(pack["path"]).is_file()
    bad = operator_env / "bad.yaml"
    bad.write_text("id: bad\ntitle: Bad\nquestions: []\n", encoding="utf-8")
    done = quizbot_process(operator_env, "content", "check", "--json", str(bad))
    assert done.returncode == 1
    found = document(done.stdout)
    assert found["ok"] is False and found["packs"] == [] and len(found["problems"]) >= 1
    assert "bad.yaml" in found["problems"][0]


def test_export(database_url: str, operator_env: Path) -> None:
    asyncio.run(_one_answer(database_url))
    env = {"QUIZBOT_DATABASE_URL": database_url}
    done = quizbot_process(operator_env, "export", "--format", "csv", "--out", "csv", "--json", **env)
    assert done.returncode == 0, done.stderr
    found = document(done.stdout)
    assert found == {
        "format": "csv",
        "since": None,
        "files": [str(Path("csv") / name) for name in ("answers.csv", "posts.csv", "leaderboard.csv")],
        "rows": {"answers": 1, "posts": 1, "leaderboard": 1},
    }
    done = quizbot_process(operator_env, "export", "--out", "all.json", "--since", "2000-01-01", "--json", **env)
    assert done.returncode == 0, done.stderr
    found = document(done.stdout)
    assert found["format"] == "json" and found["since"] == "2000-01-01" and found["files"] == ["all.json"]
    assert len(json.loads((operator_env / "all.json").read_text(encoding="utf-8"))["answers"]) == 1
    done = quizbot_process(operator_env, "export", "--json", **env)  # stdout is the summary's: the data needs --out
    assert done.returncode == 2 and done.stdout == ""
    one_line(done.stderr, "quizbot: --json prints a summary", "with --out")


def test_report(database_url: str, operator_env: Path) -> None:
    asyncio.run(_one_answer(database_url))
    done = quizbot_process(operator_env, "report", "--json", "-o", "r.html", QUIZBOT_DATABASE_URL=database_url)
    assert done.returncode == 0, done.stderr
    found = document(done.stdout)
    assert set(found) == {
        "path",
        "title",
        "workspace",
        "cohort",
        "timezone",
        "generated_at",
        "since",
        "answers",
        "correct",
        "points",
        "participants",
    }
    assert found["path"] == "r.html" and found["workspace"] == "fake:W1" and found["cohort"] is None
    assert found["answers"] == 1 and found["participants"] == 1
    assert (operator_env / "r.html").read_text(encoding="utf-8").startswith("<!doctype html>")
