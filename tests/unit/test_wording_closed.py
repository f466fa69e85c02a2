"""Wording stays closed: the sentences written outside bot/wording may only become fewer.

A sentence here is a string literal (an f-string's placeholders do not count as words) with at least three
words that hold a letter. Not counted: docstrings and other bare string statements, the arguments of logging
calls (`log.warning(...)`: operator log lines, not replies), and bot/wording itself. What is left outside
bot/wording is debt (issue 21, item 5): content's problems, operator settings and hints, the Discord adapter's
texts, the CLI's. When a change words some of them in bot/wording, lower CEILING to the new count; never raise it.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ROOTS = ("bot", "adapters")
WORDING = REPO / "bot" / "wording"
DOCUMENTATION = (REPO / "bot" / "ops" / "reference.py",)
"""Modules that write the docs site's generated pages (Markdown in English, like the hand-written pages in docs/):
documentation, not what the bot or the CLI says, so not through the translation hook."""
LOG_METHODS = frozenset({"debug", "info", "warning", "error", "exception", "critical", "log"})

CEILING = 166
"""Sentence-like literals outside bot/wording, measured; it may only fall."""


def _words(text: str) -> int:
    return sum(any(ch.isalpha() for ch in word) for word in text.split())


def sentences(source: str) -> list[tuple[int, str]]:
    """The sentence-like literals of one module: (line, text with each placeholder as `{}`)."""
    tree = ast.parse(source)
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant | ast.JoinedStr):
            skipped.update(id(inner) for inner in ast.walk(node.value))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in LOG_METHODS:
            for argument in (*node.args, *(keyword.value for keyword in node.keywords)):
                skipped.update(id(inner) for inner in ast.walk(argument))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.JoinedStr):
            skipped.update(id(inner) for inner in ast.walk(node))
            text = "".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        if _words(text) >= 3:
            found.append((node.lineno, text))
    return found


def count_by_module() -> Counter[str]:
    """How many sentence-like literals each module outside bot/wording holds."""
    counts: Counter[str] = Counter()
    for root in ROOTS:
        for path in sorted((REPO / root).rglob("*.py")):
            if path.is_relative_to(WORDING) or path in DOCUMENTATION:
                continue
            found = sentences(path.read_text(encoding="utf-8"))
            if found:
                counts[path.relative_to(REPO).as_posix()] = len(found)
    return counts


def test_the_counter_sees_sentences_and_skips_docstrings_and_log_lines() -> None:
    source = '''"""A module docstring of many words."""
import logging
log = logging.getLogger(__name__)
def f(n: int) -> str:
    """A function's docstring, also many words."""
    log.warning("a log line of many words %s", n)
    reply = f"you have {n} new answers"
    label = "two words"
    cron = "0 9 * * *"
    return "This one is a sentence." + reply + label + cron
'''
    assert [text for _, text in sentences(source)] == ["you have {} new answers", "This one is a sentence."]


def test_no_new_sentences_outside_bot_wording() -> None:
    counts = count_by_module()
    total = sum(counts.values())
    listing = "\n".join(f"{count:4} {module}" for module, count in counts.most_common())
    assert total <= CEILING, (
        f"{total} sentence-like literals outside bot/wording, more than the ceiling of {CEILING}: word the new ones "
        f"in bot/wording (a function per sentence, an error's key and values).\n{listing}"
    )
