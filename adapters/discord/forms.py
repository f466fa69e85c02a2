"""Forms and page buttons on Discord: a reply's `form` is answered with a modal (up to five text inputs), its
submission goes to `QuizCore.submit_form`, and a page button (`Action` with a value) to `QuizCore.act`.

A modal's custom_id is `quiz:f:{kind}:{state}` (at most 98 characters: the form's state is at most 80), each text
input's custom_id the field's key. Modals are never kept by discord.py (each is stopped before it is sent): a
submission is recognised by its custom_id in `QuizClient.on_interaction`, so one submitted after a restart still
counts.

Discord cannot answer a modal's submission with another modal. When the core refuses a submission (the form comes
back with `errors`) the answer is a private message listing the problems, one line per field, with a "Fix it"
button that opens the modal again prefilled with what was typed (the fields in error marked ⚠). What was typed
does not fit a custom_id, so it is kept here, in memory, under a short random token (`FormStore`): for
`KEPT_MINUTES`, at most `KEPT_FORMS` of them (the oldest forgotten first). After a restart, or later than that, "Fix
it" says the form expired and to run the command again; nothing else is lost (nothing was stored by the refused
submission). The same button ("Open the form") stands in for a modal that could not be opened at once: an answer
deferred because the core was slow can no longer be a modal.

Page buttons are `ActionButton`s, dynamic items with custom_id `quiz:act:{kind}:{value}`, so they work after a
restart like the answer buttons (adapters/discord/buttons.py).
"""

from __future__ import annotations

import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import discord

from adapters.discord import limits
from adapters.text_safety import plain
from bot.domain.forms import Form, FormField, FormKind
from bot.ports import Action
from bot.wording import forms as words

MODAL_TITLE = 45
"""A modal's title: at most 45 characters (https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-response-object-modal)."""
INPUT_LABEL = 45
PLACEHOLDER = 100
INPUT_VALUE = 4000
"""A text input's value and max_length: at most 4000 (https://discord.com/developers/docs/components/reference#text-input)."""

FORM_PREFIX = "quiz:f:"
FORM_PATTERN = re.compile(r"quiz:f:(?P<kind>[a-z-]{1,20}):(?P<state>[^\n]{0,80})")
ACTION_TEMPLATE = r"quiz:act:(?P<kind>[a-z-]{1,20}):(?P<value>[^\n]{0,64})"
FIX_TEMPLATE = r"quiz:fix:(?P<token>[A-Za-z0-9_-]{8,32})"

KEPT_MINUTES = 30
"""How long what was typed into a refused form is kept for its "Fix it" button."""
KEPT_FORMS = 5_000
"""At most this many refused forms are kept (a few MB at most: five fields of at most 4000 characters each)."""


def form_custom_id(form: Form) -> str:
    """`quiz:f:{kind}:{state}`: what a submission hands back (the state is at most 80 characters)."""
    custom_id = f"{FORM_PREFIX}{form.kind.value}:{form.state}"
    if len(custom_id) > limits.CUSTOM_ID:  # pragma: no cover - Form bounds its state
        raise ValueError(f"len(custom_id)={len(custom_id)}")
    return custom_id


def form_modal(form: Form) -> discord.ui.Modal:
    """The modal of a form: a text input per field, prefilled, the fields in error marked; finished before it is
    sent, so discord.py keeps nothing (the submission is read by its custom_id: `read_submission`)."""
    modal = discord.ui.Modal(title=plain(form.title)[:MODAL_TITLE] or "·", custom_id=form_custom_id(form), timeout=None)
    for field in form.fields:
        modal.add_item(_text_input(field, flagged=field.key in form.errors))
    modal.stop()
    return modal


def _text_input(field: FormField, *, flagged: bool) -> discord.ui.TextInput[Any]:
    label = words.flagged_label(field.label) if flagged else field.label
    max_length = max(1, min(field.max_length, INPUT_VALUE))
    return discord.ui.TextInput(
        label=plain(label)[:INPUT_LABEL] or "·",
        custom_id=field.key[: limits.CUSTOM_ID],
        style=discord.TextStyle.paragraph if field.multiline else discord.TextStyle.short,
        placeholder=plain(field.hint)[:PLACEHOLDER] or None,
        default=field.value[:max_length] or None,
        required=field.required,
        max_length=max_length,
    )


@dataclass(frozen=True, slots=True)
class Submission:
    """A modal's submission, taken apart: the form's kind and state, and what was typed by field key."""

    kind: FormKind
    state: str
    values: dict[str, str]


def read_submission(data: Mapping[str, Any]) -> Submission | None:
    """A MODAL_SUBMIT's form (its interaction data), or None when its custom_id is not one of ours."""
    match = FORM_PATTERN.fullmatch(str(data.get("custom_id", "")))
    if match is None:
        return None
    try:
        kind = FormKind(match["kind"])
    except ValueError:
        return None
    values = {
        str(component["custom_id"]): str(component.get("value") or "")
        for component in _inputs(data.get("components"))
        if component.get("custom_id") is not None
    }
    return Submission(kind, match["state"], values)


def _inputs(components: Any) -> Iterator[Mapping[str, Any]]:
    """Every text input of a submission: inside action rows, or inside labels (Discord's newer modal layout)."""
    for component in components if isinstance(components, list) else []:
        if not isinstance(component, Mapping):
            continue
        if component.get("type") == discord.ComponentType.text_input.value:
            yield component
        yield from _inputs(component.get("components"))
        child = component.get("component")
        if isinstance(child, Mapping):
            yield from _inputs([child])


@dataclass(frozen=True, slots=True)
class KeptForm:
    """A form kept for its "Fix it" button: for whom, and until when (monotonic seconds)."""

    form: Form
    user_id: str
    until: float


class FormStore:
    """Forms to open again from a button, by a short random token; in memory, for `KEPT_MINUTES` (see the module)."""

    def __init__(
        self, *, minutes: int = KEPT_MINUTES, size: int = KEPT_FORMS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.minutes = minutes
        self.size = size
        self.clock = clock
        self._kept: OrderedDict[str, KeptForm] = OrderedDict()

    def keep(self, form: Form, user_id: str) -> str:
        """Keep a form for `user_id`; the token its button carries."""
        now = self.clock()
        while self._kept and (len(self._kept) >= self.size or next(iter(self._kept.values())).until <= now):
            self._kept.popitem(last=False)
        token = secrets.token_urlsafe(12)
        self._kept[token] = KeptForm(form, user_id, now + self.minutes * 60)
        return token

    def get(self, token: str) -> KeptForm | None:
        """The form kept under `token`, unless it expired (or never was: a restart, a forged button)."""
        kept = self._kept.get(token)
        if kept is None or kept.until <= self.clock():
            return None
        return kept

    def __len__(self) -> int:
        return len(self._kept)


class FormHandler(Protocol):
    """What a page button's or a "Fix it" click is handed to (the adapter)."""

    async def act_click(self, interaction: discord.Interaction[discord.Client], kind: str, value: str) -> None:
        """Run the page button's action through the core and answer the clicker."""
        ...

    async def fix_click(self, interaction: discord.Interaction[discord.Client], token: str) -> None:
        """Open the kept form again, prefilled."""
        ...


def _label_of(item: discord.ui.Item[Any]) -> str:
    return (item.label if isinstance(item, discord.ui.Button) else None) or "?"


_STYLES = {
    "approve-draft": discord.ButtonStyle.success,
    "reject-draft": discord.ButtonStyle.danger,
}


class ActionButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=ACTION_TEMPLATE):
    """A page button (a draft's Approve, Edit or Reject): its kind and value travel in its custom_id."""

    def __init__(self, kind: str, value: str, *, label: str = "?", row: int | None = None) -> None:
        super().__init__(
            discord.ui.Button(
                label=plain(label)[: limits.BUTTON_LABEL] or "·",
                style=_STYLES.get(kind, discord.ButtonStyle.secondary),
                custom_id=f"quiz:act:{kind}:{value}"[: limits.CUSTOM_ID],
                row=row,
            )
        )
        self.kind = kind
        self.value = value

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[discord.Client],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> ActionButton:
        """Rebuild the button from a clicked message's custom_id (the kind is checked when it is run)."""
        return cls(match["kind"], match["value"], label=_label_of(item))

    async def callback(self, interaction: discord.Interaction[discord.Client]) -> None:
        """Hand the click to the adapter that owns this client."""
        handler: FormHandler | None = getattr(interaction.client, "adapter", None)
        if handler is not None:
            await handler.act_click(interaction, self.kind, self.value)


class FixButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=FIX_TEMPLATE):
    """ "Fix it" under a refused submission, or "Open the form": opens a kept form again (`FormStore`)."""

    def __init__(self, token: str, *, label: str = "?") -> None:
        super().__init__(
            discord.ui.Button(
                label=plain(label)[: limits.BUTTON_LABEL] or "·",
                style=discord.ButtonStyle.primary,
                custom_id=f"quiz:fix:{token}",
            )
        )
        self.token = token

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[discord.Client],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> FixButton:
        """Rebuild the button from a clicked message's custom_id."""
        return cls(match["token"], label=_label_of(item))

    async def callback(self, interaction: discord.Interaction[discord.Client]) -> None:
        """Hand the click to the adapter that owns this client."""
        handler: FormHandler | None = getattr(interaction.client, "adapter", None)
        if handler is not None:
            await handler.fix_click(interaction, self.token)


def fix_view(token: str, label: str) -> discord.ui.View:
    """The one button that opens a kept form again; finished before it is sent (a dynamic item: see buttons.py)."""
    view = discord.ui.View(timeout=None)
    view.add_item(FixButton(token, label=label))
    view.stop()
    return view


def action_buttons(actions: tuple[Action, ...], first_row: int) -> list[ActionButton]:
    """A page's buttons other than the review's, a row for each value's (a draft's Approve, Edit and Reject side by
    side), at most five to a row and five rows to a message (Discord's limits; the rest are left off)."""
    buttons: list[ActionButton] = []
    row, in_row, last_value = first_row - 1, limits.BUTTONS_PER_ROW, None
    for action in actions:
        if action.value != last_value or in_row >= limits.BUTTONS_PER_ROW:
            row, in_row, last_value = row + 1, 0, action.value
        if row >= limits.ROWS:
            break
        buttons.append(ActionButton(action.kind.value, action.value[:64], label=action.label, row=row))
        in_row += 1
    return buttons
