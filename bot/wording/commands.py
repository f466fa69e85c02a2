"""The words of the `/quiz` grammar: what a refusal says was tried, and why typed text could not be used."""

from __future__ import annotations

from bot.wording.i18n import translate as _


def action_words(action: str) -> str:
    """What a refused command tried (`add schedules`), in the reader's language (the English is the route's)."""
    return _(action)
