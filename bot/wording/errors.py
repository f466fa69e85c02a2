"""The one line a user sees when something went wrong, by error category (bot/errors.py)."""

from __future__ import annotations

from bot.ports import Message
from bot.wording.i18n import translate as _

SOMETHING_WENT_WRONG = "Something went wrong on our side; it has been logged. Please try again."
DATABASE_DOWN = "Could not reach the quiz database; nothing was changed. Please try again."
RESTARTING = "The quiz bot is restarting; nothing was recorded. Please click again in a moment."
UNKNOWN_POST = "That question no longer exists (it may have been removed). Try `/quiz now`."
CLICK_NOT_RECORDED = "Could not record your answer, please try again."
UNKNOWN_BUTTON = (
    "That button is not one I know (not a quiz answer I understand; it may come from an older quiz). "
    "Post a fresh question with `/quiz now`."
)
BUTTON_NOT_ON_MESSAGE = (
    "That button is not on this question any more (the message may have changed). "
    "Use the buttons you see on it now, or post a fresh question with `/quiz now`."
)
POSTED_IN_CHANNEL = "Posted in the channel."
POSTED_ELSEWHERE = (
    "That question was posted in another workspace or channel, so your answer was not recorded. "
    "Answer it where it was posted, or post one here with `/quiz now`."
)


def unexpected() -> Message:
    """An error we did not expect (logged with its traceback)."""
    return Message(_(SOMETHING_WENT_WRONG))


def database_down() -> Message:
    """The database could not be reached: the same words on every platform and path."""
    return Message(_(DATABASE_DOWN))


def platform_refused(detail: str) -> Message:
    """A chat platform refused a call the command made."""
    return Message(_("The chat platform refused that: {detail}", detail=detail))


def not_available_here() -> str:
    """A command this bot has no handler for (e.g. schedules with no scheduler wired)."""
    return _("That command is not available here.")


def admins_only(what: str) -> str:
    """Why a non-admin may not `what` (e.g. `add schedules`)."""
    return _("Only workspace admins can {what}; nothing was changed. Ask an admin of this workspace.", what=what)


def click_not_recorded() -> Message:
    """A click the database could not take (down, or the bot is busy): the same words on every platform."""
    return Message(_(CLICK_NOT_RECORDED))


def unknown_button() -> Message:
    """A click on a button that is not one of ours (forged, or from a message we no longer understand)."""
    return Message(_(UNKNOWN_BUTTON))


def button_not_on_message() -> Message:
    """A click naming one of our buttons that the clicked message does not have (stale or forged)."""
    return Message(_(BUTTON_NOT_ON_MESSAGE))


def posted_elsewhere() -> str:
    """A click whose button belongs to a question of another workspace or channel than where it was clicked."""
    return _(POSTED_ELSEWHERE)


def not_your_question() -> str:
    """A click on a question that was sent privately to someone else."""
    return _(
        "That question was sent privately to another member of the cohort, so your answer was not recorded. "
        "Your own cohort questions come to you directly."
    )


def posted_in_channel() -> Message:
    """The short answer to a command whose effect is already visible in the channel."""
    return Message(_(POSTED_IN_CHANNEL))
