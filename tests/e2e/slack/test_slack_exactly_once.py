"""Fault: `quizbot run` (Slack) SIGKILLed after Slack took a scheduled card and before the bot recorded its ts.

The process started next recovers the slot; it finds the card in the channel's history by the post's id in the
message's metadata and adopts it, so the channel shows the question once. Without the history scopes it cannot
look, posts again, and says why once.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from adapters.slack.platform import POST_EVENT_TYPE, SlackPlatform, card_metadata, make_client
from bot.domain import ChannelRef, QuestionCard
from tests.click_storm import running_bot
from tests.conftest import PATIENT_DATABASE_ENV
from tests.exactly_once import FAST_SCHEDULER, HeldAnswer, schedule_due_now, wait_until_posted
from tests.fakes.slack_api import FakeSlack

CHANNEL = "CQUIZ1"


@pytest.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    """A fake Slack whose messages' ts are its own clock's, as Slack's are (conversations.history reads them)."""
    slack = FakeSlack(wall_clock_ts=True)
    await slack.start()
    slack.add_channel(CHANNEL, "quiz", is_member=True)
    try:
        yield slack
    finally:
        await slack.stop()


def cards_in(fake: FakeSlack) -> list[dict]:
    """The channel's messages: the schedule's question cards, nothing else is posted there."""
    return fake.messages_in(CHANNEL)


async def test_card_taken_before_a_sigkill_is_adopted_not_posted_again(
    database_url: str, fake: FakeSlack, tmp_path: Path
) -> None:
    await schedule_due_now(database_url, ChannelRef("slack", fake.team_id, CHANNEL))
    gate = HeldAnswer()

    async def hold(_message: dict) -> None:
        await gate.hold()

    fake.after_post = hold
    async with running_bot(fake, database_url, tmp_path, env={**PATIENT_DATABASE_ENV, **FAST_SCHEDULER}) as bot:
        await asyncio.wait_for(gate.taken.wait(), 60)
        bot.process.send_signal(signal.SIGKILL)  # Slack has the card; the bot never hears its ts
        await bot.process.wait()
    gate.release.set()
    assert len(cards_in(fake)) == 1
    first = cards_in(fake)[0]

    async with running_bot(fake, database_url, tmp_path, env={**PATIENT_DATABASE_ENV, **FAST_SCHEDULER}):
        outcome = await wait_until_posted(database_url)
    assert outcome.status == "posted" and outcome.attempts == 2, outcome
    assert [m["ts"] for m in cards_in(fake)] == [first["ts"]]  # the question shows once
    assert outcome.message_ref == first["ts"]  # and the post is that message: clicks and the reveal edit it
    assert first["metadata"]["event_type"] == POST_EVENT_TYPE  # the card says which post it shows
    history = fake.calls_to("conversations.history", ok=True)
    assert history and history[-1].args["include_all_metadata"] in (True, "true", "1")


async def test_without_the_history_scope_the_card_is_posted_and_the_reason_logged_once(
    fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    fake.scopes.discard("channels:history")
    client = make_client(token=fake.bot_token, base_url=fake.api_url)
    platform = SlackPlatform(client)
    channel = ChannelRef("slack", fake.team_id, CHANNEL)
    seven, eight = (QuestionCard(post_id, "Pack", 1, 1, "2 + 2?", ("4", "5"), (0, 1), 0) for post_id in (7, 8))
    await client.chat_postMessage(channel=CHANNEL, text="card", metadata=card_metadata(7))
    since = datetime.now(UTC) - timedelta(minutes=1)
    with caplog.at_level(logging.WARNING, logger="adapters.slack.platform"):
        assert await platform.find_card(channel, seven, since=since) is None
        assert await platform.find_card(channel, eight, since=since) is None
    refusals = [r.getMessage() for r in caplog.records if "history" in r.getMessage()]
    assert len(refusals) == 1 and "channels:history" in refusals[0], refusals
    fake.scopes.add("channels:history")
    assert await platform.find_card(channel, seven, since=since) == fake.messages_in(CHANNEL)[0]["ts"]
    assert await platform.find_card(channel, eight, since=since) is None
