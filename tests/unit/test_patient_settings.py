"""Every test bot waits for its database as patiently as the shared `settings` fixture.

The production database waits are about a second, on purpose; a machine busy with other work (CI may share it)
can take that long to open a connection or hand out a pooled one, and a test that is not about those waits then
fails for no fault of the bot. tests/conftest.py's `settings` fixture and `patient_settings()` apply
`PATIENT_DATABASE`; a module that builds `Settings(database_url=...)` itself bypasses them. This scan of tests/
finds such a construction; the few that need other waits are named in `OWN_WAITS`, with the reason."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent

OWN_WAITS: dict[tuple[str, str], str] = {
    ("integration/test_db_partition.py", "_bot"): "about the waits: short ones, so a partition is noticed quickly",
    ("discord_storm.py", "_serve"): (
        "the child bot of the benchmarks, which measure the production waits; its tests pass PATIENT_DATABASE_ENV "
        "to start_bot (checked below)"
    ),
}
"""(module under tests/, enclosing function) -> why it builds Settings with a database URL and its own waits."""

CHILD_BOTS = {"start_bot", "running_bot"}
"""Helpers that start the bot as its own process (tests/discord_storm.py, tests/click_storm.py): its settings come
from the environment they are given."""


def _spreads_patient_waits(call: ast.Call) -> bool:
    """Whether a `**` argument of `call` spreads PATIENT_DATABASE (directly, or in a dict display)."""
    for keyword in call.keywords:
        if keyword.arg is None and any(
            isinstance(node, ast.Name) and node.id == "PATIENT_DATABASE" for node in ast.walk(keyword.value)
        ):
            return True
    return False


def _is_settings_call(call: ast.Call) -> bool:
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    return name == "Settings"


def impatient_settings(source: str) -> list[tuple[str, int]]:
    """(enclosing function, line) of each `Settings(...)` in `source` given a database URL (or a `**` that may carry
    one) without PATIENT_DATABASE's waits."""
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            if isinstance(child, ast.Call) and _is_settings_call(child):
                gives_url = any(k.arg in {"database_url", None} for k in child.keywords)
                if gives_url and not _spreads_patient_waits(child):
                    found.append((function, child.lineno))
            visit(child, inner)

    visit(ast.parse(source), "<module>")
    return found


def impatient_child_bots(source: str) -> list[tuple[str, int]]:
    """(helper, line) of each call starting a child bot without an `env` that mentions PATIENT_DATABASE_ENV."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CHILD_BOTS:
            env = [k.value for k in node.keywords if k.arg == "env"]
            if not any(
                isinstance(n, ast.Name) and n.id == "PATIENT_DATABASE_ENV" for value in env for n in ast.walk(value)
            ):
                found.append((node.func.id, node.lineno))
    return found


def _modules() -> list[tuple[str, str]]:
    return [(path.relative_to(TESTS).as_posix(), path.read_text(encoding="utf-8")) for path in TESTS.rglob("*.py")]


def test_every_test_bot_has_the_patient_database_waits() -> None:
    offenders = [
        f"tests/{module}:{line} ({function})"
        for module, source in _modules()
        for function, line in impatient_settings(source)
        if (module, function) not in OWN_WAITS
    ]
    assert offenders == [], (
        "these build Settings(database_url=...) with the production database waits; use "
        "tests.conftest.patient_settings(...) or the `settings` fixture (or name the case in OWN_WAITS, with why): "
        + ", ".join(offenders)
    )


def test_every_child_bot_a_test_starts_has_the_patient_database_waits() -> None:
    offenders = [
        f"tests/{module}:{line} ({helper})"
        for module, source in _modules()
        if Path(module).name.startswith("test_")
        for helper, line in impatient_child_bots(source)
    ]
    assert offenders == [], "pass env={**PATIENT_DATABASE_ENV, ...} to these: " + ", ".join(offenders)


PATIENT_ENVIRONMENT = ("PATIENT_DATABASE_ENV", "use_patient_database", "operator_env", "quizbot_process")
"""What gives a bot configured by environment variables the patient waits (the last two: test_operator_errors's
fixture and process helper, which apply the first two)."""
ENVIRONMENT_OWN_WAITS = {"click_storm.py": "its running_bot takes the env its callers give (checked above)"}


def test_every_bot_configured_by_environment_has_the_patient_database_waits() -> None:
    """A module that points QUIZBOT_DATABASE_URL at a test database (the CLI in this process, or as a child) gives
    the same bot the patient waits."""
    offenders = [
        f"tests/{module}"
        for module, source in _modules()
        if "QUIZBOT_DATABASE_URL" in source
        and not any(name in source for name in PATIENT_ENVIRONMENT)
        and module not in ENVIRONMENT_OWN_WAITS
        and not module.startswith("unit/")  # the unit tier has no database (tests/conftest.py enforces it)
    ]
    assert offenders == [], (
        "these set QUIZBOT_DATABASE_URL without the patient waits; call tests.conftest.use_patient_database("
        "monkeypatch) or add PATIENT_DATABASE_ENV to the child's environment: " + ", ".join(offenders)
    )


def test_the_allowed_cases_still_exist() -> None:
    """An entry of OWN_WAITS whose construction went away is removed, so the list stays short and true."""
    sources = dict(_modules())
    for module, function in OWN_WAITS:
        assert function in {f for f, _ in impatient_settings(sources[module])}, (module, function)


def test_the_scan_sees_what_it_looks_for() -> None:
    """The scan itself: the forms a test writes, flagged or not."""
    flagged = """
def settings(database_url):
    return Settings(database_url=database_url, _env_file=None)

async def bot(url):
    return bot_from(config.Settings(**{"database_url": url}))
"""
    assert impatient_settings(flagged) == [("settings", 3), ("bot", 6)]
    fine = """
def settings(database_url):
    return Settings(database_url=database_url, **PATIENT_DATABASE)

def patient(**fields):
    return Settings(_env_file=None, **{**PATIENT_DATABASE, **fields})

def no_database():
    return Settings(_env_file=None, slack_bot_token="x")
"""
    assert impatient_settings(fine) == []
    children = """
async def test_a(fake, url, tmp_path):
    await start_bot(fake, url, tmp_path / "log", env=FAST_SCHEDULER)
    await start_bot(fake, url, tmp_path / "log", env={**PATIENT_DATABASE_ENV, **FAST_SCHEDULER})
    async with running_bot(fake, url, tmp_path):
        pass
"""
    assert impatient_child_bots(children) == [("start_bot", 3), ("running_bot", 5)]
