"""One fire lifecycle for channel slots and members' private slots: hold, keep alive, send, end, take over, release.

What differs between the two kinds of fire is who is due when (claims.py for channels, delivery.py for members) and
the `FireKind` (posting.py, delivery.py): which store holds its claims, the platform call, how a taken-over claim is
rebuilt, and whether a failure for good pauses the schedule. Everything else is here, once:

- a claim is held by this process (`Holdings`) from its claim until it ends, kept alive each tick, skipped by
  recovery, and handed back when the bot stops before its platform call (`Stage`);
- sending goes through the fan-out limiter, renewing the claim (fenced by `attempts`) right before the platform call;
- how a send ends: sent (finished with its post); nothing left to send (skipped); taken over by another replica (not
  sent here); a failure that may pass (the claim expires in a minute and is retried, until `max_attempts`); a
  failure retrying cannot fix (the slot fails; a channel's schedule is paused with the reason); stopping (released);
- recovery: a claim whose lease expired (its replica died or stalled) is taken over by bumping `attempts`, so the old
  owner cannot send any more. If the old attempt's post reached the platform (it has a message reference) it is
  adopted, not sent again; past the grace window or `max_attempts` the slot is given up; otherwise it is retried.
  A channel keeps the newest unsent post of the lost attempt, which may have reached the platform just before its
  process died: the retry publishes that post again, and the platform tells a repeat (QuizService.post_question).
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Generic, Protocol, TypeVar

from bot.domain.schedules import FireKey
from bot.errors import QuizError, StorageUnavailable, UnknownPack
from bot.ports import ChatPlatform, PlatformError, PlatformRegistry
from bot.scheduling.fanout import FanOut
from bot.scheduling.fires import (
    LOGGER_NAME,
    FireStatus,
    HeldClaim,
    LostClaim,
    PostedFire,
    Refused,
    Stopping,
    TickReport,
)
from bot.scheduling.jobs import Jobs
from bot.scheduling.leases import Leases
from bot.service.repositories import FireRow
from bot.service.uow import UnitOfWork
from bot.wording.i18n import plural

log = logging.getLogger(LOGGER_NAME)

C = TypeVar("C", bound=HeldClaim)


class FireKind(Protocol[C]):
    """What one kind of fire (a channel's slot, a member's slot) adds to the shared lifecycle."""

    keeps_last_unsent: bool
    """On take-over, keep the lost attempt's newest unsent post for the retry to publish again."""
    pauses: bool
    """A slot that fails for good (or finds nothing left to send) pauses its schedule."""

    async def send(self, claim: C, platform: ChatPlatform) -> PostedFire | None:
        """The platform call: the post, or None when nothing is left to send; raises Refused on a failure for good."""
        ...

    async def resume(self, uow: UnitOfWork, fire: FireRow, attempts: int) -> C | None:
        """The claim on a fire row just taken over (as attempt `attempts`); None if what it was for is gone."""
        ...

    def refusal(self, exc: PlatformError) -> str:
        """The reason recorded when the platform refused for good."""
        ...

    def nothing_left(self) -> str:
        """The reason recorded when there was nothing left to send."""
        ...

    def sent(self, claim: C, post_id: int, report: TickReport) -> None:
        """Report (and log) a slot that was sent."""
        ...


class Stage(enum.Enum):
    """How far the send of a held claim got, which decides what stopping may do with it."""

    WAITING = "waiting"  # for the channel's reveal, a rate limit or a free worker: nothing sent, can be handed back
    SENDING = "sending"  # inside the platform call: whether it went out is known only when the call returns
    POSTED = "posted"  # the platform took it; only the bookkeeping is left


@dataclass(eq=False, slots=True)
class Holding(Generic[C]):
    """A claim this process holds, the task sending it, and how far that got."""

    claim: C
    stage: Stage = Stage.WAITING
    task: asyncio.Task[None] | None = None


class Holdings(Generic[C]):
    """The claims this process is sending, by fire id: kept alive each tick, skipped by recovery, released on stop."""

    def __init__(self) -> None:
        self._held: dict[int, Holding[C]] = {}

    def hold(self, claim: C) -> Holding[C]:
        """Start holding a claim."""
        holding = self._held[claim.fire_id] = Holding(claim)
        return holding

    def drop(self, fire_id: int) -> None:
        """Stop holding a claim (sent, given up, lost or released)."""
        self._held.pop(fire_id, None)

    def __contains__(self, fire_id: object) -> bool:
        return fire_id in self._held

    def __iter__(self) -> Iterator[Holding[C]]:
        return iter(list(self._held.values()))

    def __len__(self) -> int:
        return len(self._held)

    def fire_ids(self) -> list[int]:
        """The fire rows held."""
        return list(self._held)

    def at(self, stage: Stage) -> list[Holding[C]]:
        """The holdings whose send is at `stage`."""
        return [holding for holding in self._held.values() if holding.stage is stage]


class Lifecycle(Generic[C]):
    """Holds, sends, ends, recovers and releases the claims of one kind of fire (see the module docstring)."""

    def __init__(
        self,
        *,
        kind: FireKind[C],
        jobs: Jobs,
        leases: Leases,
        platforms: PlatformRegistry,
        fanout: FanOut,
        working: asyncio.Semaphore,
        grace: timedelta,
        batch: int,
        max_attempts: int,
    ) -> None:
        self.kind = kind
        self.jobs = jobs
        self.leases = leases
        self.platforms = platforms
        self.fanout = fanout
        self.working = working
        self.grace = grace
        self.batch = batch
        self.max_attempts = max_attempts
        self.holdings: Holdings[C] = Holdings()
        self.stopping = False  # set by the ticker's stop: no platform call starts any more

    # --- holding ---------------------------------------------------------------------------------

    async def keep_alive(self, now: datetime) -> None:
        """Renew every claim this process is still working on."""
        await self.leases.keep_alive(self.holdings.fire_ids(), now)

    async def hand_back(self) -> None:
        """On stop: cancel the sends that have not reached the platform, and release their claims at once."""
        waiting = self.holdings.at(Stage.WAITING)
        if not waiting:
            return
        tasks = [holding.task for holding in waiting if holding.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)  # so that the release below is the last write
        for holding in waiting:
            self.holdings.drop(holding.claim.fire_id)
        try:
            released = await self.leases.release(holding.claim for holding in waiting)
        except StorageUnavailable as exc:
            log.warning("stopping: %d unposted slot(s) not handed back (%s); left for recovery", len(waiting), exc)
            return
        log.info("stopping: handed %d unposted slot(s) back to the next tick of any replica", released)

    # --- sending ---------------------------------------------------------------------------------

    async def send(self, holding: Holding[C], report: TickReport, *, after: asyncio.Task[None] | None = None) -> None:
        """Send a held claim (after the task `after`, e.g. the reveal of the channel's previous question), record how
        it ended, and drop it."""
        claim = holding.claim
        try:
            if after is not None:
                await asyncio.wait([after])
            platform = self.platforms.get(claim.lane.platform)
            if platform is None:
                await self._defer(claim, "its platform is not running here", report)
                return
            try:
                sent = await self.fanout.send(platform, claim.lane, lambda: self._attempt(holding, platform))
            except LostClaim:
                log.info(
                    "slot %s was taken over by another replica; not sending it here", claim.name, extra=claim.extra
                )
                return
            except Stopping:
                await self.leases.release([claim])
                log.info("slot %s handed back: this replica is stopping", claim.name, extra=claim.extra)
                return
            except Refused as exc:
                await self._end(claim, FireStatus.FAILED, str(exc), report)
                return
            except PlatformError as exc:
                if exc.permanent:
                    await self._end(claim, FireStatus.FAILED, self.kind.refusal(exc), report)
                else:
                    await self._defer(claim, str(exc), report)
                return
            except UnknownPack as exc:
                await self._end(claim, FireStatus.FAILED, str(exc), report)
                return
            except (QuizError, StorageUnavailable) as exc:
                await self._defer(claim, str(exc), report)
                return
            if sent is None:
                await self._end(claim, FireStatus.SKIPPED, self.kind.nothing_left(), report)
                return
            async with self.working:
                await self.leases.finish(claim, FireStatus.POSTED, post_id=sent.card.post_id)
            self.kind.sent(claim, sent.card.post_id, report)
        except StorageUnavailable as exc:  # bookkeeping failed: the claim expires and is recovered
            log.warning("slot %s: database unavailable (%s); left for recovery", claim.name, exc, extra=claim.extra)
        finally:
            self.holdings.drop(claim.fire_id)

    async def _attempt(self, holding: Holding[C], platform: ChatPlatform) -> PostedFire | None:
        """One try (the fan-out retries 429s): renew the claim, then the platform call."""
        claim = holding.claim
        async with self.working:
            if self.stopping:  # e.g. the retry of a post refused with a 429 while the ticker stops
                raise Stopping
            if not await self.leases.renew(claim):
                raise LostClaim
            holding.stage = Stage.SENDING
            try:
                sent = await self.kind.send(claim, platform)
            except Exception:
                holding.stage = Stage.WAITING  # refused: the post's row is removed again and nothing went out
                raise
            holding.stage = Stage.WAITING if sent is None else Stage.POSTED
            return sent

    async def _defer(self, claim: C, reason: str, report: TickReport) -> None:
        """A failure that may pass: retry in a minute (as an expired claim), or give up after max attempts."""
        if claim.attempts >= self.max_attempts:
            await self.leases.finish(claim, FireStatus.FAILED, detail=reason)
            report.failed.append(claim.name)
            log.error("slot %s failed after %d attempts: %s", claim.name, claim.attempts, reason, extra=claim.extra)
            return
        await self.leases.retry_later(claim, reason)
        report.deferred.append(claim.name)
        log.warning("slot %s not sent (%s); will retry", claim.name, reason, extra=claim.extra)

    async def _end(self, claim: C, status: FireStatus, reason: str, report: TickReport) -> None:
        """A slot that ended without a post (failed for good, nothing left): recorded, its schedule maybe paused."""
        pause = self.kind.pauses
        await self.leases.finish(claim, status, detail=reason, pause=pause)
        (report.skipped if status is FireStatus.SKIPPED else report.failed).append(claim.name)
        if pause:
            report.paused.append(claim.schedule_id)
            log.warning("schedule paused: %s", reason, extra=claim.extra)
        else:
            log.warning("slot %s %s: %s", claim.name, status.value, reason, extra=claim.extra)

    # --- recovery --------------------------------------------------------------------------------

    async def take_over_expired(self, now: datetime, served: Sequence[str], report: TickReport) -> list[C]:
        """Take over the expired claims (of platforms served here) except those this process holds."""
        expired = now - self.leases.lease
        rows = await self.jobs.run(lambda uow: self.leases.store(uow).expired(expired, served, limit=self.batch))
        claims = []
        for fire_id, attempts in rows:
            if fire_id in self.holdings:
                continue
            claim = await self.jobs.run(
                partial(self._take_over, fire_id=fire_id, attempts=attempts, now=now, expired=expired, report=report)
            )
            if claim is not None:
                claims.append(claim)
        return claims

    async def _take_over(
        self, uow: UnitOfWork, *, fire_id: int, attempts: int, now: datetime, expired: datetime, report: TickReport
    ) -> C | None:
        """Bump `attempts` of one expired claim (fencing out its owner) and adopt, retry or give up its slot."""
        store = self.leases.store(uow)
        if not await store.take_over(fire_id, attempts, expired=expired, now=now, replica=self.leases.replica):
            return None
        fire = await store.get(fire_id)
        assert fire is not None
        attempt = attempts + 1
        report.recovered += 1
        claim = await self.kind.resume(uow, fire, attempt)
        key = str(FireKey(fire.schedule_id, fire.slot.key))
        name, extra = (claim.name, claim.extra) if claim is not None else (key, {"schedule_id": fire.schedule_id})
        posts = await uow.posts.of_fire(key, recipient=fire.member_row)  # a pack post or a cohort post
        done = next((post.id for post in posts if post.message_ref is not None), None)
        if done is not None:  # the lost attempt posted; only its bookkeeping was lost
            await store.finish(fire_id, attempt, FireStatus.POSTED, now=now, post_id=done, detail=None)
            log.warning("slot %s: adopted post %s of an expired claim", name, done, extra=extra)
            return None
        unsent = sorted(post.id for post in posts)
        late = now - fire.slot.due
        if claim is None or late > self.grace or attempt > self.max_attempts:
            await uow.posts.remove_unsent(unsent)  # rows of attempts that never got a message reference
            if claim is None:
                give_up, detail = FireStatus.SKIPPED, "the schedule, its cohort or the membership is gone"
            else:
                give_up = FireStatus.SKIPPED if late > self.grace else FireStatus.FAILED
                detail = f"claim expired after {plural(attempts, 'attempt')}; {late} late"
                (report.skipped if give_up is FireStatus.SKIPPED else report.failed).append(name)
            await store.finish(fire_id, attempt, give_up, now=now, post_id=None, detail=detail)
            log.warning("slot %s: %s", name, detail, extra=extra)
            return None
        # The newest attempt's post is kept where the platform can tell a repeat of it (see the module docstring).
        await uow.posts.remove_unsent(unsent[:-1] if self.kind.keeps_last_unsent else unsent)
        log.warning("slot %s: claim expired (owner %s gone?); retrying", name, fire.claimed_by, extra=extra)
        return claim
