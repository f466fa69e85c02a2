"""The scheduler: fires due schedules exactly once per slot across replicas, and reveals posts whose time is up.

APScheduler 3.11's AsyncIOScheduler runs in the bot's own event loop as a timer only: one short interval job per
process calls `Ticker.tick`. Schedules live in the app's tables (APScheduler job stores must not be shared between
processes). A tick:

1. keeps this process's in-flight claims alive (heartbeat);
2. closes posts whose `closes_at` has passed (a conditional update, so one replica reveals each) and edits their
   cards to show the answer, the distribution and who got it right;
3. for each schedule whose `next_fire_at` has passed: advances it with a conditional update and claims the slot
   with a unique insert into schedule_fires, before anything is posted. Missed slots: the latest one is posted
   late if it is within the grace window, every other one is recorded as skipped;
4. takes over claims whose lease expired (a replica died between claim and post): a conditional update bumps
   `attempts`, which fences the old owner out; if the old attempt got as far as posting, the post is adopted;
5. posts each claimed slot through the fan-out limiter, renewing the claim right before the platform call. A
   permanent platform failure (channel gone, bot removed) pauses the schedule with the reason.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.interval import IntervalTrigger
from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.clock import Clock
from bot.db import Database
from bot.db.models import Channel, Post, Schedule, ScheduleFire, Workspace
from bot.domain import ChannelRef, PostSource
from bot.errors import QuizError, StorageUnavailable, UnknownPack
from bot.ports import PlatformError, PlatformRegistry
from bot.scheduling.fanout import FanOut
from bot.scheduling.fires import (
    LOGGER_NAME,
    Claim,
    FireKey,
    FireStatus,
    TickReport,
    log_context,
    replica_name,
    rows_changed,
)
from bot.scheduling.rules import Rule, Slot, load_rule
from bot.scheduling.wording import DEFAULT_CLOSE_CAP
from bot.service.app import QuizApp
from bot.service.directory import insert_ignoring_conflict
from bot.service.quiz import PostedQuestion, QuizService

log = logging.getLogger(LOGGER_NAME)

JOB_ID = "quizbot-schedule-tick"
MAX_RECORDED_SKIPS = 100
RETRY_AFTER_FAILURE = timedelta(minutes=1)


class _LostClaim(Exception):
    """Another replica took the slot over; this one must not post it."""


class Ticker:
    """Finds due schedules, claims their slots, posts them, and reveals posts that closed."""

    def __init__(
        self,
        *,
        db: Database,
        quiz: QuizService,
        app: QuizApp,
        platforms: PlatformRegistry,
        clock: Clock,
        fanout: FanOut | None = None,
        grace: timedelta = timedelta(hours=1),
        lease: timedelta = timedelta(minutes=5),
        interval: float = 10.0,
        replica: str | None = None,
        batch: int = 500,
        max_attempts: int = 5,
        max_concurrent: int = 8,
    ) -> None:
        self.db = db
        self.quiz = quiz
        self.app = app
        self.platforms = platforms
        self.clock = clock
        self.fanout = fanout or FanOut()
        self.grace = grace
        self.lease = lease
        self.interval = interval
        self.replica = replica or replica_name()
        self.batch = batch
        self.max_attempts = max_attempts
        self.ticks = 0
        # Rate limits pace the platform calls; this bounds how many posts use the database at once, so a fan-out
        # of hundreds of channels queues here instead of exhausting the connection pool.
        self._working = asyncio.Semaphore(max_concurrent)
        self._inflight: dict[int, int] = {}  # fire id -> attempts, for fires this process is posting
        self._tasks: set[asyncio.Task[None]] = set()
        self._tick_lock = asyncio.Lock()
        self._scheduler: AsyncIOScheduler | None = None
        self._stopping = False

    # --- the timer -------------------------------------------------------------------------------

    @property
    def scheduler(self) -> AsyncIOScheduler | None:
        """The running APScheduler instance (None when stopped)."""
        return self._scheduler

    def start(self) -> None:
        """Register the tick as an APScheduler interval job in the running event loop, first run now."""
        if self._scheduler is not None:
            return
        self._stopping = False
        scheduler = AsyncIOScheduler(timezone=UTC)
        scheduler.add_job(
            self._scheduled_tick,
            IntervalTrigger(seconds=self.interval, timezone=UTC),
            id=JOB_ID,
            name="quizbot schedules",
            next_run_time=datetime.now(UTC),
            coalesce=True,
            max_instances=1,
            # A loop blocked for a moment must not drop ticks (APScheduler's default grace is one second).
            misfire_grace_time=max(60, int(self.interval * 3)),
            replace_existing=True,
        )
        scheduler.start()
        self._scheduler = scheduler
        log.info("scheduler started (tick every %s s, replica %s)", self.interval, self.replica)

    async def stop(self, drain_seconds: float = 5.0) -> None:
        """Stop ticking; give in-flight posts `drain_seconds`, then cancel them (their claims are recovered)."""
        self._stopping = True
        async with self._tick_lock:  # let a running tick finish its claims
            if self._scheduler is not None:
                self._scheduler.shutdown(wait=False)
                self._scheduler = None
        tasks = set(self._tasks)
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=drain_seconds)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        await asyncio.sleep(0)  # APScheduler's own shutdown runs on the loop

    async def _scheduled_tick(self) -> None:
        if self._stopping or self._tick_lock.locked():
            return
        async with self._tick_lock:
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
        """Reveal what closed, claim what is due, recover expired claims, and post (awaited when `wait`)."""
        report = TickReport()
        served = self.platforms.names()
        if not served:
            return report
        now = self.clock.now()
        await self._heartbeat(now)
        reveals = await self._start_reveals(now, served, report)
        claims = await self._claim_due(now, served, report)
        claims += await self._recover(now, served, report)
        tasks = list(reveals.values())
        for claim in claims:
            self._inflight[claim.fire_id] = claim.attempts
            # The channel's previous question is revealed before its next one is posted.
            after = reveals.get(claim.channel)
            tasks.append(self._spawn(self._post(claim, report, after=after), name=f"schedule-{claim.schedule_id}"))
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

    async def _heartbeat(self, now: datetime) -> None:
        if not self._inflight:
            return
        async with self.db.transaction() as session:
            await session.execute(
                update(ScheduleFire)
                .where(
                    ScheduleFire.id.in_(list(self._inflight)),
                    ScheduleFire.status == FireStatus.CLAIMED.value,
                    ScheduleFire.claimed_by == self.replica,
                )
                .values(claimed_at=now)
            )

    # --- reveals ---------------------------------------------------------------------------------

    async def _start_reveals(
        self, now: datetime, served: list[str], report: TickReport
    ) -> dict[ChannelRef, asyncio.Task[None]]:
        async with self.db.transaction() as session:
            rows = (
                await session.execute(
                    select(
                        Post.id,
                        Post.closes_at,
                        Workspace.platform,
                        Workspace.external_id.label("workspace"),
                        Channel.external_id.label("channel"),
                    )
                    .join(Channel, Channel.id == Post.channel_id)
                    .join(Workspace, Workspace.id == Channel.workspace_id)
                    .where(
                        Post.closed_at.is_(None),
                        Post.closes_at.is_not(None),
                        Post.closes_at <= now,
                        Post.message_ref.is_not(None),
                        Workspace.platform.in_(served),
                    )
                    .order_by(Post.closes_at)
                    .limit(self.batch)
                )
            ).all()
        tasks: dict[ChannelRef, asyncio.Task[None]] = {}
        for row in rows:
            async with self.db.transaction() as session:
                # Whoever closes the post reveals it: one replica, once.
                closed = rows_changed(
                    await session.execute(
                        update(Post).where(Post.id == row.id, Post.closed_at.is_(None)).values(closed_at=row.closes_at)
                    )
                )
            if closed:
                channel = ChannelRef(platform=row.platform, workspace_id=row.workspace, channel_id=row.channel)
                previous = tasks.get(channel)
                tasks[channel] = self._spawn(
                    self._reveal(row.id, channel, report, after=previous), name=f"reveal-{row.id}"
                )
        return tasks

    async def _reveal(
        self, post_id: int, channel: ChannelRef, report: TickReport, *, after: asyncio.Task[None] | None = None
    ) -> None:
        if after is not None:
            await asyncio.wait([after])
        platform = self.platforms.get(channel.platform)
        if platform is None:
            return
        extra = log_context(channel, post_id=post_id)

        async def attempt() -> None:
            async with self._working:
                await self.app.reveal(post_id)

        try:
            await self.fanout.send(platform, channel, attempt)
        except (PlatformError, QuizError) as exc:
            log.warning("the closed question's card could not be edited: %s", exc, extra=extra)
            return
        report.revealed.append(post_id)
        log.info("revealed a closed question", extra=extra)

    # --- claiming --------------------------------------------------------------------------------

    async def _claim_due(self, now: datetime, served: list[str], report: TickReport) -> list[Claim]:
        async with self.db.transaction() as session:
            due = (
                (
                    await session.execute(
                        select(Schedule.id)
                        .join(Workspace, Workspace.id == Schedule.workspace_id)
                        .where(
                            Schedule.enabled.is_(True),
                            Schedule.next_fire_at <= now,
                            Workspace.platform.in_(served),
                        )
                        .order_by(Schedule.next_fire_at)
                        .limit(self.batch)
                    )
                )
                .scalars()
                .all()
            )
        claims = []
        for schedule_id in due:
            claim = await self._claim(int(schedule_id), now, report)
            if claim is not None:
                claims.append(claim)
        return claims

    async def _claim(self, schedule_id: int, now: datetime, report: TickReport) -> Claim | None:
        """Advance one due schedule past now and claim its latest due slot; None if another replica did."""
        async with self.db.transaction() as session:
            loaded = await self._load(session, schedule_id)
            if loaded is None:
                return None
            schedule, channel = loaded
            if not schedule.enabled or schedule.next_fire_at is None or schedule.next_slot is None:
                return None
            if schedule.next_fire_at > now:
                return None
            rule, zone = load_rule(schedule.rule), ZoneInfo(schedule.timezone)
            current = Slot(key=schedule.next_slot, due=schedule.next_fire_at)
            latest = rule.last_slot(now, zone)
            if latest is None or latest.due < current.due:
                latest = current
            following = rule.next_slot(now, zone)
            advanced = rows_changed(
                await session.execute(
                    update(Schedule)
                    .where(
                        Schedule.id == schedule_id,
                        Schedule.enabled.is_(True),
                        Schedule.next_slot == current.key,
                        Schedule.next_fire_at == current.due,
                    )
                    .values(next_fire_at=following.due, next_slot=following.key)
                )
            )
            if not advanced:
                return None  # another replica advanced it first (and claimed the slot)
            extra = log_context(channel, schedule_id=schedule_id)
            missed = self._missed(rule, zone, current, latest)
            for slot in missed:
                await self._insert_fire(
                    session,
                    schedule_id=schedule_id,
                    slot=slot,
                    now=now,
                    status=FireStatus.SKIPPED,
                    detail="missed; a later slot was due",
                )
                report.skipped.append(str(FireKey(schedule_id, slot.key)))
            if missed:
                log.warning(
                    "%d slot(s) from %s were missed while no scheduler ran; skipped",
                    len(missed),
                    missed[0].key,
                    extra=extra,
                )
            late = now - latest.due
            if late > self.grace:
                await self._insert_fire(
                    session,
                    schedule_id=schedule_id,
                    slot=latest,
                    now=now,
                    status=FireStatus.SKIPPED,
                    detail=f"missed by {late} (grace {self.grace})",
                )
                report.skipped.append(str(FireKey(schedule_id, latest.key)))
                log.warning(
                    "slot %s was missed by %s, more than the grace window (%s); skipped",
                    latest.key,
                    late,
                    self.grace,
                    extra=extra,
                )
                return None
            fire_id = await self._insert_fire(
                session, schedule_id=schedule_id, slot=latest, now=now, status=FireStatus.CLAIMED, detail=None
            )
            if fire_id is None:
                log.info("slot %s was already claimed", latest.key, extra=extra)
                return None
            if late > timedelta(minutes=1):
                log.info("slot %s is %s late; posting it now", latest.key, late, extra=extra)
            return Claim.of(schedule, fire_id=fire_id, attempts=1, slot=latest, channel=channel)

    @staticmethod
    def _missed(rule: Rule, zone: ZoneInfo, current: Slot, latest: Slot) -> list[Slot]:
        """Slots from `current` up to (not including) `latest`: passed while no scheduler ran (capped)."""
        missed: list[Slot] = []
        slot = current
        while slot.due < latest.due and len(missed) < MAX_RECORDED_SKIPS:
            missed.append(slot)
            slot = rule.next_slot(slot.due, zone)
        return missed

    async def _insert_fire(
        self,
        session: AsyncSession,
        *,
        schedule_id: int,
        slot: Slot,
        now: datetime,
        status: FireStatus,
        detail: str | None,
    ) -> int | None:
        values = {
            "schedule_id": schedule_id,
            "slot_key": slot.key,
            "due_at": slot.due,
            "status": status.value,
            "claimed_at": now,
            "claimed_by": self.replica,
            "attempts": 1,
            "detail": detail,
            "finished_at": None if status is FireStatus.CLAIMED else now,
        }
        statement = insert_ignoring_conflict(session, ScheduleFire, values, ["schedule_id", "slot_key"])
        inserted = (await session.execute(statement.returning(ScheduleFire.id))).scalar()
        return int(inserted) if inserted is not None else None

    @staticmethod
    async def _load(session: AsyncSession, schedule_id: int) -> tuple[Schedule, ChannelRef] | None:
        row = (
            await session.execute(
                select(
                    Schedule,
                    Workspace.platform,
                    Workspace.external_id.label("workspace"),
                    Channel.external_id.label("channel"),
                )
                .join(Channel, Channel.id == Schedule.channel_id)
                .join(Workspace, Workspace.id == Schedule.workspace_id)
                .where(Schedule.id == schedule_id)
            )
        ).first()
        if row is None:
            return None
        return row.Schedule, ChannelRef(platform=row.platform, workspace_id=row.workspace, channel_id=row.channel)

    # --- recovery --------------------------------------------------------------------------------

    async def _recover(self, now: datetime, served: list[str], report: TickReport) -> list[Claim]:
        expired = now - self.lease
        async with self.db.transaction() as session:
            rows = (
                await session.execute(
                    select(ScheduleFire.id, ScheduleFire.attempts)
                    .join(Schedule, Schedule.id == ScheduleFire.schedule_id)
                    .join(Workspace, Workspace.id == Schedule.workspace_id)
                    .where(
                        ScheduleFire.status == FireStatus.CLAIMED.value,
                        ScheduleFire.claimed_at < expired,
                        Workspace.platform.in_(served),
                    )
                    .order_by(ScheduleFire.claimed_at)
                    .limit(self.batch)
                )
            ).all()
        claims = []
        for row in rows:
            if row.id in self._inflight:
                continue
            claim = await self._take_over(int(row.id), int(row.attempts), now, expired, report)
            if claim is not None:
                claims.append(claim)
        return claims

    async def _take_over(
        self, fire_id: int, attempts: int, now: datetime, expired: datetime, report: TickReport
    ) -> Claim | None:
        async with self.db.transaction() as session:
            taken = rows_changed(
                await session.execute(
                    update(ScheduleFire)
                    .where(
                        ScheduleFire.id == fire_id,
                        ScheduleFire.status == FireStatus.CLAIMED.value,
                        ScheduleFire.attempts == attempts,
                        ScheduleFire.claimed_at < expired,
                    )
                    .values(claimed_at=now, claimed_by=self.replica, attempts=attempts + 1)
                )
            )
            if not taken:
                return None
            fire = await session.get(ScheduleFire, fire_id)
            assert fire is not None
            loaded = await self._load(session, fire.schedule_id)
            if loaded is None:
                return None
            schedule, channel = loaded
            extra = log_context(channel, schedule_id=schedule.id)
            slot = Slot(key=fire.slot_key, due=fire.due_at)
            source_ref = str(FireKey(schedule.id, slot.key))
            posts = (
                await session.execute(
                    select(Post.id, Post.message_ref).where(
                        Post.source == PostSource.SCHEDULE.value, Post.source_ref == source_ref
                    )
                )
            ).all()
            done = next((post.id for post in posts if post.message_ref is not None), None)
            report.recovered += 1
            if done is not None:  # the lost attempt posted; only its bookkeeping was lost
                fire.status, fire.post_id, fire.finished_at = FireStatus.POSTED.value, done, now
                log.warning("slot %s: adopted post %s of an expired claim", slot.key, done, extra=extra)
                return None
            if posts:  # rows of an attempt that never got a message reference
                await session.execute(
                    delete(Post).where(
                        Post.source == PostSource.SCHEDULE.value,
                        Post.source_ref == source_ref,
                        Post.message_ref.is_(None),
                    )
                )
            late = now - slot.due
            if late > self.grace or attempts + 1 > self.max_attempts:
                give_up = FireStatus.SKIPPED if late > self.grace else FireStatus.FAILED
                fire.status, fire.finished_at = give_up.value, now
                fire.detail = f"claim expired after {attempts} attempt(s); {late} late"[:300]
                (report.skipped if give_up is FireStatus.SKIPPED else report.failed).append(source_ref)
                log.warning("slot %s: %s", slot.key, fire.detail, extra=extra)
                return None
            log.warning("slot %s: claim expired (owner %s gone?); retrying", slot.key, fire.claimed_by, extra=extra)
            return Claim.of(schedule, fire_id=fire_id, attempts=attempts + 1, slot=slot, channel=channel)

    # --- posting ---------------------------------------------------------------------------------

    async def _post(self, claim: Claim, report: TickReport, *, after: asyncio.Task[None] | None = None) -> None:
        extra = log_context(claim.channel, schedule_id=claim.schedule_id)
        try:
            if after is not None:
                await asyncio.wait([after])
            platform = self.platforms.get(claim.channel.platform)
            if platform is None:
                await self._defer(claim, "its platform is not running here", report)
                return

            async def attempt() -> PostedQuestion:
                async with self._working:
                    if not await self._renew(claim):
                        raise _LostClaim
                    now = self.clock.now()
                    return await self.quiz.post_question(
                        claim.channel,
                        pack_ids=list(claim.pack_ids) or None,
                        source=PostSource.SCHEDULE,
                        source_ref=claim.source_ref,
                        closes_at=self._closes_at(claim, now),
                    )

            try:
                posted = await self.fanout.send(platform, claim.channel, attempt)
            except _LostClaim:
                log.info("slot %s was taken over by another replica; not posting it here", claim.slot.key, extra=extra)
                return
            except PlatformError as exc:
                if exc.permanent:
                    await self._give_up(claim, f"the platform refused the post: {exc}", report)
                else:
                    await self._defer(claim, str(exc), report)
                return
            except UnknownPack as exc:
                await self._give_up(claim, str(exc), report)
                return
            except (QuizError, StorageUnavailable) as exc:
                await self._defer(claim, str(exc), report)
                return
            async with self._working:
                await self._finish(claim, FireStatus.POSTED, post_id=posted.card.post_id)
            report.posted.append(posted.card.post_id)
            log.info(
                "posted scheduled question for slot %s",
                claim.slot.key,
                extra={**extra, "post_id": posted.card.post_id},
            )
        except StorageUnavailable as exc:  # bookkeeping failed: the claim expires and is recovered
            log.warning("slot %s: database unavailable (%s); left for recovery", claim.key, exc, extra=extra)
        finally:
            self._inflight.pop(claim.fire_id, None)

    def _closes_at(self, claim: Claim, now: datetime) -> datetime:
        """Explicit close duration, else until the schedule's next fire, at most 24 h (and at least a minute)."""
        if claim.close_after is not None:
            return now + claim.close_after
        following = claim.rule.next_slot(max(now, claim.slot.due), claim.zone).due
        return max(min(following, now + DEFAULT_CLOSE_CAP), now + timedelta(minutes=1))

    async def _renew(self, claim: Claim) -> bool:
        async with self.db.transaction() as session:
            return bool(
                rows_changed(
                    await session.execute(
                        update(ScheduleFire)
                        .where(
                            ScheduleFire.id == claim.fire_id,
                            ScheduleFire.status == FireStatus.CLAIMED.value,
                            ScheduleFire.attempts == claim.attempts,
                            ScheduleFire.claimed_by == self.replica,
                        )
                        .values(claimed_at=self.clock.now())
                    )
                )
            )

    async def _finish(
        self, claim: Claim, status: FireStatus, *, post_id: int | None = None, detail: str | None = None
    ) -> None:
        async with self.db.transaction() as session:
            done = rows_changed(
                await session.execute(
                    update(ScheduleFire)
                    .where(
                        ScheduleFire.id == claim.fire_id,
                        ScheduleFire.status == FireStatus.CLAIMED.value,
                        ScheduleFire.attempts == claim.attempts,
                    )
                    .values(
                        status=status.value,
                        post_id=post_id,
                        detail=detail[:300] if detail else None,
                        finished_at=self.clock.now(),
                    )
                )
            )
        if not done:
            log.warning(
                "slot %s: the claim was taken over while this replica finished it",
                claim.slot.key,
                extra=log_context(claim.channel, schedule_id=claim.schedule_id, post_id=post_id),
            )

    async def _defer(self, claim: Claim, reason: str, report: TickReport) -> None:
        """A failure that may pass: retry in a minute (as an expired claim), or give up after max attempts."""
        extra = log_context(claim.channel, schedule_id=claim.schedule_id)
        if claim.attempts >= self.max_attempts:
            await self._finish(claim, FireStatus.FAILED, detail=reason)
            report.failed.append(str(claim.key))
            log.error("slot %s failed after %d attempts: %s", claim.slot.key, claim.attempts, reason, extra=extra)
            return
        retry_at = self.clock.now() - self.lease + min(self.lease, RETRY_AFTER_FAILURE)
        async with self.db.transaction() as session:
            await session.execute(
                update(ScheduleFire)
                .where(
                    ScheduleFire.id == claim.fire_id,
                    ScheduleFire.status == FireStatus.CLAIMED.value,
                    ScheduleFire.attempts == claim.attempts,
                )
                .values(claimed_at=retry_at, detail=reason[:300])
            )
        report.deferred.append(str(claim.key))
        log.warning("slot %s not posted (%s); will retry", claim.slot.key, reason, extra=extra)

    async def _give_up(self, claim: Claim, reason: str, report: TickReport) -> None:
        """A failure retrying cannot fix: mark the slot failed and pause the schedule with the reason."""
        await self._finish(claim, FireStatus.FAILED, detail=reason)
        async with self.db.transaction() as session:
            await session.execute(
                update(Schedule)
                .where(Schedule.id == claim.schedule_id)
                .values(enabled=False, paused_reason=reason[:300])
            )
        report.failed.append(str(claim.key))
        report.paused.append(claim.schedule_id)
        log.warning("schedule paused: %s", reason, extra=log_context(claim.channel, schedule_id=claim.schedule_id))
