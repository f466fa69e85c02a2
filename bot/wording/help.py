"""Help and the list of packs."""

from __future__ import annotations

from collections.abc import Sequence

from bot.content import Catalog
from bot.ports import Message
from bot.wording.i18n import translate as _


def packs_message(catalog: Catalog) -> Message:
    """The loaded packs."""
    lines = [
        _("{id} — {title} ({count} questions)", id=pack.id, title=pack.title, count=len(pack.questions))
        for pack in catalog.packs
    ]
    return Message(title=_("Quiz packs"), lines=tuple(lines) or (_("No packs are loaded."),))


def help_message(lines: Sequence[str]) -> Message:
    """The help text."""
    return Message(title=_("quizbot commands"), lines=tuple(lines))
