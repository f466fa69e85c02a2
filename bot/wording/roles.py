"""Roles: `/quiz role grant|revoke|list`, and the refusals of commands for leads, of an early reveal and of a
`/quiz now` too soon or with too many questions open."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from bot.domain.roles import Role, RoleGrant, Subject
from bot.ports import Message
from bot.wording.i18n import echo
from bot.wording.i18n import translate as _
from bot.wording.times import duration

ROLE_USAGE = "/quiz role grant|revoke @user lead|admin | role list"

DESCRIBE_GRANT = "Give a person (or a server role) the lead or admin role here"
DESCRIBE_REVOKE = "Take a lead or admin role back"
DESCRIBE_LIST = "Who is a lead or an admin here"
OPTION_USER = "The person (or server role), e.g. @ann"
OPTION_ROLE = "lead (schedules, seasons, cohorts, flags) or admin (that, and roles)"

_ROLE_NAMES = {Role.ADMIN: "admin", Role.LEAD: "lead"}

# --- the grammar ------------------------------------------------------------------------------------------------


def not_a_person(part: str) -> str:
    """A `role grant|revoke` target that is no mention and no user id."""
    return _("`{part}` is not a person: mention them (`@name`) or give their user id.", part=echo(part))


def not_a_role(word: str) -> str:
    """A role word that is neither `lead` nor `admin`."""
    return _("`{word}` is not a role: say `lead` or `admin`.", word=echo(word))


def role_usage(action: str) -> str:
    """`role grant|revoke` without exactly a person and a role."""
    return _("Say who and which role, e.g. `/quiz role {action} @ann lead`.", action=action)


def list_takes_nothing() -> str:
    """`role list` with words after it."""
    return _("`/quiz role list` takes nothing after it.")


def not_a_role_action(word: str, actions: Sequence[str]) -> str:
    """`/quiz role WORD` where WORD is none of its actions."""
    return _(
        "`{word}` is not something `/quiz role` does; say {actions}.",
        word=echo(word),
        actions=", ".join(f"`{action}`" for action in actions),
    )


# --- replies ----------------------------------------------------------------------------------------------------


def role_name(role: Role) -> str:
    """`lead` or `admin`, in the reader's language."""
    return _(_ROLE_NAMES[role])


def _who(name: str, subject_id: str, subject: Subject = Subject.USER) -> str:
    if subject is Subject.PLATFORM_ROLE:
        return _("everyone with the server role {name}", name=name or subject_id)
    return name or subject_id


def granted(name: str, subject_id: str, role: Role, before: Role | None, *, platform_role: bool = False) -> Message:
    """A role given (or changed from another one)."""
    who = _who(name, subject_id, Subject.PLATFORM_ROLE if platform_role else Subject.USER)
    if before is role:
        return Message(_("{who} is already {role} here; nothing changed.", who=who, role=role_name(role)))
    if before is not None:
        return Message(
            _("{who} is now {role} here (was {before}).", who=who, role=role_name(role), before=role_name(before))
        )
    return Message(_("{who} is now {role} here.", who=who, role=role_name(role)))


def revoked(name: str, subject_id: str, role: Role, done: bool, *, platform_role: bool = False) -> Message:
    """A role taken back, or not held."""
    who = _who(name, subject_id, Subject.PLATFORM_ROLE if platform_role else Subject.USER)
    if not done:
        return Message(_("{who} is not {role} here; nothing changed.", who=who, role=role_name(role)))
    return Message(_("{who} is no longer {role} here.", who=who, role=role_name(role)))


def role_list(grants: Sequence[RoleGrant]) -> Message:
    """`/quiz role list`: the granted roles; platform admins are always admins besides."""
    lines = [
        _(
            "{role}: {who} (granted by {by})",
            role=role_name(grant.role),
            who=_who(grant.name, grant.subject_id, grant.subject),
            by=grant.granted_by,
        )
        for grant in grants
    ] or [_("No roles are granted here yet: `/quiz role grant @ann lead` gives one.")]
    lines.append(_("Workspace admins and the operator's configured admins are admins too."))
    return Message(_("Roles here"), tuple(lines))


# --- refusals ---------------------------------------------------------------------------------------------------


def leads_only(what: str) -> str:
    """Why a member may not `what` (e.g. `add schedules`): admins and the leads they name may."""
    return _(
        "Only leads and admins can {what}; nothing was changed. Ask an admin of this workspace for the lead role.",
        what=what,
    )


def scheduled_reveal_refused() -> str:
    """A member's `/quiz reveal` of a scheduled or cohort question."""
    return _("Only leads and admins can reveal a scheduled question early; its schedule reveals it.")


def cohort_reveal_refused() -> str:
    """A member's `/quiz reveal` of a cohort question."""
    return _("Only leads and admins can reveal a cohort question; its schedule, or a lead, reveals it.")


def reveal_not_yours(poster: str) -> str:
    """Someone else's `/quiz reveal` of an on-demand question (its poster's name, or "" when it is not known)."""
    if not poster:
        return _("Only whoever posted this question, or a lead or admin, can reveal it.")
    return _("Only {poster}, who posted this question, or a lead or admin can reveal it.", poster=poster)


def now_too_soon(wait: timedelta) -> str:
    """`/quiz now` within the channel's cooldown."""
    return _(
        "You can post the next question here in {wait} (leads and admins can post now).",
        wait=duration(max(wait, timedelta(seconds=1))),
    )


def now_too_many(limit: int) -> str:
    """`/quiz now` while the channel has its limit of open on-demand questions."""
    return _(
        "This channel already has {limit} open questions; reveal one first (leads and admins can post more).",
        limit=limit,
    )
