"""Posting a channel's claimed slot: the channel fires' kind in the shared lifecycle (lifecycle.py).

The lifecycle sends a held claim through the fan-out limiter, renewing it right before the platform call, and
records how it ended. What is a channel's own:
- the platform call: the channel's next question from the schedule's packs, or a cohort schedule's next curriculum
  question (`PostQuestion`, `PostCohortNext`: the poster knows the quiz only as callables, so the service layer can
  change behind it);
- a failure retrying cannot fix (channel gone, bot removed, pack unknown), and a cohort whose curriculum is done,
  pause the schedule with the reason;
- a claim taken over from a dead replica keeps the newest unsent post, which the retry publishes again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo

from bot.clock import Clock
from bot.domain import ChannelRef, PostSource
from bot.domain.schedules import DEFAULT_CLOSE_CAP, Rule, Slot
from bot.errors import QuizError
from bot.ports import ChatPlatform, PlatformError
from bot.scheduling.fires import LOGGER_NAME, Claim, PostedFire, TickReport
from bot.service.repositories import FireRow
from bot.service.uow import UnitOfWork
from bot.wording import schedules as schedule_words

log = logging.getLogger(LOGGER_NAME)


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


class ChannelPosts:
    """The channel fires' kind (lifecycle.FireKind): posts a claimed slot in its channel."""

    keeps_last_unsent = True
    pauses = True

    def __init__(
        self,
        *,
        post_question: PostQuestion,
        clock: Clock,
        post_cohort: PostCohortNext | None = None,
        observe_lag: Callable[[float], None] | None = None,
    ) -> None:
        self.post_question = post_question
        self.post_cohort = post_cohort
        self.clock = clock
        self.observe_lag = observe_lag
        """Told how many seconds after its slot each scheduled post went out (the scheduler lag gauge)."""

    async def send(self, claim: Claim, platform: ChatPlatform) -> PostedFire | None:
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
        return await self.post_cohort(
            claim.channel, cohort_id=claim.cohort_id, closes_at=closes, fire_key=claim.source_ref
        )

    async def resume(self, uow: UnitOfWork, fire: FireRow, attempts: int) -> Claim | None:
        """The claim on a channel's slot just taken over; None if its schedule is gone."""
        loaded = await uow.channel_fires.schedule(fire.schedule_id)
        if loaded is None:
            return None
        schedule, channel = loaded
        return Claim.of(schedule, fire_id=fire.fire_id, attempts=attempts, slot=fire.slot, channel=channel)

    def refusal(self, exc: PlatformError) -> str:
        """Why the schedule is paused when the platform refused its post for good."""
        return schedule_words.platform_refused_post(exc)

    def nothing_left(self) -> str:
        """Why a cohort's schedule is paused once its curriculum is done."""
        return schedule_words.curriculum_done()

    def sent(self, claim: Claim, post_id: int, report: TickReport) -> None:
        """Report a posted slot, and tell the lag gauge how late it went out."""
        report.posted.append(post_id)
        if self.observe_lag is not None:
            self.observe_lag(max(0.0, (self.clock.now() - claim.slot.due).total_seconds()))
        log.info("posted scheduled question for slot %s", claim.slot.key, extra={**claim.extra, "post_id": post_id})


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
