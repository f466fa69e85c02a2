"""The schedule commands: add, list, remove, pause, resume, next."""

from __future__ import annotations

import dataclasses

from bot.clock import Clock
from bot.commands import (
    AddCohortSchedule,
    AddSchedule,
    ListSchedules,
    NextSchedule,
    PauseSchedule,
    RemoveSchedule,
    ResumeSchedule,
)
from bot.domain.settings import SettingDefaults, SettingKey, Source
from bot.service.confirmations import Confirmations
from bot.service.facade import Context, Reply
from bot.service.handlers.routing import ask_to_confirm, handles
from bot.service.handlers.settings import effective_here
from bot.service.schedules import ScheduleService
from bot.service.uow import UnitOfWork
from bot.wording import confirmations, schedules


@handles(AddSchedule, AddCohortSchedule)
async def add_schedule(
    command: AddSchedule | AddCohortSchedule,
    context: Context,
    uow: UnitOfWork,
    *,
    schedules_: ScheduleService,
    setting_defaults: SettingDefaults,
) -> Reply:
    """`/quiz schedule add ...`, of packs or of a cohort's curriculum (the channel sees it). Without `tz:` or
    `close:`, the channel's `timezone` and `close-after` settings apply (`/quiz settings`) when it or its workspace
    sets them."""
    here = await effective_here(uow, context.channel, setting_defaults)
    if command.timezone is None and here.sources[SettingKey.TIMEZONE] is not Source.DEFAULT:
        command = dataclasses.replace(command, timezone=here.timezone)
    if command.close_after is None and here.close_after is not None:
        command = dataclasses.replace(command, close_after=here.close_after)
    view, upcoming = await schedules_.add(uow, command, channel=context.channel, user=context.user)
    await uow.commit()
    return Reply(schedules.added(view, upcoming), private=False)


@handles(ListSchedules)
async def list_schedules(
    command: ListSchedules, context: Context, uow: UnitOfWork, *, schedules_: ScheduleService
) -> Reply:
    """`/quiz schedule list [all]`."""
    views = await schedules_.list(uow, context.channel, everywhere=command.everywhere)
    return Reply(schedules.listing(views, everywhere=command.everywhere, here=context.channel))


@handles(RemoveSchedule)
async def remove_schedule(
    command: RemoveSchedule,
    context: Context,
    uow: UnitOfWork,
    *,
    schedules_: ScheduleService,
    confirmations_: Confirmations,
) -> Reply:
    """`/quiz schedule remove ID`: asks first; once confirmed it is removed, and the channel sees it."""
    if not command.confirmed:
        view = await schedules_.get(uow, context.channel, command.schedule_id)
        return await ask_to_confirm(
            command,
            context,
            uow,
            confirmations_,
            prompt=confirmations.remove_schedule_prompt(view),
            confirm_label=confirmations.remove_schedule_label(),
        )
    view = await schedules_.remove(uow, command.schedule_id, channel=context.channel, user=context.user)
    await uow.commit()
    return Reply(schedules.removed(view, context.user), private=False)


@handles(PauseSchedule)
async def pause_schedule(
    command: PauseSchedule, context: Context, uow: UnitOfWork, *, schedules_: ScheduleService
) -> Reply:
    """`/quiz schedule pause ID` (the channel sees it when something changed)."""
    view, changed = await schedules_.set_paused(
        uow, command.schedule_id, paused=True, channel=context.channel, user=context.user
    )
    await uow.commit()
    return Reply(schedules.paused(view, context.user, changed=changed), private=not changed)


@handles(ResumeSchedule)
async def resume_schedule(
    command: ResumeSchedule, context: Context, uow: UnitOfWork, *, schedules_: ScheduleService
) -> Reply:
    """`/quiz schedule resume ID` (the channel sees it when something changed)."""
    view, changed = await schedules_.set_paused(
        uow, command.schedule_id, paused=False, channel=context.channel, user=context.user
    )
    await uow.commit()
    return Reply(schedules.resumed(view, context.user, changed=changed), private=not changed)


@handles(NextSchedule)
async def next_schedule(
    command: NextSchedule, context: Context, uow: UnitOfWork, *, schedules_: ScheduleService, clock: Clock
) -> Reply:
    """`/quiz schedule next`."""
    return Reply(schedules.next_here(await schedules_.next_here(uow, context.channel), now=clock.now()))
