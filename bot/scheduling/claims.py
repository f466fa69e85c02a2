"""Claiming channels' due slots: advance each due schedule past now and claim its slot with a unique insert.

Who is due when, for channel schedules. For each schedule whose `next_fire_at` has passed, one job:
1. advances `next_fire_at`/`next_slot` with a conditional update (the replica whose update matches goes on);
2. records the slots that passed while no scheduler ran as skipped (all but the latest);
3. claims the latest slot with an insert that is unique on (schedule, slot key); if it is later than the grace
   window it is recorded as skipped instead.
What happens to a claim next (sending it, keeping it alive, recovering it) is the shared lifecycle's
(lifecycle.py).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from functools import partial
from zoneinfo import ZoneInfo

from bot.domain.schedules import FireKey, Rule, Slot
from bot.schedule_rules import load_rule
from bot.scheduling.fires import LOGGER_NAME, Claim, FireStatus, TickReport, log_context
from bot.scheduling.jobs import Jobs
from bot.service.uow import UnitOfWork

log = logging.getLogger(LOGGER_NAME)

MAX_RECORDED_SKIPS = 100
"""At most this many missed slots of one schedule are recorded as skipped (after a long outage)."""


class SlotClaimer:
    """Claims due slots for this replica (`replica`); slots later than `grace` are skipped, not posted."""

    def __init__(self, *, jobs: Jobs, replica: str, grace: timedelta, batch: int) -> None:
        self.jobs = jobs
        self.replica = replica
        self.grace = grace
        self.batch = batch

    async def claim_due(self, now: datetime, served: list[str], report: TickReport) -> list[Claim]:
        """Claim the latest due slot of every due schedule (of platforms served here) that no replica claimed yet."""
        due = await self.jobs.run(lambda uow: uow.channel_fires.due_schedules(now, served, limit=self.batch))
        claims = []
        for schedule_id in due:
            claim = await self.jobs.run(partial(self._claim, schedule_id, now, report))
            if claim is not None:
                claims.append(claim)
        return claims

    async def _claim(self, schedule_id: int, now: datetime, report: TickReport, uow: UnitOfWork) -> Claim | None:
        """Advance one due schedule past now and claim its latest due slot; None if another replica did."""
        fires = uow.channel_fires
        loaded = await fires.schedule(schedule_id)
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
        if not await fires.advance(schedule_id, current, rule.next_slot(now, zone)):
            return None  # another replica advanced it first (and claimed the slot)
        extra = log_context(channel, schedule_id=schedule_id)
        missed = self._missed(rule, zone, current, latest)
        for slot in missed:
            await fires.claim(
                schedule_id,
                slot,
                now=now,
                replica=self.replica,
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
            detail = f"missed by {late} (grace {self.grace})"
            await fires.claim(
                schedule_id, latest, now=now, replica=self.replica, status=FireStatus.SKIPPED, detail=detail
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
        fire_id = await fires.claim(schedule_id, latest, now=now, replica=self.replica)
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
