"""Revealing posts whose time is up: close them (one replica wins each), then edit their cards.

Closing is a conditional update (`closed_at IS NULL`, repositories.Deadlines), so however many replicas tick at
once, one closes each post and only that one edits its card. Edits go through the fan-out limiter like posts do.
The reveal itself is a `RevealPost` callable, so the service layer can change behind it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime

from bot.domain import ChannelRef
from bot.errors import QuizError
from bot.ports import PlatformError, PlatformRegistry
from bot.scheduling.fanout import FanOut
from bot.scheduling.fires import LOGGER_NAME, TickReport, log_context
from bot.scheduling.jobs import Jobs

log = logging.getLogger(LOGGER_NAME)

RevealPost = Callable[[int], Awaitable[object]]
"""Close a post and edit its card to show the answer, the distribution and who got it right (`QuizApp.reveal`)."""


@dataclass(frozen=True, slots=True)
class ClosedPost:
    """A post this replica closed, and so must reveal."""

    post_id: int
    channel: ChannelRef


class Reveals:
    """Closes posts whose `closes_at` passed and reveals them."""

    def __init__(
        self,
        *,
        jobs: Jobs,
        platforms: PlatformRegistry,
        fanout: FanOut,
        reveal_post: RevealPost,
        working: asyncio.Semaphore,
        batch: int,
    ) -> None:
        self.jobs = jobs
        self.platforms = platforms
        self.fanout = fanout
        self.reveal_post = reveal_post
        self.working = working
        self.batch = batch

    async def close_due(self, now: datetime, served: list[str]) -> list[ClosedPost]:
        """Close the posts (of platforms served here) whose close time has passed; those this replica closed."""
        closed = await self.jobs.run(lambda uow: uow.deadlines.close_due_posts(now, served, limit=self.batch))
        return [ClosedPost(post_id=post_id, channel=channel) for post_id, channel in closed]

    async def reveal(self, post: ClosedPost, report: TickReport, *, after: asyncio.Task[None] | None = None) -> None:
        """Edit a closed post's card (after the task `after`, the reveal of an older post in the same channel)."""
        if after is not None:
            await asyncio.wait([after])
        platform = self.platforms.get(post.channel.platform)
        if platform is None:
            return
        extra = log_context(post.channel, post_id=post.post_id)

        async def attempt() -> None:
            async with self.working:
                await self.reveal_post(post.post_id)

        try:
            await self.fanout.send(platform, post.channel, attempt)
        except (PlatformError, QuizError) as exc:
            log.warning("the closed question's card could not be edited: %s", exc, extra=extra)
            return
        report.revealed.append(post.post_id)
        log.info("revealed a closed question", extra=extra)
