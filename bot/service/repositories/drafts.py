"""Drafts (`uow.drafts`): questions waiting in a workspace's review queue, written in chat or uploaded without an
explanation, until a lead approves (the question joins its workspace pack) or rejects them."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import select, update

from bot.db.models import DraftRow
from bot.db.rows import rows_changed
from bot.domain.drafts import Draft, DraftContent, DraftOrigin, DraftStatus
from bot.service.repositories.base import Repository


def _draft(row: DraftRow) -> Draft:
    return Draft(
        id=row.id,
        workspace=row.workspace_id,
        pack=row.pack_slug,
        content=DraftContent(
            prompt=row.prompt,
            choices=tuple(row.choices),
            correct_index=row.correct_index,
            explanation=row.explanation,
            references=tuple(row.references or ()),
            tags=tuple(row.tags or ()),
            difficulty=row.difficulty,
        ),
        author_id=row.author_id,
        author_name=row.author_name,
        status=DraftStatus(row.status),
        origin=DraftOrigin(row.origin),
        created_at=row.created_at,
        decided_by=row.decided_by,
        decided_at=row.decided_at,
        reason=row.reason,
        question_key=row.question_key,
    )


def _content_fields(content: DraftContent) -> dict[str, Any]:
    return {
        "prompt": content.prompt,
        "choices": list(content.choices),
        "correct_index": content.correct_index,
        "explanation": content.explanation,
        "references": list(content.references),
        "tags": list(content.tags),
        "difficulty": content.difficulty,
    }


class Drafts(Repository):
    """A workspace's review queue (a repository over `question_drafts`)."""

    async def add_draft(
        self,
        workspace: int,
        pack: str,
        content: DraftContent,
        *,
        author_id: str,
        author_name: str,
        now: datetime,
        origin: DraftOrigin = DraftOrigin.WRITTEN,
        extra: Mapping[str, Any] | None = None,
    ) -> Draft:
        """Queue a draft for the workspace's pack `pack` (a slug); returns it with its id. The caller commits."""
        row = DraftRow(
            workspace_id=workspace,
            pack_slug=pack.casefold(),
            author_id=author_id,
            author_name=author_name,
            origin=origin.value,
            status=DraftStatus.PENDING.value,
            created_at=now,
            reason="",
            extra=dict(extra) if extra else None,
            **_content_fields(content),
        )
        self._session.add(row)
        await self._session.flush()
        return _draft(row)

    async def get(self, workspace: int, draft_id: int) -> Draft | None:
        """A draft of the workspace by id (a draft of another workspace is None)."""
        row = await self._session.get(DraftRow, draft_id)
        return None if row is None or row.workspace_id != workspace else _draft(row)

    async def extra(self, draft_id: int) -> dict[str, Any] | None:
        """What else the draft's source carried (an uploaded question's images), as stored."""
        row = await self._session.get(DraftRow, draft_id)
        return None if row is None else row.extra

    async def pending(self, workspace: int, *, limit: int = 100) -> list[Draft]:
        """The workspace's drafts waiting for review, oldest first."""
        query = (
            select(DraftRow)
            .where(DraftRow.workspace_id == workspace, DraftRow.status == DraftStatus.PENDING.value)
            .order_by(DraftRow.id)
            .limit(limit)
        )
        return [_draft(row) for row in (await self._session.execute(query)).scalars()]

    async def pending_questions(self, workspace: int, pack: str) -> set[tuple[str, tuple[str, ...]]]:
        """The (prompt, choices) of every draft still waiting in the workspace's pack `pack`: what an upload of
        the same file again must not queue twice."""
        query = select(DraftRow.prompt, DraftRow.choices).where(
            DraftRow.workspace_id == workspace,
            DraftRow.pack_slug == pack.casefold(),
            DraftRow.status == DraftStatus.PENDING.value,
        )
        return {(prompt, tuple(choices)) for prompt, choices in (await self._session.execute(query)).all()}

    async def edit(self, workspace: int, draft_id: int, content: DraftContent) -> bool:
        """Replace a pending draft's content (a lead's Edit); False when it is not pending in this workspace."""
        result = await self._session.execute(
            update(DraftRow)
            .where(
                DraftRow.id == draft_id,
                DraftRow.workspace_id == workspace,
                DraftRow.status == DraftStatus.PENDING.value,
            )
            .values(**_content_fields(content))
        )
        return rows_changed(result) > 0

    async def decide(
        self,
        workspace: int,
        draft_id: int,
        status: DraftStatus,
        *,
        by: str,
        now: datetime,
        reason: str = "",
        question_key: str | None = None,
    ) -> bool:
        """Approve or reject a pending draft, once: False when it is not pending (already decided, or unknown)
        in this workspace, so two leads deciding at once decide it once."""
        result = await self._session.execute(
            update(DraftRow)
            .where(
                DraftRow.id == draft_id,
                DraftRow.workspace_id == workspace,
                DraftRow.status == DraftStatus.PENDING.value,
            )
            .values(status=status.value, decided_by=by, decided_at=now, reason=reason, question_key=question_key)
        )
        return rows_changed(result) > 0
