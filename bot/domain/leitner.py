"""Leitner boxes for reviewing missed questions: where an item goes after a review answer (pure rules)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

BOX_INTERVALS: tuple[timedelta, ...] = (
    timedelta(minutes=10),
    timedelta(days=1),
    timedelta(days=3),
    timedelta(days=7),
    timedelta(days=21),
)
"""How long a question waits in box 1, 2, ... before it is due again. Right in the last box retires it."""
LAST_BOX = len(BOX_INTERVALS)


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a review item goes after an answer."""

    box: int
    due_at: datetime
    retired: bool


def place_after_review(box: int, *, correct: bool, now: datetime) -> Placement:
    """Leitner: wrong -> box 1, due soon; right -> next box, due later; right in the last box -> retired."""
    if not correct:
        return Placement(box=1, due_at=now + BOX_INTERVALS[0], retired=False)
    if box >= LAST_BOX:
        return Placement(box=LAST_BOX, due_at=now, retired=True)
    return Placement(box=box + 1, due_at=now + BOX_INTERVALS[box], retired=False)
