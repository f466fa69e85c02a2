"""Forms and page buttons as each platform shows them: what a form that cannot be opened, a stale or forged form or
button, a refused submission and the terminal's field-by-field questions say (bot/domain/forms.py)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.domain.forms import Form
from bot.ports import Message
from bot.wording.i18n import plural
from bot.wording.i18n import translate as _


def unknown_form() -> Message:
    """A submitted form that is not one of ours (forged, or from an older version of the bot)."""
    return Message(_("That form is not one I know (it may come from an older version). Run the command again."))


def form_expired(minutes: int) -> Message:
    """A "Fix it" click on Discord whose typed values are gone: kept in memory only, for a while."""
    return Message(
        _(
            "That form has expired (what was typed is kept for {span}, and not across a restart of the bot). "
            "Run the command again.",
            span=plural(minutes, "minute"),
        )
    )


def not_your_form() -> Message:
    """A "Fix it" click by someone other than the person who filled the form in."""
    return Message(_("That form is someone else's; run the command yourself to get your own."))


def form_not_opened() -> str:
    """Said after a form's own words when the platform could not open it (Slack's trigger expired)."""
    return _("The form could not be opened in time; run the command again.")


def fix_it() -> str:
    """The button under a refused Discord submission that opens the form again with what was typed."""
    return _("Fix it")


def open_form() -> str:
    """The button that opens a form Discord could not open at once (the answer took too long)."""
    return _("Open the form")


def cancel() -> str:
    """A Slack modal's close button."""
    return _("Cancel")


def problems(form: Form) -> Message:
    """A refused submission where the form itself cannot show its problems (Discord, the terminal): one line per
    field, in the form's order, as `Label: problem`."""
    labels = {field.key: field.label for field in form.fields}
    order = [field.key for field in form.fields]
    keys = sorted(form.errors, key=lambda key: order.index(key) if key in order else len(order))
    lines = tuple(_("{label}: {problem}", label=labels.get(key, key), problem=form.errors[key]) for key in keys)
    return Message(_("Please fix {count} in {title}:", count=plural(len(keys), "field"), title=form.title), lines)


def flagged_label(label: str) -> str:
    """A Discord text input's label when its value was refused (a modal cannot show errors under a field)."""
    return _("⚠ {label}", label=label)


# --- the terminal ----------------------------------------------------------------------------------


def terminal_form_intro(title: str, multiline: bool) -> Sequence[str]:
    """What the terminal says before asking a form's fields one by one."""
    lines = [_("📝 {title}: answer each field (Enter keeps the value in [brackets]; /cancel stops).", title=title)]
    if multiline:
        lines.append(_("   Fields of several lines end with an empty line or a line holding only a dot (.)."))
    return lines


def terminal_field(label: str, hint: str, value: str, *, multiline: bool, required: bool) -> str:
    """The question for one field: its label, its hint, its current value as the default."""
    parts = [label]
    if not required:
        parts.append(_("(optional)"))
    if hint:
        parts.append(_("({hint})", hint=hint.replace("\n", " ⏎ ")))
    if value:
        shown = value if not multiline else value.replace("\n", " ⏎ ")
        parts.append(_("[{value}]", value=shown))
    if multiline:
        parts.append(_("(several lines)"))
    return " ".join(parts) + ": "


def terminal_required(label: str) -> str:
    """An empty answer to a required field."""
    return _("{label} is required; type something, or /cancel.", label=label)


def terminal_too_long(label: str, limit: int) -> str:
    """An answer longer than the field allows."""
    return _("{label} takes at most {limit} characters; type it shorter.", label=label, limit=limit)


def terminal_ask_again() -> str:
    """Before the fields in error are asked again."""
    return _("Fix the fields above (what you typed is the default):")


def terminal_cancelled() -> str:
    """A form left with /cancel or the end of input: nothing was sent."""
    return _("Form cancelled: nothing was sent.")


def terminal_buttons(count: int) -> str:
    """Before a page's buttons, numbered for `/press N`."""
    return _("Buttons ({count}): type /press N to press one.", count=count)


def terminal_button(number: int, label: str) -> str:
    """One numbered button of a page."""
    return _("  /press {number}  {label}", number=number, label=label)


def terminal_no_button(count: int) -> str:
    """`/press N` with no such button on the last page shown."""
    if count == 0:
        return _("There is no button to press: the last reply had none.")
    return _("Press a button from 1 to {count} (the last page's buttons).", count=count)
