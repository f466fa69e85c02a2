"""Roles (`/quiz role grant|revoke|list`): admins give and take back the lead and admin roles, in chat."""

from __future__ import annotations

from bot.clock import Clock
from bot.commands import GrantRole, ListRoles, RevokeRole
from bot.domain.roles import Subject
from bot.service.facade import Context, Reply
from bot.service.handlers.routing import handles
from bot.service.uow import UnitOfWork
from bot.wording import roles as words


def _subject(command: GrantRole | RevokeRole) -> Subject:
    return Subject.PLATFORM_ROLE if command.platform_role else Subject.USER


async def _workspace(context: Context, uow: UnitOfWork, clock: Clock) -> int:
    return await uow.places.workspace_id(context.channel.platform, context.channel.workspace_id, clock.now())


@handles(GrantRole)
async def grant_role(command: GrantRole, context: Context, uow: UnitOfWork, *, clock: Clock) -> Reply:
    """`/quiz role grant @user lead|admin`: the role counts from their next command, with no restart."""
    before = await uow.roles.grant(
        await _workspace(context, uow, clock),
        _subject(command),
        command.user,
        name=command.name,
        role=command.role,
        by=context.user.display_name or context.user.user_id,
        now=clock.now(),
    )
    await uow.commit()
    return Reply(words.granted(command.name, command.user, command.role, before, platform_role=command.platform_role))


@handles(RevokeRole)
async def revoke_role(command: RevokeRole, context: Context, uow: UnitOfWork, *, clock: Clock) -> Reply:
    """`/quiz role revoke @user lead|admin`."""
    done = await uow.roles.revoke(await _workspace(context, uow, clock), _subject(command), command.user, command.role)
    await uow.commit()
    return Reply(words.revoked(command.name, command.user, command.role, done, platform_role=command.platform_role))


@handles(ListRoles)
async def list_roles(command: ListRoles, context: Context, uow: UnitOfWork, *, clock: Clock) -> Reply:
    """`/quiz role list`: who has a role here."""
    return Reply(words.role_list(await uow.roles.granted(await _workspace(context, uow, clock))))
