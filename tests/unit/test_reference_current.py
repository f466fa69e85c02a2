"""The generated references (docs/reference/commands.md, docs/reference/configuration.md, .env.example) are what
the code gives now: a command or a setting added, renamed or re-described without `python -m bot.ops.reference
--write` fails here, naming the stale file."""

from __future__ import annotations

from pathlib import Path

from dotenv import dotenv_values

from bot.commands import SPECS
from bot.config import PREFIX, setting_names
from bot.ops import reference
from tests.conftest import REPO


def test_every_generated_file_is_current() -> None:
    stale = reference.stale(REPO)
    assert stale == [], f"{[str(path) for path in stale]} stale: run `python -m bot.ops.reference --write`"


def test_a_changed_file_is_found_stale_and_rewritten(tmp_path: Path) -> None:
    assert set(reference.stale(tmp_path)) == set(reference.generated())  # none written yet
    assert set(reference.write(tmp_path)) == set(reference.generated())
    assert reference.stale(tmp_path) == []
    env_example = tmp_path / reference.ENV_EXAMPLE
    env_example.write_text(env_example.read_text(encoding="utf-8").replace("QUIZBOT_TIMEZONE", "QUIZBOT_TZ"))
    assert reference.stale(tmp_path) == [reference.ENV_EXAMPLE]


def test_env_example_lists_every_setting_commented_out_at_its_default() -> None:
    text = (REPO / ".env.example").read_text(encoding="utf-8")
    listed = [line.removeprefix("# ").split("=", 1)[0] for line in text.splitlines() if line.startswith(f"# {PREFIX}")]
    assert sorted(listed) == sorted(setting_names())
    assert dotenv_values(REPO / ".env.example") == {}  # copied to .env as it is, it changes nothing
    assert "# QUIZBOT_DATABASE_URL=sqlite+aiosqlite:///quizbot.db" in text
    assert "# QUIZBOT_SCHEDULE_GRACE=1h" in text


def test_every_setting_has_a_meaning_from_one_place_only() -> None:
    """The reference's own words are only for fields that have no description; once a field has one, they go."""
    for _, name, field in reference.all_settings():
        assert field.description or name in reference.UNDESCRIBED, name
        assert not (field.description and name in reference.UNDESCRIBED), name
        assert reference.description(name, field)


def test_the_references_name_every_command_and_setting() -> None:
    commands = (REPO / reference.COMMANDS_PAGE).read_text(encoding="utf-8")
    for spec in SPECS:
        assert f"### `/quiz {' '.join(spec.path)}`" in commands
    configuration = (REPO / reference.CONFIGURATION_PAGE).read_text(encoding="utf-8")
    for name in setting_names():
        assert f"| `{name}` |" in configuration
