"""Roles through the core on SQLite and PostgreSQL: granted, changed, revoked and listed in chat; a lead runs the
commands for leads and a cohort's commands, a member does not; platform roles (a Discord server role) count; who may
reveal a scheduled, a cohort and an on-demand question."""

from __future__ import annotations

from sqlalchemy import select

from bot.commands import GrantRole, RevokeRole
from bot.db.models import WorkspaceRole
from bot.domain import ChannelRef, PostSource
from bot.domain.roles import Role
from bot.runtime import Runtime
from bot.service.facade import Context, Invocation, Reply
from tests.conftest import make_user
from tests.scoring_helpers import post

OTHER_WORKSPACE = ChannelRef("fake", "W2", "C1")


async def run(
    runtime: Runtime, channel: ChannelRef, who: str, text: str, *, admin: bool = False, roles: tuple[str, ...] = ()
) -> Reply:
    """Type a /quiz command as a user (with the platform roles they have)."""
    user = make_user(who, channel.workspace_id)
    return await runtime.app.handle_command(Invocation(channel, user, text, is_admin=admin, platform_roles=roles))


async def rows(runtime: Runtime) -> list[tuple[str, str, str, str]]:
    async with runtime.db.transaction() as session:
        found = await session.execute(
            select(WorkspaceRole.subject, WorkspaceRole.subject_id, WorkspaceRole.role, WorkspaceRole.granted_by)
        )
        return [tuple(row) for row in found]  # type: ignore[misc]


async def test_an_admin_grants_changes_lists_and_revokes_roles(runtime: Runtime, channel: ChannelRef) -> None:
    refused = await run(runtime, channel, "bob", "role grant <@U-bob|bob> admin")
    assert not refused.ok and refused.message.title.startswith("Only workspace admins can grant roles")
    granted = await run(runtime, channel, "ada", "role grant <@U-bob|bob> lead", admin=True)
    assert granted.ok and granted.private and granted.message.title == "bob is now lead here."
    assert await rows(runtime) == [("user", "u-bob", "lead", "ada")]
    again = await run(runtime, channel, "ada", "role grant lead <@U-bob|bob>", admin=True)  # either order
    assert again.message.title == "bob is already lead here; nothing changed."
    promoted = await run(runtime, channel, "ada", "roles give U-bob admins", admin=True)
    assert promoted.message.title == "U-bob is now admin here (was lead)."
    # a granted admin runs admin commands: grants a lead of their own
    assert (await run(runtime, channel, "bob", "role grant <@U-cy|cy> lead")).message.title == "cy is now lead here."
    listed = await run(runtime, channel, "bob", "role list")
    assert listed.message.title == "Roles here"
    assert listed.message.lines[:2] == ("admin: bob (granted by ada)", "lead: cy (granted by bob)")
    wrong = await run(runtime, channel, "ada", "role revoke <@U-cy|cy> admin", admin=True)
    assert wrong.message.title == "cy is not admin here; nothing changed."
    revoked = await run(runtime, channel, "ada", "role revoke <@U-cy|cy> lead", admin=True)
    assert revoked.message.title == "cy is no longer lead here."
    assert [row[1] for row in await rows(runtime)] == ["u-bob"]
    elsewhere = await run(runtime, OTHER_WORKSPACE, "bob", "role list")  # roles are per workspace
    assert not elsewhere.ok


async def test_a_lead_runs_lead_and_cohort_commands_and_a_member_does_not(
    runtime: Runtime, channel: ChannelRef
) -> None:
    member = await run(runtime, channel, "bob", "schedule add daily 09:00")
    assert not member.ok and member.message.title == (
        "Only leads and admins can add schedules; nothing was changed. Ask an admin of this workspace for the lead role."
    )
    await run(runtime, channel, "ada", "role grant U-bob lead", admin=True)
    for text in ("schedule add daily 09:00", "schedule pause 1", "flags list", "season start q1"):
        reply = await run(runtime, channel, "bob", text)
        assert reply.ok, (text, reply.message)
    await run(runtime, channel, "cy", "cohort create spring packs:data-parallelism")
    assert (await run(runtime, channel, "bob", "cohort remind spring")).ok  # a lead, not the creator
    assert not (await run(runtime, channel, "dee", "cohort remind spring")).ok
    assert not (await run(runtime, channel, "bob", "role grant U-dee lead")).ok  # roles are for admins
    assert not (await run(runtime, OTHER_WORKSPACE, "bob", "schedule add daily 09:00")).ok


async def test_a_role_granted_to_a_platform_role_counts_for_its_members(runtime: Runtime, channel: ChannelRef) -> None:
    granted = await runtime.app.execute(
        GrantRole("555", Role.LEAD, "quizmasters", platform_role=True),
        Context(channel, make_user("ada"), is_admin=True),
    )
    assert granted.message.title == "everyone with the server role quizmasters is now lead here."
    assert (await run(runtime, channel, "bob", "schedule add daily 09:00", roles=("555",))).ok
    assert not (await run(runtime, channel, "cy", "schedule add daily 10:00", roles=("777",))).ok
    await runtime.app.execute(
        RevokeRole("555", Role.LEAD, platform_role=True), Context(channel, make_user("ada"), is_admin=True)
    )
    assert not (await run(runtime, channel, "bob", "schedule add daily 11:00", roles=("555",))).ok


async def test_who_may_reveal_a_scheduled_a_cohort_and_an_on_demand_question(
    runtime: Runtime, channel: ChannelRef
) -> None:
    await run(runtime, channel, "ada", "role grant U-lee lead", admin=True)
    refusals = {
        PostSource.SCHEDULE: "Only leads and admins can reveal a scheduled question early; its schedule reveals it.",
        PostSource.COHORT: "Only leads and admins can reveal a cohort question; its schedule, or a lead, reveals it.",
    }
    for source, refusal in refusals.items():
        await post(runtime, channel, source=source)
        early = await run(runtime, channel, "bob", "reveal")
        assert not early.ok and early.private
        assert early.message.title == refusal
        assert (await run(runtime, channel, "lee", "reveal")).ok

    await run(runtime, channel, "cy", "now")
    not_hers = await run(runtime, channel, "bob", "reveal")
    assert not not_hers.ok
    assert not_hers.message.title == "Only cy, who posted this question, or a lead or admin can reveal it."
    assert (await run(runtime, channel, "cy", "reveal")).ok
    await run(runtime, channel, "cy", "now")
    assert (await run(runtime, channel, "lee", "reveal")).ok  # a lead reveals anyone's
    await run(runtime, channel, "cy", "now")
    assert (await run(runtime, channel, "ada", "reveal", admin=True)).ok
    await post(runtime, channel)  # on demand, with no poster recorded
    unknown = await run(runtime, channel, "bob", "reveal")
    assert unknown.message.title == "Only whoever posted this question, or a lead or admin, can reveal it."
    assert (await run(runtime, channel, "lee", "reveal")).ok
    nothing = await run(runtime, channel, "bob", "reveal")  # nothing open: the usual answer, not a refusal
    assert not nothing.ok and "no open question" in nothing.message.title.casefold()
