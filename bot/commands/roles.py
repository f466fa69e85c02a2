"""The `role` group's actions (`/quiz role grant|revoke|list`): their grammar and their one declaration each
(`ROLE_ACTIONS`, added to SPECS in specs.py; the group itself is in groups.py)."""

from __future__ import annotations

import re
from typing import NamedTuple

from bot.commands.types import Command, GrantRole, ListRoles, RevokeRole
from bot.commandspec import Access, Choice, CommandSpec, Example, Option, OptionKind, Permission
from bot.domain.roles import Role
from bot.errors import CommandError
from bot.wording import roles as words

_USER_MENTION = re.compile(r"<@!?([A-Za-z0-9_.-]{1,64})(?:\|([^>]*))?>")
_ROLE_MENTION = re.compile(r"<@&([0-9]{1,32})(?:\|([^>]*))?>")
_PLAIN = re.compile(r"@?([^\s<>@|&\x00-\x1f\x7f]{1,64})")
_ROLES = {role.value: role for role in Role} | {"leads": Role.LEAD, "admins": Role.ADMIN}


class Mention(NamedTuple):
    """Who a role is granted to: a platform id, their name when the mention carried one, and whether it names a
    platform role (`<@&123>` on Discord) rather than a person."""

    id: str
    name: str = ""
    platform_role: bool = False


def mention(text: str) -> Mention:
    """A person as typed: `<@U123|ann>` (Slack), `<@123>` (Discord), `<@&456>` (a Discord role), `@ann` or a plain
    id or name (the terminal); CommandError otherwise."""
    word = text.strip()
    if found := _USER_MENTION.fullmatch(word):
        return Mention(found.group(1), (found.group(2) or "").strip())
    if found := _ROLE_MENTION.fullmatch(word):
        return Mention(found.group(1), (found.group(2) or "").strip(), platform_role=True)
    if found := _PLAIN.fullmatch(word):
        return Mention(found.group(1), found.group(1))
    raise CommandError(words.not_a_person, part=word)


def role_word(text: str) -> Role:
    """`lead` or `admin` (plurals too), or CommandError naming them."""
    role = _ROLES.get(text.strip().casefold())
    if role is None:
        raise CommandError(words.not_a_role, word=text)
    return role


def _role_choices() -> list[Choice]:
    return [Choice(role.value, role.value) for role in (Role.LEAD, Role.ADMIN)]


def _who_and_role(action: str, args: list[str]) -> tuple[Mention, Role]:
    """`@user ROLE` (or `ROLE @user`): the two words of `grant` and `revoke`."""
    if len(args) != 2:
        raise CommandError(words.role_usage, action=action)
    first, second = args
    if first.casefold() in _ROLES and second.casefold() not in _ROLES:
        first, second = second, first
    return mention(first), role_word(second)


def _parse_grant(args: list[str]) -> Command:
    who, role = _who_and_role("grant", args)
    return GrantRole(who.id, role, who.name, who.platform_role)


def _parse_revoke(args: list[str]) -> Command:
    who, role = _who_and_role("revoke", args)
    return RevokeRole(who.id, role, who.name, who.platform_role)


def _parse_list(args: list[str]) -> Command:
    if args:
        raise CommandError(words.list_takes_nothing)
    return ListRoles()


_USER = Option("user", words.OPTION_USER, mention, kind=OptionKind.MENTION, required=True)
_ROLE = Option("role", words.OPTION_ROLE, role_word, required=True, choices=_role_choices)
_ADMIN = Permission.ADMIN

ROLE_ACTIONS: tuple[CommandSpec, ...] = (
    CommandSpec(
        ("role", "grant"),
        (Access(GrantRole, _ADMIN, "grant roles"),),
        words.DESCRIBE_GRANT,
        _parse_grant,
        lambda user, role: GrantRole(user.id, role, user.name, user.platform_role),
        options=(_USER, _ROLE),
        aliases=("give", "add"),
        example=Example("role grant <@1002> lead", {"user": {"type": 6, "value": "1002"}, "role": "lead"}),
    ),
    CommandSpec(
        ("role", "revoke"),
        (Access(RevokeRole, _ADMIN, "revoke roles"),),
        words.DESCRIBE_REVOKE,
        _parse_revoke,
        lambda user, role: RevokeRole(user.id, role, user.name, user.platform_role),
        options=(_USER, _ROLE),
        aliases=("remove", "rm", "take"),
        example=Example("role revoke <@1002> lead", {"user": {"type": 6, "value": "1002"}, "role": "lead"}),
    ),
    CommandSpec(
        ("role", "list"),
        (Access(ListRoles, _ADMIN, "see who has a role"),),
        words.DESCRIBE_LIST,
        _parse_list,
        ListRoles,
        aliases=("ls", "show"),
        example=Example("role list"),
    ),
)
"""`/quiz role grant|revoke|list`: admins give and take back the lead and admin roles, in chat."""
