"""Confirmations of destructive commands: the prompts, the buttons, and what a click (or `y/N`) is told."""

from __future__ import annotations

from datetime import timedelta

from bot.domain.views import ScheduleView
from bot.ports import Message
from bot.wording.i18n import plural
from bot.wording.i18n import translate as _
from bot.wording.times import rule_words


def expires_in(ttl: timedelta) -> str:
    """`The buttons work for 2 minutes, and only for Ann.`"""
    seconds = int(ttl.total_seconds())
    span = plural(seconds // 60, "minute") if seconds % 60 == 0 else plural(seconds, "second")
    return _("Only you can confirm, within {span}.", span=span)


def delete_cohort_prompt(name: str, members: int) -> Message:
    """What `/quiz cohort delete NAME` asks first."""
    return Message(
        _("Delete cohort {name} and its board ({members})?", name=name, members=plural(members, "member")),
        (_("Answers stay and still count everywhere else. This can't be undone."),),
    )


def delete_cohort_label() -> str:
    """The confirm button of `/quiz cohort delete`."""
    return _("Delete the cohort")


def remove_schedule_prompt(view: ScheduleView) -> Message:
    """What `/quiz schedule remove ID` asks first."""
    return Message(
        _(
            "Remove schedule #{id} ({rule}, {timezone})?",
            id=view.id,
            rule=rule_words(view.rule),
            timezone=view.timezone,
        ),
        (_("Questions already posted stay; no more are posted by it."),),
    )


def remove_schedule_label() -> str:
    """The confirm button of `/quiz schedule remove`."""
    return _("Remove the schedule")


def cancel_label() -> str:
    """The cancel button of every confirmation."""
    return _("Cancel")


def cancelled() -> Message:
    """A confirmation answered No (or Cancel)."""
    return Message(_("Cancelled: nothing was changed."))


def only_they_can_confirm(name: str) -> str:
    """Someone else clicked a confirmation's button."""
    return _("Only {name} can confirm this; nothing was changed.", name=name)


def expired(ttl: timedelta) -> str:
    """A click after the confirmation expired."""
    return _(
        "This confirmation expired (they last {span}); nothing was changed. Run the command again.",
        span=plural(max(1, int(ttl.total_seconds()) // 60), "minute"),
    )


def already_answered(outcome: str | None) -> str:
    """A second click on a confirmation."""
    if outcome == "confirmed":
        return _("This was already confirmed; it is done.")
    if outcome == "cancelled":
        return _("This was already cancelled; nothing was changed. Run the command again to redo it.")
    return _("This was already answered by another click; nothing more was done.")


def unknown() -> str:
    """A confirmation token the bot does not know (forged, or from another database)."""
    return _("I don't know this confirmation; nothing was changed. Run the command again.")


def terminal_question(label: str) -> str:
    """The terminal's y/N question after a prompt."""
    return _("{label}? [y/N] ", label=label)


def not_a_terminal() -> str:
    """`quizbot forget-user` without `--yes` when stdin is not a terminal."""
    return _("forget-user deletes data and needs confirmation: pass --yes to run it without a terminal.")


def forget_user_question(user: str, workspace: str) -> str:
    """The question `quizbot forget-user` asks before deleting."""
    return _(
        "Delete everything stored about {user} in {workspace} (answers, scores, review, memberships)? [y/N] ",
        user=user,
        workspace=workspace,
    )


def forget_user_cancelled() -> str:
    """`quizbot forget-user` answered anything but yes."""
    return _("Cancelled: nothing was deleted.")
