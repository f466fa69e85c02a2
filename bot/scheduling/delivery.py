"""Private delivery: a cohort delivered by direct message gets each fire of its schedules member by member.

For each enabled schedule of a cohort whose delivery is `dm`, every tick:
1. each member's timezone is the one their platform profile gives (`DirectDelivery.user_timezone`, asked once and
   cached in `users.timezone`), else the schedule's; the member's slot is the rule's latest fire at or before now
   in that timezone (so `weekdays 09:00` reaches Helsinki at 09:00 Helsinki time and New York at 09:00 New York);
2. a slot counts only if it is due after the member joined and after the schedule was made, and no later than the
   grace window (a member whose slot passed long ago while no bot ran is not sent it late);
3. it is claimed with an insert that is unique on (schedule, member, local slot key), in `member_fires`: exactly
   one replica wins each member's slot;
4. the claim is sent through the fan-out limiter (bot/scheduling/fanout.py), one lane per member, so the
   platform's workspace and bot-wide limits hold: renew the claim (fenced by `attempts`), open the member's direct
   channel, post the next curriculum question *they* have not been sent (a cohort post addressed to them).

Everything after the claim is the shared fire lifecycle (lifecycle.py), as for channel slots: keeping the claim
alive, sending it, taking it over once its lease expired (a post that reached the platform is adopted, an unsent
one removed and the member's slot tried again, within the grace window and `max_attempts`), handing it back.

How one member's slot ends: posted; skipped (the member has had the whole curriculum, or it became too late);
failed (the platform refused for good: the person cannot be messaged, or the platform cannot send direct messages;
other members are not affected and the schedule keeps running).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import NamedTuple, Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.clock import Clock
from bot.domain import ChannelRef, UserRef
from bot.domain.schedules import FireKey, Rule, Slot
from bot.ports import ChatPlatform, PlatformError, PlatformRegistry, direct_delivery_of
from bot.schedule_rules import load_rule
from bot.scheduling.fires import LOGGER_NAME, PostedFire, Refused, TickReport
from bot.scheduling.jobs import Jobs
from bot.scheduling.posting import closing_time
from bot.service.repositories import DeliveryMember, FireRow
from bot.service.uow import UnitOfWork
from bot.wording import cohorts as cohort_words
from bot.wording import schedules as schedule_words

log = logging.getLogger(LOGGER_NAME)


class SendPrivately(Protocol):
    """Sends a member their next curriculum question in `direct`, as `CohortService.send_next_privately` does."""

    async def __call__(
        self,
        direct: ChannelRef,
        *,
        cohort_id: int,
        member: UserRef,
        member_row: int,
        fire_key: str,
        closes_at: datetime,
    ) -> PostedFire | None:
        """The post, or None when the member has been sent the whole curriculum."""
        ...


@dataclass(frozen=True, slots=True)
class MemberClaim:
    """One member's slot of a privately delivered schedule, held by this replica until its lease expires."""

    fire_id: int
    attempts: int
    schedule_id: int
    cohort_id: int
    member: UserRef
    member_row: int
    slot: Slot
    zone: ZoneInfo
    rule: Rule
    close_after: timedelta | None

    @property
    def key(self) -> FireKey:
        """The schedule and the member's local slot (recorded on the post as its fire key)."""
        return FireKey(self.schedule_id, self.slot.key)

    @property
    def lane(self) -> ChannelRef:
        """The fan-out lane of this member's direct messages (their own channel bucket, their workspace's)."""
        return ChannelRef(self.member.platform, self.member.workspace_id, f"@{self.member.user_id}")

    @property
    def name(self) -> str:
        """`12:2026-01-05T09:00@U123`: how reports and logs name one member's slot."""
        return f"{self.key}@{self.member.user_id}"

    @property
    def extra(self) -> dict[str, object]:
        """The `extra=` of a log line about this member's slot."""
        return {
            "platform": self.member.platform,
            "workspace": self.member.workspace_id,
            "schedule_id": self.schedule_id,
        }

    def __str__(self) -> str:
        """The slot's name."""
        return self.name


class _Plan(NamedTuple):
    """What claiming needs of one privately delivered schedule (plain values, read in one short transaction)."""

    schedule_id: int
    cohort_id: int
    rule: Rule
    zone: ZoneInfo
    close_after: timedelta | None
    created_at: datetime
    next_fire_at: datetime | None
    members: list[DeliveryMember]


def member_zone(timezone: str | None, fallback: ZoneInfo) -> ZoneInfo:
    """The member's profile timezone, or `fallback` (the schedule's) when there is none or it is not IANA."""
    if not timezone:
        return fallback
    try:
        return ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        return fallback


class PrivateDelivery:
    """Who is due when among the members of privately delivered cohort schedules, and the members' fires' kind in
    the shared lifecycle (lifecycle.FireKind): sends a member's claimed slot to them directly."""

    keeps_last_unsent = False
    pauses = False

    def __init__(
        self,
        *,
        jobs: Jobs,
        platforms: PlatformRegistry,
        replica: str,
        grace: timedelta,
        batch: int,
        clock: Clock,
        send: SendPrivately | None,
    ) -> None:
        self.jobs = jobs
        self.platforms = platforms
        self.replica = replica
        self.grace = grace
        self.batch = batch
        self.clock = clock
        self.send_privately = send

    # --- who is due when --------------------------------------------------------------------------

    async def claim_due(self, now: datetime, served: list[str], report: TickReport) -> list[MemberClaim]:
        """Claim every member's due slot of every privately delivered schedule (of platforms served here)."""
        plans = await self.jobs.run(partial(self._plans, served))
        if not plans:
            return []
        await self._learn_timezones(plans)
        claims: list[MemberClaim] = []
        for plan in plans:
            claims += await self.jobs.run(partial(self._claim, plan, now))
        return claims

    async def _plans(self, served: list[str], uow: UnitOfWork) -> list[_Plan]:
        plans = []
        for schedule, cohort in await uow.schedules.privately_delivered(served, limit=self.batch):
            plans.append(
                _Plan(
                    schedule_id=schedule.id,
                    cohort_id=cohort.id,
                    rule=load_rule(schedule.rule),
                    zone=ZoneInfo(schedule.timezone),
                    close_after=_close_after(schedule.close_after_seconds),
                    created_at=schedule.created_at,
                    next_fire_at=schedule.next_fire_at,
                    members=await uow.cohorts.delivery_members(cohort.id),
                )
            )
        return plans

    async def _learn_timezones(self, plans: list[_Plan]) -> None:
        """Ask the platform once for each member's profile timezone (outside any transaction) and cache it."""
        learned: dict[int, str] = {}
        for plan in plans:
            for index, member in enumerate(plan.members):
                if member.timezone is not None:
                    continue
                if member.user_row not in learned:
                    direct = direct_delivery_of(self.platforms.get(member.user.platform))
                    if direct is None:
                        continue  # nothing to learn there: the schedule's timezone applies
                    try:
                        learned[member.user_row] = await direct.user_timezone(member.user) or ""
                    except PlatformError as exc:
                        log.info("timezone of a member not known (%s); the schedule's applies for now", exc)
                        continue
                plan.members[index] = member._replace(timezone=learned[member.user_row])
        if learned:
            await self.jobs.run(partial(self._remember, learned))

    @staticmethod
    async def _remember(learned: dict[int, str], uow: UnitOfWork) -> None:
        for user_row, timezone in learned.items():
            await uow.places.remember_timezone(user_row, timezone)

    async def _claim(self, plan: _Plan, now: datetime, uow: UnitOfWork) -> list[MemberClaim]:
        due: list[tuple[DeliveryMember, Slot, ZoneInfo]] = []
        for member in plan.members:
            zone = member_zone(member.timezone, plan.zone)
            slot = plan.rule.last_slot(now, zone)
            if slot is None or slot.due < max(plan.created_at, member.joined_at) or now - slot.due > self.grace:
                continue
            due.append((member, slot, zone))
        claims: list[MemberClaim] = []
        if plan.next_fire_at is None or plan.next_fire_at <= now:  # what `schedule list` shows as next
            following = plan.rule.next_slot(now, plan.zone)
            await uow.schedules.advance(plan.schedule_id, following.due, following.key)
        if not due:
            return claims
        taken = await uow.member_fires.claimed_keys(plan.schedule_id, sorted({slot.key for _, slot, _ in due}))
        for member, slot, zone in due:
            if (member.user_row, slot.key) in taken:
                continue
            fire_id = await uow.member_fires.claim(
                plan.schedule_id, slot, now=now, replica=self.replica, member_row=member.user_row
            )
            if fire_id is None:
                continue  # another replica claimed this member's slot a moment ago
            claims.append(
                MemberClaim(
                    fire_id=fire_id,
                    attempts=1,
                    schedule_id=plan.schedule_id,
                    cohort_id=plan.cohort_id,
                    member=member.user,
                    member_row=member.user_row,
                    slot=slot,
                    zone=zone,
                    rule=plan.rule,
                    close_after=plan.close_after,
                )
            )
        return claims

    # --- the members' fires' kind -----------------------------------------------------------------

    async def send(self, claim: MemberClaim, platform: ChatPlatform) -> PostedFire | None:
        """Open the member's direct channel and send them their next curriculum question (None: all sent)."""
        direct = direct_delivery_of(platform)
        if direct is None or self.send_privately is None:
            raise Refused(cohort_words.cannot_deliver_privately(platform.name))
        channel = await direct.direct_channel(claim.member)
        now = self.clock.now()
        return await self.send_privately(
            channel,
            cohort_id=claim.cohort_id,
            member=claim.member,
            member_row=claim.member_row,
            fire_key=str(claim.key),
            closes_at=closing_time(claim.close_after, claim.rule, claim.zone, claim.slot, now),
        )

    async def resume(self, uow: UnitOfWork, fire: FireRow, attempts: int) -> MemberClaim | None:
        """The claim on a member's slot just taken over; None if the schedule, its cohort or the membership is gone."""
        schedule = await uow.schedules.get(fire.schedule_id)
        if schedule is None or schedule.cohort_id is None:
            return None
        members = await uow.cohorts.delivery_members(schedule.cohort_id)
        member = next((m for m in members if m.user_row == fire.member_row), None)
        if member is None:
            return None
        return MemberClaim(
            fire_id=fire.fire_id,
            attempts=attempts,
            schedule_id=schedule.id,
            cohort_id=schedule.cohort_id,
            member=member.user,
            member_row=member.user_row,
            slot=fire.slot,
            zone=member_zone(member.timezone, ZoneInfo(schedule.timezone)),
            rule=load_rule(schedule.rule),
            close_after=_close_after(schedule.close_after_seconds),
        )

    def refusal(self, exc: PlatformError) -> str:
        """This person cannot be messaged: their slot fails, the schedule goes on."""
        return str(exc)

    def nothing_left(self) -> str:
        """The member has been sent the whole curriculum."""
        return schedule_words.curriculum_done()

    def sent(self, claim: MemberClaim, post_id: int, report: TickReport) -> None:
        """Report a question sent privately."""
        report.delivered.append(post_id)
        log.info("sent cohort question privately for member slot %s", claim, extra=claim.extra)


def _close_after(seconds: int | None) -> timedelta | None:
    return timedelta(seconds=seconds) if seconds else None
