"""Platform-neutral text safety: invisible characters out, and cutting escaped text only where it is safe.

Every adapter neutralises names and pack text for its own markup (`adapters.discord.markup`,
`adapters.slack.markup`); both first drop the characters that make one text look like another
(`bot.domain.text.strip_invisible`: zero-width characters and bidirectional controls; a joiner is kept only
inside a word or an emoji sequence). The neutralisers then mark up their own structure with a few zero-width
spaces; since content can carry none, each of those is known to be ours.

Escaped text is cut (to fit a platform limit) only between "atoms": an escape sequence such as `\\_` or `&amp;`,
a kept code span or URL, is one atom, so a cut never leaves half of one in each piece.

Code: a fenced block (a line of three backticks and an optional language, the code, a line of three backticks)
and an inline code span are found in the raw text (`code_segments`, `INLINE_CODE`); each platform renders them
natively and escapes only the rest. Inside a rendered block every line is one atom, so a cut falls between two
lines of code, and `cut` closes a block it leaves open and reopens it (with its language) in the rest.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from bot.domain.text import BIDI_CONTROLS, INVISIBLE, ZERO_WIDTH, strip_invisible

__all__ = [
    "BIDI_CONTROLS",
    "ELLIPSIS",
    "FENCE",
    "INLINE_CODE",
    "INVISIBLE",
    "ZERO_WIDTH",
    "ZWSP",
    "CodeBlock",
    "Cut",
    "break_fences",
    "clip",
    "code_segments",
    "cut",
    "fenced_atoms",
    "plain",
    "strip_invisible",
]

ZWSP = "\u200b"
"""What the neutralisers insert to break markup (`@\u200beveryone`); never left in content by strip_invisible."""

ELLIPSIS = "…"


FENCE = "```"
INLINE_CODE_MAX = 200
"""A longer inline code span is shown as escaped text: a span is one atom, and an atom must fit any piece."""
CODE_LINE_MAX = 200
"""A longer line of code may be cut (`content check` refuses one): each line is one atom, and it must fit a piece."""
INLINE_CODE = re.compile(f"(?<!`)`([^`\n]{{1,{INLINE_CODE_MAX}}})`(?!`)")
"""An inline code span in raw text: one backtick each side, on one line."""
_FENCED = re.compile(r"^```([A-Za-z0-9_+#.-]{0,30})[ \t]*\n(.*?)\n?^```[ \t]*$", re.MULTILINE | re.DOTALL)
_RENDERED_BLOCK = re.compile(r"^```[^\n]*\n.*?^```(?=\n|\Z)", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True, slots=True)
class CodeBlock:
    """A fenced code block of raw text: its language (may be empty) and its code, without the fences."""

    language: str
    code: str


def code_segments(text: str) -> list[str | CodeBlock]:
    """Raw text split into prose (str) and fenced code blocks, in order; an unclosed fence stays prose."""
    out: list[str | CodeBlock] = []
    position = 0
    for match in _FENCED.finditer(text):
        out.append(text[position : match.start()])
        out.append(CodeBlock(match.group(1), match.group(2)))
        position = match.end()
    out.append(text[position:])
    return [segment for segment in out if segment != ""]


def break_fences(code: str) -> str:
    """Code that cannot close its block: a zero-width space after each backtick that another follows."""
    return re.sub("`(?=`)", "`" + ZWSP, code)


def split_rendered(escaped: str) -> list[tuple[str, bool]]:
    """Rendered text as (part, is a code block) pairs; a block part runs from its opening to its closing fence."""
    out: list[tuple[str, bool]] = []
    position = 0
    for match in _RENDERED_BLOCK.finditer(escaped):
        if match.start() > position:
            out.append((escaped[position : match.start()], False))
        out.append((match.group(), True))
        position = match.end()
    if position < len(escaped):
        out.append((escaped[position:], False))
    return out


def outside_code(escaped: str, change: Callable[[str], str]) -> str:
    """`change` applied to the parts of rendered text that are not code blocks."""
    return "".join(part if code else change(part) for part, code in split_rendered(escaped))


def fenced_atoms(escaped: str, text_atoms: Callable[[str], list[str]]) -> list[str]:
    """Atoms of rendered text: `text_atoms` outside code blocks; in a block, each line with its line break
    (a line longer than CODE_LINE_MAX splits into `text_atoms`)."""
    out: list[str] = []
    for part, code in split_rendered(escaped):
        if not code:
            out += text_atoms(part)
            continue
        for line in part.splitlines(keepends=True):
            out += [line] if len(line) <= CODE_LINE_MAX + 1 else text_atoms(line)
    return out


def _open_fence(head: str) -> str | None:
    """The opening fence line of a code block that `head` leaves open, or None."""
    opener: str | None = None
    for line in head.split("\n"):
        if line.startswith(FENCE):
            opener = line if opener is None else None
    return opener


def plain(text: str) -> str:
    """Text for a field the platform shows as plain text (button labels, footers): only invisibles dropped."""
    return strip_invisible(text)


Atoms = Callable[[str], list[str]]
"""Splits an escaped text into the units that may not be cut apart; joined, they are the text again."""


@dataclass(frozen=True, slots=True)
class Cut:
    """A piece of an escaped text that fits, and the rest (empty when the whole text fitted)."""

    head: str
    tail: str


def cut(text: str, limit: int, atoms: Atoms, *, prefer_within: float = 0.25) -> Cut:
    """The longest head of `text` of at most `limit` characters that ends between two atoms.

    Prefers to end at a line break, then at a space, in the last `prefer_within` of the limit; that separator
    is dropped (it is where one piece ends and the next begins). Without any boundary the head is as many whole
    atoms as fit; it is empty only when the first atom alone is longer than `limit`.

    A code block the head would leave open is closed at the end of the head (within `limit`) and reopened, with
    its language, at the start of the tail; a head that would end just after an opening fence ends before it.
    """
    piece = _cut(text, limit, atoms, prefer_within)
    if _open_fence(piece.head) is None:
        return piece
    piece = _cut(text, limit - len(FENCE) - 1, atoms, prefer_within)
    opener = _open_fence(piece.head)
    if opener is None:
        return piece
    body = text[: len(piece.head)]
    rest = text[len(piece.head) :]
    if body.endswith(opener + "\n") and body[: -len(opener) - 1].strip():
        before = body[: -len(opener) - 1]
        return Cut(before.rstrip(" \n"), text[len(before) :])
    if not body.endswith("\n"):
        body += "\n"
    return Cut(body + FENCE, opener + "\n" + rest)


def _cut(text: str, limit: int, atoms: Atoms, prefer_within: float) -> Cut:
    if len(text) <= limit:
        return Cut(text, "")
    pieces = atoms(text)
    ends: list[int] = []  # ends[i]: the length of the first i + 1 atoms
    total = 0
    for atom in pieces:
        total += len(atom)
        if total > limit:
            break
        ends.append(total)
    if not ends:
        return Cut("", text)
    floor = limit - max(1, int(limit * prefer_within))
    for separator in ("\n", " "):
        for index in range(len(ends) - 1, -1, -1):
            if ends[index] < floor:
                break
            if pieces[index] == separator and index > 0:
                head = text[: ends[index - 1]].rstrip(" ")
                if head:
                    return Cut(head, text[ends[index] :].lstrip(" "))
    return Cut(text[: ends[-1]], text[ends[-1] :])


def clip(text: str, limit: int, atoms: Atoms, marker: str = ELLIPSIS) -> str:
    """Shorten escaped text to at most `limit` characters, ending on an atom boundary, marked with an ellipsis."""
    if len(text) <= limit:
        return text
    return cut(text, limit - len(marker), atoms, prefer_within=0.1).head.rstrip() + marker
