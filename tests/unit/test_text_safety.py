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


# --- code: fenced blocks and inline spans render natively ------------------------------------------------

_C = "```c\nint *p = &x; /* <!channel> @everyone ``` <@123> [a](b) \\n */\n- **p > 1;\n```"


def test_discord_keeps_a_code_block_as_written_with_its_language() -> None:
    escaped = discord_markup.escape(f"Read:\n{_C}\nThen *this*.")
    assert escaped == (
        "Read:\n```c\nint *p = &x; /* <!channel> @everyone `\u200b`\u200b` <@123> [a](b) \\n */\n- **p > 1;\n```"
        "\nThen \\*this\\*."
    )  # nothing escaped in the code (no `\*`, no `\-` at a line start), but its ``` cannot close the block
    assert discord_markup.unescape(escaped) == f"Read:\n{_C}\nThen *this*."


def test_slack_shows_a_code_block_as_a_mrkdwn_block_that_nothing_escapes() -> None:
    neutral = slack_markup.neutralise(f"Read:\n{_C}\nThen *this*.")
    assert neutral == (
        "Read:\n```\nint *p = &amp;x; /* &lt;!channel&gt; @\u200beveryone `\u200b`\u200b` &lt;@123&gt; [a](b) \\n */"
        "\n- **p &gt; 1;\n```\nThen \u200b*\u200bthis\u200b*\u200b."
    )  # `*` stays `*`; `<`, `>` and `&` escaped (Slack reads them in code too); no mention, no early close


def test_inline_code_is_kept_as_code_on_both_platforms() -> None:
    assert discord_markup.escape("Use `a*b<@1>` not *a*") == "Use `a*b<@1>` not \\*a\\*"
    assert slack_markup.neutralise("Use `a*b<!here>`") == "Use `a\u200b*\u200bb&lt;!here&gt;`"
    assert discord_markup.atoms("x `a*b`") == ["x", " ", "`a*b`"]  # one atom: a cut never opens it


def test_an_unclosed_fence_is_escaped_as_text() -> None:
    assert discord_markup.escape("```c\nint *p;") == "\\`\\`\\`c\nint \\*p;"


def test_a_cut_inside_a_code_block_falls_between_lines_and_closes_and_reopens_it() -> None:
    lines = [f"  line {i} * x" for i in range(40)]
    text = "Intro.\n```py\n" + "\n".join(lines) + "\n```\nEnd."
    for escaped, atoms in (
        (discord_markup.escape(text), discord_markup.atoms),
        (slack_markup.neutralise(text), slack_markup.atoms),
    ):
        pieces = []
        rest = escaped
        while rest:
            piece = cut(rest, 150, atoms)
            assert len(piece.head) <= 150 and piece.head
            pieces.append(piece.head)
            rest = piece.tail
        assert len(pieces) > 3
        shown: list[str] = []
        for head in pieces:
            fences = [line for line in head.split("\n") if line.startswith("```")]
            assert len(fences) % 2 == 0, head  # every piece is whole blocks
            shown += [line for line in head.split("\n") if line.startswith("  line")]
        assert shown == lines  # every line whole, in order, its indentation kept


_CODE_PIECES = [*_PIECES, "```", "```c\n", "\n```\n", "\n```", "  ", "x"]
_HOSTILE_CODE = st.lists(st.sampled_from(_CODE_PIECES), max_size=80).map("".join)


@given(_HOSTILE_CODE, st.integers(min_value=20, max_value=200))
def test_text_with_code_blocks_stays_safe_and_cuts_keep_blocks_whole(text: str, limit: int) -> None:
    for escaped, atoms, guard in (
        (discord_markup.escape(text), discord_markup.atoms, discord_markup.guard_line_starts),
        (slack_markup.neutralise(text), slack_markup.atoms, slack_markup.guard_line_starts),
    ):
        assert "".join(atoms(escaped)) == escaped
        assert guard(escaped) == escaped
        rest = escaped
        for _ in range(200):
            if not rest:
                break
            piece = cut(rest, limit, atoms)
            assert len(piece.head) <= limit
            if not piece.head:
                break
            fences = [line for line in piece.head.split("\n") if line.startswith("```")]
            assert len(fences) % 2 == 0, piece
            rest = piece.tail
    assert_no_discord_markup_from(discord_markup.escape(text))
    assert "<" not in slack_markup.neutralise(text)
