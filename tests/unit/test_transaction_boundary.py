"""The places that open a unit of work (issue 21 item 2): the dispatcher, the scheduler's job runners, the operator
commands, and the exceptions each module's docstring explains. A new call that opens one (`self.uow()`,
`committed(...)`, `reading(...)`, `db.transaction()`, `UnitOfWork(...)`) anywhere else in bot/ fails here: a use
case runs in the unit of work it is given."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

BOT = Path(__file__).resolve().parents[2] / "bot"

OPENERS = {"committed", "reading", "transaction", "UnitOfWork", "operator_unit_of_work"}
FACTORIES = {"uow", "uow_factory", "factory"}
"""Calls that open a unit of work or a transaction: `committed(...)`, `reading(...)`, `db.transaction()`,
`UnitOfWork(...)`, and a factory called with no arguments (`self.uow()`, `uow_factory()`, `factory()`)."""

ALLOWED = Counter(
    {
        # the dispatcher: commands, confirmations, repeated deliveries, the home tab, reveals, card reads, and the
        # content sync at start-up
        "service/app.py:sync_content": 1,
        "service/app.py:QuizApp._first_delivery": 1,
        "service/app.py:QuizApp.execute": 1,
        "service/app.py:QuizApp.confirm": 1,
        "service/app.py:QuizApp.home": 1,
        "service/app.py:QuizApp.reveal": 1,
        "service/app.py:QuizApp.current_post_id": 1,
        "service/app.py:QuizApp.card": 1,
        "service/app.py:QuizApp.announce_season": 1,
        # documented exceptions: a post's publication in steps (quiz.py); the click path's group commit (answers.py)
        "service/quiz.py:QuizService.publication_step": 1,
        "service/answers.py:AnswerRecorder._commit": 1,
        "service/answers.py:AnswerRecorder.warm_up": 1,  # its statements run once at start-up, rolled back
        # read models: in the caller's unit of work (`within=`), else in a read-only one of their own
        "service/report.py:ReportService.build": 1,
        "service/report.py:ReportService.find_workspace": 1,
        "service/stats.py:viewing": 1,  # the boards' and /quiz me's: read-only when it is their own
        # the unit of work's own helpers
        "service/uow.py:reading": 1,
        "service/uow.py:committed": 1,
        "service/uow.py:unit_of_work_factory.<lambda>": 1,
        # the scheduler's one job runner: each tick step in a unit of work of its own (test_scheduler_jobs.py)
        "scheduling/jobs.py:Jobs.run": 1,
        # the operator commands: each of quizbot's data commands opens one operator unit of work (the last:
        # `content export|import --workspace`, one helper for both; `forget-user`'s look-up and delete are one
        # step run twice, so its y/N question is asked outside any event loop)
        "cli.py:*": 4,
        # the database itself (Database.transaction's helper)
        "db/database.py:*": 1,
    }
)


def _opener(node: ast.expr) -> str | None:
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name in OPENERS or (name in FACTORIES and not node.args and not node.keywords):
        return name
    return None


class _Finder(ast.NodeVisitor):
    def __init__(self, module: str) -> None:
        self.module = module
        self.scope: list[str] = []
        self.found: Counter[str] = Counter()

    def _visit_scope(self, node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        self.scope.append(getattr(node, "name", "<lambda>"))
        self.generic_visit(node)
        self.scope.pop()

    visit_ClassDef = visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _visit_scope

    def _record(self) -> None:
        where = ".".join(self.scope)
        self.found[f"{self.module}:{where}"] += 1

    def visit_Call(self, node: ast.Call) -> None:
        if _opener(node):
            self._record()
        self.generic_visit(node)


def _sites() -> Counter[str]:
    found: Counter[str] = Counter()
    for path in sorted(BOT.rglob("*.py")):
        module = path.relative_to(BOT).as_posix()
        finder = _Finder(module)
        finder.visit(ast.parse(path.read_text(encoding="utf-8")))
        for site, count in finder.found.items():
            wildcard = f"{module}:*"
            found[wildcard if wildcard in ALLOWED else site] += count
    return found


def test_only_the_listed_places_open_a_unit_of_work() -> None:
    found = _sites()
    unexpected = {site: n for site, n in found.items() if n > ALLOWED.get(site, 0)}
    assert not unexpected, f"a unit of work opened outside the allowed places: {unexpected}"


def test_the_list_names_no_place_that_no_longer_opens_one() -> None:
    found = _sites()
    stale = {site: n for site, n in ALLOWED.items() if found.get(site, 0) != n}
    assert not stale, f"update ALLOWED, these counts changed: {stale} (found {dict(found)})"


def test_the_finder_sees_the_shapes_it_looks_for() -> None:
    finder = _Finder("example.py")
    finder.visit(
        ast.parse(
            "class A:\n"
            "    async def f(self):\n"
            "        async with self.uow() as uow: pass\n"
            "        async with committed(self.uow) as uow: pass\n"
            "        async with db.transaction() as session: pass\n"
            "        async with self.lock: pass\n"
            "        await self.uow_count()\n"
            "def g(db, d): return UnitOfWork(db, d)\n"
        )
    )
    assert finder.found == Counter({"example.py:A.f": 3, "example.py:g": 1})
