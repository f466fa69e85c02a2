"""Platform-neutral text safety: invisible characters out, and cutting escaped text only where it is safe.

Every adapter neutralises names and pack text for its own markup (`adapters.discord.markup`,
`adapters.slack.markup`); both first drop the characters that make one text look like another
(`bot.domain.text.strip_invisible`: zero-width characters and bidirectional controls; a joiner is kept only
inside a word or an emoji sequence). The neutralisers then mark up their own structure with a few zero-width
spaces; since content can carry none, each of those is known to be ours.

Escaped text is cut (to fit a platform limit) only between "atoms": an escape sequence such as `\\_` or `&amp;`,
a kept code span or URL, is one atom, so a cut never leaves half of one in each piece.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.domain.text import BIDI_CONTROLS, INVISIBLE, ZERO_WIDTH, strip_invisible

__all__ = [
    "BIDI_CONTROLS",
    "ELLIPSIS",
    "INVISIBLE",
    "ZERO_WIDTH",
    "ZWSP",
    "Cut",
    "clip",
    "cut",
    "plain",
    "strip_invisible",
]

ZWSP = "\u200b"
"""What the neutralisers insert to break markup (`@\u200beveryone`); never left in content by strip_invisible."""

ELLIPSIS = "…"


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
    """
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
