"""Roles: the admins and leads granted in chat, per workspace (`uow.roles`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, select

from bot.db.models import Workspace, WorkspaceRole
from bot.db.rows import rows_changed
from bot.domain import ChannelRef
from bot.domain.roles import Role, RoleGrant, Subject
from bot.service.repositories.base import Repository

_RANK = {Role.ADMIN: 2, Role.LEAD: 1}


class Roles(Repository):
    """The roles granted in a workspace (a repository over `workspace_roles`)."""

    async def role_of(self, where: ChannelRef, user_id: str, platform_roles: Sequence[str] = ()) -> Role | None:
        """The highest role granted in the channel's workspace to the person or to one of their platform roles."""
        subjects = [(WorkspaceRole.subject == Subject.USER) & (WorkspaceRole.subject_id == user_id.casefold())]
        if platform_roles:
            subjects.append(
                (WorkspaceRole.subject == Subject.PLATFORM_ROLE) & WorkspaceRole.subject_id.in_(list(platform_roles))
            )
        query = (
            select(WorkspaceRole.role)
            .join(Workspace, Workspace.id == WorkspaceRole.workspace_id)
            .where(Workspace.platform == where.platform, Workspace.external_id == where.workspace_id)
            .where(subjects[0] if len(subjects) == 1 else subjects[0] | subjects[1])
        )
        found = [Role(role) for role in (await self._session.execute(query)).scalars()]
        return max(found, key=_RANK.__getitem__, default=None)

    async def grant(
        self, workspace: int, subject: Subject, subject_id: str, *, name: str, role: Role, by: str, now: datetime
    ) -> Role | None:
        """Grant a role (replacing the subject's other one); returns the role it had before, if any. Ids are kept
        casefolded (Slack's are upper case, Discord's digits, the terminal's a name), and looked up so."""
        subject_id = subject_id.casefold()
        row = await self._row(workspace, subject, subject_id)
        if row is None:
            self._session.add(
                WorkspaceRole(
                    workspace_id=workspace,
                    subject=subject.value,
                    subject_id=subject_id,
                    subject_name=name,
                    role=role.value,
                    granted_by=by,
                    granted_at=now,
                )
            )
            await self._session.flush()
            return None
        before = Role(row.role)
        row.role, row.granted_by, row.granted_at = role.value, by, now
        if name and name.casefold() != subject_id:  # a bare id keeps the name a mention gave before
            row.subject_name = name
        await self._session.flush()
        return before

    async def revoke(self, workspace: int, subject: Subject, subject_id: str, role: Role) -> bool:
        """Take a role back; False when the subject did not have that role."""
        subject_id = subject_id.casefold()
        result = await self._session.execute(
            delete(WorkspaceRole).where(
                WorkspaceRole.workspace_id == workspace,
                WorkspaceRole.subject == subject.value,
                WorkspaceRole.subject_id == subject_id,
                WorkspaceRole.role == role.value,
            )
        )
        return rows_changed(result) > 0

    async def granted(self, workspace: int) -> list[RoleGrant]:
        """Every role granted in a workspace: admins first, then leads, each in the order they were granted."""
        rows = (
            await self._session.execute(
                select(WorkspaceRole)
                .where(WorkspaceRole.workspace_id == workspace)
                .order_by(WorkspaceRole.granted_at, WorkspaceRole.id)
            )
        ).scalars()
        grants = [
            RoleGrant(
                subject=Subject(row.subject),
                subject_id=row.subject_id,
                name=row.subject_name,
                role=Role(row.role),
                granted_by=row.granted_by,
                granted_at=row.granted_at,
            )
            for row in rows
        ]
        return sorted(grants, key=lambda grant: -_RANK[grant.role])

    async def _row(self, workspace: int, subject: Subject, subject_id: str) -> WorkspaceRole | None:
        return (
            await self._session.execute(
                select(WorkspaceRole).where(
                    WorkspaceRole.workspace_id == workspace,
                    WorkspaceRole.subject == subject.value,
                    WorkspaceRole.subject_id == subject_id,
                )
            )
        ).scalar_one_or_none()
