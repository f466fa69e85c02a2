"""Flags: questions people reported as wrong, and who reported them."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, Select, case, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import Answer, Channel, PackRow, Post, QuestionFlag, QuestionRow, User
from bot.domain.flags import FlaggedQuestion, FlagReason
from bot.service.repositories.base import Repository
from bot.service.repositories.directory import insert_ignoring_conflict


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

    async def flagged(self, *, threshold: int, workspace_ids: Sequence[int]) -> list[FlaggedQuestion]:
        """The workspaces' questions with open flags, most flagged first (see `flagged_questions`)."""
        return await flagged_questions(self._session, threshold=threshold, workspace_ids=workspace_ids)


async def flagged_questions(
    session: AsyncSession,
    *,
    threshold: int,
    workspace_ids: Sequence[int] | None = None,
    users: Select[Any] | None = None,
    since: datetime | None = None,
) -> list[FlaggedQuestion]:
    """Questions with open flags, most flagged first, each with its reasons (newest first) and its accuracy.

    Scope: the given workspaces (None: all), and only flags and answers by `users` (a select of user ids) and
    answers from `since` on when given (a cohort report). `paused_in` counts the workspaces where the question
    has reached `threshold`.
    """
    flag_scope: list[ColumnElement[bool]] = [QuestionFlag.cleared_at.is_(None)]
    answer_scope: list[ColumnElement[bool]] = []
    if workspace_ids is not None:
        flag_scope.append(QuestionFlag.workspace_id.in_(workspace_ids))
        answer_scope.append(Answer.workspace_id.in_(workspace_ids))
    if users is not None:
        flag_scope.append(QuestionFlag.user_id.in_(users))
        answer_scope.append(Answer.user_id.in_(users))
    if since is not None:
        answer_scope.append(Answer.answered_at >= since)
    flags = (
        await session.execute(
            select(
                QuestionFlag.question_id,
                QuestionFlag.workspace_id,
                QuestionFlag.reason,
                QuestionFlag.updated_at,
                User.display_name,
                User.external_id,
            )
            .join(User, User.id == QuestionFlag.user_id)
            .where(*flag_scope)
            .order_by(QuestionFlag.updated_at.desc(), QuestionFlag.id.desc())
        )
    ).all()
    if not flags:
        return []
    reasons: dict[int, list[FlagReason]] = defaultdict(list)
    per_workspace: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for row in flags:
        reasons[row.question_id].append(
            FlagReason(name=row.display_name or row.external_id, reason=row.reason, flagged_at=row.updated_at)
        )
        per_workspace[row.question_id][row.workspace_id] += 1
    ids = list(reasons)
    questions = (
        await session.execute(
            select(QuestionRow, PackRow.title)
            .outerjoin(PackRow, PackRow.id == QuestionRow.pack_id)
            .where(QuestionRow.id.in_(ids))
        )
    ).all()
    tallies = {
        row.question_id: (int(row.answered), int(row.correct or 0))
        for row in await session.execute(
            select(
                Post.question_id,
                func.count(Answer.id).label("answered"),
                func.sum(case((Answer.is_correct, 1), else_=0)).label("correct"),
            )
            .join(Post, Post.id == Answer.post_id)
            .where(Post.question_id.in_(ids), *answer_scope)
            .group_by(Post.question_id)
        )
    }
    result = [
        FlaggedQuestion(
            pack_id=question.pack_id,
            pack_title=title or question.pack_id,
            key=question.key,
            number=question.position + 1,
            prompt=question.prompt,
            flags=len(reasons[question.id]),
            reasons=tuple(reasons[question.id]),
            answered=tallies.get(question.id, (0, 0))[0],
            correct=tallies.get(question.id, (0, 0))[1],
            paused_in=sum(1 for count in per_workspace[question.id].values() if count >= threshold),
            active=question.active,
        )
        for question, title in questions
    ]
    return sorted(result, key=lambda q: (-q.flags, -q.reasons[0].flagged_at.timestamp(), q.pack_id, q.number))
