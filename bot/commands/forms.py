"""Forms and buttons as commands: what a submitted form (`FormKind`) or a clicked page button (`ActionKind`)
stands for, so that it runs through the dispatcher like a typed command, with its permission checked.

A new form or button adds its builder here; its handler is the command's, in bot/service/handlers/.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from bot.commands.types import Command
from bot.domain.forms import FormKind
from bot.ports import ActionKind

FormCommand = Callable[[str, Mapping[str, str]], Command]
"""A form's command, from its state and the values typed (by field key)."""
ActionCommand = Callable[[str], Command]
"""A button's command, from its value."""

FORM_COMMANDS: dict[FormKind, FormCommand] = {}
"""The command each form's submission runs (a form with none is answered "not available here")."""
ACTION_COMMANDS: dict[ActionKind, ActionCommand] = {}
"""The command each page button's click runs (START_REVIEW is the adapters' own: it asks `/quiz review`)."""

# Registered where their commands are declared (imported with bot.commands): the write and edit forms and the
# review queue's Approve, Edit and Reject buttons, in bot/commands/drafts.py.
