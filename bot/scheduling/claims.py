"""Claiming due slots: advance each due schedule past now and claim its slot with a unique insert, before posting.

For each schedule whose `next_fire_at` has passed, one transaction:
1. advances `next_fire_at`/`next_slot` with a conditional update (the replica whose update matches goes on);
2. records the slots that passed while no scheduler ran as skipped (all but the latest);
3. claims the latest slot with an insert that is unique on (schedule, slot key); if it is later than the grace
   window it is recorded as skipped instead.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import Cohort, Schedule, ScheduleFire, Workspace
from bot.db.rows import rows_changed
from bot.domain import ChannelRef, Delivery
from bot.domain.schedules import FireKey, Rule, Slot
from bot.schedule_rules import load_rule
from bot.scheduling.fires import LOGGER_NAME, Claim, FireStatus, TickReport, log_context
from bot.service.directory import insert_ignoring_conflict
from bot.service.lookups import CHANNEL_REF_COLUMNS, channel_ref_of, joined_to_channel
from bot.service.uow import UnitOfWorkFactory, committed

log = logging.getLogger(LOGGER_NAME)

MAX_RECORDED_SKIPS = 100
"""At most this many missed slots of one schedule are recorded as skipped (after a long outage)."""


@dataclass(frozen=True, slots=True)
class LoadedSchedule:
    """A schedule row and the channel it posts to."""

    schedule: Schedule
    channel: ChannelRef


async def load_schedule(session: AsyncSession, schedule_id: int) -> LoadedSchedule | None:
    """A schedule and its channel, or None if it was removed."""
    row = (
        await session.execute(
            joined_to_channel(select(Schedule, *CHANNEL_REF_COLUMNS), Schedule.channel_id).where(
                Schedule.id == schedule_id
            )
        )
    ).first()
    if row is None:
        return None
    channel = channel_ref_of(row)
    return LoadedSchedule(schedule=row.Schedule, channel=channel)


class SlotClaimer:
    """Claims due slots for this replica (`replica`); slots later than `grace` are skipped, not posted."""

    def __init__(self, *, uow: UnitOfWorkFactory, replica: str, grace: timedelta, batch: int) -> None:
        self.uow = uow
        self.replica = replica
        self.grace = grace
        self.batch = batch

    async def claim_due(self, now: datetime, served: list[str], report: TickReport) -> list[Claim]:
        """Claim the latest due slot of every due schedule (of platforms served here) that no replica claimed yet."""
        async with committed(self.uow) as uow:
            session = uow.session
            due = (
                (
                    await session.execute(
                        select(Schedule.id)
                        .join(Workspace, Workspace.id == Schedule.workspace_id)
                        .outerjoin(Cohort, Cohort.id == Schedule.cohort_id)
                        .where(
                            Schedule.enabled.is_(True),
                            Schedule.next_fire_at <= now,
                            Workspace.platform.in_(served),
                            # A cohort delivered privately fires per member (delivery.py), not per channel slot.
                            or_(Schedule.cohort_id.is_(None), Cohort.delivery != Delivery.DM.value),
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
        async with committed(self.uow) as uow:
            session = uow.session
            loaded = await load_schedule(session, schedule_id)
            if loaded is None:
                return None
            schedule, channel = loaded.schedule, loaded.channel
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
