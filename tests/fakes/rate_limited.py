"""A chat platform that enforces rate limits like Slack and Discord do, and virtual time to drive it without sleeping.

`LimitedPlatform` is a real implementation of the port: every post or edit counts against a per-channel spacing, a
per-workspace window and a platform-wide window, all measured on the test's ManualClock. A request over a limit is
refused with `PlatformError(retry_after=...)` (a 429) and changes nothing, as the real APIs do. Channels listed in
`gone` answer a permanent error (channel deleted, bot removed).

`VirtualTime` gives FanOut a monotonic clock and a sleep that move the ManualClock instead of waiting.
"""

from __future__ import annotations

import asyncio
import math
import random
from collections import defaultdict, deque
from dataclasses import dataclass, field
from datetime import timedelta

from bot.clock import ManualClock
from bot.domain import ChannelRef, QuestionCard
from bot.ports import Message, PlatformError, PlatformLimits


class VirtualTime:
    """Monotonic time and sleep on a ManualClock: a sleep moves the clock forward to when it would end."""

    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock
        self.slept = 0.0

    def monotonic(self) -> float:
        """Seconds on the manual clock."""
        return self.clock.now().timestamp()

    async def sleep(self, seconds: float) -> None:
        """Let other tasks run, then make sure the clock has reached the end of the sleep."""
        # The clock counts whole microseconds: round up, or a tiny wait would never end.
        target = self.clock.now() + timedelta(microseconds=math.ceil(max(seconds, 0.0) * 1_000_000))
        self.slept += max(seconds, 0.0)
        await asyncio.sleep(0)
        if self.clock.now() < target:
            self.clock.set(target)


@dataclass
class LimitedPlatform:
    """A fake platform with enforced rate limits (see the module docstring)."""

    clock: ManualClock
    name: str = "fake"
    channel_spacing: float = 1.0  # seconds between two requests to one channel
    workspace_limit: tuple[int, float] | None = None  # (requests, per seconds) per workspace
    platform_limit: tuple[int, float] | None = (50, 1.0)  # (requests, per seconds) in all
    random_429: float = 0.0  # chance that an otherwise allowed request is refused anyway
    rate_limits: PlatformLimits | None = None  # what the platform declares to the core
    gone: set[str] = field(default_factory=set)
    seed: int = 5
    posts: dict[ChannelRef, list[QuestionCard]] = field(default_factory=lambda: defaultdict(list))
    edits: dict[ChannelRef, list[QuestionCard]] = field(default_factory=lambda: defaultdict(list))
    refused: int = 0
    requests: int = 0

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        self._last: dict[ChannelRef, float] = {}
        self._workspace_window: dict[str, deque[float]] = defaultdict(deque)
        self._platform_window: deque[float] = deque()
        self._refs = 0

    def _admit(self, channel: ChannelRef) -> None:
        if channel.channel_id in self.gone:
            raise PlatformError("channel_not_found", permanent=True)
        now = self.clock.now().timestamp()
        waits = []
        last = self._last.get(channel)
        if last is not None and now - last < self.channel_spacing:
            waits.append(self.channel_spacing - (now - last))
        windows = []
        if self.workspace_limit is not None:
            windows.append((self._workspace_window[channel.workspace_id], *self.workspace_limit))
        if self.platform_limit is not None:
            windows.append((self._platform_window, *self.platform_limit))
        for window, count, per in windows:
            while window and now - window[0] >= per:
                window.popleft()
            if len(window) >= count:
                waits.append(per - (now - window[0]))
        if not waits and self.random_429 and self._rng.random() < self.random_429:
            waits.append(0.5)
        if waits:
            self.refused += 1
            raise PlatformError("ratelimited", retry_after=max(waits))
        self.requests += 1
        self._last[channel] = now
        for window, _, _ in windows:
            window.append(now)

    async def post_card(self, channel: ChannelRef, card: QuestionCard) -> str:
        """Post a card if the limits allow."""
        self._admit(channel)
        self.posts[channel].append(card)
        self._refs += 1
        return f"msg-{self._refs}"

    async def update_card(self, channel: ChannelRef, message_ref: str, card: QuestionCard) -> None:
        """Edit a card if the limits allow."""
        self._admit(channel)
        self.edits[channel].append(card)

    async def send_private(self, channel: ChannelRef, user_id: str, message: Message) -> None:
        """Private messages are not limited here."""

    async def post_message(self, channel: ChannelRef, message: Message) -> None:
        """Channel messages count like posts."""
        self._admit(channel)
