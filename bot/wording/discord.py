"""The Discord adapter's own sentences: what a user is told when Discord refused or the connection is closed, the
reply to a command the bot no longer knows, and the operator's words (settings, `quizbot discord`, the doctor,
a start Discord refused) (adapters/discord).

A refusal names what the bot was doing by its action's key (`post_card`, ...), and what Discord answered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.wording.i18n import translate as _

ACTIONS: Mapping[str, str] = {
    "post_card": "post a question",
    "update_card": "update the question",
    "send_direct": "send a direct message",
    "open_direct": "open a direct message",
    "post_message": "post a message",
}
"""What the bot was doing when Discord refused, by the action's key (adapters/discord/platform.py)."""

OUT_OF_SYNC = (
    "This command does not match what the bot knows; the commands may have changed. "
    "An admin can run `quizbot discord sync` to update them."
)
"""The reply to a slash command whose options no longer match the bot's (a template: `out_of_sync()` words it)."""


def action(key: str) -> str:
    """What the bot was doing, in words (`post a question`)."""
    return _(ACTIONS[key]) if key in ACTIONS else key


def forbidden(action_key: str) -> str:
    """Discord refused for want of permissions in the channel."""
    return _(
        "I may not {action} here; give me View Channel, Send Messages and Embed Links in this channel.",
        action=action(action_key),
    )


def no_direct_messages() -> str:
    """Discord refused a direct message: the user does not take them from the bot."""
    return _("The user does not accept direct messages from the bot.")


def gone(action_key: str) -> str:
    """The channel or message is no longer there."""
    return _("Could not {action}: the channel or message no longer exists.", action=action(action_key))


def answered(action_key: str, status: int, details: str | None) -> str:
    """Discord answered a call with an error status."""
    return _(
        "Could not {action}: Discord answered {status} ({details}).",
        action=action(action_key),
        status=status,
        details=details or _("no details"),
    )


def card_title() -> str:
    """The title of a card whose prompt cannot be its title (too long, or a code block): the prompt leads the text."""
    return _("Question")


def attach_files() -> str:
    """The Attach Files permission, as Discord's server settings name it (the charts need it)."""
    return _("Attach Files")


def connection_closed() -> str:
    """A call after the connection to Discord was closed."""
    return _("The Discord connection is closed.")


def out_of_sync() -> str:
    """The reply to a slash command whose options no longer match the bot's."""
    return _(OUT_OF_SYNC)


# --- for the operator: settings, start, `quizbot discord`, doctor --------------------------------------------------

SETTING_DESCRIPTIONS: Mapping[str, str] = {
    "discord_guild_id": "Sync slash commands to this guild only.",
    "discord_shard_count": "Total shards of the bot (default: as many as Discord recommends).",
    "discord_shard_ids": "The shards this process runs (comma-separated); needs the shard count.",
    "discord_admin_role_id": "Members with this role may run admin commands (besides Manage Server).",
    "discord_ack_deadline": "Seconds an interaction's response waits for the core (a click: its committed answer); "
    "past it the interaction is deferred and answered when done. Discord allows 3 s, of which 1 s is kept for the "
    "response's own round trip.",
}
"""What each documented QUIZBOT_DISCORD_* setting holds, by its field."""


def setting_description(field: str) -> str:
    """The description of a Discord setting (`discord_guild_id`)."""
    return _(SETTING_DESCRIPTIONS[field])


def shard_ids_need_count() -> str:
    """QUIZBOT_DISCORD_SHARD_IDS without QUIZBOT_DISCORD_SHARD_COUNT."""
    return _("QUIZBOT_DISCORD_SHARD_IDS needs QUIZBOT_DISCORD_SHARD_COUNT (the total over all processes)")


def shard_ids_out_of_range(count: int, ids: Sequence[int]) -> str:
    """Shard numbers that are not below the shard count (or none at all)."""
    return _(
        "QUIZBOT_DISCORD_SHARD_IDS must list shard numbers from 0 to {last} (QUIZBOT_DISCORD_SHARD_COUNT - 1); "
        "got {ids}",
        last=count - 1,
        ids=ids,
    )


def check_token() -> str:
    """The doctor's name for its checks of the token."""
    return _("Discord token")


def check_intents() -> str:
    """The doctor's name for its check of the privileged intents."""
    return _("Discord intents")


def check_permissions() -> str:
    """The doctor's name for its check of the bot's permissions in each server."""
    return _("Discord permissions")


def check_guild() -> str:
    """The doctor's name for its check of QUIZBOT_DISCORD_GUILD_ID."""
    return _("Discord guild")


def token_looks_right() -> str:
    """The doctor: the token has a bot token's shape."""
    return _("has the shape of a bot token")


def token_wrong_shape() -> str:
    """The doctor: the token is not shaped as a bot token."""
    return _("QUIZBOT_DISCORD_TOKEN does not look like a bot token (three dot-separated parts)")


def token_shape_fix() -> str:
    """Where a bot token comes from."""
    return _("reset and copy the token on the Bot page of your application in the Discord Developer Portal")


INTENT_SWITCHES: Mapping[str, str] = {
    "members": "Server Members Intent",
    "presences": "Presence Intent",
    "message_content": "Message Content Intent",
}
"""The Developer Portal's switch for each privileged intent, as the Portal names it."""


def intent_switch(intent: str) -> str:
    """The Developer Portal's switch that turns `intent` on."""
    return _(INTENT_SWITCHES[intent])


def start_refused_fix() -> str:
    """What to do when Discord refused the token at start."""
    return _(
        "reset the token on the Bot page of your application in the Discord Developer Portal and copy it into "
        "QUIZBOT_DISCORD_TOKEN"
    )


def start_unreachable_fix() -> str:
    """What to do when Discord could not be reached at start."""
    return _("check the network and the proxy variables, and https://discordstatus.com")


def adapter_needs_token() -> str:
    """The adapter started without a token."""
    return _("QUIZBOT_DISCORD_TOKEN is not set; the Discord adapter needs a bot token")


def token_refused(error: object) -> str:
    """Discord refused the token (at start, or when `quizbot discord` logs in)."""
    return _("Discord refused QUIZBOT_DISCORD_TOKEN: {error}", error=error)


def sync_command(guild_id: int | None) -> str:
    """The command that registers `/quiz` (in one server when a guild is set)."""
    if guild_id:
        return _("quizbot discord sync --guild {guild_id}", guild_id=guild_id)
    return _("quizbot discord sync")


# --- `quizbot discord sync|invite` ---------------------------------------------------------------------------------

CLI_HELP: Mapping[str, str] = {
    "discord": "Discord: register the /quiz commands, print the invite link",
    "sync": "register /quiz with Discord: globally, or in one server (instant, for trying things out)",
    "sync --guild": "register in this server only (default: QUIZBOT_DISCORD_GUILD_ID)",
    "sync --global": "register globally even if a guild is set",
    "invite": "print the link that adds the bot to a server",
}
"""The help of `quizbot discord`, its commands and their options, by the words that name them."""


def cli_help(what: str) -> str:
    """The help text of `quizbot discord` (`discord`), one of its commands (`sync`) or options (`sync --guild`)."""
    return _(CLI_HELP[what])


def cli_token_missing() -> str:
    """`quizbot discord ...` without a token."""
    return _("QUIZBOT_DISCORD_TOKEN is not set: copy the bot token from the Developer Portal")


def registered(paths: Sequence[str], guild_id: int | None) -> str:
    """`quizbot discord sync` registered these command paths (in one server, or globally)."""
    if guild_id:
        return _("Registered {paths} in server {guild_id}.", paths=", ".join(paths), guild_id=guild_id)
    return _("Registered {paths} globally (new commands can take a few minutes to show up).", paths=", ".join(paths))


def sync_refused_in_guild(guild_id: int | None, details: str) -> str:
    """Discord refused to register the commands in one server (the bot is not there, or lacks the scope)."""
    return _(
        "Discord refused to register the commands in server {guild_id}: the bot must be in that server, invited "
        "with the `applications.commands` scope (see `quizbot discord invite`). ({details})",
        guild_id=guild_id,
        details=details,
    )


def sync_refused(error: object) -> str:
    """Discord refused to register the commands."""
    return _("Discord refused to register the commands: {error}", error=error)


def no_application_id() -> str:
    """Discord's login did not name the application (never seen)."""
    return _("Discord did not tell the application id")
