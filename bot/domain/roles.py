"""Roles in a workspace, granted in chat (`/quiz role grant`): who may run a lead's or an admin's commands."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime


class Role(enum.StrEnum):
    """A role granted in a workspace; everyone else is a member. Admins may do whatever leads may."""

    ADMIN = "admin"
    LEAD = "lead"


class Subject(enum.StrEnum):
    """Who a role is granted to: one person, or everyone with a role of the platform's own (a Discord role)."""

    USER = "user"
    PLATFORM_ROLE = "platform-role"


@dataclass(frozen=True, slots=True)
class RoleGrant:
    """One granted role: to whom (a platform user id, or a platform role's id), their name when known, by whom."""

    subject: Subject
    subject_id: str
    name: str
    role: Role
    granted_by: str
    granted_at: datetime
