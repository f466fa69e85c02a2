"""The claims of fire slots, one store protocol (`FireClaims`) for channel fires and members' private fires.

A claim row is one fire slot: a channel schedule's (`schedule_fires`, unique on schedule and slot) or one member's
slot of a privately delivered cohort schedule (`member_fires`, unique on schedule, member and local slot). It is
claimed by a unique insert, so exactly one replica wins each slot, and is its holder's while `claimed_at` is
younger than the lease. Every later change is fenced: it matches only while the row is still `claimed` in the
attempt its holder has (`attempts`, and `claimed_by` for renewals), so a replica whose claim was taken over (which
bumps `attempts`) learns it and stops. The scheduler's one lifecycle (bot/scheduling/lifecycle.py) drives both
stores through this protocol; `ChannelFires` and `MemberFires` add what only their kind of fire needs.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, Protocol

from sqlalchemy import ColumnElement, or_, select, update

from bot.db.models import Cohort, MemberFire, Schedule, ScheduleFire, Workspace
from bot.db.rows import rows_changed
from bot.domain import ChannelRef, Delivery
from bot.domain.schedules import Slot
from bot.service.repositories.base import Repository
from bot.service.repositories.directory import insert_ignoring_conflict
from bot.service.repositories.lookups import CHANNEL_REF_COLUMNS, channel_ref_of, joined_to_channel

CLAIMED = "claimed"
"""The status of a claim row that is still held (the scheduler's FireStatus.CLAIMED)."""


@dataclass(frozen=True, slots=True)
class FireRow:
    """A claim row as the scheduler reads it back after taking it over."""

    fire_id: int
    schedule_id: int
    slot: Slot
    claimed_by: str
    member_row: int | None
    """The member of a private fire (their users row); None for a channel fire."""


class FireClaims(Protocol):
    """What the scheduler's lifecycle needs of a store of claim rows (channel fires and member fires alike)."""

    async def claim(
        self,
        schedule_id: int,
        slot: Slot,
        *,
        now: datetime,
        replica: str,
        member_row: int | None = None,
        status: str = CLAIMED,
        detail: str | None = None,
    ) -> int | None:
        """Insert a claim (or a slot ended at once, e.g. skipped); its id, or None if the slot was claimed already."""
        ...

    async def keep_alive(self, fire_ids: Collection[int], replica: str, now: datetime) -> None:
        """Renew the claims this replica is still working on."""
        ...

    async def renew(self, fire_id: int, attempts: int, replica: str, now: datetime) -> bool:
        """Renew one claim right before its platform call; False if another replica took it over."""
        ...

    async def finish(
        self, fire_id: int, attempts: int, status: str, *, now: datetime, post_id: int | None, detail: str | None
    ) -> bool:
        """Record how the slot ended; False if the claim was taken over meanwhile."""
        ...

    async def expire_at(self, fire_id: int, attempts: int, claimed_at: datetime, *, detail: str | None) -> bool:
        """Set when the claim's lease counts from (in the past: it expires sooner, and recovery retries it)."""
        ...

    async def release(self, held: Iterable[tuple[int, int]], replica: str, claimed_at: datetime) -> int:
        """Hand (fire id, attempts) claims back by dating their lease `claimed_at`; how many were released."""
        ...

    async def expired(self, before: datetime, platforms: Sequence[str], *, limit: int) -> list[tuple[int, int]]:
        """(id, attempts) of claims whose lease ran out (their replica died or stalled), on these platforms."""
        ...

    async def take_over(self, fire_id: int, attempts: int, *, expired: datetime, now: datetime, replica: str) -> bool:
        """Take an expired claim over, bumping `attempts` so that its old holder is fenced out."""
        ...

    async def get(self, fire_id: int) -> FireRow | None:
        """A claim row by id."""
        ...

    async def pause_schedule(self, schedule_id: int, reason: str) -> None:
        """Disable a schedule with the reason (a failure retrying cannot fix)."""
        ...


class _Fires(Repository):
    """The fenced statements both kinds of claim row share; `model` is the table, `unique` its slot's columns."""

    model: ClassVar[Any]
    unique: ClassVar[tuple[str, ...]]

    async def claim(
        self,
        schedule_id: int,
        slot: Slot,
        *,
        now: datetime,
        replica: str,
        member_row: int | None = None,
        status: str = CLAIMED,
        detail: str | None = None,
    ) -> int | None:
        """Insert a claim (or a slot ended at once, e.g. skipped); its id, or None if the slot was claimed already."""
        values: dict[str, Any] = {
            "schedule_id": schedule_id,
            "slot_key": slot.key,
            "due_at": slot.due,
            "status": status,
            "claimed_at": now,
            "claimed_by": replica,
            "attempts": 1,
            "detail": detail,
            "finished_at": None if status == CLAIMED else now,
        }
        if member_row is not None:
            values["user_id"] = member_row
        statement = insert_ignoring_conflict(self._session, self.model, values, list(self.unique))
        inserted = (await self._session.execute(statement.returning(self.model.id))).scalar()
        return int(inserted) if inserted is not None else None

    async def keep_alive(self, fire_ids: Collection[int], replica: str, now: datetime) -> None:
        """Renew the claims this replica is still working on."""
        if fire_ids:
            model = self.model
            await self._session.execute(
                update(model)
                .where(model.id.in_(list(fire_ids)), model.status == CLAIMED, model.claimed_by == replica)
                .values(claimed_at=now)
            )

    async def renew(self, fire_id: int, attempts: int, replica: str, now: datetime) -> bool:
        """Renew one claim right before its platform call; False if another replica took it over."""
        return await self._fenced(fire_id, attempts, {"claimed_at": now}, self.model.claimed_by == replica)

    async def finish(
        self, fire_id: int, attempts: int, status: str, *, now: datetime, post_id: int | None, detail: str | None
    ) -> bool:
        """Record how the slot ended; False if the claim was taken over meanwhile."""
        values = {"status": status, "post_id": post_id, "detail": detail[:300] if detail else None, "finished_at": now}
        return await self._fenced(fire_id, attempts, values)

    async def expire_at(self, fire_id: int, attempts: int, claimed_at: datetime, *, detail: str | None) -> bool:
        """Set when the claim's lease counts from (in the past: it expires sooner, and recovery retries it)."""
        values: dict[str, Any] = {"claimed_at": claimed_at}
        if detail is not None:
            values["detail"] = detail[:300]
        return await self._fenced(fire_id, attempts, values)

    async def release(self, held: Iterable[tuple[int, int]], replica: str, claimed_at: datetime) -> int:
        """Hand (fire id, attempts) claims back by dating their lease `claimed_at`; how many were released."""
        by_attempt: dict[int, list[int]] = {}
        for fire_id, attempts in held:
            by_attempt.setdefault(attempts, []).append(fire_id)
        model, released = self.model, 0
        for attempts, fire_ids in by_attempt.items():
            released += rows_changed(
                await self._session.execute(
                    update(model)
                    .where(
                        model.id.in_(fire_ids),
                        model.status == CLAIMED,
                        model.attempts == attempts,
                        model.claimed_by == replica,
                    )
                    .values(claimed_at=claimed_at)
                )
            )
        return released

    async def expired(self, before: datetime, platforms: Sequence[str], *, limit: int) -> list[tuple[int, int]]:
        """(id, attempts) of claims whose lease ran out (their replica died or stalled), on these platforms."""
        model = self.model
        rows = await self._session.execute(
            select(model.id, model.attempts)
            .join(Schedule, Schedule.id == model.schedule_id)
            .join(Workspace, Workspace.id == Schedule.workspace_id)
            .where(model.status == CLAIMED, model.claimed_at < before, Workspace.platform.in_(list(platforms)))
            .order_by(model.claimed_at)
            .limit(limit)
        )
        return [(int(row[0]), int(row[1])) for row in rows]

    async def take_over(self, fire_id: int, attempts: int, *, expired: datetime, now: datetime, replica: str) -> bool:
        """Take an expired claim over, bumping `attempts` so that its old holder is fenced out."""
        model = self.model
        return (
            rows_changed(
                await self._session.execute(
                    update(model)
                    .where(
                        model.id == fire_id,
                        model.status == CLAIMED,
                        model.attempts == attempts,
                        model.claimed_at < expired,
                    )
                    .values(claimed_at=now, claimed_by=replica, attempts=attempts + 1)
                )
            )
            > 0
        )

    async def get(self, fire_id: int) -> FireRow | None:
        """A claim row by id."""
        fire = await self._session.get(self.model, fire_id)
        if fire is None:
            return None
        return FireRow(
            fire_id=int(fire.id),
            schedule_id=int(fire.schedule_id),
            slot=Slot(key=fire.slot_key, due=fire.due_at),
            claimed_by=str(fire.claimed_by),
            member_row=int(fire.user_id) if self.model is MemberFire else None,
        )

    async def pause_schedule(self, schedule_id: int, reason: str) -> None:
        """Disable a schedule with the reason (a failure retrying cannot fix)."""
        await self._session.execute(
            update(Schedule).where(Schedule.id == schedule_id).values(enabled=False, paused_reason=reason[:300])
        )

    async def _fenced(self, fire_id: int, attempts: int, values: dict[str, Any], *also: ColumnElement[bool]) -> bool:
        """UPDATE the claim's row if it still is the attempt `attempts` holds (and `also`); whether it matched."""
        model = self.model
        statement = update(model).where(model.id == fire_id, model.status == CLAIMED, model.attempts == attempts, *also)
        return rows_changed(await self._session.execute(statement.values(values))) > 0


class ChannelFires(_Fires):
    """Channel schedules' claims (`schedule_fires`), and the conditional advance of a schedule past its slot."""

    model = ScheduleFire
    unique = ("schedule_id", "slot_key")

    async def due_schedules(self, now: datetime, platforms: Sequence[str], *, limit: int) -> list[int]:
        """Ids of the enabled channel schedules (of these platforms) whose `next_fire_at` has passed, oldest first."""
        rows = await self._session.execute(
            select(Schedule.id)
            .join(Workspace, Workspace.id == Schedule.workspace_id)
            .outerjoin(Cohort, Cohort.id == Schedule.cohort_id)
            .where(
                Schedule.enabled.is_(True),
                Schedule.next_fire_at <= now,
                Workspace.platform.in_(list(platforms)),
                # A cohort delivered privately fires per member (MemberFires), not per channel slot.
                or_(Schedule.cohort_id.is_(None), Cohort.delivery != Delivery.DM.value),
            )
            .order_by(Schedule.next_fire_at)
            .limit(limit)
        )
        return [int(row[0]) for row in rows]

    async def schedule(self, schedule_id: int) -> tuple[Schedule, ChannelRef] | None:
        """A schedule and the channel it posts to, or None if it was removed."""
        row = (
            await self._session.execute(
                joined_to_channel(select(Schedule, *CHANNEL_REF_COLUMNS), Schedule.channel_id).where(
                    Schedule.id == schedule_id
                )
            )
        ).first()
        return None if row is None else (row.Schedule, channel_ref_of(row))

    async def advance(self, schedule_id: int, current: Slot, following: Slot) -> bool:
        """Move an enabled schedule from its `current` slot to `following`; False if another replica did first."""
        statement = (
            update(Schedule)
            .where(
                Schedule.id == schedule_id,
                Schedule.enabled.is_(True),
                Schedule.next_slot == current.key,
                Schedule.next_fire_at == current.due,
            )
            .values(next_fire_at=following.due, next_slot=following.key)
        )
        return rows_changed(await self._session.execute(statement)) > 0


class MemberFires(_Fires):
    """The claims of private deliveries (`member_fires`): one row per (schedule, member, local slot)."""

    model = MemberFire
    unique = ("schedule_id", "user_id", "slot_key")

    async def claimed_keys(self, schedule_id: int, slot_keys: Sequence[str]) -> set[tuple[int, str]]:
        """(member row, slot key) of this schedule's claims among these slot keys, whatever their status."""
        if not slot_keys:
            return set()
        rows = await self._session.execute(
            select(MemberFire.user_id, MemberFire.slot_key).where(
                MemberFire.schedule_id == schedule_id, MemberFire.slot_key.in_(list(slot_keys))
            )
        )
        return {(int(row[0]), str(row[1])) for row in rows}
