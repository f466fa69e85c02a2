"""Posting to many channels at once within each platform's rate limits, without dropping or doubling a post.

At 09:00 hundreds of channels may fire together. Every scheduled post (and every reveal edit) goes through
`FanOut.send`, which waits for a token from up to three buckets before calling the platform:

- the channel's bucket (for example about one message a second per channel),
- the workspace's bucket (a workspace-wide limit, where the platform has one),
- the platform's bucket (a limit for the whole bot, where the platform has one).

The buckets are GCRA token buckets. Waiting for the channel and the workspace is done under a lock per key, so a
busy channel or workspace holds back only its own posts; the platform bucket is then reserved in arrival order.

What an adapter provides (the limits are each adapter's own, declared on its ChatPlatform; the core names none):

- optionally `rate_limits: PlatformLimits` (bot/ports.py) on its ChatPlatform; without it the conservative
  `DEFAULT_LIMITS` apply (a terminal declares `UNLIMITED`);
- a 429 raised as `PlatformError(..., retry_after=seconds)`: the workspace is paused for that long and the post
  is retried (nothing was posted, so nothing is doubled);
- a channel that is gone or a bot that was removed raised as `PlatformError(..., permanent=True)`: no retry; the
  scheduler pauses the schedule with the reason.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TypeVar

from bot.domain import ChannelRef
from bot.ports import DEFAULT_LIMITS, ChatPlatform, PlatformError, PlatformLimits, Rate

log = logging.getLogger(__name__)

T = TypeVar("T")


def limits_of(platform: ChatPlatform) -> PlatformLimits:
    """The limits a platform declares (`rate_limits` attribute), else DEFAULT_LIMITS."""
    declared = getattr(platform, "rate_limits", None)
    return declared if isinstance(declared, PlatformLimits) else DEFAULT_LIMITS


class _Bucket:
    """Generic cell rate algorithm: `ready_at` is when the next request conforms; `take` records one at a time."""

    def __init__(self, rate: Rate) -> None:
        self.interval = 1.0 / rate.per_second
        self.tolerance = (max(rate.burst, 1) - 1) * self.interval
        self.tat = -math.inf  # theoretical arrival time

    def ready_at(self) -> float:
        return self.tat - self.tolerance

    def take(self, at: float) -> None:
        self.tat = max(self.tat, at) + self.interval


class FanOut:
    """Sends platform calls through per-platform rate limits; retries 429s and transient failures.

    `monotonic` and `sleep` are injectable so tests run on virtual time.
    """

    def __init__(
        self,
        *,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.monotonic = monotonic
        self.sleep = sleep
        self._buckets: dict[tuple[str, ...], _Bucket] = {}
        self._locks: dict[tuple[str, ...], tuple[asyncio.Lock, int]] = {}
        self._blocked_until: dict[tuple[str, str], float] = {}
        self.rate_limited = 0  # 429s met, for logs and tests
        self.sent = 0

    async def send(self, platform: ChatPlatform, channel: ChannelRef, call: Callable[[], Awaitable[T]]) -> T:
        """Run `call` (one platform request for `channel`) once a slot is free; retry what is retryable.

        Raises the PlatformError when it is permanent or retries are used up; other exceptions pass through.
        """
        limits = limits_of(platform)
        rate_limited = transient = 0
        while True:
            await self._acquire(channel, limits)
            try:
                result = await call()
            except PlatformError as exc:
                if exc.permanent:
                    raise
                if exc.retry_after is not None:
                    rate_limited += 1
                    self.rate_limited += 1
                    if rate_limited > limits.rate_limited_retries:
                        raise
                    self._block(channel, max(exc.retry_after, 0.0))
                    log.info(
                        "rate limited; retrying in %.1f s",
                        exc.retry_after,
                        extra={"platform": channel.platform, "workspace": channel.workspace_id},
                    )
                    continue
                transient += 1
                if transient > limits.transient_retries:
                    raise
                delay = limits.transient_backoff * 2 ** (transient - 1)
                log.info(
                    "platform call failed (%s); retrying in %.1f s",
                    exc,
                    delay,
                    extra={"platform": channel.platform, "channel": channel.channel_id},
                )
                await self.sleep(delay)
                continue
            self.sent += 1
            return result

    def _block(self, channel: ChannelRef, seconds: float) -> None:
        key = (channel.platform, channel.workspace_id)
        self._blocked_until[key] = max(self._blocked_until.get(key, -math.inf), self.monotonic() + seconds)

    async def _acquire(self, channel: ChannelRef, limits: PlatformLimits) -> None:
        """Wait until the channel, its workspace and the platform each allow one more request, and take it."""
        channel_key = ("channel", channel.platform, channel.workspace_id, channel.channel_id)
        workspace_key = ("workspace", channel.platform, channel.workspace_id)
        blocked = (channel.platform, channel.workspace_id)
        async with self._lock(channel_key):
            channel_bucket = self._bucket(channel_key, limits.channel)
            await self._wait_until(lambda: channel_bucket.ready_at() if channel_bucket else -math.inf)
            async with self._lock(workspace_key):
                workspace_bucket = self._bucket(workspace_key, limits.workspace)
                await self._wait_until(
                    lambda: max(
                        workspace_bucket.ready_at() if workspace_bucket else -math.inf,
                        self._blocked_until.get(blocked, -math.inf),
                    )
                )
                platform_bucket = self._bucket(("platform", channel.platform), limits.platform)
                now = self.monotonic()
                at = max(now, platform_bucket.ready_at()) if platform_bucket else now
                for bucket in (platform_bucket, workspace_bucket, channel_bucket):
                    if bucket is not None:
                        bucket.take(at)
        self._prune()
        if at > now:
            await self._wait_until(lambda: at)

    async def _wait_until(self, ready_at: Callable[[], float]) -> None:
        while (delay := ready_at() - self.monotonic()) > 1e-6:  # a microsecond early is on time
            await self.sleep(delay)

    def _bucket(self, key: tuple[str, ...], rate: Rate | None) -> _Bucket | None:
        if rate is None:
            return None
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(rate)
        return bucket

    @asynccontextmanager
    async def _lock(self, key: tuple[str, ...]) -> AsyncIterator[None]:
        lock, users = self._locks.get(key) or (asyncio.Lock(), 0)
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)

    def _prune(self) -> None:
        """Forget buckets that are full again (so thousands of channels do not pile up in memory)."""
        if len(self._buckets) < 1024:
            return
        now = self.monotonic()
        # A bucket in use sits under its key's lock; the platform buckets are few and kept.
        idle = [k for k, b in self._buckets.items() if b.tat < now and k[0] != "platform" and k not in self._locks]
        for key in idle:
            del self._buckets[key]
        for key in [k for k, until in self._blocked_until.items() if until < now]:
            del self._blocked_until[key]
