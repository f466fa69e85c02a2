"""Flags: questions people reported as wrong, and who reported them."""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, func, select, update

from bot.db.models import (
    Answer,
    Channel,
    Post,
    QuestionFlag,
    QuestionRow,
)
from bot.service.directory import insert_ignoring_conflict
from bot.service.repositories.base import Repository


class FlaggedPost(NamedTuple):
    """The question a post showed, as a flag on it names it."""

    question_id: int
    pack_id: str
    key: str
    prompt: str


class Seen(NamedTuple):
    """A post someone answered or flagged, and when."""

    post_id: int
    at: datetime


class Flags(Repository):
    """People's reports on questions (one per person and question), per workspace."""

    async def question_of_post(self, post_id: int, workspace: int) -> FlaggedPost | None:
        """The question a post of this workspace showed (None: no such post here, or a forged id)."""
        row = (
            await self._session.execute(
                select(Post.question_id, QuestionRow.pack_id, QuestionRow.key, QuestionRow.prompt)
                .join(Channel, Channel.id == Post.channel_id)
                .join(QuestionRow, QuestionRow.id == Post.question_id)
                .where(Post.id == post_id, Channel.workspace_id == workspace)
            )
        ).first()
        return FlaggedPost(int(row.question_id), row.pack_id, row.key, row.prompt) if row is not None else None

    async def add(self, values: dict[str, Any]) -> bool:
        """Insert a flag; False when this person has one on the question already (the unique key decides)."""
        statement = insert_ignoring_conflict(self._session, QuestionFlag, values, ["user_id", "question_id"])
        return (await self._session.execute(statement.returning(QuestionFlag.id))).scalar() is not None

    async def of_user(self, user_row: int, question_id: int) -> QuestionFlag:
        """A person's flag on a question (it exists)."""
        query = select(QuestionFlag).where(QuestionFlag.user_id == user_row, QuestionFlag.question_id == question_id)
        return (await self._session.execute(query)).scalar_one()

    async def open_count(self, workspace: int, question_id: int) -> int:
        """How many uncleared flags a question has in a workspace."""
        query = select(func.count(QuestionFlag.id)).where(
            QuestionFlag.workspace_id == workspace,
            QuestionFlag.question_id == question_id,
            QuestionFlag.cleared_at.is_(None),
        )
        return int((await self._session.execute(query)).scalar_one())

    async def last_answered(self, user_row: int, channel_row: int) -> Seen | None:
        """The post a person answered last in a channel."""
        row = (
            await self._session.execute(
                select(Answer.post_id, Answer.answered_at)
                .where(Answer.user_id == user_row, Answer.channel_id == channel_row)
                .order_by(Answer.answered_at.desc(), Answer.id.desc())
                .limit(1)
            )
        ).first()
        return Seen(int(row[0]), row[1]) if row is not None else None

    async def last_flagged(self, user_row: int, channel_row: int) -> Seen | None:
        """The post a person flagged last in a channel."""
        row = (
            await self._session.execute(
                select(QuestionFlag.post_id, QuestionFlag.updated_at)
                .join(Post, Post.id == QuestionFlag.post_id)
                .where(QuestionFlag.user_id == user_row, Post.channel_id == channel_row)
                .order_by(QuestionFlag.updated_at.desc(), QuestionFlag.id.desc())
                .limit(1)
            )
        ).first()
        return Seen(row[0], row[1]) if row is not None and row[0] is not None else None

    async def newest_post(self, channel_row: int) -> int | None:
        """The newest published post in a channel."""
        found = (
            await self._session.execute(
                select(Post.id)
                .where(Post.channel_id == channel_row, Post.message_ref.is_not(None))
                .order_by(Post.opened_at.desc(), Post.id.desc())
                .limit(1)
            )
        ).scalar()
        return int(found) if found is not None else None

    async def clear(self, workspace: int, question_id: int, now: datetime, by: int) -> int:
        """Clear a question's open flags in a workspace (rows kept, stamped); returns how many."""
        result = await self._session.execute(
            update(QuestionFlag)
            .where(
                QuestionFlag.workspace_id == workspace,
                QuestionFlag.question_id == question_id,
                QuestionFlag.cleared_at.is_(None),
            )
            .values(cleared_at=now, cleared_by=by)
        )
        return int(result.rowcount or 0)  # type: ignore[attr-defined]

    async def paused(
        self, threshold: int, *, workspace_id: int | None = None, channel_id: int | None = None
    ) -> set[int]:
        """Row ids of the questions paused in a workspace (given itself, or by one of its channels): at least
        `threshold` open flags there."""
        if workspace_id is not None:
            workspace: ColumnElement[Any] | int = workspace_id
        elif channel_id is not None:
            workspace = select(Channel.workspace_id).where(Channel.id == channel_id).scalar_subquery()
        else:
            raise ValueError("paused needs a workspace or a channel")
        query = (
            select(QuestionFlag.question_id)
            .where(QuestionFlag.workspace_id == workspace, QuestionFlag.cleared_at.is_(None))
            .group_by(QuestionFlag.question_id)
            .having(func.count(QuestionFlag.id) >= threshold)
        )
        return {int(question) for question in (await self._session.execute(query)).scalars()}
