"""Platform-neutral text safety: invisible characters out, and cutting escaped text only where it is safe.

Every adapter neutralises names and pack text for its own markup (`adapters.discord.markup`,
`adapters.slack.markup`); both first drop the characters that make one text look like another: zero-width
characters ("a\u200bdmin" shows as "admin") and bidirectional controls (an RLO makes "evil.exe\u202etxt.js"
read backwards). The neutralisers then mark up their own structure with a few zero-width spaces; since content
can carry none, each of those is known to be ours.

Escaped text is cut (to fit a platform limit) only between "atoms": an escape sequence such as `\\_` or `&amp;`,
a kept code span or URL, is one atom, so a cut never leaves half of one in each piece.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"
"""Zero-width space, non-joiner and joiner, word joiner, and the byte-order mark (zero-width no-break space)."""
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
"""Embeddings and overrides (LRE, RLE, PDF, LRO, RLO), isolates (LRI, RLI, FSI, PDI), LRM, RLM and the Arabic
letter mark: all reorder or disguise what is shown without showing themselves."""
INVISIBLE = ZERO_WIDTH + BIDI_CONTROLS

ZWSP = "\u200b"
"""What the neutralisers insert to break markup (`@\u200beveryone`); never left in content by strip_invisible."""

_INVISIBLE = re.compile(f"[{INVISIBLE}]")
ELLIPSIS = "…"


def strip_invisible(text: str) -> str:
    """Drop zero-width and bidirectional control characters, so a name shows every character it has."""
    return _INVISIBLE.sub("", text)


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
