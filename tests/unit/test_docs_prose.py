"""The documentation's prose: a sentence that ends in a colon introduces something, and that something is there (a
page moved out of the README once lost the command its sentence announced)."""

from __future__ import annotations

import re

from tests.conftest import REPO

PAGES = [REPO / "README.md", REPO / "ARCHITECTURE.md", *sorted((REPO / "docs").rglob("*.md"))]
_INTRODUCED = re.compile(r"(```|- |\* |\||>|<|!!!|\d+\. )")
"""How what a colon introduces may start: a code block, a list, a table, a quote, HTML, an admonition."""


def dangling_colons(text: str) -> list[str]:
    """The lines, outside code blocks, that end a paragraph with a colon and are followed by a plain paragraph."""
    lines = text.splitlines()
    found: list[str] = []
    fenced = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced or not line.rstrip().endswith(":") or (i + 1 < len(lines) and lines[i + 1].strip()):
            continue
        following = next((rest for rest in lines[i + 1 :] if rest.strip()), "")
        if not (_INTRODUCED.match(following.lstrip()) or following.startswith("    ")):
            found.append(f"line {i + 1}: {line.strip()}")
    return found


def test_a_sentence_ending_in_a_colon_is_followed_by_what_it_introduces() -> None:
    dangling = {str(page.relative_to(REPO)): dangling_colons(page.read_text(encoding="utf-8")) for page in PAGES}
    assert {page: lines for page, lines in dangling.items() if lines} == {}


def test_a_colon_before_a_plain_paragraph_is_found() -> None:
    assert dangling_colons("It reads piped input:\n\nWith no platform...\n") == ["line 1: It reads piped input:"]
    assert dangling_colons("It reads piped input:\n`printf x | quizbot run`.\n") == []
    assert dangling_colons("Run:\n\n```sh\nmake run\n```\n") == []
    assert dangling_colons("```text\nalice:\n\nBye.\n```\n") == []
