"""The fan-out limiter against a platform that enforces its limits and answers 429s, on virtual time."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from adapters.slack.platform import SLACK_LIMITS
from bot.clock import ManualClock
from bot.domain import ChannelRef, QuestionCard
from bot.ports import DEFAULT_LIMITS, UNLIMITED, PlatformError, PlatformLimits, Rate
from bot.scheduling.fanout import FanOut, limits_of
from tests.fakes.fake_platform import FakePlatform
from tests.fakes.rate_limited import LimitedPlatform, VirtualTime


def _card(n: int) -> QuestionCard:
    return QuestionCard(
        post_id=n,
        pack_title="P",
        question_number=1,
        question_count=1,
        prompt="?",
        choices=("a", "b"),
        choice_ids=(0, 1),
        answer_count=0,
    )


def _channels(count: int, workspaces: int = 4) -> list[ChannelRef]:
    return [ChannelRef("fake", f"W{i % workspaces}", f"C{i}") for i in range(count)]


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime(2026, 1, 5, 9, 0, tzinfo=UTC))


async def _fan_out(fanout: FanOut, platform: LimitedPlatform, channels: list[ChannelRef]) -> list[str]:
    async def one(i: int, channel: ChannelRef) -> str:
        return await fanout.send(platform, channel, lambda: platform.post_card(channel, _card(i)))

    return await asyncio.gather(*(one(i, ch) for i, ch in enumerate(channels)))


async def test_within_declared_limits_200_channels_post_once_each_without_a_single_429(clock: ManualClock) -> None:
    time = VirtualTime(clock)
    platform = LimitedPlatform(
        clock, platform_limit=(20, 1.0), rate_limits=PlatformLimits(channel=Rate(1.0), platform=Rate(18.0))
    )
    fanout = FanOut(monotonic=time.monotonic, sleep=time.sleep)
    channels = _channels(200)
    start = clock.now()
    refs = await _fan_out(fanout, platform, channels)
    assert len(set(refs)) == 200
    assert all(len(platform.posts[ch]) == 1 for ch in channels)
    assert platform.refused == 0
    assert 199 / 18 - 0.01 <= (clock.now() - start).total_seconds() <= 200 / 18  # paced at the declared rate


async def test_a_platform_stricter_than_declared_answers_429s_and_nothing_is_dropped_or_doubled(
    clock: ManualClock,
) -> None:
    time = VirtualTime(clock)
    platform = LimitedPlatform(
        clock, platform_limit=(20, 1.0), rate_limits=PlatformLimits(channel=None, platform=Rate(100.0, burst=50))
    )
    fanout = FanOut(monotonic=time.monotonic, sleep=time.sleep)
    channels = _channels(200)
    await _fan_out(fanout, platform, channels)
    assert sorted(len(platform.posts[ch]) for ch in channels) == [1] * 200
    assert platform.refused > 0
    assert fanout.rate_limited == platform.refused
    assert platform.requests == 200


async def test_a_slack_like_workspace_limit_with_long_retry_after(clock: ManualClock) -> None:
    time = VirtualTime(clock)
    platform = LimitedPlatform(clock, workspace_limit=(30, 60.0), platform_limit=None)  # declares nothing
    assert limits_of(platform) is DEFAULT_LIMITS
    fanout = FanOut(monotonic=time.monotonic, sleep=time.sleep)
    channels = _channels(100, workspaces=1)
    start = clock.now()
    await _fan_out(fanout, platform, channels)
    assert sorted(len(platform.posts[ch]) for ch in channels) == [1] * 100
    assert platform.refused > 0
    assert (clock.now() - start).total_seconds() >= 180  # 100 posts at 30 a minute


async def test_random_429s_are_retried(clock: ManualClock) -> None:
    time = VirtualTime(clock)
    platform = LimitedPlatform(clock, random_429=0.2, rate_limits=SLACK_LIMITS)
    fanout = FanOut(monotonic=time.monotonic, sleep=time.sleep)
    channels = _channels(100)
    await _fan_out(fanout, platform, channels)
    assert sorted(len(platform.posts[ch]) for ch in channels) == [1] * 100
    assert platform.refused > 5


async def test_a_busy_channel_holds_back_only_itself(clock: ManualClock) -> None:
    time = VirtualTime(clock)
    platform = LimitedPlatform(clock, platform_limit=None, rate_limits=PlatformLimits(channel=Rate(1.0), platform=None))
    fanout = FanOut(monotonic=time.monotonic, sleep=time.sleep)
    busy = ChannelRef("fake", "W1", "busy")
    sent_at: dict[str, list[float]] = {}

    async def post(channel: ChannelRef, n: int) -> None:
        await fanout.send(platform, channel, lambda: platform.post_card(channel, _card(n)))
        sent_at.setdefault(channel.channel_id, []).append(time.monotonic())

    start = time.monotonic()
    await asyncio.gather(
        *(post(busy, n) for n in range(5)), *(post(ChannelRef("fake", "W1", f"C{n}"), n) for n in range(10))
    )
    assert platform.refused == 0
    assert [round(t - start) for t in sent_at["busy"]] == [0, 1, 2, 3, 4]
    assert all(t - start < 1 for ch, times in sent_at.items() if ch != "busy" for t in times)


async def test_a_permanent_failure_is_not_retried(clock: ManualClock) -> None:
    time = VirtualTime(clock)
    platform = LimitedPlatform(clock, gone={"C0"})
    fanout = FanOut(monotonic=time.monotonic, sleep=time.sleep)
    calls = 0

    async def call() -> str:
        nonlocal calls
        calls += 1
        return await platform.post_card(ChannelRef("fake", "W0", "C0"), _card(1))

    with pytest.raises(PlatformError, match="channel_not_found") as info:
        await fanout.send(platform, ChannelRef("fake", "W0", "C0"), call)
    assert info.value.permanent
    assert calls == 1


async def test_transient_failures_are_retried_with_backoff_then_given_up(clock: ManualClock) -> None:
    time = VirtualTime(clock)
    platform = FakePlatform()
    fanout = FanOut(monotonic=time.monotonic, sleep=time.sleep)
    channel = ChannelRef("fake", "W0", "C0")
    failures = [PlatformError("bad gateway"), PlatformError("bad gateway")]

    async def flaky() -> str:
        if failures:
            raise failures.pop()
        return await platform.post_card(channel, _card(1))

    assert await fanout.send(platform, channel, flaky) == "msg-1001"
    assert time.slept >= DEFAULT_LIMITS.transient_backoff * 3  # 2 s, then 4 s

    async def broken() -> str:
        raise PlatformError("bad gateway")

    with pytest.raises(PlatformError, match="bad gateway"):
        await fanout.send(platform, channel, broken)


def test_declared_limits_are_used() -> None:
    platform = FakePlatform()
    assert limits_of(platform) is DEFAULT_LIMITS
    platform.rate_limits = UNLIMITED  # type: ignore[attr-defined]
    assert limits_of(platform) is UNLIMITED
