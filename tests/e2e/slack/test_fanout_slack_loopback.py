"""Fan-out through slack_sdk's real Web API client against the loopback fake of Slack, which enforces one message a
second per channel and a workspace-wide limit and answers 429 with Retry-After. Time is virtual on both sides."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.platform import SLACK_LIMITS
from bot.clock import ManualClock
from bot.domain import ChannelRef, QuestionCard
from bot.ports import Message, PlatformError
from bot.scheduling.fanout import FanOut
from tests.fakes.rate_limited import VirtualTime
from tests.fakes.slack_api import TEAM_ID, WAIT, FakeSlack

PERMANENT = {"channel_not_found", "not_in_channel", "is_archived", "account_inactive", "invalid_auth", "token_revoked"}


class SlackWebPlatform:
    """The port over chat.postMessage / chat.update, mapping Slack errors the way the fan-out expects."""

    name = "slack"
    rate_limits = SLACK_LIMITS

    def __init__(self, client: AsyncWebClient) -> None:
        self.client = client

    async def post_card(self, channel: ChannelRef, card: QuestionCard) -> str:
        try:
            response = await self.client.chat_postMessage(channel=channel.channel_id, text=card.prompt)
        except SlackApiError as exc:
            raise platform_error(exc) from exc
        return str(response["ts"])

    async def update_card(self, channel: ChannelRef, message_ref: str, card: QuestionCard) -> None:
        try:
            await self.client.chat_update(channel=channel.channel_id, ts=message_ref, text=card.prompt)
        except SlackApiError as exc:
            raise platform_error(exc) from exc

    async def send_private(self, channel: ChannelRef, user_id: str, message: Message) -> None:
        """Not used here."""

    async def post_message(self, channel: ChannelRef, message: Message) -> None:
        """Not used here."""


def platform_error(exc: SlackApiError) -> PlatformError:
    error = str(exc.response.get("error"))
    if exc.response.status_code == 429:
        return PlatformError(error, retry_after=float(exc.response.headers.get("Retry-After", "1")))
    return PlatformError(error, permanent=error in PERMANENT)


@pytest.fixture(autouse=True)
def _no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime(2026, 1, 5, 9, 0, tzinfo=UTC))


@pytest.fixture
async def slack(clock: ManualClock) -> AsyncIterator[FakeSlack]:
    fake = FakeSlack(clock=VirtualTime(clock).monotonic)
    await fake.start()
    try:
        yield fake
    finally:
        await asyncio.wait_for(fake.stop(), WAIT)


def _card(n: int) -> QuestionCard:
    return QuestionCard(
        post_id=n,
        pack_title="P",
        question_number=1,
        question_count=1,
        prompt=f"Question {n}?",
        choices=("a", "b"),
        choice_ids=(0, 1),
        answer_count=0,
    )


async def test_200_channels_of_one_workspace_get_one_message_each_through_429s(
    slack: FakeSlack, clock: ManualClock
) -> None:
    slack.enable_rate_limits(per_channel_per_second=1.0, workspace_per_minute=100)
    channels = [ChannelRef("slack", TEAM_ID, f"CF{i:03d}") for i in range(200)]
    for ref in channels:
        slack.add_channel(ref.channel_id, f"team-{ref.channel_id.lower()}")
    platform = SlackWebPlatform(AsyncWebClient(token=slack.bot_token, base_url=slack.api_url))
    time = VirtualTime(clock)
    fanout = FanOut(monotonic=time.monotonic, sleep=time.sleep)
    start = clock.now()

    async def post_then_edit(i: int, ref: ChannelRef) -> None:
        ts = await fanout.send(platform, ref, lambda: platform.post_card(ref, _card(i)))
        await fanout.send(platform, ref, lambda: platform.update_card(ref, ts, _card(i)))

    await asyncio.gather(*(post_then_edit(i, ref) for i, ref in enumerate(channels)))
    assert sorted(len(slack.messages[ref.channel_id]) for ref in channels) == [1] * 200  # none dropped or doubled
    limited = [call for call in slack.calls if call.status == 429]
    assert limited  # the workspace limit was met and honoured
    assert all(call.method == "chat.postMessage" for call in limited)
    assert fanout.rate_limited == len(limited)
    assert (clock.now() - start).total_seconds() >= 60  # 200 posts at 100 a minute cannot be faster


async def test_an_archived_channel_is_a_permanent_failure(slack: FakeSlack, clock: ManualClock) -> None:
    platform = SlackWebPlatform(AsyncWebClient(token=slack.bot_token, base_url=slack.api_url))
    time = VirtualTime(clock)
    fanout = FanOut(monotonic=time.monotonic, sleep=time.sleep)
    archived = ChannelRef("slack", TEAM_ID, "C0ARCHIVED")
    with pytest.raises(PlatformError, match="is_archived") as info:
        await fanout.send(platform, archived, lambda: platform.post_card(archived, _card(1)))
    assert info.value.permanent
    assert len([c for c in slack.calls if c.method == "chat.postMessage"]) == 1  # not retried
