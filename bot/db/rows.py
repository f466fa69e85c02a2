"""What a statement's result says about the rows it touched."""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import CursorResult


def rows_changed(result: Any) -> int:
    """How many rows an UPDATE or DELETE matched: the outcome of a conditional (fenced) update."""
    return int(cast(CursorResult[Any], result).rowcount)
