"""Forms: what the core asks a person to fill in (a question to write, a channel's settings), platform-neutral.

A handler replies with `Reply.form` to open one; each adapter shows it its way (Slack a modal through
`views.open`, Discord a modal, the terminal asks field by field) and sends what was typed back through
`QuizCore.submit_form` with the form's `kind` and `state`. The core turns a submission into a command (so the
command's permission is checked as for a typed one) and replies either with a message, or with the same form
again carrying `errors` (one line per field key, and the values as typed): Slack answers the submission with
`response_action: errors`, Discord re-opens its modal with what was typed, the terminal asks again.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

MAX_FIELDS = 5
"""Fields in one form at most: a Discord modal holds five text inputs."""
MAX_TITLE = 24
"""A form's title at most, in characters (a Slack modal's title limit; Discord allows 45)."""
MAX_LABEL = 45
"""A field's label at most, in characters (Discord's limit for a text input's label)."""
MAX_STATE = 80
"""A form's `state` at most, in characters: it rides in a Discord custom_id (100) beside the form's kind."""
MAX_VALUE = 4000
"""A field's value at most, in characters (Discord's and Slack's limit for a text input)."""


class FormKind(enum.Enum):
    """Which form a submission answers; each adapter carries it through the platform (a callback_id, a
    custom_id) and hands it back."""

    WRITE_QUESTION = "write"
    """`/quiz write [pack]`: a question to submit as a draft (bot/service/handlers/drafts.py)."""
    EDIT_DRAFT = "edit-draft"
    """A lead's Edit of a draft in `/quiz drafts`: the same fields, prefilled; `state` is the draft's id."""
    SETTINGS = "settings"
    """`/quiz settings`: a channel's or the workspace's settings; `state` says which."""


@dataclass(frozen=True, slots=True)
class FormField:
    """One text input of a form."""

    key: str
    """What the core calls this field (the submission's values are keyed by it; errors too)."""
    label: str
    """What a person reads above the input (at most MAX_LABEL characters)."""
    value: str = ""
    """Prefilled text: what was typed before a refused submission, or a setting's current value."""
    hint: str = ""
    """A placeholder shown while the input is empty."""
    multiline: bool = False
    required: bool = True
    max_length: int = MAX_VALUE


@dataclass(frozen=True, slots=True)
class Form:
    """A form to open, or to open again with `errors` after a refused submission."""

    kind: FormKind
    title: str
    submit: str
    """The submit button's label."""
    fields: tuple[FormField, ...]
    state: str = ""
    """Opaque to adapters, handed back on submit (a pack id, a draft id, `channel`/`workspace`)."""
    errors: Mapping[str, str] = field(default_factory=dict)
    """A one-line problem per field key; empty when the form is opened fresh. A problem that belongs to no one
    field is keyed by the first field's key."""

    def __post_init__(self) -> None:
        if not 0 < len(self.fields) <= MAX_FIELDS:
            raise ValueError(f"fields={len(self.fields)} (1..{MAX_FIELDS})")
        if len(self.state) > MAX_STATE:
            raise ValueError(f"len(state)={len(self.state)} (..{MAX_STATE})")

    def with_values(self, values: Mapping[str, str], errors: Mapping[str, str]) -> Form:
        """The same form prefilled with what was typed, carrying the problems found in it."""
        fields = tuple(
            FormField(f.key, f.label, values.get(f.key, f.value), f.hint, f.multiline, f.required, f.max_length)
            for f in self.fields
        )
        return Form(self.kind, self.title, self.submit, fields, self.state, dict(errors))
