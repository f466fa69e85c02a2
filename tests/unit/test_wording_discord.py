"""The Discord adapter's sentences are built in bot/wording/discord.py, through the translation hook."""

from __future__ import annotations

from collections.abc import Callable

import discord

from adapters.discord.doctor import PRIVILEGED
from adapters.discord.platform import platform_error
from adapters.discord.settings import DiscordSettings
from bot.wording import discord as words
from bot.wording.i18n import use_translator


class _Answer:
    """What discord.py's HTTP errors read from a response: its status and reason."""

    def __init__(self, status: int) -> None:
        self.status = status
        self.reason = "reason"


def test_a_refusal_names_the_action_by_its_key() -> None:
    forbidden = platform_error(discord.Forbidden(_Answer(403), "Missing Access"), "post_card")  # type: ignore[arg-type]
    assert str(forbidden) == (
        "I may not post a question here; give me View Channel, Send Messages and Embed Links in this channel."
    )
    assert forbidden.permanent
    gone = platform_error(discord.NotFound(_Answer(404), "Unknown Message"), "update_card")  # type: ignore[arg-type]
    assert str(gone) == "Could not update the question: the channel or message no longer exists."
    busy = platform_error(discord.HTTPException(_Answer(503), ""), "post_message")  # type: ignore[arg-type]
    assert str(busy) == "Could not post a message: Discord answered 503 (no details)."
    assert not busy.permanent


def test_every_action_and_privileged_intent_has_its_words() -> None:
    for key in ("post_card", "update_card", "send_direct", "open_direct", "post_message"):
        assert words.action(key) != key
    assert set(words.INTENT_SWITCHES) == set(PRIVILEGED)
    assert set(words.SETTING_DESCRIPTIONS) <= set(DiscordSettings.model_fields)


def test_the_operator_words_are_as_before() -> None:
    assert words.registered(["/quiz ask"], 42) == "Registered /quiz ask in server 42."
    assert words.registered(["/quiz ask", "/quiz me"], None) == (
        "Registered /quiz ask, /quiz me globally (new commands can take a few minutes to show up)."
    )
    assert words.shard_ids_out_of_range(2, [2, 3]) == (
        "QUIZBOT_DISCORD_SHARD_IDS must list shard numbers from 0 to 1 (QUIZBOT_DISCORD_SHARD_COUNT - 1); got [2, 3]"
    )
    assert words.sync_command(7) == "quizbot discord sync --guild 7"
    assert words.sync_command(None) == "quizbot discord sync"


def test_the_discord_sentences_go_through_the_hook() -> None:
    marked: Callable[[str], str] = lambda template: "» " + template  # noqa: E731 - a translator stand-in
    use_translator(marked)
    try:
        assert words.forbidden("open_direct") == (
            "» I may not » open a direct message here; give me View Channel, Send Messages and Embed Links in this "
            "channel."
        )
        assert (
            words.answered("post_card", 500, None)
            == "» Could not » post a question: Discord answered 500 (» no details)."
        )
        assert words.connection_closed() == "» The Discord connection is closed."
        assert words.no_direct_messages().startswith("» The user")
        assert words.out_of_sync().startswith("» This command does not match")
        assert words.cli_help("invite") == "» print the link that adds the bot to a server"
        assert words.setting_description("discord_guild_id") == "» Sync slash commands to this guild only."
        assert words.intent_switch("members") == "» Server Members Intent"
        assert words.card_title() == "» Question"
        assert words.attach_files() == "» Attach Files"
    finally:
        use_translator(None)
