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


# --- for the operator: settings, doctor, start ---------------------------------------------------------------------

SETTING_DESCRIPTIONS: Mapping[str, str] = {
    "slack_port": "HTTP mode port (0: any free port).",
    "slack_api_url": "Web API base URL (tests point it at a fake).",
    "slack_admin_user_ids": "Slack user ids that are quiz admins besides workspace admins and owners.",
    "slack_ack_deadline": "Seconds a click's ack waits for its answer to be committed; past it the click is acked "
    "and answered once recorded (Slack allows 3 s).",
}
"""What each documented QUIZBOT_SLACK_* setting holds, by its field."""


def setting_description(field: str) -> str:
    """The description of a Slack setting (`slack_port`)."""
    return _(SETTING_DESCRIPTIONS[field])


def bot_token_required() -> str:
    """An app token or signing secret without the bot token."""
    return _("QUIZBOT_SLACK_BOT_TOKEN is required when a Slack app token or signing secret is set")


def app_token_shape() -> str:
    """An app token that is not an app-level token."""
    return _("QUIZBOT_SLACK_APP_TOKEN must be an app-level token starting with xapp-")


def check_bot_token() -> str:
    """The doctor's name for its check of the bot token."""
    return _("Slack bot token")


def check_app_token() -> str:
    """The doctor's name for its check of the app-level token (Socket Mode)."""
    return _("Slack app token")


def check_mode() -> str:
    """The doctor's name for its check of the mode (Socket or HTTP)."""
    return _("Slack mode")


def check_signing_secret() -> str:
    """The doctor's name for its check of the signing secret."""
    return _("Slack signing secret")


def bot_token_looks_right() -> str:
    """The doctor: the bot token has a bot token's shape."""
    return _("looks like a bot token (xoxb-)")


def bot_token_wrong_shape() -> str:
    """The doctor: the bot token is not a bot token."""
    return _("QUIZBOT_SLACK_BOT_TOKEN does not start with xoxb-")


def bot_token_fix() -> str:
    """Where a bot token comes from."""
    return _("copy the Bot User OAuth Token from your Slack app's OAuth & Permissions page")


def socket_mode() -> str:
    """The doctor: the settings select Socket Mode."""
    return _("Socket Mode (app-level token set)")


def http_mode(port: int) -> str:
    """The doctor: the settings select HTTP mode."""
    return _("HTTP mode on port {port}", port=port)


def signing_secret_wrong_shape() -> str:
    """The doctor: the signing secret is not one."""
    return _("QUIZBOT_SLACK_SIGNING_SECRET is not 32 hexadecimal characters")


def signing_secret_fix() -> str:
    """Where a signing secret comes from."""
    return _("copy the Signing Secret from your Slack app's Basic Information page")


def no_mode() -> str:
    """The doctor: a bot token with neither an app token nor a signing secret."""
    return _("a bot token is set but neither an app token nor a signing secret")


def no_mode_fix() -> str:
    """How to choose a mode."""
    return _("set QUIZBOT_SLACK_APP_TOKEN (xapp-..., Socket Mode) or QUIZBOT_SLACK_SIGNING_SECRET (HTTP mode)")


def start_refused_fix() -> str:
    """What to do when Slack refused the tokens at start."""
    return _(
        "copy the Bot User OAuth Token (xoxb-...) from your Slack app's OAuth & Permissions page, and for Socket "
        "Mode an app-level token (xapp-...) with connections:write into QUIZBOT_SLACK_APP_TOKEN"
    )


def start_unreachable_fix() -> str:
    """What to do when Slack could not be reached at start."""
    return _("check the network, the proxy variables (HTTPS_PROXY) and QUIZBOT_SLACK_API_URL if you set it")


def adapter_needs_bot_token() -> str:
    """The adapter started without a bot token."""
    return _("the Slack adapter needs QUIZBOT_SLACK_BOT_TOKEN (xoxb-...)")


def adapter_needs_mode() -> str:
    """The adapter started with neither an app token nor a signing secret."""
    return _(
        "the Slack adapter needs QUIZBOT_SLACK_APP_TOKEN (Socket Mode) or QUIZBOT_SLACK_SIGNING_SECRET (HTTP mode)"
    )


def token_refused(setting: str, error: str) -> str:
    """Slack refused a token at start."""
    return _("Slack refused {setting}: {error}", setting=setting, error=error)


def slack_unreachable(url: str, reason: str) -> str:
    """Slack could not be reached at start."""
    return _("could not reach Slack at {url}: {reason}", url=url, reason=reason)


def app_token_fix() -> str:
    """What to do when Slack refused the app-level token."""
    return _(
        "copy an app-level token (xapp-...) with the connections:write scope from your Slack app's Basic "
        "Information page, and turn Socket Mode on for the app"
    )
