"""The Slack adapter's own sentences: what a user is told when Slack refused or could not be reached, the
notification text of a card, and the reply to a request Slack sent incomplete (adapters/slack).

A refusal names what the bot was doing by its action's key (`post_card`, ...), and the error code Slack gave.
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.wording.i18n import translate as _

ACTIONS: Mapping[str, str] = {
    "post_card": "post the question",
    "update_card": "update the question",
    "send_private": "send a private reply",
    "send_direct": "send a direct message",
    "open_direct": "open a direct message",
    "look_up_person": "look up a person",
    "post_message": "post a message",
    "upload_charts": "upload the charts",
}
"""What the bot was doing when Slack refused, by the action's key (adapters/slack/platform.py)."""

FRIENDLY_ERRORS: Mapping[str, str] = {
    "not_in_channel": "I am not a member of this channel: invite me with `/invite @quizbot`, then try again",
    "channel_not_found": "I cannot see this channel (private channels need `/invite @quizbot` first)",
    "is_archived": "this channel is archived",
    "missing_scope": "the Slack app lacks a permission; reinstall it from adapters/slack/manifest.yaml",
    "restricted_action": "this workspace does not let me post here",
}
"""What a user is told when Slack refuses with one of these error codes; the raw code follows in parentheses."""


def action(key: str) -> str:
    """What the bot was doing, in words (`post the question`)."""
    return _(ACTIONS[key]) if key in ACTIONS else key


def refused(action_key: str, code: str) -> str:
    """Slack refused a call with `code`: the friendly words for it when there are some, else the action and code."""
    if code in FRIENDLY_ERRORS:
        return _("{friendly} ({code})", friendly=_(FRIENDLY_ERRORS[code]), code=code)
    return _("Slack refused to {action}: {code}", action=action(action_key), code=code)


def unreachable(action_key: str) -> str:
    """Slack could not be reached for a call."""
    return _("could not reach Slack to {action}; please try again", action=action(action_key))


def incomplete_request() -> str:
    """The reply to a slash command or click that Slack sent without what it needs."""
    return _("Sorry, Slack sent an incomplete request, so I could not act on it. Please try again.")


def card_notification(prompt: str) -> str:
    """The text a notification or screen reader shows for a question card."""
    return _("Quiz: {prompt}", prompt=prompt)


def reveal_notification(answer: str, prompt: str) -> str:
    """The text a notification or screen reader shows for a revealed card."""
    return _("Answer: {answer} (question: {prompt})", answer=answer, prompt=prompt)
