"""`quizbot content flags`: the questions people reported as wrong, for the authors of the packs.

Reads the database only (never the content folder): every workspace, or those the filters name, each flagged
question with its pack id and question id, every reason, and how its answers went.
"""

from __future__ import annotations

from bot.errors import QuizError
from bot.ports import Message
from bot.service.operator_uow import OperatorUnitOfWork
from bot.wording import flags as flag_words


async def flags_for_authors(
    uow: OperatorUnitOfWork, *, threshold: int, platform: str | None = None, workspace: str | None = None
) -> Message:
    """The flagged questions of the workspaces matching the filters (all when none are given), as one message.

    Raises QuizError naming the workspaces there are when a filter matches none.
    """
    found = await uow.exports.workspaces(platform=platform, workspace=workspace)
    if not found and (platform or workspace):
        raise QuizError(flag_words.no_such_workspace(await uow.exports.workspace_names()))
    filtered = bool(platform or workspace)
    questions = await uow.exports.flagged(
        threshold=threshold, workspace_ids=[row.id for row in found] if filtered else None
    )
    scope = flag_words.authors_scope([f"{row.platform}:{row.external_id}" for row in found])
    return flag_words.authors_message(questions, threshold=threshold, scope=scope)
