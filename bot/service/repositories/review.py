"""Review: each person's Leitner boxes of missed questions, and what is due."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Select, delete, func, select

from bot.db.models import (
    QuestionRow,
    QuestionVersion,
    ReviewAnswer,
    ReviewItem,
    ReviewSnapshot,
)
from bot.service.repositories.base import Repository
from bot.service.repositories.directory import dialect_insert


def _live(user_row: int) -> Select[ReviewItem]:
    return (
        select(ReviewItem)
        .join(QuestionRow, QuestionRow.id == ReviewItem.question_id)
        .where(ReviewItem.user_id == user_row, ReviewItem.retired_at.is_(None), QuestionRow.active.is_(True))
    )


class Review(Repository):
    """A user's review items (Leitner boxes), the version a review question showed, and review answers."""

    async def out(self, user_row: int, *, lock: bool = False) -> ReviewItem | None:
        """The item whose question is out (asked and not answered yet), newest first."""
        query = _live(user_row).where(ReviewItem.asked_at.is_not(None)).order_by(ReviewItem.asked_at.desc())
        if lock:
            query = query.with_for_update(of=ReviewItem)
        return (await self._session.execute(query.limit(1))).scalars().first()

    async def due_longest(self, user_row: int, now: datetime) -> ReviewItem | None:
        """The live item that has been due longest."""
        query = _live(user_row).where(ReviewItem.due_at <= now).order_by(ReviewItem.due_at, ReviewItem.id).limit(1)
        return (await self._session.execute(query)).scalar()

    async def shown_version(self, item_id: int) -> QuestionVersion | None:
        """The version an item's question showed when it was asked (None when none is out)."""
        return (
            await self._session.execute(
                select(QuestionVersion)
                .join(ReviewSnapshot, ReviewSnapshot.question_version_id == QuestionVersion.id)
                .where(ReviewSnapshot.item_id == item_id)
            )
        ).scalar()

    async def pin(self, item_id: int, version_id: int) -> None:
        """Record the version an item's question is asked in."""
        pinned = dialect_insert(self._session, ReviewSnapshot).values(item_id=item_id, question_version_id=version_id)
        await self._session.execute(
            pinned.on_conflict_do_update(index_elements=["item_id"], set_={"question_version_id": version_id})
        )

    async def unpin(self, item_id: int) -> None:
        """Forget the version an answered item's question was asked in."""
        await self._session.execute(delete(ReviewSnapshot).where(ReviewSnapshot.item_id == item_id))

    async def add_answer(self, answer: ReviewAnswer) -> None:
        """Record a review answer (it counts for mastery, never for a board)."""
        self._session.add(answer)
        await self._session.flush()

    async def due(self, user_row: int, now: datetime) -> int:
        """How many live items are due."""
        return await self._count(_live(user_row).where(ReviewItem.due_at <= now))

    async def learning(self, user_row: int) -> int:
        """How many items are live (due or not)."""
        return await self._count(_live(user_row))

    async def mastered(self, user_row: int) -> int:
        """How many items were retired (answered right in the last box)."""
        return await self._count(
            select(ReviewItem).where(ReviewItem.user_id == user_row, ReviewItem.retired_at.is_not(None))
        )

    async def next_due_at(self, user_row: int) -> datetime | None:
        """When the next live item falls due."""
        live = _live(user_row).subquery()
        found: datetime | None = (await self._session.execute(select(func.min(live.c.due_at)))).scalar()
        return found

    async def _count(self, query: Select[ReviewItem]) -> int:
        count = select(func.count()).select_from(query.subquery())
        return int((await self._session.execute(count)).scalar_one())
