"""Every sentence a user or operator sees is built here, one module per area, through one translation hook.

Modules: answers (click replies), cards (question cards and reveals), boards (leaderboards), me (`/quiz me`),
help (help and packs), cohorts, review, schedules, times (rules, durations, local times), reports, errors, and
commands (the grammar's words). Handlers and adapters never write user text: they call these functions and get
a `Message` (a title and lines) that an adapter styles; services raise with a message built here. `translate` is the
hook a later locale support plugs into; `plural` and `percent` are the shared number words.
"""

from __future__ import annotations

from bot.wording.i18n import echo, how_often, percent, plural, translate, use_translator

__all__ = ["echo", "how_often", "percent", "plural", "translate", "use_translator"]
