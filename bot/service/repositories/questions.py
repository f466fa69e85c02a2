"""Questions: the packs as last synced, their immutable versions, and the rotation that picks the next one."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple

from sqlalchemy import func, select

from bot.db.models import (
    PackRow,
    Post,
    QuestionRow,
    QuestionVersion,
)
from bot.domain.versions import content_digest
from bot.service.repositories.base import Repository
from bot.service.repositories.directory import insert_ignoring_conflict


class Rotation(NamedTuple):
    """A question of a pool, how often it was posted in a channel, and its newest post there (None: never)."""

    id: int
    times: int
    last_post: int | None


class Questions(Repository):
    """Packs, their questions as last synced from `content/`, and the immutable versions posts point at."""

    async def packs(self) -> dict[str, PackRow]:
        """Every pack row, loaded or not, by id."""
        return {row.id: row for row in (await self._session.execute(select(PackRow))).scalars()}

    async def all(self) -> dict[tuple[str, str], QuestionRow]:
        """Every question row, active or retired, by (pack id, question key)."""
        rows = (await self._session.execute(select(QuestionRow))).scalars()
        return {(row.pack_id, row.key): row for row in rows}

    def add(self, row: PackRow | QuestionRow) -> None:
        """A new pack or question row (inserted at the next flush)."""
        self._session.add(row)

    async def flush(self) -> None:
        """Send pending rows now (a question row needs its pack row first)."""
        await self._session.flush()

    async def pack(self, pack_id: str) -> PackRow | None:
        """A pack row by id."""
        return await self._session.get(PackRow, pack_id)

    async def titles(self, pack_ids: Sequence[str]) -> dict[str, str]:
        """The titles of these packs, by id (packs never synced are missing)."""
        rows = await self._session.execute(select(PackRow.id, PackRow.title).where(PackRow.id.in_(pack_ids)))
        return {str(row.id): str(row.title) for row in rows}

    async def get(self, question_id: int) -> QuestionRow | None:
        """A question row by row id."""
        return await self._session.get(QuestionRow, question_id)

    async def active(self, pack_id: str, key: str) -> QuestionRow | None:
        """The question of this key in a pack, if it is still in the pack."""
        return (
            await self._session.execute(
                select(QuestionRow).where(
                    QuestionRow.pack_id == pack_id, QuestionRow.key == key, QuestionRow.active.is_(True)
                )
            )
        ).scalar()

    async def any(self, pack_id: str, key: str) -> QuestionRow | None:
        """The question of this key in a pack, still in the pack or retired."""
        query = select(QuestionRow).where(QuestionRow.pack_id == pack_id, QuestionRow.key == key)
        return (await self._session.execute(query)).scalar()

    async def active_count(self, pack_id: str) -> int:
        """How many questions a pack has now."""
        return int(
            (
                await self._session.execute(
                    select(func.count(QuestionRow.id)).where(
                        QuestionRow.pack_id == pack_id, QuestionRow.active.is_(True)
                    )
                )
            ).scalar_one()
        )

    async def rotation(self, channel_row: int, pack_ids: Sequence[str]) -> list[Rotation]:
        """The active questions of these packs, each with how often and how lately it was posted in a channel."""
        times = func.count(Post.id).label("times")
        last_post = func.max(Post.id).label("last_post")
        rows = await self._session.execute(
            select(QuestionRow.id, times, last_post)
            .outerjoin(Post, (Post.question_id == QuestionRow.id) & (Post.channel_id == channel_row))
            .where(QuestionRow.pack_id.in_(pack_ids), QuestionRow.active.is_(True))
            .group_by(QuestionRow.id)
            .order_by(QuestionRow.id)
        )
        return [Rotation(int(row.id), int(row.times), row.last_post) for row in rows]

    async def of_packs(self, pack_ids: Sequence[str]) -> list[QuestionRow]:
        """The active questions of these packs, in no particular order."""
        query = select(QuestionRow).where(QuestionRow.pack_id.in_(pack_ids), QuestionRow.active.is_(True))
        return list((await self._session.execute(query)).scalars().all())

    async def current_version(self, question: QuestionRow, now: datetime) -> QuestionVersion:
        """The version holding the question's current text, recorded first if nothing showed this text yet.

        Race-safe: two replicas posting the same new text at once insert one row (the unique (question, digest)
        key), and both read it back.
        """
        digest = content_digest(
            question.prompt, question.choices, question.correct_index, question.explanation, question.images
        )
        match = select(QuestionVersion).where(
            QuestionVersion.question_id == question.id, QuestionVersion.digest == digest
        )
        found = (await self._session.execute(match)).scalar()
        if found is not None:
            return found
        values = {
            "question_id": question.id,
            "digest": digest,
            "prompt": question.prompt,
            "choices": list(question.choices),
            "correct_index": question.correct_index,
            "explanation": question.explanation,
            "created_at": now,
            "images": question.images,
        }
        await self._session.execute(
            insert_ignoring_conflict(self._session, QuestionVersion, values, ["question_id", "digest"])
        )
        return (await self._session.execute(match)).scalar_one()
