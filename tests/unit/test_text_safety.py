"""The neutralisers: reversible, bounded, and no cut ever splits an escape sequence or an entity."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from adapters.discord import markup as discord_markup
from adapters.slack import markup as slack_markup
from adapters.text_safety import INVISIBLE, cut, strip_invisible
from tests.render_limits_support import assert_no_discord_markup_from

_PIECES = list("ab _*~|>`&<[]()@#-+:/1.\n\\") + list(INVISIBLE) + ["https://x.y/a_b", "`/quiz now`", "@here", "](u)"]
_HOSTILE = st.lists(st.sampled_from(_PIECES), max_size=80).map("".join)


def test_invisible_and_bidi_characters_are_dropped() -> None:
    assert strip_invisible("a\u200bd\u200cm\u200di\u2060n\ufeff") == "admin"
    assert strip_invisible("\u202aa\u202bb\u202cc\u202dd\u202ee\u2066f\u2067g\u2068h\u2069i\u200ej\u200fk\u061cl") == (
        "abcdefghijkl"
    )


@given(_HOSTILE)
def test_discord_escaping_is_reversible_bounded_and_leaves_no_markup(text: str) -> None:
    escaped = discord_markup.escape(text)
    assert discord_markup.unescape(escaped) == strip_invisible(text)
    assert len(escaped) <= 2 * len(text)
    assert not any(ch in INVISIBLE for ch in escaped)
    assert "".join(discord_markup.atoms(escaped)) == escaped
    assert discord_markup.guard_line_starts(escaped) == escaped  # idempotent on escaped text
    assert_no_discord_markup_from(escaped)
    # Formatting characters are escaped, or inside a URL or a code span that needs no escaping.
    for atom in discord_markup.atoms(escaped):
        if len(atom) == 1:
            assert atom not in "\\*_~|`<", escaped


@given(_HOSTILE)
def test_slack_neutralising_is_reversible_and_leaves_no_markup(text: str) -> None:
    neutral = slack_markup.neutralise(text)
    assert slack_markup.unescape(neutral) == strip_invisible(text)
    assert "<" not in neutral and ">" not in neutral
    assert "".join(slack_markup.atoms(neutral)) == neutral
    assert slack_markup.guard_line_starts(neutral) == neutral
    for atom in slack_markup.atoms(neutral):
        if len(atom) == 1:
            assert atom not in "*_~`&", neutral  # bare: it would format; guarded ones are atoms of their own
    assert not re.search(r"(?im)^\s*&gt;", neutral)  # no line starts a quote
    outside_code = "".join(a for a in slack_markup.atoms(neutral) if not (len(a) > 1 and a.startswith("`")))
    assert not re.search(r"(?i)@(here|channel|everyone)\b", outside_code)  # inside `code` it is shown as written


@given(_HOSTILE, st.integers(min_value=1, max_value=60))
def test_cuts_fall_between_atoms_only(text: str, limit: int) -> None:
    for escaped, atoms in (
        (discord_markup.escape(text), discord_markup.atoms),
        (slack_markup.neutralise(text), slack_markup.atoms),
    ):
        piece = cut(escaped, limit, atoms)
        assert len(piece.head) <= limit
        assert escaped.startswith(piece.head) and escaped.endswith(piece.tail)
        boundaries = {0}
        total = 0
        for atom in atoms(escaped):
            total += len(atom)
            boundaries.add(total)
        assert len(piece.head) in boundaries  # never inside an escape pair, entity, guard, URL or code span
        assert len(escaped) - len(piece.tail) in boundaries
        # Nothing is lost but the space or line break where the cut was made.
        assert re.sub(r"\s", "", piece.head + piece.tail) == re.sub(r"\s", "", escaped)
        if piece.tail:
            assert piece.head or len(atoms(escaped)[0]) > limit
