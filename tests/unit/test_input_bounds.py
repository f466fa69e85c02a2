"""What the grammar and the did-you-mean matcher agree to read: a bounded command text and a bounded word."""

from __future__ import annotations

import difflib
import shlex
from typing import Any

import pytest

from bot.commands import COMMAND_TEXT_MAX, parse_command
from bot.domain.names import WORD_MAX, nearest
from bot.errors import CommandError


def test_a_command_text_over_the_bound_is_refused_before_it_is_split(monkeypatch: pytest.MonkeyPatch) -> None:
    split: list[int] = []
    real = shlex.split

    def spy(text: str, *args: Any, **kwargs: Any) -> list[str]:
        split.append(len(text))
        return real(text, *args, **kwargs)

    monkeypatch.setattr(shlex, "split", spy)
    with pytest.raises(CommandError) as refused:
        parse_command("help " + "x" * 900_000)
    assert str(refused.value) == (
        "That command is too long to read (more than 8,000 characters). `/quiz help` lists the commands."
    )
    assert split == []
    with pytest.raises(CommandError, match="There is no command"):
        parse_command("help " + "x" * (COMMAND_TEXT_MAX - 5))  # at the bound: read as before


def test_the_matcher_never_compares_a_word_over_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    compared: list[int] = []

    class Matcher(difflib.SequenceMatcher[str]):
        def set_seq2(self, b: Any) -> None:
            compared.append(len(b))
            super().set_seq2(b)

    monkeypatch.setattr(difflib, "SequenceMatcher", Matcher)
    assert nearest("leaderbord" + "x" * 900_000, ["leaderboard", "help"]) == []
    assert all(length <= WORD_MAX for length in compared)
    assert nearest("leaderbord", ["leaderboard", "help"]) == ["leaderboard"]
