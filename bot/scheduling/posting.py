"""Posting a claimed slot: through the fan-out limiter, renewing the claim right before the platform call.

How a post ends:
- posted: the claim is finished with the post's id;
- another replica took the claim over (its lease expired while this one waited): not posted here;
- a failure that may pass (a transient platform error, the database, the platform not running here): the claim is
  left to expire in a minute and recovery tries again, until `max_attempts`;
- a failure retrying cannot fix (channel gone, bot removed, pack unknown): the slot fails and the schedule is
  paused with the reason.
- this replica is stopping before the platform call (see `Ticker.stop`): the claim is released, and the next tick
  of any replica posts it.

The poster knows the quiz only as a `PostQuestion` callable, so the service layer can change behind it.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo

from bot.clock import Clock
from bot.domain import ChannelRef, PostSource, QuestionCard
from bot.domain.schedules import DEFAULT_CLOSE_CAP, Rule, Slot
from bot.errors import QuizError, StorageUnavailable, UnknownPack
from bot.ports import PlatformError, PlatformRegistry
from bot.scheduling.fanout import FanOut
from bot.scheduling.fires import LOGGER_NAME, Claim, FireStatus, LostClaim, Stopping, TickReport, log_context
from bot.scheduling.leases import Leases
from bot.wording import schedules as schedule_words

log = logging.getLogger(LOGGER_NAME)


class PostedFire(Protocol):
    """What the poster needs of a posted question: its card (for the post's id)."""

    @property
    def card(self) -> QuestionCard:
        """The card that was posted."""
        ...


class PostQuestion(Protocol):
    """Posts a channel's next question from `pack_ids` (None: every pack), as `QuizService.post_question` does."""

    async def __call__(
        self,
        channel: ChannelRef,
        *,
        pack_ids: list[str] | None,
        source: PostSource,
        source_ref: str,
        closes_at: datetime,
        fire_key: str,
    ) -> PostedFire:
        """Create the post, send it to the platform and return it; raises PlatformError, QuizError, UnknownPack."""
        ...


class PostCohortNext(Protocol):
    """Posts a cohort's next curriculum question in a channel, as `CohortService.post_next_question` does."""

    async def __call__(
        self, channel: ChannelRef, *, cohort_id: int, closes_at: datetime, fire_key: str
    ) -> PostedFire | None:
        """The post (source cohort, recorded with the fire's key), or None when the curriculum is done."""
        ...


class Stage(enum.Enum):
    """How far the post of a held claim got, which decides what stopping may do with it."""

    WAITING = "waiting"  # for the channel's reveal, a rate limit or a free worker: nothing sent, can be handed back
    SENDING = "sending"  # inside the platform call: whether it went out is known only when the call returns
    POSTED = "posted"  # the platform took it; only the bookkeeping is left


@dataclass(eq=False, slots=True)
class Holding:
    """A claim this process holds, the task posting it, and how far that got."""

    claim: Claim
    stage: Stage = Stage.WAITING
    task: asyncio.Task[None] | None = None


class Holdings:
    """The claims this process is posting, by fire id: kept alive each tick, skipped by recovery, released on stop."""

    def __init__(self) -> None:
        self._held: dict[int, Holding] = {}

    def hold(self, claim: Claim) -> Holding:
        """Start holding a claim."""
        holding = self._held[claim.fire_id] = Holding(claim)
        return holding

    def drop(self, fire_id: int) -> None:
        """Stop holding a claim (posted, given up, lost or released)."""
        self._held.pop(fire_id, None)

    def __contains__(self, fire_id: object) -> bool:
        return fire_id in self._held

    def __iter__(self) -> Iterator[Holding]:
        return iter(list(self._held.values()))

    def __len__(self) -> int:
        return len(self._held)

    def fire_ids(self) -> list[int]:
        """The fire rows held."""
        return list(self._held)

    def at(self, stage: Stage) -> list[Holding]:
        """The holdings whose post is at `stage`."""
        return [holding for holding in self._held.values() if holding.stage is stage]


class _CurriculumDone(Exception):
    """A cohort schedule's fire found nothing left to post: the cohort has been asked its whole curriculum."""


class Poster:
    """Posts held claims one slot at a time; see the module docstring for how a post ends."""

    def __init__(
        self,
        *,
        post_question: PostQuestion,
        platforms: PlatformRegistry,
        fanout: FanOut,
        leases: Leases,
        holdings: Holdings,
        clock: Clock,
        working: asyncio.Semaphore,
        max_attempts: int,
        post_cohort: PostCohortNext | None = None,
        observe_lag: Callable[[float], None] | None = None,
    ) -> None:
        self.post_question = post_question
        self.observe_lag = observe_lag
        """Told how many seconds after its slot each scheduled post went out (the scheduler lag gauge)."""
        self.post_cohort = post_cohort
        self.platforms = platforms
        self.fanout = fanout
        self.leases = leases
        self.holdings = holdings
        self.clock = clock
        self.working = working
        self.max_attempts = max_attempts
        self.stopping = False  # set by the ticker's stop: no platform call starts any more

    async def post(self, holding: Holding, report: TickReport, *, after: asyncio.Task[None] | None = None) -> None:
        """Post a held claim (after the task `after`, the reveal of the channel's previous question), then drop it."""
        claim = holding.claim
        extra = log_context(claim.channel, schedule_id=claim.schedule_id)
        try:
            if after is not None:
                await asyncio.wait([after])
            platform = self.platforms.get(claim.channel.platform)
            if platform is None:
                await self._defer(claim, "its platform is not running here", report)
                return
            try:
                posted = await self.fanout.send(platform, claim.channel, lambda: self._attempt(holding))
            except LostClaim:
                log.info("slot %s was taken over by another replica; not posting it here", claim.slot.key, extra=extra)
                return
            except Stopping:
                await self.leases.release([claim])
                log.info("slot %s handed back: this replica is stopping", claim.slot.key, extra=extra)
                return
            except _CurriculumDone:
                reason = schedule_words.curriculum_done()
                await self.leases.fail_and_pause(claim, reason, status=FireStatus.SKIPPED)
                report.skipped.append(str(claim.key))
                report.paused.append(claim.schedule_id)
                log.info("schedule paused: %s", reason, extra=extra)
                return
            except PlatformError as exc:
                if exc.permanent:
                    await self._give_up(claim, schedule_words.platform_refused_post(exc), report)
                else:
                    await self._defer(claim, str(exc), report)
                return
            except UnknownPack as exc:
                await self._give_up(claim, str(exc), report)
                return
            except (QuizError, StorageUnavailable) as exc:
                await self._defer(claim, str(exc), report)
                return
            async with self.working:
                await self.leases.finish(claim, FireStatus.POSTED, post_id=posted.card.post_id)
            report.posted.append(posted.card.post_id)
            if self.observe_lag is not None:
                self.observe_lag(max(0.0, (self.clock.now() - claim.slot.due).total_seconds()))
            log.info(
                "posted scheduled question for slot %s",
                claim.slot.key,
                extra={**extra, "post_id": posted.card.post_id},
            )
        except StorageUnavailable as exc:  # bookkeeping failed: the claim expires and is recovered
            log.warning("slot %s: database unavailable (%s); left for recovery", claim.key, exc, extra=extra)
        finally:
            self.holdings.drop(claim.fire_id)

    async def _attempt(self, holding: Holding) -> PostedFire:
        """One try (the fan-out retries 429s): renew the claim, then the platform call."""
        claim = holding.claim
        async with self.working:
            if self.stopping:  # e.g. the retry of a post refused with a 429 while the ticker stops
                raise Stopping
            if not await self.leases.renew(claim):
                raise LostClaim
            holding.stage = Stage.SENDING
            try:
                posted = await self._post(claim)
            except Exception:
                holding.stage = Stage.WAITING  # refused: the post's row is removed again and nothing went out
                raise
            holding.stage = Stage.POSTED
            return posted

    async def _post(self, claim: Claim) -> PostedFire:
        """The platform call of one claim: a pack question, or a cohort schedule's next curriculum question."""
        closes = closes_at(claim, self.clock.now())
        if claim.cohort_id is None:
            return await self.post_question(
                claim.channel,
                pack_ids=list(claim.pack_ids) or None,
                source=PostSource.SCHEDULE,
                source_ref=claim.source_ref,
                closes_at=closes,
                fire_key=claim.source_ref,
            )
        if self.post_cohort is None:
            raise QuizError("cohort schedules are not wired into this scheduler")
        posted = await self.post_cohort(
            claim.channel, cohort_id=claim.cohort_id, closes_at=closes, fire_key=claim.source_ref
        )
        if posted is None:
            raise _CurriculumDone
        return posted

    async def _defer(self, claim: Claim, reason: str, report: TickReport) -> None:
        """A failure that may pass: retry in a minute (as an expired claim), or give up after max attempts."""
        extra = log_context(claim.channel, schedule_id=claim.schedule_id)
        if claim.attempts >= self.max_attempts:
            await self.leases.finish(claim, FireStatus.FAILED, detail=reason)
            report.failed.append(str(claim.key))
            log.error("slot %s failed after %d attempts: %s", claim.slot.key, claim.attempts, reason, extra=extra)
            return
        await self.leases.retry_later(claim, reason)
        report.deferred.append(str(claim.key))
        log.warning("slot %s not posted (%s); will retry", claim.slot.key, reason, extra=extra)

    async def _give_up(self, claim: Claim, reason: str, report: TickReport) -> None:
        """A failure retrying cannot fix: mark the slot failed and pause the schedule with the reason."""
        await self.leases.fail_and_pause(claim, reason)
        report.failed.append(str(claim.key))
        report.paused.append(claim.schedule_id)
        log.warning("schedule paused: %s", reason, extra=log_context(claim.channel, schedule_id=claim.schedule_id))


def closes_at(claim: Claim, now: datetime) -> datetime:
    """Explicit close duration, else until the schedule's next fire, at most 24 h (and at least a minute)."""
    return closing_time(claim.close_after, claim.rule, claim.zone, claim.slot, now)


def closing_time(close_after: timedelta | None, rule: Rule, zone: ZoneInfo, slot: Slot, now: datetime) -> datetime:
    """When the post of `slot` closes: after `close_after`, else at the rule's next fire in `zone` (at most 24 h,
    at least a minute from now)."""
    if close_after is not None:
        return now + close_after
    following = rule.next_slot(max(now, slot.due), zone).due
    return max(min(following, now + DEFAULT_CLOSE_CAP), now + timedelta(minutes=1))
