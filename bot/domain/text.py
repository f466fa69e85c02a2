"""Text that shows what it is: invisible characters out, names on one line, spreadsheet cells that stay text.

Zero-width characters make one text look like another ("a\\u200bdmin" shows as "admin") and bidirectional controls
reorder what is shown (an RLO makes "evil.exe\\u202etxt.js" read backwards), so chat output, names and exports drop
them. The two joiners are the exception: U+200D (ZWJ) builds emoji sequences (👩‍💻) and Indic conjuncts, and
U+200C (ZWNJ) is part of Persian and Indic spelling ("می‌خواهم"). Between two such characters (neither of them
ASCII, neither a space) a joiner is kept; anywhere else (next to ASCII, where it could split markup such as
"@\\u200deveryone", or at either end) it is dropped.
"""

from __future__ import annotations

import re

JOINERS = "\u200c\u200d"
"""Zero-width non-joiner and joiner: kept inside words and emoji sequences, dropped elsewhere."""
ZERO_WIDTH = "\u200b" + JOINERS + "\u2060\ufeff"
"""Zero-width space, non-joiner and joiner, word joiner, and the byte-order mark (zero-width no-break space)."""
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
"""Embeddings and overrides (LRE, RLE, PDF, LRO, RLO), isolates (LRI, RLI, FSI, PDI), LRM, RLM and the Arabic
letter mark: all reorder or disguise what is shown without showing themselves."""
INVISIBLE = ZERO_WIDTH + BIDI_CONTROLS

_ALWAYS_DROPPED = re.compile("[" + "".join(c for c in INVISIBLE if c not in JOINERS) + "]")
_JOINER = re.compile(f"[{JOINERS}]+")

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
"""What makes a spreadsheet read a cell as a formula (OWASP's CSV injection guidance)."""


def _joins_words(text: str, start: int, end: int) -> bool:
    """Whether the joiners at text[start:end] sit between two non-ASCII, non-space characters."""
    if start == 0 or end == len(text):
        return False
    before, after = text[start - 1], text[end]
    return not (before.isascii() or after.isascii() or before.isspace() or after.isspace())


def strip_invisible(text: str) -> str:
    """Drop zero-width and bidirectional control characters, so a text shows every character it has; a joiner is
    kept only inside a word or an emoji sequence (see the module)."""
    text = _ALWAYS_DROPPED.sub("", text)
    if not _JOINER.search(text):
        return text
    return _JOINER.sub(lambda m: m.group() if _joins_words(text, m.start(), m.end()) else "", text)


def one_line(text: str) -> str:
    """A name as one line: every run of white space (line and paragraph separators included) becomes one space."""
    return " ".join(text.split())


def display_name(text: str) -> str:
    """A person's name as shown anywhere: no invisible characters, on one line."""
    return one_line(strip_invisible(text))


def formula_safe(text: str) -> str:
    """A CSV cell that a spreadsheet shows as text, never runs: one that starts like a formula (`=`, `+`, `-`, `@`,
    a tab, a line break) gets an apostrophe in front, as OWASP advises; so does one that already starts with an
    apostrophe, so that `spreadsheet_text` gives every cell back exactly."""
    if text.startswith((*FORMULA_TRIGGERS, "\n", "'")):
        return "'" + text
    return text


def spreadsheet_cell(text: str) -> str:
    """Text of an export for a CSV cell: invisibles dropped (as chat output drops them), carriage returns made line
    feeds (a writer ending rows with a line feed leaves a lone carriage return unquoted, and readers end the row
    there), then `formula_safe`."""
    return formula_safe(strip_invisible(text).replace("\r\n", "\n").replace("\r", "\n"))


def whole_number(text: str, *, digits: int = 9) -> int | None:
    """`text` as a whole number written in ASCII digits (`42`), or None: for anything else, for a digit that int()
    refuses or reads as another one (`²` and `٣` pass str.isdigit()), and for more than `digits` digits (int()
    converts at most 4,300 of them, and no number a command or a file asks for is near that long)."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= digits else None


def spreadsheet_text(cell: str) -> str:
    """The text `formula_safe` wrote: its apostrophe taken off again (a cell typed by hand as `'tis` stays)."""
    if cell.startswith("'") and cell[1:].startswith((*FORMULA_TRIGGERS, "\n", "'")):
        return cell[1:]
    return cell
