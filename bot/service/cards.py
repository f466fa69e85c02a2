"""Coalesced card edits: a burst of answers becomes one edit per post per interval, never one per click."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from bot.errors import StorageUnavailable
from bot.ports import PlatformError, PlatformRegistry
from bot.service.quiz import PostedCard

log = logging.getLogger(__name__)


class CardRefresher:
    """Schedules at most one pending edit per post; the edit shows the count as of when it runs."""

    def __init__(self, *, platforms: PlatformRegistry, interval: float) -> None:
        self.read_card: Callable[[int], Awaitable[PostedCard]] | None = None
        """Reads a post's card as it stands; set by the dispatcher (QuizApp), which opens the unit of work."""
        self.platforms = platforms
        self.interval = interval
        self._pending: dict[int, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()  # every edit task not yet finished, in flight ones included
        self.edits = 0

    def request(self, post_id: int) -> None:
        """Ask for the post's card to be edited soon (no-op if an edit is already pending)."""
        if post_id in self._pending:
            return
        task = asyncio.create_task(self._edit_later(post_id), name=f"card-refresh-{post_id}")
        self._pending[post_id] = task
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if task.cancelled() or (exc := task.exception()) is None:
            return
        if isinstance(exc, (StorageUnavailable, PlatformError)):
            # The database or the platform said no: nothing to debug, and the card's next click asks again.
            log.warning("card refresh failed: %s", exc)
        else:
            log.error("card refresh failed: %s", exc, exc_info=exc)

    async def _edit_later(self, post_id: int) -> None:
        try:
            await asyncio.sleep(self.interval)
        finally:
            self._pending.pop(post_id, None)
        await self.edit_now(post_id)

    async def edit_now(self, post_id: int, current: PostedCard | None = None) -> None:
        """Edit the card now (cancelling a pending edit of it), with `current` state or the state read now."""
        pending = self._pending.pop(post_id, None)
        if pending is not None and pending is not asyncio.current_task():
            pending.cancel()
        if current is None:
            assert self.read_card is not None, "QuizApp wires the card reader"
            current = await self.read_card(post_id)
        channel, message_ref, card = current
        platform = self.platforms.get(channel.platform)
        if platform is None or message_ref is None:
            return
        await platform.update_card(channel, message_ref, card)
        self.edits += 1

    async def flush(self) -> None:
        """Run every pending edit now and wait for those already running (at shutdown, so no count is left stale).

        An adapter calls this before it disconnects: an edit still in flight after that would fail.
        """
        for post_id in list(self._pending):
            try:
                await self.edit_now(post_id)
            except Exception:
                log.exception("flushing the card of post %s failed", post_id)
        in_flight = [task for task in self._tasks if task is not asyncio.current_task()]
        if in_flight:
            await asyncio.gather(*in_flight, return_exceptions=True)
