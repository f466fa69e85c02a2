"""Read models: leaderboards, cohort boards and a user's stats, written as queries for speed.

All-time boards read the score rollups (`user_scores`, `channel_scores`, `cohort_members`): an index scan that
stops after the top rows. A workspace's week and month boards read the period rollup (`period_scores`) the
same way; channel and cohort windows, seasons, and any window not in scores.ROLLUP_WINDOWS, sum `answers` in the
window's [start, end) through covering indexes (an index-only range scan, bounded on both sides for a past
season). Streaks are computed for the rows shown only.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Select,
    and_,
    bindparam,
    case,
    func,
    or_,
    select,
)
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from bot.db.models import (
    Answer,
    ChannelScore,
    Cohort,
    CohortMember,
    PeriodScore,
    Post,
    QuestionRow,
    User,
    UserScore,
    Workspace,
)
from bot.domain import ChannelRef, CohortBoard, CohortStanding, Leaderboard, LeaderboardRow, UserRef, UserStats
from bot.domain.ranking import Entry, rank_cohorts, rank_entries
from bot.domain.windows import Scope, Span, Window, window_span
from bot.errors import QuizError
from bot.service.lookups import channel_place, find_cohort, find_season, season_span, workspace_row
from bot.service.review import review_summary
from bot.service.scores import ROLLUP_WINDOWS
from bot.service.streak_stats import user_streaks
from bot.service.uow import UnitOfWork, UnitOfWorkFactory, reading
from bot.wording import boards as board_words

PERIOD_SLACK = timedelta(hours=27)
"""Two timezones' starts of the same local period are less than this apart (UTC offsets span 26 hours); the
starts of two periods of one window, at least a week."""


def _keyed_elsewhere(workspace_id: int, window: Window, start: datetime) -> list[Select[Any]]:
    """Rows of the same period of this workspace keyed at another start than `start`: keyed in another timezone
    (the workspace's timezone was changed). If there is one, the period's rollup rows are not the period's totals.

    Two queries, one a range on each side of `start`: one range with `!= start` would read every row keyed at
    `start` (every user of the period) to skip them, and SQLite reads an OR of two ranges as no range at all.
    """
    keyed = (PeriodScore.workspace_id == workspace_id, PeriodScore.period == window.value)
    before = and_(PeriodScore.period_start > start - PERIOD_SLACK, PeriodScore.period_start < start)
    after = and_(PeriodScore.period_start > start, PeriodScore.period_start < start + PERIOD_SLACK)
    return [select(PeriodScore.user_id).where(*keyed, side).limit(1) for side in (before, after)]


async def _period_entries(
    session: AsyncSession, workspace_id: int, window: Window, span: Span, limit: int
) -> list[Entry]:
    """The top of a workspace's board in the current period of a rollup window, from `period_scores` when every
    row of the period was keyed at its start in the workspace's timezone, else summed from answers.

    The check is a one-time NOT EXISTS inside the board's own statement: a period keyed elsewhere reads as an
    empty board, and only an empty board costs a second statement to tell the two apart.
    """
    assert span.start is not None
    elsewhere = _keyed_elsewhere(workspace_id, window, span.start)
    totals = select(PeriodScore.user_id, PeriodScore.points, PeriodScore.correct, PeriodScore.answered).where(
        PeriodScore.workspace_id == workspace_id,
        PeriodScore.period == window.value,
        PeriodScore.period_start == span.start,
    )
    agree = and_(*(~side.exists() for side in elsewhere))
    entries = await top_entries(session, totals, limit, rollup=True, only_if=agree)
    if entries or not (await session.execute(select(or_(*(side.exists() for side in elsewhere))))).scalar():
        return entries
    answers = _windowed_totals([Answer.workspace_id == workspace_id, *in_span(span)])
    return await top_entries(session, answers, limit, rollup=False)


def _correct_count() -> ColumnElement[Any]:
    return func.sum(case((Answer.is_correct, 1), else_=0))


def in_span(span: Span, *, since: datetime | None = None) -> list[ColumnElement[bool]]:
    """The conditions on `answers.answered_at` of a span (starting no earlier than `since`, if given); none for an
    unbounded span (all time) without `since`."""
    starts = [at for at in (span.start, since) if at is not None]
    conditions = [Answer.answered_at >= max(starts)] if starts else []
    if span.end is not None:
        conditions.append(Answer.answered_at < span.end)
    return conditions


def _windowed_totals(conditions: Sequence[ColumnElement[bool]]) -> Select[Any, Any, Any, Any]:
    return (
        select(
            Answer.user_id.label("user_id"),
            func.sum(Answer.points).label("points"),
            _correct_count().label("correct"),
            func.count().label("answered"),
        )
        .where(and_(*conditions))
        .group_by(Answer.user_id)
    )


FLOOR = -(2**31)
"""Below any total (what a missing cut compares as: a board shorter than its limit shows every row)."""


async def top_entries(
    session: AsyncSession,
    totals: Select[Any, Any, Any, Any],
    limit: int,
    *,
    rollup: bool,
    only_if: ColumnElement[bool] | None = None,
) -> list[Entry]:
    """The top `limit` users of a totals query (user_id, points, correct, answered), plus everyone tied at the cut.

    Ties at the cut are always fetched whole, so who makes the board never depends on the database's sort order.
    A rollup (`rollup=True`) is read in board order through its index (ix_*_board is in that order): the cut is
    the limit-th row's totals, read from the top of the index, and the rows at or above it are a range of the same
    index (points >= the cut's), in one statement however long a tie. An aggregate over answers is ranked in SQL
    instead (RANK() <= limit), so the answers are summed once. Names are joined in the same statement (plain
    rows, no ORM entities). `only_if`, a condition of no row (a one-time check), is added to the outer query
    only, so the cut's subqueries do not repeat it.
    """
    sub = totals.subquery()
    key = (sub.c.points.desc(), sub.c.correct.desc(), sub.c.answered)
    columns = (sub.c.user_id, sub.c.points, sub.c.correct, sub.c.answered)
    conn = await session.connection()
    if not rollup:
        ranked = select(*columns, func.rank().over(order_by=key).label("place")).subquery()
        query = _named(
            select(ranked.c.user_id, ranked.c.points, ranked.c.correct, ranked.c.answered), ranked.c.user_id
        ).where(ranked.c.place <= limit)
        return [_entry(row) for row in await conn.execute(query)]

    def cut(column: Any) -> ColumnElement[Any]:
        at_limit = select(column).order_by(*key, sub.c.user_id).offset(limit - 1).limit(1).scalar_subquery()
        return func.coalesce(at_limit, FLOOR)

    points, correct, answered = cut(sub.c.points), cut(sub.c.correct), cut(sub.c.answered)
    at_or_above = or_(
        sub.c.points > points,
        and_(sub.c.points == points, sub.c.correct > correct),
        and_(sub.c.points == points, sub.c.correct == correct, sub.c.answered <= answered),
    )
    query = _named(select(*columns), sub.c.user_id).where(sub.c.points >= points, at_or_above)
    if only_if is not None:
        query = query.where(only_if)
    return [_entry(row) for row in await conn.execute(query)]


def _named(query: Select[Any, Any, Any, Any], user_id: ColumnElement[Any]) -> Select[Any, Any, Any, Any, Any]:
    """`query` with the user's display name as a fifth column."""
    return query.add_columns(User.display_name).outerjoin(User, User.id == user_id)


def _entry(row: Any) -> Entry:
    return Entry(int(row[0]), row[4] or "?", int(row[1]), int(row[2]), int(row[3]))


@functools.cache
def _me_query() -> Select[Any, Any, Any, Any, Any, Any, Any]:
    """A user's workspace (id, timezone), row id, all-time totals and how many of the workspace rank ahead of them,
    in one statement (parameters: platform, workspace, user: the platform ids); None columns when unknown."""
    others = aliased(UserScore)
    ahead = (
        select(func.count())
        .select_from(others)
        .where(
            others.workspace_id == Workspace.id,
            (others.points > UserScore.points)
            | ((others.points == UserScore.points) & (others.correct > UserScore.correct))
            | (
                (others.points == UserScore.points)
                & (others.correct == UserScore.correct)
                & (others.answered < UserScore.answered)
            ),
        )
        .correlate(Workspace, UserScore)
        .scalar_subquery()
    )
    return (
        select(
            Workspace.id,
            Workspace.timezone,
            User.id.label("user_row"),
            UserScore.points,
            UserScore.correct,
            UserScore.answered,
            ahead.label("ahead"),
        )
        .outerjoin(User, and_(User.workspace_id == Workspace.id, User.external_id == bindparam("user")))
        .outerjoin(UserScore, UserScore.user_id == User.id)
        .where(Workspace.platform == bindparam("platform"), Workspace.external_id == bindparam("workspace"))
    )


class Stats:
    """Leaderboards, cohort boards and per-user stats."""

    def __init__(self, uow: UnitOfWorkFactory, *, rollups: bool = True) -> None:
        """`rollups=False` sums every board from `answers` (the plan the rollups replace: the benchmark's
        reference, with the same lookups and streaks)."""
        self.uow = uow
        self.rollups = rollups

    async def leaderboard(
        self,
        channel: ChannelRef,
        *,
        window: Window,
        scope: Scope,
        now: datetime,
        limit: int = 10,
        cohort: str | None = None,
        season: str | None = None,
        within: UnitOfWork | None = None,
    ) -> Leaderboard:
        """The top of the board of a channel, its workspace or one cohort, in a window, with current streaks.

        The season window is the season named `season`, or the one running (NoSeasonRunning when none runs).
        """
        if scope is Scope.COHORTS:
            raise QuizError(board_words.cohorts_board_elsewhere())  # use cohort_board
        label = scope.value
        found: Cohort | None = None
        async with reading(self.uow, within) as uow:
            session = uow.session
            place = await channel_place(session, channel)
            workspace = place.workspace if place else None
            if scope is Scope.COHORT:
                found = await find_cohort(session, workspace[0] if workspace else None, cohort or "")
                label = f"cohort {found.name} from {found.start_date.isoformat()}"
            season_label: str | None = None
            season_bounds: Span | None = None
            if window is Window.SEASON:
                found_season = await find_season(session, workspace[0] if workspace else None, season)
                season_label, season_bounds = found_season.name, season_span(found_season)
            if place is None:
                return Leaderboard(scope=label, window=window.value, rows=())
            (workspace_id, timezone), streak_channel = place
            span = window_span(window, now, timezone, season=season_bounds)
            start = span.start
            rollup = start is None and self.rollups
            period: list[Entry] | None = None
            totals: Select[Any, Any, Any, Any]
            if scope is not Scope.CHANNEL:
                streak_channel = None  # question streaks: the best of the user's channels
            elif streak_channel is None:
                return Leaderboard(scope=label, window=window.value, rows=(), season=season_label)
            if scope is Scope.CHANNEL:
                if rollup:
                    totals = select(
                        ChannelScore.user_id, ChannelScore.points, ChannelScore.correct, ChannelScore.answered
                    ).where(ChannelScore.channel_id == streak_channel)
                else:
                    totals = _windowed_totals([Answer.channel_id == streak_channel, *in_span(span)])
            elif scope is Scope.WORKSPACE:
                if rollup:
                    totals = select(UserScore.user_id, UserScore.points, UserScore.correct, UserScore.answered).where(
                        UserScore.workspace_id == workspace_id
                    )
                elif self.rollups and window in ROLLUP_WINDOWS:
                    period = await _period_entries(session, workspace_id, window, span, limit)
                else:
                    totals = _windowed_totals([Answer.workspace_id == workspace_id, *in_span(span)])
            else:
                assert found is not None
                if rollup:
                    totals = select(
                        CohortMember.user_id, CohortMember.points, CohortMember.correct, CohortMember.answered
                    ).where(CohortMember.cohort_id == found.id, CohortMember.answered > 0)
                else:
                    members = select(CohortMember.user_id).where(CohortMember.cohort_id == found.id)
                    totals = _windowed_totals([Answer.user_id.in_(members), *in_span(span, since=found.starts_at)])
            entries = period if period is not None else await top_entries(session, totals, limit, rollup=rollup)
            ranked = rank_entries(entries)[:limit]
            streaks = await user_streaks(
                session,
                [e.user_id for _, e in ranked],
                timezone=timezone,
                now=now,
                channel=streak_channel,
                history=False,
            )
        rows = tuple(
            LeaderboardRow(
                rank=rank,
                name=entry.name,
                points=entry.points,
                correct=entry.correct,
                answered=entry.answered,
                streak=streaks[entry.user_id][0].current,
                day_streak=streaks[entry.user_id][1].current,
            )
            for rank, entry in ranked
        )
        return Leaderboard(scope=label, window=window.value, rows=rows, season=season_label)

    async def cohort_board(
        self,
        channel: ChannelRef,
        *,
        window: Window,
        now: datetime,
        season: str | None = None,
        within: UnitOfWork | None = None,
    ) -> CohortBoard:
        """Cohorts of the channel's workspace ranked by points per active member (members who answered)."""
        async with reading(self.uow, within) as uow:
            session = uow.session
            workspace = await workspace_row(session, channel.platform, channel.workspace_id)
            season_label: str | None = None
            season_bounds: Span | None = None
            if window is Window.SEASON:
                found_season = await find_season(session, workspace[0] if workspace else None, season)
                season_label, season_bounds = found_season.name, season_span(found_season)
            if workspace is None:
                return CohortBoard(window=window.value, rows=())
            workspace_id, timezone = workspace
            span = window_span(window, now, timezone, season=season_bounds)
            start = span.start
            conn = await session.connection()
            cohorts = (
                await conn.execute(
                    select(Cohort.id, Cohort.name, func.count(CohortMember.user_id))
                    .outerjoin(CohortMember, CohortMember.cohort_id == Cohort.id)
                    .where(Cohort.workspace_id == workspace_id)
                    .group_by(Cohort.id, Cohort.name)
                )
            ).all()
            sizes = {cohort_id: size for cohort_id, _, size in cohorts}
            names = {cohort_id: name for cohort_id, name, _ in cohorts}
            if start is None and self.rollups:
                query = (
                    select(
                        CohortMember.cohort_id,
                        func.count(CohortMember.user_id),
                        func.sum(CohortMember.points),
                        func.sum(CohortMember.correct),
                        func.sum(CohortMember.answered),
                    )
                    .join(Cohort, Cohort.id == CohortMember.cohort_id)
                    .where(Cohort.workspace_id == workspace_id, CohortMember.answered > 0)
                    .group_by(CohortMember.cohort_id)
                )
            else:
                query = (
                    select(
                        CohortMember.cohort_id,
                        func.count(func.distinct(Answer.user_id)),
                        func.sum(Answer.points),
                        _correct_count(),
                        func.count(),  # not count(answers.id): the id is not in the user index, the rest is
                    )
                    .join(Answer, Answer.user_id == CohortMember.user_id)
                    .join(Cohort, Cohort.id == CohortMember.cohort_id)
                    .where(Cohort.workspace_id == workspace_id, *in_span(span), Answer.answered_at >= Cohort.starts_at)
                    .group_by(CohortMember.cohort_id)
                )
            rows = (await conn.execute(query)).all()
        standings = [
            CohortStanding(
                rank=0,
                name=names[cohort_id],
                members=int(sizes.get(cohort_id, 0)),
                active=int(active),
                points=int(points or 0),
                correct=int(correct or 0),
                answered=int(answered or 0),
            )
            for cohort_id, active, points, correct, answered in rows
            if active
        ]
        return CohortBoard(window=window.value, rows=tuple(rank_cohorts(standings)), season=season_label)

    async def user_stats(self, user: UserRef, *, now: datetime, within: UnitOfWork | None = None) -> UserStats:
        """A user's all-time record in their workspace: totals, rank, streaks, review, cohorts, missed topics."""
        async with reading(self.uow, within) as uow:
            session = uow.session
            conn = await session.connection()
            params = {"platform": user.platform, "workspace": user.workspace_id, "user": user.user_id}
            me = (await conn.execute(_me_query(), params)).first()
            empty = UserStats(name=user.display_name, answered=0, correct=0, points=0, rank=None)
            if me is None or me.user_row is None:
                return empty
            timezone, user_row = me.timezone, int(me.user_row)
            cohorts = tuple(
                (
                    await conn.execute(
                        select(Cohort.name)
                        .join(CohortMember, CohortMember.cohort_id == Cohort.id)
                        .where(CohortMember.user_id == user_row)
                        .order_by(Cohort.key)
                    )
                ).scalars()
            )
            if me.points is None:
                return UserStats(name=user.display_name, answered=0, correct=0, points=0, rank=None, cohorts=cohorts)
            missed = (
                await conn.execute(
                    select(QuestionRow.tags)
                    .join(Post, Post.question_id == QuestionRow.id)
                    .join(Answer, Answer.post_id == Post.id)
                    .where(Answer.user_id == user_row, Answer.is_correct.is_(False))
                )
            ).scalars()
            tags = Counter(tag for row in missed for tag in (row or []))
            streaks = (await user_streaks(session, [user_row], timezone=timezone, now=now))[user_row]
            review = await review_summary(uow, user_row, now)
        return UserStats(
            name=user.display_name,
            answered=int(me.answered),
            correct=int(me.correct),
            points=int(me.points),
            rank=int(me.ahead) + 1,
            missed_tags=tuple(sorted(tags.items(), key=lambda item: (-item[1], item[0]))[:3]),
            streak=streaks[0].current,
            best_streak=streaks[0].best,
            day_streak=streaks[1].current,
            best_day_streak=streaks[1].best,
            review_due=review.due,
            review_learning=review.learning,
            review_mastered=review.mastered,
            cohorts=cohorts,
        )
