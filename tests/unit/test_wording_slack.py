"""The Slack adapter's sentences are built in bot/wording/slack.py, through the translation hook."""

from __future__ import annotations

from collections.abc import Callable

from bot.wording import slack as words
from bot.wording.i18n import use_translator


def test_a_refusal_names_the_action_by_its_key_or_says_what_to_do_for_a_known_code() -> None:
    assert words.refused("post_card", "ratelimited") == "Slack refused to post the question: ratelimited"
    assert words.refused("post_card", "is_archived") == "this channel is archived (is_archived)"
    assert words.unreachable("upload_charts") == "could not reach Slack to upload the charts; please try again"


def test_the_slack_sentences_go_through_the_hook() -> None:
    marked: Callable[[str], str] = lambda template: "» " + template  # noqa: E731 - a translator stand-in
    use_translator(marked)
    try:
        assert words.refused("post_message", "not_in_channel").startswith("» » I am not a member of this channel")
        assert words.incomplete_request().startswith("» Sorry")
        assert words.card_notification("Which?") == "» Quiz: Which?"
    finally:
        use_translator(None)
