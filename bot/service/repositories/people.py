"""People: one person's identity rows (one per workspace) and every row about them, for `quizbot forget-user`."""

from __future__ import annotations

from sqlalchemy import ForeignKey, Select, Table, and_, delete, or_, select, update

from bot.db.models import Base, PendingConfirmation, Schedule, User, Workspace
from bot.service.repositories.base import Repository
from bot.service.schedules import paused_by


def tables_referencing_users() -> list[tuple[Table, str, str | None]]:
    """(table, column, ondelete) for every foreign key to users.id, found from the models."""
    found = []
    for table in Base.metadata.sorted_tables:
        for column in table.columns:
            for fk in column.foreign_keys:
                if isinstance(fk, ForeignKey) and fk.target_fullname == "users.id":
                    found.append((table, column.name, fk.ondelete))
    return found


def _user_rows(platform: str, user_id: str, workspace: str | None) -> Select[int]:
    query = (
        select(User.id)
        .join(Workspace, Workspace.id == User.workspace_id)
        .where(Workspace.platform == platform, User.external_id == user_id)
    )
    return query.where(Workspace.external_id == workspace) if workspace is not None else query


class People(Repository):
    """A person's identity rows, found by platform id, and everything that is theirs or names them."""

    async def identities(self, platform: str, user_id: str, workspace: str | None = None) -> list[int]:
        """The person's user rows: one per workspace they were seen in (only `workspace`'s when given)."""
        return list((await self._session.execute(_user_rows(platform, user_id, workspace))).scalars())

    async def platforms(self) -> set[str]:
        """The platforms the database has workspaces of."""
        return set((await self._session.execute(select(Workspace.platform).distinct())).scalars())

    async def forget(self, ids: list[int], *, platform: str, user_id: str, workspace: str | None) -> dict[str, int]:
        """Delete these user rows and every row about them; returns how many rows of each table went (or were
        cleared: a row that merely points at them keeps its place with the pointer cleared).

        Pending confirmations name their asker by platform id (they reference no row), so they go by that id.
        """
        removed: dict[str, int] = {}
        asked = delete(PendingConfirmation).where(
            PendingConfirmation.platform == platform, PendingConfirmation.user_external_id == user_id
        )
        if workspace is not None:
            asked = asked.where(PendingConfirmation.workspace_external_id == workspace)
        removed["pending_confirmations"] = (await self._session.execute(asked)).rowcount or 0  # type: ignore[attr-defined]
        removed["schedules (cleared paused_reason)"] = await self._forget_pauses(ids)
        for table, column, ondelete in tables_referencing_users():
            target = table.c[column]
            if ondelete and ondelete.upper() == "SET NULL":
                result = await self._session.execute(update(table).where(target.in_(ids)).values({column: None}))
                removed[f"{table.name} (cleared {column})"] = result.rowcount or 0  # type: ignore[attr-defined]
            else:
                result = await self._session.execute(delete(table).where(target.in_(ids)))
                removed[table.name] = result.rowcount or 0  # type: ignore[attr-defined]
        await self._session.execute(delete(User).where(User.id.in_(ids)))
        return removed

    async def _forget_pauses(self, ids: list[int]) -> int:
        """Clear who paused a schedule from the reasons that name one of these users; returns how many changed.

        A pause records its user by row (`paused-by:<id>`); a reason written before that named them in words
        (`paused by <name or platform id>`, in their workspace), which is cleared too.
        """
        people = (
            await self._session.execute(
                select(User.workspace_id, User.display_name, User.external_id).where(User.id.in_(ids))
            )
        ).all()
        in_words = [
            and_(
                Schedule.workspace_id == person.workspace_id,
                Schedule.paused_reason.in_([f"paused by {person.display_name}", f"paused by {person.external_id}"]),
            )
            for person in people
        ]
        result = await self._session.execute(
            update(Schedule)
            .where(or_(Schedule.paused_reason.in_([paused_by(user_row) for user_row in ids]), *in_words))
            .values(paused_reason=paused_by(None))
        )
        return int(result.rowcount or 0)  # type: ignore[attr-defined]
