"""Help and the list of packs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.ports import Message
from bot.wording.i18n import translate as _

if TYPE_CHECKING:  # the catalog raises with the words below, so the words import it for annotations only
    from bot.content import Catalog


def packs_message(catalog: Catalog, *, left_out: Sequence[str] = ()) -> Message:
    """The loaded packs and, for admins (`left_out`), the pack files that did not load and why."""
    lines = [
        _("{id} — {title} ({count} questions)", id=pack.id, title=pack.title, count=len(pack.questions))
        for pack in catalog.packs
    ] or [_("No packs are loaded.")]
    if left_out:
        lines.append(_("Not loaded (fix the file, check it with `quizbot content check`, then restart the bot):"))
        lines.extend(f"• {problem}" for problem in left_out)
    return Message(title=_("Quiz packs"), lines=tuple(lines))


def help_message(lines: Sequence[str]) -> Message:
    """The help text."""
    return Message(title=_("quizbot commands"), lines=tuple(lines))


def unknown_pack(pack_id: str, known: Sequence[str]) -> str:
    """A pack id that is not loaded, with the ones that are."""
    return _("There is no pack called `{pack}`. Packs: {known}.", pack=pack_id, known=", ".join(known) or _("none"))
