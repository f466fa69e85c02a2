"""At DEBUG, slack_sdk and Bolt log what they send and receive; the bot's log keeps those lines but never a live
response_url or trigger_id (whoever holds one can answer as the bot), nor a token or the signing secret."""

from __future__ import annotations

import io
import re
from urllib.parse import urlsplit

from bot.runtime import Runtime
from tests.fakes.slack_api import SIGNING_SECRET, FakeSlack
from tests.log_capture import debug_log
from tests.slack_harness import choice_action, running_adapter

__all__ = ["debug_log"]

TRIGGER = "13345224609.738474920.8088930838d88f008e0aad3b0c5d"


def _secret_free(text: str, fake: FakeSlack) -> None:
    for secret in (fake.bot_token, fake.app_token, SIGNING_SECRET):
        assert secret not in text


async def test_http_mode_logs_its_requests_without_response_urls_or_trigger_ids(
    runtime: Runtime, fake: FakeSlack, debug_log: io.StringIO
) -> None:
    async with running_adapter(runtime, fake) as slack:
        url = fake.new_response_url(channel_id="C0001", user_id="U0ALICE")
        await slack.command("help", response_url=url, trigger_id=TRIGGER)
        await fake.wait_for_response()
        await slack.command("now data-parallelism")
        card = await slack.posted_card()
        click_url = fake.new_response_url(channel_id="C0001", message_ts=card["ts"], user_id="U0BOB")
        await slack.click(card, choice_action(runtime, card, correct=True), user_id="U0BOB", response_url=click_url)
        await slack.ephemerals(1)
        await slack.idle()
    text = debug_log.getvalue()

    # the lines are there: slack_sdk's webhook request (what respond() sends to the response_url) among them
    assert re.search(r"Sending a request - url: http://127\.0\.0\.1:\d+/\[redacted\]", text)
    assert "Sending a request - url: POST" in text  # the Web API calls' lines too
    for capability in (urlsplit(url).path, urlsplit(click_url).path, TRIGGER):
        assert capability not in text
    _secret_free(text, fake)


async def test_socket_mode_envelopes_are_logged_without_response_urls_or_trigger_ids(
    runtime: Runtime, fake: FakeSlack, debug_log: io.StringIO
) -> None:
    async with running_adapter(runtime, fake, mode="socket") as slack:
        await fake.wait_for_socket_client()
        url = fake.new_response_url(channel_id="C0001", user_id="U0ALICE")
        await fake.send_slash_command("help", response_url=url, trigger_id=TRIGGER)
        await fake.wait_for_response()
        await slack.idle()
    text = debug_log.getvalue()

    [received] = [line for line in text.splitlines() if "Received message" in line and "slash_commands" in line]
    assert '"trigger_id": "[redacted]"' in received or '"trigger_id":"[redacted]"' in received
    assert "response_url" in received
    for capability in (urlsplit(url).path, TRIGGER):
        assert capability not in text
    _secret_free(text, fake)
