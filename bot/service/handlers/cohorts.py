"""The cohort commands: create, join, leave, add, remove, list, show, next, set, remind, delete."""

from __future__ import annotations

import logging

from bot.commands import (
    AddToCohort,
    CreateCohort,
    DeleteCohort,
    JoinCohort,
    LeaveCohort,
    ListCohorts,
    PostCohortQuestion,
    RemindCohort,
    RemoveFromCohort,
    SetCohort,
    ShowCohort,
)
from bot.domain import Delivery, UserRef
from bot.domain.settings import SettingDefaults
from bot.errors import NotAllowed
from bot.ports import DirectMessages, PlatformError, PlatformRegistry
from bot.service.cohorts import CohortService
from bot.service.confirmations import Confirmations
from bot.service.facade import Context, Reply
from bot.service.handlers.routing import ask_to_confirm, handles
from bot.service.handlers.settings import effective_here
from bot.service.uow import UnitOfWork
from bot.wording import cohorts, confirmations

log = logging.getLogger(__name__)


@handles(CreateCohort)
async def create_cohort(
    command: CreateCohort,
    context: Context,
    uow: UnitOfWork,
    *,
    cohorts_: CohortService,
    setting_defaults: SettingDefaults,
) -> Reply:
    """`/quiz cohort create NAME ...` (delivered as `deliver:` says, else as the channel's `cohort-private` setting)."""
    delivery = command.delivery
    if delivery is None:
        here = await effective_here(uow, context.channel, setting_defaults)
        delivery = Delivery.DM if here.cohort_private else Delivery.CHANNEL
    view = await cohorts_.create(
        uow,
        context.channel,
        context.user,
        name=command.name,
        start=command.start,
        packs=list(command.packs),
        delivery=delivery,
    )
    await uow.commit()
    return Reply(cohorts.created_message(view))


@handles(JoinCohort)
async def join_cohort(command: JoinCohort, context: Context, uow: UnitOfWork, *, cohorts_: CohortService) -> Reply:
    """`/quiz cohort join NAME`: anyone may join."""
    cohort = await cohorts_.find(uow, context.channel, command.name)
    joined = await cohorts_.add_members(uow, cohort, context.user, [context.user])
    await uow.commit()
    return Reply(cohorts.joined(command.name, new=bool(joined)))


@handles(LeaveCohort)
async def leave_cohort(command: LeaveCohort, context: Context, uow: UnitOfWork, *, cohorts_: CohortService) -> Reply:
    """`/quiz cohort leave NAME`: anyone may leave."""
    cohort = await cohorts_.find(uow, context.channel, command.name)
    left = await cohorts_.remove_members(uow, cohort, [context.user.user_id])
    await uow.commit()
    return Reply(cohorts.left(command.name, was_member=bool(left)))


@handles(AddToCohort)
async def add_to_cohort(command: AddToCohort, context: Context, uow: UnitOfWork, *, cohorts_: CohortService) -> Reply:
    """`/quiz cohort add NAME @user...`."""
    channel = context.channel
    refs = [UserRef(channel.platform, channel.workspace_id, uid, "") for uid in command.users]
    cohort = await cohorts_.find(uow, channel, command.name)
    added = await cohorts_.add_members(uow, cohort, context.user, refs)
    await uow.commit()
    return Reply(cohorts.added(command.name, added, [uid for uid in command.users if uid not in added]))


@handles(RemoveFromCohort)
async def remove_from_cohort(
    command: RemoveFromCohort, context: Context, uow: UnitOfWork, *, cohorts_: CohortService
) -> Reply:
    """`/quiz cohort remove NAME @user...`."""
    cohort = await cohorts_.find(uow, context.channel, command.name)
    removed = await cohorts_.remove_members(uow, cohort, list(command.users))
    await uow.commit()
    return Reply(cohorts.removed(command.name, removed, [uid for uid in command.users if uid not in removed]))


@handles(ListCohorts)
async def list_cohorts(command: ListCohorts, context: Context, uow: UnitOfWork, *, cohorts_: CohortService) -> Reply:
    """`/quiz cohort list`."""
    return Reply(cohorts.list_message(await cohorts_.all_cohorts(uow, context.channel)))


@handles(ShowCohort)
async def show_cohort(command: ShowCohort, context: Context, uow: UnitOfWork, *, cohorts_: CohortService) -> Reply:
    """`/quiz cohort show NAME`."""
    cohort = await cohorts_.find(uow, context.channel, command.name)
    return Reply(cohorts.show_message(await cohorts_.view(uow, cohort)))


@handles(PostCohortQuestion)
async def post_cohort_question(
    command: PostCohortQuestion, context: Context, uow: UnitOfWork, *, cohorts_: CohortService
) -> Reply:
    """`/quiz cohort next NAME`: post the cohort's next curriculum question here."""
    cohort = await cohorts_.find(uow, context.channel, command.name)
    await uow.commit()  # the permission check may have created the caller's user row
    posted = await cohorts_.post_next_question(context.channel, cohort_id=cohort.id, posted_by=context.user)
    if posted is None:
        return Reply(cohorts.curriculum_done(command.name))
    return Reply(cohorts.next_posted(command.name), quiet=True)


@handles(SetCohort)
async def set_cohort(command: SetCohort, context: Context, uow: UnitOfWork, *, cohorts_: CohortService) -> Reply:
    """`/quiz cohort set NAME deliver:dm|channel`: how the cohort's schedules deliver its curriculum."""
    cohort = await cohorts_.find(uow, context.channel, command.name)
    changed = await cohorts_.set_delivery(uow, cohort, command.delivery)
    await uow.commit()
    return Reply(cohorts.delivery_set(cohort.name, command.delivery, changed=changed))


def direct_messages(platform: object) -> DirectMessages | None:
    """The platform's private-message capability, if it has one."""
    return platform if isinstance(platform, DirectMessages) else None


@handles(RemindCohort)
async def remind_cohort(
    command: RemindCohort, context: Context, uow: UnitOfWork, *, cohorts_: CohortService, platforms: PlatformRegistry
) -> Reply:
    """`/quiz cohort remind NAME`: a private nudge to each member who is behind, listing their due questions.

    The nudges are gathered in the unit of work, which then ends (nothing is written) before any platform call.
    A member the platform cannot reach is counted, not an error: the others still get theirs.
    """
    cohort = await cohorts_.find(uow, context.channel, command.name)
    view, nudges = await cohorts_.nudges(uow, cohort)
    await uow.commit()  # the permission check may have created the caller's user row
    behind = sum(1 for member in view.members if member.behind)
    sender = direct_messages(platforms.get(context.channel.platform))
    if nudges and sender is None:
        raise NotAllowed(cohorts.no_direct_messages(context.channel.platform))
    nudged = unreachable = 0
    for nudge in nudges:
        assert sender is not None
        try:
            await sender.send_direct(nudge.user, cohorts.nudge_message(nudge))
        except PlatformError as exc:
            log.info("could not nudge a cohort member: %s", exc, extra={"platform": context.channel.platform})
            unreachable += 1
        else:
            nudged += 1
    return Reply(cohorts.reminded(view.name, nudged=nudged, unreachable=unreachable, behind=behind))


@handles(DeleteCohort)
async def delete_cohort(
    command: DeleteCohort, context: Context, uow: UnitOfWork, *, cohorts_: CohortService, confirmations_: Confirmations
) -> Reply:
    """`/quiz cohort delete NAME`: asks first; once confirmed, the cohort and its board go (answers stay)."""
    cohort = await cohorts_.find(uow, context.channel, command.name)
    if not command.confirmed:
        view = await cohorts_.view(uow, cohort)
        return await ask_to_confirm(
            command,
            context,
            uow,
            confirmations_,
            prompt=confirmations.delete_cohort_prompt(cohort.name, len(view.members)),
            confirm_label=confirmations.delete_cohort_label(),
        )
    await cohorts_.delete(uow, cohort)
    await uow.commit()
    return Reply(cohorts.deleted(command.name))
