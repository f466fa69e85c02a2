"""What every repository is: a view of the unit of work's session that never opens, commits or rolls back."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession


class Repository:
    """A repository over the unit of work's session (one per aggregate, see the package)."""

    def __init__(self, session: AsyncSession) -> None:
        self._session = session
