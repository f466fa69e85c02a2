"""Schedules as `/quiz schedule list` and its kin show them: each with its channel's platform id, who made it, who
paused it and its cohort (the schedules aggregate's own repository, schedules.py, holds the fires' statements)."""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import Select, String, cast, literal, select
from sqlalchemy.orm import aliased

from bot.db.models import Channel, Cohort, Schedule, User
from bot.domain import ChannelRef
from bot.service.repositories.base import Repository
from bot.service.repositories.lookups import in_channel, in_workspace, joined_to_channel

PAUSED_BY = "paused-by:"
"""How `schedules.paused_reason` records who paused a schedule: `paused-by:<user row id>`, never their name or
platform id. Lists show the person's current name; `quizbot forget-user` clears the reference to `paused-by:`."""

_PausedBy = aliased(User)


class ListedSchedule(NamedTuple):
    """A schedule, its channel's platform id, the current names of who made and who paused it, and its cohort."""

    schedule: Schedule
    channel: str
    created_by: str | None
    paused_by: str | None
    cohort: Cohort | None


class ScheduleListing(Repository):
    """The schedules of a channel or workspace, by its platform ids, with the names they are shown with."""

    async def of(self, channel: ChannelRef, *, channel_only: bool) -> list[ListedSchedule]:
        """The schedules of a channel (or of its whole workspace)."""
        return await self._rows(_query(channel, channel_only=channel_only))

    async def one(self, channel: ChannelRef, schedule_id: int) -> ListedSchedule | None:
        """A schedule of the channel's workspace, if it has one of that id."""
        rows = await self._rows(_query(channel, channel_only=False).where(Schedule.id == schedule_id))
        return rows[0] if rows else None

    async def _rows(self, query: Select[Schedule, str, str, str, Cohort]) -> list[ListedSchedule]:
        return [ListedSchedule(*row) for row in (await self._session.execute(query)).all()]


def _query(channel: ChannelRef, *, channel_only: bool) -> Select[Schedule, str, str, str, Cohort]:
    query = (
        joined_to_channel(
            select(
                Schedule,
                Channel.external_id.label("channel"),
                User.display_name.label("created_by"),
                _PausedBy.display_name.label("paused_by"),
                Cohort,
            ),
            Schedule.channel_id,
        )
        .outerjoin(Cohort, Cohort.id == Schedule.cohort_id)
        .outerjoin(User, User.id == Schedule.created_by)
        .outerjoin(_PausedBy, Schedule.paused_reason == literal(PAUSED_BY) + cast(_PausedBy.id, String))
        .where(*in_workspace(channel))
    )
    if channel_only:
        query = query.where(*in_channel(channel))
    return query
