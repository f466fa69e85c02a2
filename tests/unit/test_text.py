"""Names and exports that show what they are: `bot.domain.text`."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from adapters.discord import markup as discord_markup
from adapters.slack import markup as slack_markup
from bot.domain.text import display_name, spreadsheet_cell, spreadsheet_text, strip_invisible

FAMILY = "👩\u200d👩\u200d👧"
CODER = "👩\u200d💻"
PERSIAN = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # "I want": the non-joiner is part of its spelling
DEVANAGARI = "\u0915\u094d\u200d\u0937"  # a half form: the joiner picks it


def test_joiners_inside_emoji_sequences_and_words_are_kept() -> None:
    for text in (FAMILY, CODER, PERSIAN, DEVANAGARI, f"Dev {CODER} and {FAMILY}", "❤\ufe0f\u200d🔥"):
        assert strip_invisible(text) == text


def test_joiners_that_could_hide_markup_or_disguise_a_name_are_dropped() -> None:
    assert strip_invisible("a\u200dd\u200cmin") == "admin"
    assert strip_invisible("@\u200deveryone") == "@everyone"
    assert strip_invisible("*\u200cbold\u200c*") == "*bold*"
    assert strip_invisible("\u200d👩") == "👩" and strip_invisible("👩\u200d") == "👩"
    assert strip_invisible("👩 \u200d💻") == "👩 💻"


def test_both_markups_keep_a_joined_emoji_whole() -> None:
    assert discord_markup.unescape(discord_markup.escape(CODER)) == CODER
    assert slack_markup.unescape(slack_markup.neutralise(PERSIAN)) == PERSIAN


def test_a_display_name_is_one_visible_line() -> None:
    assert display_name("Eve\n1. Mallory\r\n\u2028x\u2029y\x85z\tq") == "Eve 1. Mallory x y z q"
    assert display_name("  a\u200bdmin\u202e ") == "admin"


def test_spreadsheet_cells_never_start_like_a_formula() -> None:
    for hostile in ('=HYPERLINK("https://evil.example/x","click me")', "+cmd|' /C calc'!A0", "@SUM(1)", "-2+3", "\tx"):
        assert spreadsheet_cell(hostile) == "'" + hostile
    assert spreadsheet_cell("\r=1+1") == "'\n=1+1"  # a lone carriage return would end the row for a reader
    assert spreadsheet_cell("plain text") == "plain text"
    assert spreadsheet_cell("a\u200bb\u202ec") == "abc"


@given(st.text())
def test_spreadsheet_text_reads_back_what_spreadsheet_cell_wrote(text: str) -> None:
    cell = spreadsheet_cell(text)
    assert not cell.startswith(("=", "+", "-", "@", "\t", "\r", "\n"))
    assert "\r" not in cell
    assert spreadsheet_text(cell) == strip_invisible(text).replace("\r\n", "\n").replace("\r", "\n")
