"""The command table and its permission check, without a database: every command has a route, and an admin-only
route refuses a non-admin before any handler runs, reading only their role."""

from __future__ import annotations

import typing
from types import TracebackType
from typing import Any

import pytest

from bot.clock import ManualClock
from bot.commands import AddSchedule, Command, ListPacks, RemoveSchedule, parse_command
from bot.domain import ChannelRef, UserRef
from bot.errors import NotAllowed
from bot.schedule_rules import parse_rule
from bot.service.facade import Context, Reply
from bot.service.handlers import COMMAND_HANDLERS, Permission, Route, bind_routes, check_permission

CHANNEL = ChannelRef("fake", "W1", "C1")
ALICE = UserRef("fake", "W1", "U1", "Alice")


class FakeUnitOfWork:
    """A unit of work that fails the test if anything touches the database through it."""

    committed = False

    async def __aenter__(self) -> FakeUnitOfWork:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None

    @property
    def session(self) -> Any:
        raise AssertionError("this check must not need the database")

    @property
    def places(self) -> Any:
        raise AssertionError("this check must not need the database")

    @property
    def roles(self) -> Any:
        return NoRoles()


class NoRoles:
    """uow.roles where nobody has been granted a role (a member's check reads only their role)."""

    async def role_of(self, where: ChannelRef, user_id: str, platform_roles: Any = ()) -> None:
        return None

    async def commit(self) -> None:
        self.committed = True


def test_every_command_has_a_route() -> None:
    commands = set(typing.get_args(Command))
    assert commands == set(COMMAND_HANDLERS), commands ^ set(COMMAND_HANDLERS)


def test_permissions_are_declared_beside_the_handlers() -> None:
    admin_only = {kind.__name__ for kind, route in COMMAND_HANDLERS.items() if route.permission is Permission.ADMIN}
    assert admin_only == {"GrantRole", "RevokeRole", "ListRoles"}
    for_leads = {kind.__name__ for kind, route in COMMAND_HANDLERS.items() if route.permission is Permission.LEAD}
    assert for_leads == {
        "AddSchedule",
        "RemoveSchedule",
        "PauseSchedule",
        "ResumeSchedule",
        "ListFlags",
        "ClearFlags",
        "StartSeason",
        "EndSeason",
        "ListDrafts",
        "ApproveDraft",
        "EditDraft",
        "SaveDraft",
        "RejectDraft",
    }
    for route in COMMAND_HANDLERS.values():
        if route.permission is not Permission.ANYONE:
            assert route.action, route  # the refusal names what was attempted


async def test_admin_only_is_refused_for_a_member_without_touching_the_database() -> None:
    command = RemoveSchedule(3)
    with pytest.raises(NotAllowed, match="Only leads and admins can remove schedules; nothing was changed"):
        await check_permission(
            COMMAND_HANDLERS[RemoveSchedule],
            command,
            Context(CHANNEL, ALICE),
            FakeUnitOfWork(),
            ManualClock(),  # type: ignore[arg-type]
        )
    # An admin passes, still without a query.
    await check_permission(
        COMMAND_HANDLERS[AddSchedule],
        AddSchedule(rule=parse_rule("daily 09:00")),
        Context(CHANNEL, ALICE, is_admin=True),
        FakeUnitOfWork(),  # type: ignore[arg-type]
        ManualClock(),
    )


async def test_bind_routes_injects_dependencies_by_name_and_refuses_a_missing_one() -> None:
    seen: list[object] = []

    async def handler(command: ListPacks, context: Context, uow: Any, *, catalog: object) -> Reply:
        seen.append(catalog)
        from bot.ports import Message

        return Reply(Message("ok"))

    routes = {ListPacks: Route(handler)}
    bound = bind_routes(routes, {"catalog": "the catalog"})
    reply = await bound[ListPacks].handler(parse_command("packs"), Context(CHANNEL, ALICE), FakeUnitOfWork())
    assert reply.message.title == "ok" and seen == ["the catalog"]
    with pytest.raises(TypeError, match="needs catalog"):
        bind_routes(routes, {})


def test_an_unclassified_driver_error_counts_as_the_database_being_unavailable() -> None:
    from sqlalchemy.exc import DBAPIError, IntegrityError

    from bot.db.database import is_unavailable

    lost = DBAPIError("SELECT 1", None, Exception("connection was closed in the middle of operation"))
    assert is_unavailable(lost)
    duplicate = IntegrityError("INSERT", None, Exception("duplicate key"))
    assert not is_unavailable(duplicate)
