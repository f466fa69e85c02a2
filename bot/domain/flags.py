"""Flags on questions ("Report a problem"): the reason's rules, and the results the flag use cases return.

A person flags a question once (flagging again updates the reason); a question flagged by at least the pause
threshold of people in a workspace leaves that workspace's rotation until an admin clears its flags. Pure data and
rules: the use cases are in bot/service/flags.py, their words in bot/wording/flags.py.
"""

from __future__ import annotations

import enum
import unicodedata
from dataclasses import dataclass
from datetime import datetime

from bot.domain import Tally

REASON_MAX = 500
"""The longest reason a flag keeps, in characters; a longer one is cut, marked with an ellipsis."""
DEFAULT_PAUSE_THRESHOLD = 3
"""How many people of a workspace must flag a question before it is paused (QUIZBOT_FLAG_PAUSE_THRESHOLD)."""

_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’"}


def visible_line(text: str) -> str:
    """`text` as one line of visible characters: control, zero-width and bidirectional formatting characters
    dropped (they can hide or reorder what a reader sees, or drive a terminal), whitespace runs made one space."""
    kept = "".join(" " if ch.isspace() else ch for ch in text if ch.isspace() or unicodedata.category(ch)[0] != "C")
    return " ".join(kept.split())


def flag_reason(text: str | None) -> str | None:
    """A flag's reason as stored and shown: a `visible_line` of at most REASON_MAX characters; None if empty.

    One pair of quotes around the whole is taken off. Markup (mentions, links) is left to each adapter's escaping,
    as for every other text a person wrote.
    """
    if text is None:
        return None
    line = visible_line(text)
    if len(line) >= 2 and _QUOTES.get(line[0]) == line[-1]:
        line = line[1:-1].strip()
    if len(line) > REASON_MAX:
        line = line[: REASON_MAX - 1].rstrip() + "…"
    return line or None


class FlagOutcome(enum.StrEnum):
    """What flagging did."""

    RECORDED = "recorded"
    """A new flag (or one flagged again after an admin cleared it)."""
    REASON_UPDATED = "reason-updated"
    """The person had flagged it already; the reason they gave now replaces the old one."""
    ALREADY_FLAGGED = "already-flagged"
    """The person had flagged it already and gave no new reason: nothing changed."""


@dataclass(frozen=True, slots=True)
class FlagResult:
    """A flag as recorded: the question it is on, its reason, and where the question stands now."""

    outcome: FlagOutcome
    pack_id: str
    key: str
    prompt: str
    reason: str | None
    open_flags: int
    """People of the workspace whose flags on the question are open (not cleared), this one included."""
    threshold: int

    @property
    def paused(self) -> bool:
        """Whether the question is out of rotation in this workspace."""
        return self.open_flags >= self.threshold


@dataclass(frozen=True, slots=True)
class FlagReason:
    """One person's flag as an admin reads it."""

    name: str
    reason: str | None
    flagged_at: datetime


@dataclass(frozen=True, slots=True)
class FlaggedQuestion(Tally):
    """A question with open flags: who flagged it and why, and how its answers went (in the same scope)."""

    pack_id: str
    pack_title: str
    key: str
    number: int
    prompt: str
    flags: int
    reasons: tuple[FlagReason, ...]
    answered: int
    correct: int
    paused_in: int = 0
    """In how many of the workspaces read it has reached the pause threshold (one workspace: 0 or 1)."""
    active: bool = True
    """False when its pack no longer has it (edited away): its flags are history."""

    @property
    def paused(self) -> bool:
        """Whether it is out of rotation somewhere."""
        return self.paused_in > 0


@dataclass(frozen=True, slots=True)
class FlagsCleared:
    """What `/quiz flags clear` did: how many open flags it cleared on which question."""

    pack_id: str
    key: str
    prompt: str
    cleared: int
