"""The name the read side (stats.py) and bench/ still import the rollups' windows by; the click path's batched
statements live, with their SQL, in repositories/scores.py. Import from there in new code."""

from bot.service.repositories.scores import ROLLUP_WINDOWS, period_start

__all__ = ["ROLLUP_WINDOWS", "period_start"]
