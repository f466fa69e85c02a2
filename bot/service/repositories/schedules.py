"""Schedules and the fires of a member's private delivery (member_fires)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Row, Select, delete, select, update

from bot.db.models import (
    Channel,
    Cohort,
    MemberFire,
    Schedule,
    Workspace,
)
from bot.domain import Delivery
from bot.service.directory import insert_ignoring_conflict
from bot.service.lookups import (
    joined_to_channel,
)
from bot.service.repositories.base import Repository


class Schedules(Repository):
    """Channel schedules."""

    async def in_channel(self, channel_row: int) -> list[Schedule]:
        """Every schedule of a channel."""
        query = select(Schedule).where(Schedule.channel_id == channel_row)
        return list((await self._session.execute(query)).scalars())

    async def add(self, schedule: Schedule) -> Schedule:
        """Insert a schedule; its id is set on return."""
        self._session.add(schedule)
        await self._session.flush()
        return schedule

    async def get(self, schedule_id: int) -> Schedule | None:
        """A schedule by id."""
        return await self._session.get(Schedule, schedule_id)

    async def remove(self, schedule_id: int) -> None:
        """Delete a schedule (its past posts stay)."""
        await self._session.execute(delete(Schedule).where(Schedule.id == schedule_id))

    async def flush(self) -> None:
        """Send changes to loaded schedules now."""
        await self._session.flush()

    async def rows(
        self, query: Select[Schedule, str, str, str, Cohort]
    ) -> Sequence[Row[Schedule, str, str, str, Cohort]]:
        """The rows of a schedule listing query (see ScheduleService for the join that names people)."""
        return (await self._session.execute(query)).all()

    async def advance(self, schedule_id: int, due: datetime, slot_key: str) -> None:
        """Set when a schedule fires next (a privately delivered one: what its listing shows as next)."""
        await self._session.execute(
            update(Schedule).where(Schedule.id == schedule_id).values(next_fire_at=due, next_slot=slot_key)
        )

    async def of_cohort(self, cohort_id: int) -> list[Schedule]:
        """Every schedule of a cohort."""
        query = select(Schedule).where(Schedule.cohort_id == cohort_id).order_by(Schedule.id)
        return list((await self._session.execute(query)).scalars())

    async def privately_delivered(self, platforms: Sequence[str], *, limit: int) -> list[tuple[Schedule, Cohort]]:
        """Enabled schedules of cohorts delivered by direct message, on these platforms."""
        rows = await self._session.execute(
            select(Schedule, Cohort)
            .join(Cohort, Cohort.id == Schedule.cohort_id)
            .join(Workspace, Workspace.id == Schedule.workspace_id)
            .where(
                Schedule.enabled.is_(True),
                Cohort.delivery == Delivery.DM.value,
                Workspace.platform.in_(list(platforms)),
            )
            .order_by(Schedule.id)
            .limit(limit)
        )
        return [(row[0], row[1]) for row in rows]

    async def channel_timezone(self, channel_row: int) -> str:
        """The timezone a channel's schedules default to: the channel's own, else its workspace's, else UTC."""
        row = (
            await self._session.execute(
                joined_to_channel(select(Channel.timezone, Workspace.timezone.label("workspace_timezone"))).where(
                    Channel.id == channel_row
                )
            )
        ).one()
        return str(row.timezone or row.workspace_timezone or "UTC")


class MemberFires(Repository):
    """The claims of private deliveries: one row per (schedule, member, local slot), like `schedule_fires`.

    Every change to a claim row is fenced: it matches only while the row is still the attempt its holder has
    (`attempts`, and `claimed_by` for renewals), so a replica whose claim was taken over learns it and stops.
    """

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

    async def claim(self, values: dict[str, Any]) -> int | None:
        """Insert a claim; its id, or None when another replica claimed the (schedule, member, slot) first."""
        statement = insert_ignoring_conflict(self._session, MemberFire, values, ["schedule_id", "user_id", "slot_key"])
        inserted = (await self._session.execute(statement.returning(MemberFire.id))).scalar()
        return int(inserted) if inserted is not None else None

    async def get(self, fire_id: int) -> MemberFire | None:
        """A claim row by id."""
        return await self._session.get(MemberFire, fire_id)

    async def update_held(
        self, fire_id: int, attempts: int, values: dict[str, Any], *, replica: str | None = None
    ) -> bool:
        """Change a claim that is still `claimed` in attempt `attempts` (and by `replica`, if given)."""
        conditions = [MemberFire.id == fire_id, MemberFire.status == "claimed", MemberFire.attempts == attempts]
        if replica is not None:
            conditions.append(MemberFire.claimed_by == replica)
        result = await self._session.execute(update(MemberFire).where(*conditions).values(values))
        return int(cast(Any, result).rowcount) > 0

    async def keep_alive(self, fire_ids: Sequence[int], replica: str, now: datetime) -> None:
        """Renew the claims this replica is still working on."""
        if fire_ids:
            await self._session.execute(
                update(MemberFire)
                .where(
                    MemberFire.id.in_(list(fire_ids)),
                    MemberFire.status == "claimed",
                    MemberFire.claimed_by == replica,
                )
                .values(claimed_at=now)
            )

    async def expired(self, before: datetime, platforms: Sequence[str], *, limit: int) -> list[tuple[int, int]]:
        """(id, attempts) of claims whose lease ran out (their replica died or stalled), on these platforms."""
        rows = await self._session.execute(
            select(MemberFire.id, MemberFire.attempts)
            .join(Schedule, Schedule.id == MemberFire.schedule_id)
            .join(Workspace, Workspace.id == Schedule.workspace_id)
            .where(
                MemberFire.status == "claimed",
                MemberFire.claimed_at < before,
                Workspace.platform.in_(list(platforms)),
            )
            .order_by(MemberFire.claimed_at)
            .limit(limit)
        )
        return [(int(row[0]), int(row[1])) for row in rows]

    async def take_over(self, fire_id: int, attempts: int, *, expired: datetime, now: datetime, replica: str) -> bool:
        """Take an expired claim over, bumping `attempts` so that its old holder is fenced out."""
        result = await self._session.execute(
            update(MemberFire)
            .where(
                MemberFire.id == fire_id,
                MemberFire.status == "claimed",
                MemberFire.attempts == attempts,
                MemberFire.claimed_at < expired,
            )
            .values(claimed_at=now, claimed_by=replica, attempts=attempts + 1)
        )
        return int(cast(Any, result).rowcount) > 0
