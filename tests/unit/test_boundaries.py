"""Architecture rules from DESIGN.md that a test can hold us to."""

from __future__ import annotations

import ast
import configparser
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

PLATFORM_LIBRARIES = {"discord", "slack_bolt", "slack_sdk"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_core_never_imports_a_platform_library_or_an_adapter() -> None:
    offenders = {
        str(path.relative_to(REPO)): sorted(_imports(path) & (PLATFORM_LIBRARIES | {"adapters"}))
        for path in (REPO / "bot").rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_importing_the_core_loads_no_platform_library_and_connects_nothing() -> None:
    code = (
        "import sys, bot.runtime, bot.cli, bot.service.app\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {sorted(PLATFORM_LIBRARIES)!r})\n"
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"


def test_import_contracts_count_type_checking_imports() -> None:
    """`make layers` checks .importlinter's contracts; an import under TYPE_CHECKING is an import for them too (a
    circle through an annotation is still a circle), so the option that would drop those stays unset."""
    config = configparser.ConfigParser()
    config.read(REPO / ".importlinter", encoding="utf-8")
    assert config.has_section("importlinter")
    assert not config.getboolean("importlinter", "exclude_type_checking_imports", fallback=False)
    assert any(config.get(name, "type", fallback="") == "layers" for name in config.sections())
