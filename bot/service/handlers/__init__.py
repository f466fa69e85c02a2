"""One handler per command, and the one table from command type to handler with its permission beside it.

A handler is a plain async function `(command, context, uow, *, <dependencies>) -> Reply`: the dispatcher
(`QuizApp.execute`) opens the unit of work, checks the route's permission in it, and calls the handler, which
commits when it writes. Dependencies are keyword-only parameters, bound by name at start-up (`bind_routes`),
as cosmicpython's bootstrap injects them. The handlers live by area (questions and boards, cohorts, review,
schedules, flags, seasons), each module registering its own with `@handles` (routing.py). Adding a command: its
dataclass and spec in bot/commands.py, its words in bot/wording/, and a handler in its area's module registered
with `@handles(TheCommand)`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.commands import ACCESS
from bot.commandspec import Permission
from bot.service.handlers import cohorts, drafts, flags, questions, review, roles, schedules, seasons
from bot.service.handlers.routing import (
    REGISTERED,
    Handler,
    RevealPost,
    Route,
    ask_to_confirm,
    bind_routes,
    check_permission,
    handles,
)

AREAS = (questions, cohorts, review, schedules, flags, seasons, roles, drafts)
"""The handler modules; importing them registers their handlers."""

COMMAND_HANDLERS: Mapping[type[Any], Route] = {
    kind: Route(handler, ACCESS[kind].permission, ACCESS[kind].action) for kind, handler in REGISTERED.items()
}
"""Every command the core runs: its handler (registered by `@handles`), and from its spec (bot/commands.py SPECS)
who may run it and what a refusal names."""

__all__ = [
    "AREAS",
    "COMMAND_HANDLERS",
    "Handler",
    "Permission",
    "RevealPost",
    "Route",
    "ask_to_confirm",
    "bind_routes",
    "check_permission",
    "handles",
]
