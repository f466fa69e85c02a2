"""Schedule use cases behind `/quiz schedule ...`: add, list, remove, pause, resume, and what fires next.

Each use case runs in the caller's unit of work (the dispatcher's), through its repositories (`uow.schedules`,
`uow.schedule_listing`). Changes land in the database only, so every replica's ticker sees them on its next tick,
without a restart.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import NamedTuple
from zoneinfo import ZoneInfo

from bot.clock import Clock
from bot.commands import AddCohortSchedule, AddSchedule
from bot.content import Catalog
from bot.db.models import Cohort, Schedule
from bot.domain import ChannelRef, Delivery, UserRef
from bot.domain.schedules import Slot
from bot.domain.views import ScheduleView
from bot.errors import QuizError, UnknownSchedule
from bot.schedule_rules import load_rule
from bot.service.repositories.schedule_listing import PAUSED_BY, ListedSchedule
from bot.service.uow import UnitOfWork
from bot.wording import schedules as schedule_words
from bot.wording.times import rule_words

log = logging.getLogger(__name__)

MAX_PER_CHANNEL = 25
"""More schedules than this in one channel is a mistake, not a curriculum."""

_NEVER = datetime.max.replace(tzinfo=UTC)


def paused_by(user_row: int | None) -> str:
    """The stored pause reason naming a user row (None: someone who is no longer known)."""
    return f"{PAUSED_BY}{user_row}" if user_row is not None else PAUSED_BY


class AddedSchedule(NamedTuple):
    """A schedule just added, and its next fires."""

    view: ScheduleView
    upcoming: list[Slot]


class PauseChange(NamedTuple):
    """A schedule after pause/resume, and whether that changed anything."""

    view: ScheduleView
    changed: bool


class ScheduleService:
    """Manage a workspace's schedules. Only admins change them; anyone may list them."""

    def __init__(self, *, catalog: Catalog, clock: Clock) -> None:
        self.catalog = catalog
        self.clock = clock

    # --- use cases -------------------------------------------------------------------------------

    async def add(
        self, uow: UnitOfWork, command: AddSchedule | AddCohortSchedule, *, channel: ChannelRef, user: UserRef
    ) -> AddedSchedule:
        """Put a channel on a rule; returns the schedule and its next three fires. The caller commits.

        AddCohortSchedule is a cohort schedule: each fire delivers that cohort's next curriculum question (into
        this channel, or to each member privately when the cohort is delivered by direct message).
        """
        now = self.clock.now()
        channel_row = await uow.places.channel_id(channel, now)
        workspace_row = await uow.places.workspace_id(channel.platform, channel.workspace_id, now)
        if isinstance(command, AddCohortSchedule):
            packs: list[str] = []
            cohort = await uow.cohorts.find(workspace_row, command.name)
        else:
            team = await uow.workspace_packs.keys(workspace_row)  # the workspace's own packs, by slug
            packs = list(dict.fromkeys(self.catalog.resolve_key(pack, team) for pack in command.packs))  # suggests
            cohort = None
        timezone = command.timezone or await uow.schedules.channel_timezone(channel_row)
        zone = ZoneInfo(timezone)
        existing = await uow.schedules.in_channel(channel_row)
        if cohort is not None:
            for other in await uow.schedules.of_cohort(cohort.id):
                if (other.rule, other.timezone) == (command.rule.cron, timezone):
                    raise QuizError(schedule_words.cohort_already_scheduled(other.id, cohort.name))
        for other in existing:
            if (
                other.cohort_id is None
                and cohort is None
                and (other.rule, other.timezone, sorted(other.pack_ids))
                == (
                    command.rule.cron,
                    timezone,
                    sorted(packs),
                )
            ):
                raise QuizError(schedule_words.already_posts_here(other.id, rule_words(command.rule), timezone))
        if len(existing) >= MAX_PER_CHANNEL:
            raise QuizError(schedule_words.too_many(len(existing)))
        upcoming = command.rule.upcoming(now, zone, 3)
        schedule = await uow.schedules.add(
            Schedule(
                workspace_id=workspace_row,
                channel_id=channel_row,
                rule=command.rule.cron,
                timezone=timezone,
                pack_ids=packs,
                close_after_seconds=int(command.close_after.total_seconds()) if command.close_after else None,
                enabled=True,
                paused_reason=None,
                created_by=await uow.places.user_id(user, now),
                created_at=now,
                next_fire_at=upcoming[0].due,
                next_slot=upcoming[0].key,
                cohort_id=cohort.id if cohort is not None else None,
            )
        )
        view = _view(schedule, channel, user.display_name, cohort=cohort)
        uow.after_commit(
            lambda: log.info(
                "schedule %s added: %s in %s",
                view.id,
                view.rule.cron,
                view.timezone,
                extra=_log_extra(channel, view.id),
            )
        )
        return AddedSchedule(view, upcoming)

    async def list(self, uow: UnitOfWork, channel: ChannelRef, *, everywhere: bool = False) -> list[ScheduleView]:
        """The schedules of a channel (or of its whole workspace), soonest first, paused ones last."""
        views = [_listed(channel, row) for row in await uow.schedule_listing.of(channel, channel_only=not everywhere)]
        return sorted(views, key=lambda v: (not v.enabled, v.next_slot.due if v.next_slot else _NEVER, v.id))

    async def remove(self, uow: UnitOfWork, schedule_id: int, *, channel: ChannelRef, user: UserRef) -> ScheduleView:
        """Delete a schedule of this workspace (its past posts stay, and open ones are still revealed). The caller
        commits."""
        view = await self._get(uow, channel, schedule_id)
        await uow.schedules.remove(schedule_id)
        uow.after_commit(
            lambda: log.info(
                "schedule %s removed by %s", schedule_id, user.user_id, extra=_log_extra(view.channel, schedule_id)
            )
        )
        return view

    async def set_paused(
        self, uow: UnitOfWork, schedule_id: int, *, paused: bool, channel: ChannelRef, user: UserRef
    ) -> PauseChange:
        """Pause or resume a schedule; returns it and whether anything changed. The caller commits.

        Resuming computes the next fire from now: slots that passed while paused are not posted.
        """
        now = self.clock.now()
        view = await self._get(uow, channel, schedule_id)
        schedule = await uow.schedules.get(schedule_id)
        assert schedule is not None
        changed = schedule.enabled == paused
        if changed:
            schedule.enabled = not paused
            schedule.paused_reason = paused_by(await uow.places.user_id(user, now)) if paused else None
            if not paused:
                upcoming = view.rule.next_slot(now, view.zone)
                schedule.next_fire_at, schedule.next_slot = upcoming.due, upcoming.key
            await uow.schedules.flush()
            cohort = await uow.cohorts.get(schedule.cohort_id) if schedule.cohort_id is not None else None
            view = _view(schedule, view.channel, view.created_by, user.display_name or user.user_id, cohort=cohort)
            where = _log_extra(view.channel, schedule_id)
            uow.after_commit(
                lambda: log.info(
                    "schedule %s %s by %s", schedule_id, "paused" if paused else "resumed", user.user_id, extra=where
                )
            )
        return PauseChange(view, changed)

    async def next_here(self, uow: UnitOfWork, channel: ChannelRef) -> ScheduleView | None:
        """The enabled schedule of this channel that fires soonest, if any."""
        listed = await self.list(uow, channel)
        views = [view for view in listed if view.enabled and view.next_slot is not None]
        return views[0] if views else None

    # --- helpers ---------------------------------------------------------------------------------

    async def get(self, uow: UnitOfWork, channel: ChannelRef, schedule_id: int) -> ScheduleView:
        """A schedule of this workspace (UnknownSchedule if none has that id), in the caller's unit of work."""
        return await self._get(uow, channel, schedule_id)

    async def _get(self, uow: UnitOfWork, channel: ChannelRef, schedule_id: int) -> ScheduleView:
        row = await uow.schedule_listing.one(channel, schedule_id)
        if row is None:
            raise UnknownSchedule(schedule_words.unknown_schedule(schedule_id))
        return _listed(channel, row)


def _listed(here: ChannelRef, row: ListedSchedule) -> ScheduleView:
    """A listed schedule as people see it, in its own channel of `here`'s workspace."""
    channel = ChannelRef(platform=here.platform, workspace_id=here.workspace_id, channel_id=row.channel)
    return _view(row.schedule, channel, row.created_by, row.paused_by, cohort=row.cohort)


def _view(
    schedule: Schedule,
    channel: ChannelRef,
    created_by: str | None,
    paused_by_name: str | None = None,
    *,
    cohort: Cohort | None = None,
) -> ScheduleView:
    """A schedule as people see it; `paused_by_name` is the current name of the user its pause reason names."""
    by_user = schedule.paused_reason is not None and schedule.paused_reason.startswith(PAUSED_BY)
    next_slot = (
        Slot(key=schedule.next_slot, due=schedule.next_fire_at)
        if schedule.next_slot is not None and schedule.next_fire_at is not None
        else None
    )
    return ScheduleView(
        id=schedule.id,
        channel=channel,
        rule=load_rule(schedule.rule),
        timezone=schedule.timezone,
        pack_ids=tuple(schedule.pack_ids),
        close_after=timedelta(seconds=schedule.close_after_seconds) if schedule.close_after_seconds else None,
        enabled=schedule.enabled,
        paused_reason=None if by_user else schedule.paused_reason,
        next_slot=next_slot,
        created_by=created_by,
        paused_by_user=by_user,
        paused_by=paused_by_name if by_user else None,
        cohort=cohort.name if cohort is not None else None,
        delivery=Delivery(cohort.delivery) if cohort is not None else Delivery.CHANNEL,
    )


def _log_extra(channel: ChannelRef, schedule_id: int) -> dict[str, object]:
    return {
        "platform": channel.platform,
        "workspace": channel.workspace_id,
        "channel": channel.channel_id,
        "schedule_id": schedule_id,
    }
