"""Points for an answer: a correct answer scores, a faster one scores more, within a bounded range."""

from __future__ import annotations

from datetime import timedelta

BASE_POINTS = 10
MAX_SPEED_BONUS = 10
DEFAULT_WINDOW = timedelta(hours=1)


def points_for(*, correct: bool, latency: timedelta, window: timedelta | None, speed: bool = True) -> int:
    """10 points for a correct answer plus up to 10 for speed, falling linearly to 0 over the answer window.

    The window is the post's open time to its close time (one hour when it has no close time). A wrong
    answer scores 0, so points are always in 0 or 10..20. Without `speed` (a channel's `speed-points` setting is
    `off`) a correct answer scores 10 however long it took.
    """
    if not correct:
        return 0
    if not speed:
        return BASE_POINTS
    span = window if window and window > timedelta(0) else DEFAULT_WINDOW
    remaining = 1.0 - max(latency, timedelta(0)) / span
    return BASE_POINTS + round(MAX_SPEED_BONUS * min(max(remaining, 0.0), 1.0))
