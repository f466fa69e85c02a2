"""Score rollups, kept in step with `answers` inside the transaction that records the answer.

All-time boards read these rollups (an index scan of at most one row per user) instead of summing every answer;
windowed boards (week, month) sum `answers` through covering indexes. See the README's "Leaderboards" section
for the measurements behind this split.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import ChannelScore, Cohort, CohortMember, UserScore
from bot.service import review
from bot.service.upserts import add_to_totals


@dataclass(frozen=True, slots=True)
class RecordedAnswer:
    """What the rollups need to know about an answer that was just inserted."""

    user_id: int
    workspace_id: int
    channel_id: int
    question_id: int
    correct: bool
    points: int
    answered_at: datetime


async def record_answer_effects(session: AsyncSession, answer: RecordedAnswer) -> None:
    """Everything an inserted answer changes besides its own row: score rollups, cohort totals, review."""
    add = {"points": answer.points, "correct": int(answer.correct), "answered": 1}
    await add_to_totals(
        session, UserScore, {"user_id": answer.user_id, "workspace_id": answer.workspace_id}, ["user_id"], add
    )
    await add_to_totals(
        session,
        ChannelScore,
        {"user_id": answer.user_id, "channel_id": answer.channel_id},
        ["user_id", "channel_id"],
        add,
    )
    await session.execute(
        update(CohortMember)
        .where(
            CohortMember.user_id == answer.user_id,
            CohortMember.cohort_id.in_(select(Cohort.id).where(Cohort.starts_at <= answer.answered_at)),
        )
        .values(
            points=CohortMember.points + add["points"],
            correct=CohortMember.correct + add["correct"],
            answered=CohortMember.answered + 1,
        )
    )
    if not answer.correct:
        await review.put_in_review(
            session, user_id=answer.user_id, question_id=answer.question_id, now=answer.answered_at
        )
