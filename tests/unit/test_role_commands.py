"""The `/quiz role` grammar: a person as each platform types them, the two roles, and one clear line for a mistake;
and the permissions the specs declare (shown in `/quiz help` and Discord's descriptions)."""

from __future__ import annotations

import pytest

from bot.commands import (
    ACCESS,
    GrantRole,
    ListRoles,
    PostNow,
    Reveal,
    RevokeRole,
    help_lines,
    help_message,
    parse_command,
)
from bot.commands.roles import mention
from bot.commandspec import Permission
from bot.domain.roles import Role
from bot.errors import CommandError
from bot.wording import commands as words


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("role grant <@U0BOB|bob> lead", GrantRole("U0BOB", Role.LEAD, "bob")),  # Slack
        ("role grant <@1002> admin", GrantRole("1002", Role.ADMIN)),  # Discord
        ("role grant <@!1002> lead", GrantRole("1002", Role.LEAD)),
        ("role grant <@&555> lead", GrantRole("555", Role.LEAD, platform_role=True)),  # a Discord role
        ("role grant bob lead", GrantRole("bob", Role.LEAD, "bob")),  # the terminal: a plain name
        ("role grant @bob LEADS", GrantRole("bob", Role.LEAD, "bob")),
        ("roles give lead <@U0BOB|bob>", GrantRole("U0BOB", Role.LEAD, "bob")),  # either order, other words
        ("role revoke <@U0BOB|bob> admin", RevokeRole("U0BOB", Role.ADMIN, "bob")),
        ("role rm bob lead", RevokeRole("bob", Role.LEAD, "bob")),
        ("role list", ListRoles()),
        ("role", ListRoles()),
        ("roles ls", ListRoles()),
    ],
)
def test_parses(text: str, expected: object) -> None:
    assert parse_command(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("role grant bob", "Say who and which role, e.g. `/quiz role grant @ann lead`."),
        ("role revoke bob lead admin", "Say who and which role, e.g. `/quiz role revoke @ann lead`."),
        ("role grant bob owner", "`owner` is not a role: say `lead` or `admin`."),
        ("role grant <bob> lead", "`<bob>` is not a person"),
        ("role list all", "`/quiz role list` takes nothing after it."),
        ("role promote bob", "`promote` is not something `/quiz role` does; say `grant`, `revoke`, `list`."),
    ],
)
def test_errors_say_what_to_type(text: str, message: str) -> None:
    with pytest.raises(CommandError) as raised:
        parse_command(text)
    assert raised.value.worded().startswith(message), raised.value.worded()


def test_a_mention_keeps_its_name_and_refuses_control_characters() -> None:
    assert mention("<@U0BOB|Bob Builder>") == ("U0BOB", "Bob Builder", False)
    with pytest.raises(CommandError):
        mention("bob\x00")


def test_the_permissions_are_declared_and_shown() -> None:
    assert ACCESS[GrantRole].permission is Permission.ADMIN
    assert ACCESS[Reveal].permission is Permission.POSTER_OR_LEAD
    assert ACCESS[PostNow].permission is Permission.ANYONE
    assert words.described("Post questions in this channel on a rule", "lead").endswith("(leads and admins)")
    lines = help_lines()
    assert any(line.startswith("/quiz role grant @user lead|admin") for line in lines)
    assert any("(leads and admins add, remove, pause and resume)" in line for line in lines)
    shown = help_message("role").lines
    assert shown[-1] == "Example: `/quiz role grant @ann lead`"
    assert parse_command("role grant @ann lead") == GrantRole("ann", Role.LEAD, "ann")
