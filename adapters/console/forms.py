"""Forms in the terminal: a reply's `form` is asked field by field, then sent to `QuizCore.submit_form`.

Each field is asked on a line of its own: its label, its hint, and its current value in [brackets], which Enter
keeps. A field of several lines (`multiline`) is typed over as many lines as needed and ends with an empty line or a
line holding only a dot (`.`); an empty first line keeps its current value. A required field left empty, or an answer
longer than the field allows, is asked again at once. `/cancel`, or the end of input (Ctrl-D), leaves the form with
one line and sends nothing. When the core refuses the submission, its problems are printed one line per field and
only the fields in error are asked again, with what was typed as their value; the others keep theirs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.domain.forms import Form, FormField
from bot.wording import forms as words

CANCEL = "/cancel"
END_OF_FIELD = "."


@dataclass
class FormSession:
    """A form being filled in at the terminal: the fields still to ask, and the values so far."""

    form: Form
    ask: list[FormField]
    values: dict[str, str]
    buffer: list[str] | None = field(default=None)
    """The lines typed so far of a field of several lines (None between fields)."""

    @classmethod
    def start(cls, form: Form) -> FormSession:
        """Ask every field of a fresh form; after a refused submission, only the fields in error (the first field
        for a problem that names none)."""
        values = {f.key: f.value for f in form.fields}
        if not form.errors:
            return cls(form, list(form.fields), values)
        keys = {f.key for f in form.fields}
        wrong = {key if key in keys else form.fields[0].key for key in form.errors}
        return cls(form, [f for f in form.fields if f.key in wrong], values)

    @property
    def done(self) -> bool:
        """Every field asked has its answer."""
        return not self.ask

    @property
    def current(self) -> FormField:
        """The field being asked."""
        return self.ask[0]

    def prompt(self) -> str:
        """The question for the current field, or the continuation mark of a field of several lines."""
        if self.buffer is not None:
            return "... "
        f = self.current
        return words.terminal_field(f.label, f.hint, self.values[f.key], multiline=f.multiline, required=f.required)

    def feed(self, line: str) -> str | None:
        """One line typed for the current field; a problem to print (the field is asked again), else None."""
        f = self.current
        if not f.multiline:
            return self._set(f, line.strip() or self.values[f.key])
        ends = line.strip() in {"", END_OF_FIELD}
        if self.buffer is None:
            if ends:  # nothing typed: keep the current value
                return self._set(f, self.values[f.key])
            self.buffer = [line]
            return None
        if not ends:
            self.buffer.append(line)
            return None
        text, self.buffer = "\n".join(self.buffer), None
        return self._set(f, text)

    def _set(self, f: FormField, text: str) -> str | None:
        if f.required and not text.strip():
            return words.terminal_required(f.label)
        if len(text) > f.max_length:
            return words.terminal_too_long(f.label, f.max_length)
        self.values[f.key] = text
        self.ask.pop(0)
        return None
