"""The version of a question that a new post or review question shows: found by its content, or recorded.

Posting reads the pack's current text from `questions` exactly once, here, and from then on everything about
that post (clicks, reveals, boards, review, reports, export) reads the immutable version it points at. Editing
a pack therefore changes only later posts; see QuestionVersion and PostSnapshot in bot/db/models.py.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import QuestionRow, QuestionVersion
from bot.domain.versions import content_digest
from bot.service.directory import insert_ignoring_conflict


async def current_version(session: AsyncSession, question: QuestionRow, now: datetime) -> QuestionVersion:
    """The version holding the question's current text, recorded first if no post showed this text yet.

    Race-safe: two replicas posting the same new text at once insert one row (the unique (question, digest)
    key), and both read it back.
    """
    digest = content_digest(question.prompt, question.choices, question.correct_index, question.explanation)
    match = select(QuestionVersion).where(QuestionVersion.question_id == question.id, QuestionVersion.digest == digest)
    found = (await session.execute(match)).scalar()
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
    }
    statement = insert_ignoring_conflict(session, QuestionVersion, values, ["question_id", "digest"])
    await session.execute(statement)
    return (await session.execute(match)).scalar_one()
