"""The newest revision read from the migration files without Alembic matches Alembic's, or is left to Alembic."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

from bot.db.migrate import _plain_head, alembic_config, head_revision
from tests.conftest import REPO


def _revision(folder: Path, name: str, revision: str, down: str, extra: str = "") -> None:
    (folder / f"{name}.py").write_text(
        f'"""{name}\n\nRevision ID: {revision}\nRevises:\n"""\n\n'
        "from collections.abc import Sequence\n\n"
        f"revision: str = {revision!r}\n"
        f"down_revision: str | None = {down}\n"
        "branch_labels: str | Sequence[str] | None = None\n"
        f"{extra or 'depends_on: str | Sequence[str] | None = None'}\n\n\n"
        "def upgrade() -> None:\n    revision = 'not this one'\n",
        encoding="utf-8",
    )


def test_the_shipped_migrations_read_plainly_give_alembics_head() -> None:
    alembic_head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert _plain_head() == alembic_head
    assert head_revision() == alembic_head


def test_a_linear_history_in_any_file_order(tmp_path: Path) -> None:
    _revision(tmp_path, "b_second", "0002", "'0001'")
    _revision(tmp_path, "a_third", "0003", '"0002"')
    _revision(tmp_path, "c_first", "0001", "None")
    (tmp_path / "__init__.py").write_text("", encoding="utf-8")
    assert _plain_head(tmp_path) == "0003"


@pytest.mark.parametrize(
    "shape",
    ["branch", "merge", "dependency", "label", "duplicate", "unknown parent", "computed", "empty"],
)
def test_anything_but_a_plain_linear_history_is_left_to_alembic(tmp_path: Path, shape: str) -> None:
    if shape == "empty":
        assert _plain_head(tmp_path) is None
        return
    _revision(tmp_path, "0001", "0001", "None")
    _revision(tmp_path, "0002", "0002", "'0001'")
    if shape == "branch":
        _revision(tmp_path, "0003", "0003", "'0001'")
    elif shape == "merge":
        _revision(tmp_path, "0003", "0003", "('0001', '0002')")
    elif shape == "dependency":
        _revision(tmp_path, "0003", "0003", "'0002'", extra="depends_on = '0001'")
    elif shape == "label":
        _revision(tmp_path, "0003", "0003", "'0002'", extra="branch_labels = ('feature',)")
    elif shape == "duplicate":
        _revision(tmp_path, "0002b", "0002", "'0001'")
    elif shape == "unknown parent":
        _revision(tmp_path, "0003", "0003", "'0099'")
    elif shape == "computed":
        _revision(tmp_path, "0003", "0003", "PREVIOUS")
    assert _plain_head(tmp_path) is None


def test_importing_the_runtime_loads_no_alembic() -> None:
    code = "import sys, bot.runtime, bot.cli, bot.ops.http; print(sorted({m.split('.')[0] for m in sys.modules} & {'alembic', 'mako'}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"
