"""Pending confirmations: the stored question a destructive command asks before it acts (service/confirmations.py)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, update

from bot.db.models import PendingConfirmation
from bot.db.rows import rows_changed
from bot.service.repositories.base import Repository


class PendingConfirmations(Repository):
    """Pending confirmations by token: stored, read, used at most once, swept once long expired."""

    async def sweep(self, expired_before: datetime) -> None:
        """Delete the confirmations that expired before `expired_before`."""
        await self._session.execute(delete(PendingConfirmation).where(PendingConfirmation.expires_at < expired_before))

    def add(self, pending: PendingConfirmation) -> None:
        """Store a new pending confirmation (written with the unit of work)."""
        self._session.add(pending)

    async def get(self, token: str) -> PendingConfirmation | None:
        """The confirmation of this token, if there is one."""
        return await self._session.get(PendingConfirmation, token[:64])

    async def use(self, token: str, now: datetime, outcome: str) -> bool:
        """Mark an unused confirmation used with its outcome; False if it was used already (another click won)."""
        changed = await self._session.execute(
            update(PendingConfirmation)
            .where(PendingConfirmation.token == token, PendingConfirmation.used_at.is_(None))
            .values(used_at=now, outcome=outcome)
            .execution_options(synchronize_session=False)
        )
        return rows_changed(changed) > 0
