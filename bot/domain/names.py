"""Matching what someone typed against a set of names: did-you-mean suggestions, and names by unique prefix.

The grammar suggests the nearest subcommand, option or timezone; the catalog resolves a pack typed in any case or
by the start of its id. Both use these two functions, so "nearest" means the same everywhere.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

SUGGESTIONS = 3
"""At most this many names are suggested for a miss."""


MARGIN = 0.1
"""A suggestion must be about as close as the closest one: a clear best match is suggested alone."""

WORD_MAX = 200
"""The longest word compared at all: a longer one is near no name (difflib's work grows with the word's length, and
a 900 KB word once held the event loop for seconds), so it gets no suggestion and costs nothing."""


def nearest(word: str, names: Iterable[str], *, n: int = SUGGESTIONS, cutoff: float = 0.6) -> list[str]:
    """The names closest to `word` (case-insensitive, difflib's ratio), closest first; [] when none is close.

    Only names within MARGIN of the closest are kept, so `modle-pipeline-parallelism` suggests
    `model-pipeline-parallelism` and not every other `...-parallelism`.
    """
    if len(word) > WORD_MAX:
        return []
    by_fold = {name.casefold(): name for name in names}
    folded = word.casefold()
    matcher = difflib.SequenceMatcher(b=folded)
    scored: list[tuple[float, str]] = []
    for candidate in by_fold:
        matcher.set_seq1(candidate)
        if matcher.real_quick_ratio() >= cutoff and matcher.quick_ratio() >= cutoff and matcher.ratio() >= cutoff:
            scored.append((matcher.ratio(), candidate))
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    best = scored[0][0] if scored else 0.0
    return [by_fold[name] for score, name in scored[:n] if score >= best - MARGIN]


@dataclass(frozen=True, slots=True)
class NameMatch:
    """What `match_name` found: the one name meant, or the names a prefix fits (ambiguous), or near misses."""

    found: str | None = None
    candidates: tuple[str, ...] = ()
    """More than one name starts with the word: the user must say which."""
    suggestions: tuple[str, ...] = ()
    """No name is meant; these are close (possibly none)."""


def match_name(word: str, names: Iterable[str]) -> NameMatch:
    """The name `word` means: exact, else the same in another case, else the only name it is a prefix of.

    Case is ignored throughout; several names sharing the prefix are `candidates`, none at all gives `suggestions`.
    """
    known = list(dict.fromkeys(names))
    if word in known:
        return NameMatch(found=word)
    folded = word.casefold()
    same = [name for name in known if name.casefold() == folded]
    if len(same) == 1:
        return NameMatch(found=same[0])
    starting = same or [name for name in known if folded and name.casefold().startswith(folded)]
    if len(starting) == 1:
        return NameMatch(found=starting[0])
    if starting:
        return NameMatch(candidates=tuple(starting))
    return NameMatch(suggestions=tuple(nearest(word, known)))
