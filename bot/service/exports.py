"""The read side of the operator's exports (`quizbot export`, `quizbot content flags`): tuned queries that return
plain rows, run in the operator command's unit of work (bot/service/operator_uow.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import case, func, select, true
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import Answer, Channel, Post, PostSnapshot, QuestionRow, QuestionVersion, User, Workspace
from bot.domain.flags import FlaggedQuestion
from bot.service.flags import flagged_questions
from bot.service.repositories.lookups import CHANNEL_REF_COLUMNS, joined_to_channel


class Exports:
    """What an operator exports: every answer and post (since a time), each person's totals, flagged questions."""

    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def answers(self, since: datetime | None) -> Sequence[Any]:
        """Every answer (from `since` on), oldest first, with where, who, the question and the choices as shown."""
        rows: Sequence[Any] = (
            await self._session.execute(
                select(
                    Answer,
                    Workspace.platform,
                    Workspace.external_id.label("workspace"),
                    Channel.external_id.label("channel"),
                    User.external_id.label("user_id"),
                    User.display_name,
                    QuestionRow.pack_id,
                    QuestionRow.key,
                    QuestionVersion.choices,  # as the post showed them: choice_index indexes these
                )
                .join(User, User.id == Answer.user_id)
                .join(Workspace, Workspace.id == Answer.workspace_id)
                .join(Channel, Channel.id == Answer.channel_id)
                .join(Post, Post.id == Answer.post_id)
                .join(QuestionRow, QuestionRow.id == Post.question_id)
                .join(PostSnapshot, PostSnapshot.post_id == Post.id)
                .join(QuestionVersion, QuestionVersion.id == PostSnapshot.question_version_id)
                .where(Answer.answered_at >= since if since else true())
                .order_by(Answer.id)
            )
        ).all()
        return rows

    async def posts(self, since: datetime | None) -> Sequence[Any]:
        """Every post (opened from `since` on), oldest first, with its channel, question and answer count."""
        answer_counts = select(Answer.post_id, func.count(Answer.id).label("n")).group_by(Answer.post_id).subquery()
        rows: Sequence[Any] = (
            await self._session.execute(
                joined_to_channel(
                    select(
                        Post,
                        *CHANNEL_REF_COLUMNS,
                        QuestionRow.pack_id,
                        QuestionRow.key,
                        func.coalesce(answer_counts.c.n, 0).label("answers"),
                    ),
                    Post.channel_id,
                )
                .join(QuestionRow, QuestionRow.id == Post.question_id)
                .outerjoin(answer_counts, answer_counts.c.post_id == Post.id)
                .where(Post.opened_at >= since if since else true())
                .order_by(Post.id)
            )
        ).all()
        return rows

    async def totals(self) -> Sequence[Any]:
        """Each person's all-time points, correct answers and answers, per workspace."""
        rows: Sequence[Any] = (
            await self._session.execute(
                select(
                    Workspace.platform,
                    Workspace.external_id,
                    User.external_id.label("user_id"),
                    User.display_name,
                    func.sum(Answer.points).label("points"),
                    func.sum(case((Answer.is_correct, 1), else_=0)).label("correct"),
                    func.count(Answer.id).label("answered"),
                )
                .join(User, User.id == Answer.user_id)
                .join(Workspace, Workspace.id == Answer.workspace_id)
                .group_by(Workspace.platform, Workspace.external_id, User.id, User.external_id, User.display_name)
            )
        ).all()
        return rows

    async def workspaces(self, *, platform: str | None = None, workspace: str | None = None) -> Sequence[Any]:
        """The workspaces (row id, platform, platform id) matching the filters, all when none is given."""
        query = select(Workspace.id, Workspace.platform, Workspace.external_id).order_by(
            Workspace.platform, Workspace.external_id
        )
        if platform:
            query = query.where(Workspace.platform == platform)
        if workspace:
            query = query.where(Workspace.external_id == workspace)
        return (await self._session.execute(query)).all()

    async def workspace_names(self) -> list[str]:
        """Every workspace as `platform:id`, sorted."""
        known = (await self._session.execute(select(Workspace.platform, Workspace.external_id))).all()
        return sorted(f"{p}:{w}" for p, w in known)

    async def flagged(self, *, threshold: int, workspace_ids: Sequence[int] | None) -> list[FlaggedQuestion]:
        """The questions with open flags in these workspaces (None: all), as bot/service/flags.py reads them."""
        return await flagged_questions(self._session, threshold=threshold, workspace_ids=workspace_ids)
