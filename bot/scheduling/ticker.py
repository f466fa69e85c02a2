"""The scheduler: fires due schedules exactly once per slot across replicas, and reveals posts whose time is up.

`Ticker` puts the parts together; each part is its own module:

- timer.py: calls `Ticker.tick` every few seconds of monotonic time, in the bot's own event loop;
- reveals.py: closes posts whose `closes_at` has passed (one replica each) and edits their cards;
- claims.py: who is due when for channels: advances each due schedule and claims its slot with a unique insert,
  before anything is posted; missed slots: the latest is posted late within the grace window, every other one is
  recorded as skipped;
- delivery.py: who is due when for a cohort delivered by direct message: each member at the schedule's local time
  in their own timezone, claimed per (schedule, member, local slot);
- lifecycle.py: one lifecycle for both kinds of claim: held and kept alive, sent through the fan-out limiter
  (fanout.py) renewing the claim right before the platform call, ended, taken over once its lease expired (a post
  the old attempt made is adopted, not posted again), handed back on stop; posting.py and delivery.py say what
  differs (the platform call; a channel's schedule is paused on a failure for good, a member's slot just fails);
- leases.py: the fenced updates of the claim rows; fires.py: the fire key, the claims and the tick's report;
- season_ends.py: ends seasons whose `until:` date has passed (one replica each) and posts their final boards;
- checkpoints.py: settles the `/quiz me` checkpoints of a batch of users each tick (the read side's own call), so
  a user's first `/quiz me` reads only what was settled since, not their whole history;
- jobs.py: the job runner, the one place here that opens units of work (one per step).

A tick keeps this process's in-flight claims alive, reveals, ends seasons that are due, claims, recovers, then
posts (and delivers privately); while those run, it settles a batch of `/quiz me` checkpoints.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from datetime import timedelta
from typing import Any

from bot.clock import Clock
from bot.domain import ChannelRef
from bot.errors import StorageUnavailable
from bot.ports import PlatformRegistry
from bot.scheduling.checkpoints import CheckpointSettling, SettleCheckpoints
from bot.scheduling.claims import SlotClaimer
from bot.scheduling.delivery import PrivateDelivery, SendPrivately
from bot.scheduling.fanout import FanOut
from bot.scheduling.fires import LOGGER_NAME, TickReport, replica_name
from bot.scheduling.jobs import Jobs
from bot.scheduling.leases import Leases, Store, channel_fires, member_fires
from bot.scheduling.lifecycle import C, FireKind, Lifecycle, Stage
from bot.scheduling.posting import ChannelPosts, PostCohortNext, PostQuestion
from bot.scheduling.reveals import RevealPost, Reveals
from bot.scheduling.season_ends import AnnounceSeason, SeasonEnds
from bot.scheduling.timer import Timer
from bot.service.uow import UnitOfWorkFactory

log = logging.getLogger(LOGGER_NAME)


class Ticker:
    """Finds due schedules, claims their slots, posts them, and reveals posts that closed."""

    def __init__(
        self,
        *,
        uow: UnitOfWorkFactory,
        post_question: PostQuestion,
        reveal_post: RevealPost,
        platforms: PlatformRegistry,
        clock: Clock,
        fanout: FanOut | None = None,
        announce_season: AnnounceSeason | None = None,
        grace: timedelta = timedelta(hours=1),
        lease: timedelta = timedelta(minutes=5),
        interval: float = 10.0,
        replica: str | None = None,
        batch: int = 500,
        max_attempts: int = 5,
        max_concurrent: int = 8,
        post_cohort: PostCohortNext | None = None,
        send_privately: SendPrivately | None = None,
        observe_lag: Callable[[float], None] | None = None,
        settle_checkpoints: SettleCheckpoints | None = None,
    ) -> None:
        self.platforms = platforms
        self.clock = clock
        self.fanout = fanout or FanOut()
        self.interval = interval
        self.replica = replica or replica_name()
        self.ticks = 0
        # Rate limits pace the platform calls; this bounds how many posts use the database at once, so a fan-out
        # of hundreds of channels queues here instead of exhausting the connection pool.
        working = asyncio.Semaphore(max_concurrent)
        self.jobs = jobs = Jobs(uow)
        self.reveals = Reveals(
            jobs=jobs, platforms=platforms, fanout=self.fanout, reveal_post=reveal_post, working=working, batch=batch
        )
        # Without an announcer (a ticker built for schedules alone), seasons are left to a ticker that has one.
        self.season_ends = (
            SeasonEnds(jobs=jobs, announce=announce_season, batch=batch) if announce_season is not None else None
        )
        # Without the read side's call (a ticker built for schedules alone), checkpoints are left to `/quiz me`.
        self.checkpoints = CheckpointSettling(settle=settle_checkpoints) if settle_checkpoints is not None else None
        self.claimer = SlotClaimer(jobs=jobs, replica=self.replica, grace=grace, batch=batch)
        self.private = PrivateDelivery(
            jobs=jobs,
            platforms=platforms,
            replica=self.replica,
            grace=grace,
            batch=batch,
            clock=clock,
            send=send_privately,
        )

        def lifecycle(kind: FireKind[C], store: Store) -> Lifecycle[C]:
            leases = Leases(jobs=jobs, store=store, clock=clock, replica=self.replica, lease=lease)
            return Lifecycle(
                kind=kind,
                jobs=jobs,
                leases=leases,
                platforms=platforms,
                fanout=self.fanout,
                working=working,
                grace=grace,
                batch=batch,
                max_attempts=max_attempts,
            )

        channels = ChannelPosts(
            post_question=post_question, clock=clock, post_cohort=post_cohort, observe_lag=observe_lag
        )
        self.poster = lifecycle(channels, channel_fires)
        self.holdings = self.poster.holdings
        self.delivery = lifecycle(self.private, member_fires)
        self._tasks: set[asyncio.Task[None]] = set()
        self._timer: Timer | None = None
        self._stopping = False

    # --- the timer -------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether the timer is running."""
        return self._timer is not None and self._timer.running

    def start(self) -> None:
        """Start the timer in the running event loop: a tick now, then one every `interval` seconds."""
        if self.running:
            return
        self._stopping = self.poster.stopping = self.delivery.stopping = False
        self._timer = Timer(self._scheduled_tick, interval=self.interval)
        self._timer.start()
        log.info("scheduler started (tick every %s s, replica %s)", self.interval, self.replica)

    async def stop(self, drain_seconds: float = 5.0) -> None:
        """Stop ticking, hand back the claims whose post has not started, and drain the rest.

        A post still waiting for its turn (rate limits, a free worker, the channel's reveal) is cancelled and its
        claim released at once, so that another replica, or this bot once restarted, posts it at its next tick
        instead of after the lease; no platform call starts after this. A call in progress, and the reveals, get
        `drain_seconds`; a call cut short then is left to expire with the lease, since only recovery can tell
        whether it went out.
        """
        self._stopping = self.poster.stopping = self.delivery.stopping = True  # no new tick, no new platform call
        if self._timer is not None:
            await self._timer.stop()  # a running tick finishes its claims first
            self._timer = None
        await self._hand_back()
        tasks = set(self._tasks)
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=drain_seconds)
            await self._hand_back()  # posts sent back to waiting meanwhile (a 429, say) that have not retried yet
            sending = self.poster.holdings.at(Stage.SENDING) + self.delivery.holdings.at(Stage.SENDING)
            cut = [holding for holding in sending if holding.task in pending]
            if cut:
                log.warning("stopping: %d post(s) cut short in the platform call; left for recovery", len(cut))
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    async def _hand_back(self) -> None:
        """Cancel the posts that have not reached their platform call, and release their claims."""
        await self.delivery.hand_back()
        await self.poster.hand_back()

    async def _scheduled_tick(self) -> None:
        if self._stopping:
            return
        try:
            await self.tick(wait=False)
        except StorageUnavailable as exc:
            log.warning("schedule tick skipped: %s", exc)
        except Exception:
            log.exception("schedule tick failed")
        finally:
            self.ticks += 1

    # --- one tick --------------------------------------------------------------------------------

    async def tick(self, *, wait: bool = True) -> TickReport:
        """Reveal what closed, claim what is due, recover expired claims, post (awaited when `wait`), and settle a
        batch of `/quiz me` checkpoints."""
        report = TickReport()
        served = self.platforms.names()
        if not served:
            return report
        now = self.clock.now()
        await self.poster.keep_alive(now)
        await self.delivery.keep_alive(now)
        reveals: dict[ChannelRef, asyncio.Task[None]] = {}
        for post in await self.reveals.close_due(now, served):
            previous = reveals.get(post.channel)  # a channel's posts are revealed oldest first
            reveals[post.channel] = self._spawn(
                self.reveals.reveal(post, report, after=previous), name=f"reveal-{post.post_id}"
            )
        announcements = []
        if self.season_ends is not None:
            for season_id in await self.season_ends.end_due(now, served):
                announcements.append(
                    self._spawn(self.season_ends.announce(season_id, report), name=f"season-{season_id}")
                )
        claims = await self.claimer.claim_due(now, served, report)
        claims += await self.poster.take_over_expired(now, served, report)
        tasks = list(reveals.values()) + announcements
        for claim in claims:
            holding = self.poster.holdings.hold(claim)
            # The channel's previous question is revealed before its next one is posted.
            after = reveals.get(claim.channel)
            holding.task = self._spawn(
                self.poster.send(holding, report, after=after), name=f"schedule-{claim.schedule_id}"
            )
            tasks.append(holding.task)
        members = await self.private.claim_due(now, served, report)
        members += await self.delivery.take_over_expired(now, served, report)
        for member_claim in members:
            member_holding = self.delivery.holdings.hold(member_claim)
            member_holding.task = self._spawn(
                self.delivery.send(member_holding, report), name=f"deliver-{member_claim.fire_id}"
            )
            tasks.append(member_holding.task)
        if self.checkpoints is not None:  # while the posts go out; a failure here is logged and left to the next tick
            await self.checkpoints.settle_due(now, served, report)
        if wait and tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        return report

    def _spawn(self, coro: Coroutine[Any, Any, None], *, name: str) -> asyncio.Task[None]:
        task = asyncio.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.error("scheduled task %s failed: %s", task.get_name(), exc, exc_info=exc)
