"""What every handler module shares: the Route, `@handles`, the one permission check, binding by name, and
the confirmation step of destructive commands."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from bot.clock import Clock
from bot.commands import Command, DeleteCohort, EndSeason, RemoveSchedule
from bot.commandspec import Permission
from bot.domain import PostSource, QuestionCard
from bot.domain.roles import Role
from bot.domain.settings import RevealPolicy, SettingDefaults, resolve
from bot.errors import NotAllowed
from bot.ports import Message
from bot.service.cohorts import CohortService
from bot.service.confirmations import Confirmations
from bot.service.facade import Context, Reply
from bot.service.uow import UnitOfWork
from bot.wording import chat_settings, cohorts, commands, roles
from bot.wording.errors import admins_only

Handler = Callable[[Any, Context, UnitOfWork], Awaitable[Reply]]
RevealPost = Callable[[UnitOfWork, int], Awaitable[QuestionCard]]


@dataclass(frozen=True, slots=True)
class Route:
    """A command's handler, who may run it, and what the refusal says they tried (`add schedules`)."""

    handler: Callable[..., Awaitable[Reply]]
    permission: Permission = Permission.ANYONE
    action: str = ""


REGISTERED: dict[type[Any], Callable[..., Awaitable[Reply]]] = {}
HandlerT = TypeVar("HandlerT", bound=Callable[..., Awaitable[Reply]])


def handles(*kinds: type[Any]) -> Callable[[HandlerT], HandlerT]:
    """Register a handler for its command types (the dispatcher finds it in COMMAND_HANDLERS)."""

    def register(handler: HandlerT) -> HandlerT:
        for kind in kinds:
            if kind in REGISTERED:
                raise TypeError(f"{kind.__name__} has two handlers")
            REGISTERED[kind] = handler
        return handler

    return register


async def role_of(context: Context, uow: UnitOfWork) -> Role | None:
    """The context's role here: admin for platform and bootstrap admins (`is_admin`), else the role granted in
    chat (`/quiz role grant`), else None (a member)."""
    if context.is_admin:
        return Role.ADMIN
    return await uow.roles.role_of(context.channel, context.user.user_id, context.platform_roles)


async def check_permission(route: Route, command: Command, context: Context, uow: UnitOfWork, clock: Clock) -> None:
    """Raise NotAllowed unless the context may run the command (the only place permissions are decided).

    Admins (platform admins, the environment's bootstrap admins, and people granted admin) may run everything;
    leads whatever is for leads (LEAD, a cohort's commands, revealing any question); the creator of a cohort its
    commands; whoever posted an on-demand question its reveal."""
    if route.permission is Permission.ANYONE:
        return
    role = await role_of(context, uow)
    if role is Role.ADMIN:
        return
    what = commands.action_words(route.action)
    if route.permission is Permission.ADMIN:
        raise NotAllowed(admins_only(what))
    if route.permission is Permission.POSTER_OR_LEAD:
        await _check_poster(context, uow, lead=role is Role.LEAD)
        return
    if role is Role.LEAD:
        return
    if route.permission is Permission.LEAD:
        raise NotAllowed(roles.leads_only(what))
    cohort = await CohortService.find(uow, context.channel, getattr(command, "name", ""))
    if cohort.created_by != await uow.places.user_id(context.user, clock.now()):
        raise NotAllowed(cohorts.not_allowed(cohort.name, what))


async def _check_poster(context: Context, uow: UnitOfWork, *, lead: bool) -> None:
    """Who may reveal the channel's current question, by the channel's `reveal` setting (`/quiz settings`):
    `leads` (the default): a scheduled or cohort question is revealed by its schedule, or early by a lead; an
    on-demand one by whoever posted it, or a lead. `schedule`: a scheduled or cohort question by its schedule only
    (leads too wait). `anyone`: anyone, any question. No open question: the handler says so."""
    policy = resolve(SettingDefaults(), await uow.settings.overrides(context.channel)).reveal
    if policy is RevealPolicy.ANYONE or (lead and policy is RevealPolicy.LEADS):
        return
    post_id = await uow.posts.newest_open(context.channel)
    if post_id is None:
        return
    origin = await uow.posts.poster(post_id)
    if origin.source is not PostSource.COMMAND and policy is RevealPolicy.SCHEDULE:
        raise NotAllowed(chat_settings.reveal_by_schedule_only())
    if lead:
        return
    if origin.source is PostSource.COHORT:
        raise NotAllowed(roles.cohort_reveal_refused())
    if origin.source is not PostSource.COMMAND:
        raise NotAllowed(roles.scheduled_reveal_refused())
    if origin.poster_id != context.user.user_id:
        raise NotAllowed(roles.reveal_not_yours(origin.poster_name))


async def ask_to_confirm(
    command: DeleteCohort | RemoveSchedule | EndSeason,
    context: Context,
    uow: UnitOfWork,
    confirmations_: Confirmations,
    *,
    prompt: Message,
    confirm_label: str,
) -> Reply:
    """Store a pending confirmation of a destructive command and reply with its question and buttons."""
    request = await confirmations_.ask(
        uow, command, channel=context.channel, user=context.user, confirm_label=confirm_label
    )
    await uow.commit()
    return Reply(prompt, confirm=request)


def bind_routes(routes: Mapping[type[Any], Route], dependencies: Mapping[str, object]) -> dict[type[Any], Route]:
    """The routes with each handler's keyword-only dependencies bound by name (cosmicpython's bootstrap)."""
    bound: dict[type[Any], Route] = {}
    for command_type, route in routes.items():
        wanted = [
            name
            for name, parameter in inspect.signature(route.handler).parameters.items()
            if parameter.kind is inspect.Parameter.KEYWORD_ONLY
        ]
        missing = [name for name in wanted if name not in dependencies]
        if missing:
            raise TypeError(f"{route.handler.__name__} needs {', '.join(missing)}, which bootstrap does not provide")
        handler = functools.partial(route.handler, **{name: dependencies[name] for name in wanted})
        bound[command_type] = Route(handler, route.permission, route.action)
    return bound
