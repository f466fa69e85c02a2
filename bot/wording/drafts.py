"""Drafts and workspace packs: `/quiz write` (the form and its problems), `/quiz drafts` (the review queue, approve,
edit, reject), the author's private word of the outcome, and a team pack's refusals."""

from __future__ import annotations

from bot.wording.i18n import echo
from bot.wording.i18n import translate as _

# --- workspace packs --------------------------------------------------------------------------------------------


def bad_pack_slug(slug: str) -> str:
    """A team pack name that is no slug."""
    return _(
        "`{slug}` cannot name a pack: use lower-case letters, digits and dashes (at most 48), "
        "e.g. `team` or `runbooks`.",
        slug=echo(slug),
    )


def shipped_pack(slug: str) -> str:
    """A team pack name that is a shipped pack's id."""
    return _(
        "`{slug}` is a shipped pack: your team's questions go in a pack of its own; pick another name, e.g. `team`.",
        slug=echo(slug),
    )
