"""The scheduler's job runner is the one place in bot/scheduling that opens a unit of work: each job runs in the
one it is given, committed when it returns and rolled back when it raises."""

from __future__ import annotations

import ast
from types import TracebackType
from typing import Any, cast

import pytest

from bot.scheduling.jobs import Jobs
from bot.service.uow import UnitOfWork
from tests.conftest import REPO

SCHEDULING = REPO / "bot" / "scheduling"
OPENERS = {"committed", "reading", "UnitOfWork", "transaction", "sessions"}
"""What opens a transaction: the unit of work's helpers, the class itself, the database's own."""


def _openers(source: str) -> set[str]:
    """The transaction openers a module names (imported, called or reached as an attribute)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            found.update(alias.name for alias in node.names if alias.name in OPENERS - {"UnitOfWork"})
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in OPENERS or name in {"uow", "factory"}:
                found.add(name)
    return found


def test_only_the_job_runner_opens_units_of_work_in_the_scheduler() -> None:
    openers = {
        path.name: sorted(_openers(path.read_text(encoding="utf-8")))
        for path in sorted(SCHEDULING.glob("*.py"))
        if path.name != "jobs.py"
    }
    assert {name: found for name, found in openers.items() if found} == {}
    assert _openers((SCHEDULING / "jobs.py").read_text(encoding="utf-8")) == {"committed"}


class FakeUnitOfWork:
    """Records whether it was committed and whether it was closed."""

    def __init__(self, log: list[str]) -> None:
        self.log = log

    async def __aenter__(self) -> FakeUnitOfWork:
        self.log.append("open")
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.log.append("close")

    async def commit(self) -> None:
        self.log.append("commit")


async def test_a_job_runs_in_a_unit_of_work_of_its_own_committed_when_it_returns() -> None:
    log: list[str] = []
    jobs = Jobs(lambda: cast(UnitOfWork, FakeUnitOfWork(log)))
    seen: list[Any] = []

    async def job(uow: UnitOfWork) -> int:
        seen.append(uow)
        log.append("job")
        return 7

    assert await jobs.run(job) == 7
    assert await jobs.run(job) == 7
    assert log == ["open", "job", "commit", "close"] * 2
    assert seen[0] is not seen[1]


async def test_a_job_that_raises_is_not_committed() -> None:
    log: list[str] = []
    jobs = Jobs(lambda: cast(UnitOfWork, FakeUnitOfWork(log)))

    async def job(uow: UnitOfWork) -> None:
        log.append("job")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        await jobs.run(job)
    assert log == ["open", "job", "close"]
