"""A test form and test page buttons, wired into a running core for the adapters' form tests, so they do not depend
on the commands that use forms (`/quiz write`, `/quiz settings`, `/quiz drafts`).

`form_routes(runtime)` registers, for the test's duration only, a command for the SETTINGS form and for the draft
buttons (bot/commands/forms.py `FORM_COMMANDS`, `ACTION_COMMANDS`), and routes `/quiz help` (ShowHelp) to a handler
that opens the note form (`/quiz help`), shows a page with buttons (`/quiz help packs`), and answers the
submissions and clicks those registrations turn into ShowHelp commands: a name shorter than 3 characters or an
empty text comes back as the form with errors; a good one is "saved" (kept in `NoteBook.saved`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from bot.commands import ShowHelp
from bot.commands.forms import ACTION_COMMANDS, FORM_COMMANDS
from bot.domain.forms import Form, FormField, FormKind
from bot.ports import Action, ActionKind, Line, Message, Page, Section
from bot.runtime import Runtime
from bot.service.facade import Context, Reply
from bot.service.handlers.routing import Route

NOTE_FORM = Form(
    FormKind.SETTINGS,
    "Write a team note",
    "Save",
    (
        FormField("name", "Name", hint="3 to 40 characters", max_length=40),
        FormField("body", "Text", hint="Several lines are fine", multiline=True),
        FormField("tags", "Tags", value="general", required=False),
    ),
    state="channel",
)
DRAFTS_PAGE = Page(
    "Drafts to review",
    (Section("Draft #7", (Line("What does a mutex protect?"),)), Section("Draft #8", (Line("What is a deadlock?"),))),
    Message("Drafts to review", ("#7 What does a mutex protect?", "#8 What is a deadlock?")),
    (
        Action(ActionKind.APPROVE_DRAFT, "Approve #7", "7"),
        Action(ActionKind.EDIT_DRAFT, "Edit #7", "7"),
        Action(ActionKind.REJECT_DRAFT, "Reject #7", "7"),
        Action(ActionKind.APPROVE_DRAFT, "Approve #8", "8"),
        Action(ActionKind.EDIT_DRAFT, "Edit #8", "8"),
        Action(ActionKind.REJECT_DRAFT, "Reject #8", "8"),
    ),
)
SUBMITTED = "form:"
CLICKED = "act:"


@dataclass
class NoteBook:
    """What the test handler saw: good submissions saved, and the clicks it ran."""

    saved: list[tuple[str, dict[str, str], str]] = field(default_factory=list)
    """(state, values, who) of each good submission."""
    clicks: list[tuple[str, str, str]] = field(default_factory=list)
    """(kind, value, who) of each click."""


def _submitted(state: str, values: Mapping[str, str]) -> ShowHelp:
    return ShowHelp(topic=SUBMITTED + json.dumps({"state": state, "values": dict(values)}))


def _clicked(kind: ActionKind) -> Any:
    return lambda value: ShowHelp(topic=f"{CLICKED}{kind.value}:{value}")


def _handler(book: NoteBook) -> Any:
    async def handle(command: ShowHelp, context: Context, uow: Any) -> Reply:
        topic = command.topic
        if topic is None:
            return Reply(Message("Fill in the note form."), form=NOTE_FORM)
        if topic == "packs":
            return Reply(DRAFTS_PAGE.message, page=DRAFTS_PAGE)
        if topic.startswith(SUBMITTED):
            sent = json.loads(topic[len(SUBMITTED) :])
            values: dict[str, str] = sent["values"]
            form = NOTE_FORM if sent["state"] == "channel" else _edit_form(sent["state"])
            errors = {}
            if len(values.get("name", "").strip()) < 3:
                errors["name"] = "A name needs at least 3 characters."
            if not values.get("body", "").strip():
                errors["body"] = "Write some text."
            if errors:
                again = form.with_values(values, errors)
                return Reply(Message("Not saved: fix the fields marked."), ok=False, form=again)
            book.saved.append((sent["state"], values, context.user.display_name))
            return Reply(Message(f"Saved the note {values['name']}."))
        if topic.startswith(CLICKED):
            kind, value = topic[len(CLICKED) :].split(":", 1)
            book.clicks.append((kind, value, context.user.display_name))
            if kind == ActionKind.EDIT_DRAFT.value:
                return Reply(Message(f"Edit draft #{value}."), form=_edit_form(value))
            return Reply(Message(f"Done: {kind} #{value}."))
        return Reply(Message("help"))

    return handle


def _edit_form(draft: str) -> Form:
    fields = tuple(
        FormField(f.key, f.label, f"draft {draft}" if f.key == "name" else f.value, f.hint, f.multiline, f.required)
        for f in NOTE_FORM.fields
    )
    return Form(FormKind.EDIT_DRAFT, "Edit a draft", "Save", fields, state=draft)


@contextmanager
def form_routes(runtime: Runtime) -> Iterator[NoteBook]:
    """The test form and buttons wired into `runtime` (see the module's docstring); everything restored after."""
    book = NoteBook()
    forms, actions = dict(FORM_COMMANDS), dict(ACTION_COMMANDS)
    route = runtime.app.routes[ShowHelp]
    FORM_COMMANDS[FormKind.SETTINGS] = _submitted
    FORM_COMMANDS[FormKind.EDIT_DRAFT] = _submitted
    for kind in (ActionKind.APPROVE_DRAFT, ActionKind.EDIT_DRAFT, ActionKind.REJECT_DRAFT):
        ACTION_COMMANDS[kind] = _clicked(kind)
    runtime.app.routes[ShowHelp] = Route(_handler(book), route.permission, route.action)
    try:
        yield book
    finally:
        runtime.app.routes[ShowHelp] = route
        FORM_COMMANDS.clear()
        FORM_COMMANDS.update(forms)
        ACTION_COMMANDS.clear()
        ACTION_COMMANDS.update(actions)
