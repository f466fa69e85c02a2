"""Score rollups, kept in step with `answers` inside the transaction that records the answer.

All-time boards read these rollups (an index scan of at most one row per user) instead of summing every answer;
a workspace's week and month boards read the period rollup (`period_scores`: a user's totals in the period of
each window in ROLLUP_WINDOWS that contains the answer, in the workspace's timezone) the same way.
bench/leaderboard_queries.py measures both against the plain GROUP BY over answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import cast

from sqlalchemy import Table, and_, bindparam, func, or_, select, tuple_, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from bot.db.models import ChannelScore, Cohort, CohortMember, PeriodScore, UserScore, Workspace
from bot.domain.windows import Window, window_start
from bot.service.repositories import Review
from bot.service.upserts import COUNTERS, add_to_totals_many

ROLLUP_WINDOWS: tuple[Window, ...] = (Window.WEEK, Window.MONTH)
"""Windows whose boards read period rollups. A window added to bot.domain.windows is summed from answers until it
is listed here, with a migration that fills its rows for the current periods (as 0008 does for these)."""


@lru_cache(maxsize=4096)
def _period_start(window: Window, timezone: str, bucket: datetime) -> datetime:
    start = window_start(window, bucket, timezone)
    assert start is not None
    return start


def period_start(window: Window, at: datetime, timezone: str) -> datetime:
    """window_start of `at`, cached per quarter hour: every UTC offset, and so every local midnight, is a whole
    number of quarter hours, so all the instants of one UTC quarter hour are in the same period."""
    bucket = at.replace(minute=at.minute - at.minute % 15, second=0, microsecond=0)
    return _period_start(window, timezone, bucket)


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


async def record_answers_effects(session: AsyncSession, answers: Sequence[RecordedAnswer]) -> None:
    """Everything a batch of inserted answers changes besides their own rows: score rollups, cohort totals, review.

    One statement per table for the whole batch (executemany), with rows summed per key first: one INSERT may
    not touch the same row twice, and keys are sorted so concurrent batches lock rows in the same order.
    """
    if not answers:
        return
    by_user: dict[int, dict[str, int]] = {}
    by_channel: dict[tuple[int, int], dict[str, int]] = {}
    by_member: dict[tuple[int, datetime], dict[str, int]] = {}
    for answer in answers:
        add = {"points": answer.points, "correct": int(answer.correct), "answered": 1}
        for totals in (
            by_user.setdefault(answer.user_id, dict.fromkeys(COUNTERS, 0)),
            by_channel.setdefault((answer.user_id, answer.channel_id), dict.fromkeys(COUNTERS, 0)),
            by_member.setdefault((answer.user_id, answer.answered_at), dict.fromkeys(COUNTERS, 0)),
        ):
            for name, value in add.items():
                totals[name] += value
    workspace_of = {answer.user_id: answer.workspace_id for answer in answers}
    await add_to_totals_many(
        session,
        UserScore,
        [{"user_id": user, "workspace_id": workspace_of[user], **by_user[user]} for user in sorted(by_user)],
        ["user_id"],
        COUNTERS,
    )
    await add_to_totals_many(
        session,
        ChannelScore,
        [
            {"user_id": user, "channel_id": channel, **by_channel[(user, channel)]}
            for user, channel in sorted(by_channel)
        ],
        ["user_id", "channel_id"],
        COUNTERS,
    )
    await _add_to_periods(session, answers)
    # Most answerers are in no cohort: find the ones who are, and update only their memberships.
    in_cohorts = set(
        (
            await session.execute(
                select(CohortMember.user_id).where(CohortMember.user_id.in_(sorted(by_user))).distinct()
            )
        ).scalars()
    )
    member_rows = [
        {"member": user, "at": at, **{f"add_{name}": value for name, value in totals.items()}}
        for (user, at), totals in sorted(by_member.items())
        if user in in_cohorts
    ]
    if member_rows:
        members = cast(Table, CohortMember.__table__)
        await session.execute(
            update(members)
            .where(
                members.c.user_id == bindparam("member"),
                members.c.cohort_id.in_(select(Cohort.id).where(Cohort.starts_at <= bindparam("at"))),
            )
            .values(
                points=members.c.points + bindparam("add_points"),
                correct=members.c.correct + bindparam("add_correct"),
                answered=members.c.answered + bindparam("add_answered"),
            ),
            member_rows,
        )
    wrong = sorted({(a.user_id, a.question_id): a.answered_at for a in answers if not a.correct}.items())
    if wrong:
        await Review(session).put_many([(user, question, at) for (user, question), at in wrong])


async def channel_ranks(session: AsyncSession, pairs: Sequence[tuple[int, int]]) -> dict[tuple[int, int], int]:
    """Rank of each (user, channel) on the channel's all-time board, as the board ranks (ties share a rank).

    One statement for the pairs: 1 + how many of the channel's rollup rows are ahead, counted through the board
    index (points, then correct answers, then fewer answers).
    """
    if not pairs:
        return {}
    me, other = aliased(ChannelScore), aliased(ChannelScore)
    ahead = or_(
        other.points > me.points,
        and_(other.points == me.points, other.correct > me.correct),
        and_(other.points == me.points, other.correct == me.correct, other.answered < me.answered),
    )
    rows = await session.execute(
        select(me.user_id, me.channel_id, func.count(other.user_id))
        .select_from(me)
        .outerjoin(other, and_(other.channel_id == me.channel_id, ahead))
        .where(tuple_(me.user_id, me.channel_id).in_(sorted(set(pairs))))
        .group_by(me.user_id, me.channel_id)
    )
    return {(int(user), int(channel)): int(count) + 1 for user, channel, count in rows}


async def _add_to_periods(session: AsyncSession, answers: Sequence[RecordedAnswer]) -> None:
    """Add the answers to the period rollups of their workspace (one statement)."""
    workspaces = sorted({answer.workspace_id for answer in answers})
    zones = dict(
        (await session.execute(select(Workspace.id, Workspace.timezone).where(Workspace.id.in_(workspaces)))).all()
    )
    by_user: dict[tuple[int, str, datetime], dict[str, int]] = {}
    workspace_of: dict[int, int] = {}
    for answer in answers:
        workspace_of[answer.user_id] = answer.workspace_id
        timezone = zones.get(answer.workspace_id) or "UTC"
        for window in ROLLUP_WINDOWS:
            start = period_start(window, answer.answered_at, timezone)
            totals = by_user.setdefault((answer.user_id, window.value, start), dict.fromkeys(COUNTERS, 0))
            totals["points"] += answer.points
            totals["correct"] += int(answer.correct)
            totals["answered"] += 1
    await add_to_totals_many(
        session,
        PeriodScore,
        [
            {"user_id": user, "period": period, "period_start": start, "workspace_id": workspace_of[user]}
            | by_user[(user, period, start)]
            for user, period, start in sorted(by_user)
        ],
        ["user_id", "period", "period_start"],
        COUNTERS,
    )
