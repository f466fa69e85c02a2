"""Schedules (their fire claims are in fires.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Row, Select, delete, select, update

from bot.db.models import (
    Channel,
    Cohort,
    Schedule,
    Workspace,
)
from bot.domain import Delivery
from bot.service.repositories.base import Repository
from bot.service.repositories.lookups import (
    joined_to_channel,
)


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
