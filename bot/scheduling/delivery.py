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

Leases work as for channel slots (leases.py): a claim is this replica's while `claimed_at` is younger than the
lease; every change is fenced by `attempts`. A claim whose lease expired is taken over by bumping `attempts`; if
its post had reached the platform (it has a message reference) the post is adopted, otherwise its unsent row is
removed and the member's slot is tried again, within the grace window and `max_attempts`.

How one member's slot ends: posted; skipped (the member has had the whole curriculum, or it became too late);
failed (the platform refused for good: the person cannot be messaged, or the platform cannot send direct messages;
other members are not affected and the schedule keeps running).
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import Container, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple, Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.clock import Clock
from bot.domain import ChannelRef, UserRef
from bot.domain.schedules import FireKey, Rule, Slot
from bot.errors import QuizError, StorageUnavailable, UnknownPack
from bot.ports import DirectDelivery, PlatformError, PlatformRegistry, direct_delivery_of
from bot.schedule_rules import load_rule
from bot.scheduling.fanout import FanOut
from bot.scheduling.fires import LOGGER_NAME, FireStatus, LostClaim, Stopping, TickReport
from bot.scheduling.leases import RELEASE_MARGIN, RETRY_AFTER_FAILURE
from bot.scheduling.posting import PostedFire, closing_time
from bot.service.repositories import DeliveryMember
from bot.service.uow import UnitOfWorkFactory, committed, reading
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

    def __str__(self) -> str:
        """`12:2026-01-05T09:00@U123`: how reports and logs name one member's slot."""
        return f"{self.key}@{self.member.user_id}"


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


class _Stage(enum.Enum):
    WAITING = "waiting"  # nothing sent yet: can be handed back on stop
    SENDING = "sending"  # inside the platform calls


@dataclass(eq=False, slots=True)
class _Holding:
    claim: MemberClaim
    stage: _Stage = _Stage.WAITING
    task: asyncio.Task[None] | None = None


def member_zone(timezone: str | None, fallback: ZoneInfo) -> ZoneInfo:
    """The member's profile timezone, or `fallback` (the schedule's) when there is none or it is not IANA."""
    if not timezone:
        return fallback
    try:
        return ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        return fallback


class PrivateDelivery:
    """Claims, sends and recovers the members' slots of privately delivered cohort schedules (module docstring)."""

    def __init__(
        self,
        *,
        uow: UnitOfWorkFactory,
        platforms: PlatformRegistry,
        fanout: FanOut,
        clock: Clock,
        replica: str,
        lease: timedelta,
        grace: timedelta,
        batch: int,
        max_attempts: int,
        working: asyncio.Semaphore,
        send: SendPrivately | None,
    ) -> None:
        self.uow = uow
        self.platforms = platforms
        self.fanout = fanout
        self.clock = clock
        self.replica = replica
        self.lease = lease
        self.grace = grace
        self.batch = batch
        self.max_attempts = max_attempts
        self.working = working
        self.send = send
        self.stopping = False
        self._held: dict[int, _Holding] = {}

    # --- holdings ---------------------------------------------------------------------------------

    def hold(self, claim: MemberClaim) -> _Holding:
        """Start holding a claim (kept alive each tick until it ends)."""
        holding = self._held[claim.fire_id] = _Holding(claim)
        return holding

    @property
    def held(self) -> Container[int]:
        """The claim rows this process is working on."""
        return self._held.keys()

    async def keep_alive(self, now: datetime) -> None:
        """Renew every claim this replica is still working on."""
        if self._held:
            async with committed(self.uow) as uow:
                await uow.member_fires.keep_alive(list(self._held), self.replica, now)

    async def hand_back(self) -> None:
        """On stop: cancel the sends that have not reached the platform, and release their claims at once."""
        waiting = [holding for holding in self._held.values() if holding.stage is _Stage.WAITING]
        tasks = [holding.task for holding in waiting if holding.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for holding in waiting:
            self._held.pop(holding.claim.fire_id, None)
        try:
            await self._release(holding.claim for holding in waiting)
        except StorageUnavailable as exc:
            log.warning("stopping: %d private deliveries not handed back (%s); left for recovery", len(waiting), exc)

    # --- claiming ---------------------------------------------------------------------------------

    async def claim_due(self, now: datetime, served: list[str], report: TickReport) -> list[MemberClaim]:
        """Claim every member's due slot of every privately delivered schedule (of platforms served here)."""
        plans = await self._plans(served)
        if not plans:
            return []
        await self._learn_timezones(plans)
        claims: list[MemberClaim] = []
        for plan in plans:
            claims += await self._claim(plan, now)
        return claims

    async def _plans(self, served: list[str]) -> list[_Plan]:
        async with reading(self.uow, None) as uow:
            plans = []
            for schedule, cohort in await uow.schedules.privately_delivered(served, limit=self.batch):
                plans.append(
                    _Plan(
                        schedule_id=schedule.id,
                        cohort_id=cohort.id,
                        rule=load_rule(schedule.rule),
                        zone=ZoneInfo(schedule.timezone),
                        close_after=timedelta(seconds=schedule.close_after_seconds)
                        if schedule.close_after_seconds
                        else None,
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
            async with committed(self.uow) as uow:
                for user_row, timezone in learned.items():
                    await uow.places.remember_timezone(user_row, timezone)

    async def _claim(self, plan: _Plan, now: datetime) -> list[MemberClaim]:
        due: list[tuple[DeliveryMember, Slot, ZoneInfo]] = []
        for member in plan.members:
            zone = member_zone(member.timezone, plan.zone)
            slot = plan.rule.last_slot(now, zone)
            if slot is None or slot.due < max(plan.created_at, member.joined_at) or now - slot.due > self.grace:
                continue
            due.append((member, slot, zone))
        claims: list[MemberClaim] = []
        async with committed(self.uow) as uow:
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
                    {
                        "schedule_id": plan.schedule_id,
                        "user_id": member.user_row,
                        "slot_key": slot.key,
                        "due_at": slot.due,
                        "status": FireStatus.CLAIMED.value,
                        "claimed_at": now,
                        "claimed_by": self.replica,
                        "attempts": 1,
                        "detail": None,
                        "finished_at": None,
                    }
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

    # --- recovery ---------------------------------------------------------------------------------

    async def take_over_expired(self, now: datetime, served: list[str], report: TickReport) -> list[MemberClaim]:
        """Take over members' claims whose lease expired (not those this process holds)."""
        expired = now - self.lease
        async with committed(self.uow) as uow:
            rows = await uow.member_fires.expired(expired, served, limit=self.batch)
        claims = []
        for fire_id, attempts in rows:
            if fire_id in self._held:
                continue
            claim = await self._take_over(fire_id, attempts, now, expired, report)
            if claim is not None:
                claims.append(claim)
        return claims

    async def _take_over(
        self, fire_id: int, attempts: int, now: datetime, expired: datetime, report: TickReport
    ) -> MemberClaim | None:
        async with committed(self.uow) as uow:
            if not await uow.member_fires.take_over(fire_id, attempts, expired=expired, now=now, replica=self.replica):
                return None
            fire = await uow.member_fires.get(fire_id)
            assert fire is not None
            schedule = await uow.schedules.get(fire.schedule_id)
            report.recovered += 1
            key = FireKey(fire.schedule_id, fire.slot_key)
            posts = await uow.posts.of_fire(str(key), recipient=fire.user_id)
            done = next((post.id for post in posts if post.message_ref is not None), None)
            if done is not None:  # the lost attempt sent it; only its bookkeeping was lost
                fire.status, fire.post_id, fire.finished_at = FireStatus.POSTED.value, done, now
                log.warning("member slot %s: adopted post %s of an expired claim", key, done)
                return None
            await uow.posts.remove_unsent([post.id for post in posts])
            member = None
            if schedule is not None and schedule.cohort_id is not None:
                members = await uow.cohorts.delivery_members(schedule.cohort_id)
                member = next((m for m in members if m.user_row == fire.user_id), None)
            late = now - fire.due_at
            if schedule is None or schedule.cohort_id is None or member is None:
                fire.status, fire.finished_at = FireStatus.SKIPPED.value, now
                fire.detail = "the schedule, its cohort or the membership is gone"
                return None
            if late > self.grace or attempts + 1 > self.max_attempts:
                give_up = FireStatus.SKIPPED if late > self.grace else FireStatus.FAILED
                fire.status, fire.finished_at = give_up.value, now
                fire.detail = f"claim expired after {attempts} attempt(s); {late} late"[:300]
                (report.skipped if give_up is FireStatus.SKIPPED else report.failed).append(
                    f"{key}@{member.user.user_id}"
                )
                return None
            log.warning("member slot %s: claim expired (owner %s gone?); retrying", key, fire.claimed_by)
            fallback = ZoneInfo(schedule.timezone)
            return MemberClaim(
                fire_id=fire_id,
                attempts=attempts + 1,
                schedule_id=schedule.id,
                cohort_id=schedule.cohort_id,
                member=member.user,
                member_row=member.user_row,
                slot=Slot(key=fire.slot_key, due=fire.due_at),
                zone=member_zone(member.timezone, fallback),
                rule=load_rule(schedule.rule),
                close_after=timedelta(seconds=schedule.close_after_seconds) if schedule.close_after_seconds else None,
            )

    # --- sending ----------------------------------------------------------------------------------

    async def deliver(self, holding: _Holding, report: TickReport) -> None:
        """Send a held member's slot through the fan-out limiter, then record how it ended and drop it."""
        claim = holding.claim
        try:
            platform = self.platforms.get(claim.member.platform)
            if platform is None:
                await self._defer(claim, "its platform is not running here", report)
                return
            direct = direct_delivery_of(platform)
            if direct is None or self.send is None:
                await self._finish(
                    claim, FireStatus.FAILED, detail=cohort_words.cannot_deliver_privately(platform.name)
                )
                report.failed.append(str(claim))
                return
            try:
                posted = await self.fanout.send(platform, claim.lane, lambda: self._attempt(holding, direct))
            except LostClaim:
                log.info("member slot %s was taken over by another replica; not sending it here", claim)
                return
            except Stopping:
                await self._release([claim])
                return
            except PlatformError as exc:
                if exc.permanent:  # this person cannot be messaged: their slot fails, the schedule goes on
                    await self._finish(claim, FireStatus.FAILED, detail=str(exc))
                    report.failed.append(str(claim))
                    log.warning("member slot %s refused by the platform: %s", claim, exc)
                else:
                    await self._defer(claim, str(exc), report)
                return
            except UnknownPack as exc:
                await self._finish(claim, FireStatus.FAILED, detail=str(exc))
                report.failed.append(str(claim))
                return
            except (QuizError, StorageUnavailable) as exc:
                await self._defer(claim, str(exc), report)
                return
            async with self.working:
                if posted is None:
                    await self._finish(claim, FireStatus.SKIPPED, detail=schedule_words.curriculum_done())
                    report.skipped.append(str(claim))
                else:
                    await self._finish(claim, FireStatus.POSTED, post_id=posted.card.post_id)
                    report.delivered.append(posted.card.post_id)
                    log.info("sent cohort question privately for member slot %s", claim)
        except StorageUnavailable as exc:  # bookkeeping failed: the claim expires and is recovered
            log.warning("member slot %s: database unavailable (%s); left for recovery", claim, exc)
        finally:
            self._held.pop(claim.fire_id, None)

    async def _attempt(self, holding: _Holding, direct: DirectDelivery) -> PostedFire | None:
        """One try (the fan-out retries 429s): renew the claim, open the member's direct channel, send."""
        claim = holding.claim
        assert self.send is not None
        async with self.working:
            if self.stopping:
                raise Stopping
            renewed = await self._update(claim, {"claimed_at": self.clock.now()}, replica=self.replica)
            if not renewed:
                raise LostClaim
            holding.stage = _Stage.SENDING
            try:
                channel = await direct.direct_channel(claim.member)
                now = self.clock.now()
                return await self.send(
                    channel,
                    cohort_id=claim.cohort_id,
                    member=claim.member,
                    member_row=claim.member_row,
                    fire_key=str(claim.key),
                    closes_at=closing_time(claim.close_after, claim.rule, claim.zone, claim.slot, now),
                )
            except Exception:
                holding.stage = _Stage.WAITING  # refused: nothing went out
                raise

    # --- fenced updates ---------------------------------------------------------------------------

    async def _update(self, claim: MemberClaim, values: dict[str, Any], *, replica: str | None = None) -> bool:
        async with committed(self.uow) as uow:
            return await uow.member_fires.update_held(claim.fire_id, claim.attempts, values, replica=replica)

    async def _finish(
        self, claim: MemberClaim, status: FireStatus, *, post_id: int | None = None, detail: str | None = None
    ) -> None:
        values = {
            "status": status.value,
            "post_id": post_id,
            "detail": detail[:300] if detail else None,
            "finished_at": self.clock.now(),
        }
        if not await self._update(claim, values):
            log.warning("member slot %s: the claim was taken over while this replica finished it", claim)

    async def _defer(self, claim: MemberClaim, reason: str, report: TickReport) -> None:
        """A failure that may pass: retry in a minute (as an expired claim), or give up after max attempts."""
        if claim.attempts >= self.max_attempts:
            await self._finish(claim, FireStatus.FAILED, detail=reason)
            report.failed.append(str(claim))
            return
        retry_at = self.clock.now() - self.lease + min(self.lease, RETRY_AFTER_FAILURE)
        await self._update(claim, {"claimed_at": retry_at, "detail": reason[:300]})
        report.deferred.append(str(claim))
        log.warning("member slot %s not sent (%s); will retry", claim, reason)

    async def _release(self, claims: Iterable[MemberClaim]) -> None:
        """Hand claims back unsent: their lease is made to look expired, so any replica's next tick takes them."""
        expired = self.clock.now() - self.lease - RELEASE_MARGIN
        for claim in claims:
            await self._update(claim, {"claimed_at": expired}, replica=self.replica)
