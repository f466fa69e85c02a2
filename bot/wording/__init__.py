"""Every sentence a user or operator sees is built here, one module per area, through one translation hook.

Modules: answers (click replies), cards (question cards and reveals), boards (leaderboards), me (`/quiz me`),
help (help, one command in full, and packs), cohorts, review, schedules, times (rules, durations, local times),
reports, errors, commands (the `/quiz` grammar's refusals and hints), rules (the schedule-rule grammar's), and
content, imports and formats (what is wrong with a pack or an imported file: the words of content's Problems,
read back from data by problems).
Handlers and adapters never write user text: they call these functions and get a `Message` (a title and lines)
that an adapter styles; services raise with a message built here, or a key
and values worded here at the edge (CommandError, Problem). `translate` is the hook a later locale support
plugs into; `plural`, `how_often` and `percent` are the shared number words; `echo` quotes what a user typed,
capped.
"""

from __future__ import annotations

from bot.wording.i18n import echo, how_often, percent, plural, translate, use_translator

__all__ = ["echo", "how_often", "percent", "plural", "translate", "use_translator"]
