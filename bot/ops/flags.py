"""`quizbot content flags`: the questions people reported as wrong, for the authors of the packs.

Reads the database only (never the content folder): every workspace, or those the filters name, each flagged
question with its pack id and question id, every reason, and how its answers went.
"""

from __future__ import annotations

from sqlalchemy import select

from bot.db import Database
from bot.db.models import Workspace
from bot.errors import QuizError
from bot.ports import Message
from bot.service.flags import flagged_questions
from bot.wording import flags as flag_words


async def flags_for_authors(
    db: Database, *, threshold: int, platform: str | None = None, workspace: str | None = None
) -> Message:
    """The flagged questions of the workspaces matching the filters (all when none are given), as one message.

    Raises QuizError naming the workspaces there are when a filter matches none.
    """
    async with db.transaction() as session:
        query = select(Workspace.id, Workspace.platform, Workspace.external_id).order_by(
            Workspace.platform, Workspace.external_id
        )
        if platform:
            query = query.where(Workspace.platform == platform)
        if workspace:
            query = query.where(Workspace.external_id == workspace)
        found = (await session.execute(query)).all()
        if not found and (platform or workspace):
            known = (await session.execute(select(Workspace.platform, Workspace.external_id))).all()
            raise QuizError(flag_words.no_such_workspace(sorted(f"{p}:{w}" for p, w in known)))
        filtered = bool(platform or workspace)
        questions = await flagged_questions(
            session, threshold=threshold, workspace_ids=[row.id for row in found] if filtered else None
        )
    scope = flag_words.authors_scope([f"{row.platform}:{row.external_id}" for row in found])
    return flag_words.authors_message(questions, threshold=threshold, scope=scope)
