"""Read models: leaderboards, cohort boards and a user's stats, written as queries for speed.

All-time boards read the score rollups (`user_scores`, `channel_scores`, `cohort_members`): an index scan that
stops after the top rows. A workspace's week and month boards read the period rollup (`period_scores`) the
same way; channel and cohort windows, seasons, and any window not in scores.ROLLUP_WINDOWS, sum `answers` in the
window's [start, end) through covering indexes (an index-only range scan, bounded on both sides for a past
season). Streaks are computed for the rows shown only.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, case, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

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
    post_finish_time,
)
from bot.domain import ChannelRef, CohortBoard, CohortStanding, Leaderboard, LeaderboardRow, UserRef, UserStats
from bot.domain.ranking import Entry, rank_cohorts, rank_entries
from bot.domain.streaks import (
    STREAK_SOURCES,
    Outcome,
    Streak,
    StreakPost,
    best_of,
    day_streak,
    question_streak,
    settled_outcomes,
)
from bot.domain.windows import Scope, Span, Window, window_span
from bot.errors import QuizError
from bot.service.lookups import channel_row, find_cohort, find_season, local_date, season_span, workspace_row
from bot.service.review import review_summary
from bot.service.scores import ROLLUP_WINDOWS
from bot.service.uow import UnitOfWork, UnitOfWorkFactory, reading
from bot.wording import boards as board_words

PERIOD_SLACK = timedelta(hours=27)
"""Two timezones' starts of the same local period are less than this apart (UTC offsets span 26 hours); the
starts of two periods of one window, at least a week."""


async def _periods_agree(
    session: AsyncSession,
    table: type[PeriodScore],
    where: ColumnElement[bool],
    window: Window,
    start: datetime,
) -> bool:
    """Whether the period rollups of this period were all keyed at `start`: no row of the same period was keyed
    in another timezone (a workspace whose timezone was changed). If one was, the board sums answers instead."""
    other = (
        select(table.user_id)
        .where(
            where,
            table.period == window.value,
            table.period_start > start - PERIOD_SLACK,
            table.period_start < start + PERIOD_SLACK,
            table.period_start != start,
        )
        .limit(1)
    )
    return (await session.execute(other)).first() is None


def _correct_count() -> ColumnElement[Any]:
    return func.sum(case((Answer.is_correct, 1), else_=0))


def in_span(span: Span, *, since: datetime | None = None) -> list[ColumnElement[bool]]:
    """The conditions on `answers.answered_at` of a bounded span (starting no earlier than `since`, if given)."""
    assert span.start is not None
    conditions = [Answer.answered_at >= (max(span.start, since) if since is not None else span.start)]
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


async def top_entries(
    session: AsyncSession, totals: Select[Any, Any, Any, Any], limit: int, *, rollup: bool
) -> list[Entry]:
    """The top `limit` users of a totals query (user_id, points, correct, answered), plus everyone tied at the cut.

    Ties at the cut are always fetched whole, so who makes the board never depends on the database's sort order.
    A rollup (`rollup=True`) is read in board order through its index, stopping after limit + 1 rows; a second
    query fetches a tie straddling the cut. An aggregate over answers is ranked in SQL instead (RANK() <= limit),
    so the answers are summed once.
    """
    sub = totals.subquery()
    key = (sub.c.points.desc(), sub.c.correct.desc(), sub.c.answered)
    columns = (sub.c.user_id, sub.c.points, sub.c.correct, sub.c.answered)
    if not rollup:
        ranked = select(*columns, func.rank().over(order_by=key).label("place")).subquery()
        query = select(ranked.c.user_id, ranked.c.points, ranked.c.correct, ranked.c.answered).where(
            ranked.c.place <= limit
        )
        rows = [tuple(int(v) for v in row) for row in (await session.execute(query)).all()]
    else:
        query = select(*columns).order_by(*key, sub.c.user_id).limit(limit + 1)
        rows = [tuple(int(v) for v in row) for row in (await session.execute(query)).all()]
        if len(rows) > limit and rows[limit][1:] == rows[limit - 1][1:]:
            cut = rows[limit - 1][1:]
            tied = (
                await session.execute(
                    select(*columns).where(sub.c.points == cut[0], sub.c.correct == cut[1], sub.c.answered == cut[2])
                )
            ).all()
            rows = [row for row in rows[:limit] if row[1:] != cut] + [tuple(int(v) for v in row) for row in tied]
    names = await _names(session, [row[0] for row in rows])
    return [Entry(row[0], names.get(row[0], "?"), row[1], row[2], row[3]) for row in rows]


async def _names(session: AsyncSession, users: Sequence[int]) -> dict[int, str]:
    if not users:
        return {}
    rows = (await session.execute(select(User.id, User.display_name).where(User.id.in_(users)))).all()
    return {int(row.id): row.display_name or "?" for row in rows}


RECENT_DAYS = 62
"""Boards read this many days of answers for day streaks, and all of them only for a user that long in a row."""


async def _answer_days(
    session: AsyncSession, users: Sequence[int], timezone: str, since: datetime | None
) -> dict[int, set[date]]:
    query = select(Answer.user_id, Answer.answered_at).where(Answer.user_id.in_(users))
    if since is not None:
        query = query.where(Answer.answered_at >= since)
    days: dict[int, set[date]] = defaultdict(set)
    for user_id, answered_at in await session.execute(query):
        days[int(user_id)].add(local_date(answered_at, timezone))
    return days


Histories = dict[int, dict[int, list[Outcome]]]
"""Each user's outcomes on each channel's scheduled questions, in the order they were settled."""


def _finished(now: datetime) -> ColumnElement[bool]:
    return or_(Post.closed_at.is_not(None), and_(Post.closes_at.is_not(None), Post.closes_at <= now))


def _finish_time() -> ColumnElement[Any]:
    """When a finished post stopped taking answers: its close time, or its reveal if that came first (the
    expression ix_posts_channel_finish indexes, so a channel's latest miss is at the top of that index)."""
    return post_finish_time()


def _scheduled() -> list[ColumnElement[bool]]:
    """Posts that make up question streaks: a schedule's, that reached the platform."""
    return [Post.source.in_(STREAK_SOURCES), Post.message_ref.is_not(None)]


_POST_COLUMNS = (Post.id, Post.channel_id, Post.opened_at, Post.closes_at, Post.closed_at)


def _streak_post(row: Any) -> StreakPost:
    return StreakPost(int(row.id), row.opened_at, row.closes_at, row.closed_at)


async def _whole_histories(
    session: AsyncSession, users: Sequence[int], channel: int | None, now: datetime
) -> Histories:
    """Every scheduled question of the channels where the users answered one, and their answers to them."""
    scheduled = (
        select(Answer.user_id, Answer.post_id, Answer.answered_at, Answer.is_correct, Post.channel_id)
        .join(Post, Post.id == Answer.post_id)
        .where(Answer.user_id.in_(users), Post.source.in_(STREAK_SOURCES))
    )
    if channel is not None:
        scheduled = scheduled.where(Post.channel_id == channel)
    answered: dict[int, dict[int, tuple[datetime, bool]]] = defaultdict(dict)
    channels_of: dict[int, set[int]] = defaultdict(set)
    for user_id, post_id, answered_at, is_correct, channel_id in await session.execute(scheduled):
        answered[int(user_id)][int(post_id)] = (answered_at, bool(is_correct))
        channels_of[int(user_id)].add(int(channel_id))
    channels = set().union(*channels_of.values()) if channels_of else set()
    posts: dict[int, list[StreakPost]] = defaultdict(list)
    if channels:
        query = select(*_POST_COLUMNS).where(Post.channel_id.in_(list(channels)), *_scheduled())
        for row in await session.execute(query):
            posts[int(row.channel_id)].append(_streak_post(row))
    return {
        user: {c: settled_outcomes(posts[c], answered[user], now) for c in user_channels}
        for user, user_channels in channels_of.items()
    }


async def _tails(session: AsyncSession, users: Sequence[int], channel: int | None, now: datetime) -> Histories:
    """Just enough of each channel's scheduled questions for current streaks: their outcomes from the latest miss.

    A current streak runs from the user's latest miss in the channel (of the finished questions they did not
    answer, the one that finished last): only answers are settled after it. So, per (user, channel) of the channel
    rollup, the latest miss is found (one correlated subquery over the channel's scheduled questions, anti-joined
    with the user's answers), then the user's scheduled answers there since it, through the user's answer index
    (all of them in a channel where they never missed one). Only current values are exact.
    """
    pairs = select(ChannelScore.user_id, ChannelScore.channel_id).where(ChannelScore.user_id.in_(users))
    if channel is not None:
        pairs = pairs.where(ChannelScore.channel_id == channel)
    answered_by_them = (
        select(Answer.id)
        .where(Answer.post_id == Post.id, Answer.user_id == ChannelScore.user_id)
        .correlate(Post, ChannelScore)
        .exists()
    )
    latest_miss = (
        select(Post.id)
        .where(Post.channel_id == ChannelScore.channel_id, *_scheduled(), _finished(now), ~answered_by_them)
        .order_by(_finish_time().desc(), Post.opened_at.desc(), Post.id.desc())
        .limit(1)
        .correlate(ChannelScore)
        .scalar_subquery()
    )
    misses: dict[tuple[int, int], int | None] = {
        (int(user_id), int(channel_id)): None if miss is None else int(miss)
        for user_id, channel_id, miss in await session.execute(pairs.add_columns(latest_miss.label("miss")))
    }
    if not misses:
        return {}
    missed = {
        int(row.id): _streak_post(row)
        for row in await session.execute(
            select(*_POST_COLUMNS).where(Post.id.in_([miss for miss in misses.values() if miss is not None]))
        )
    }
    since = []
    for (user_id, channel_id), miss in misses.items():
        where = [Answer.user_id == user_id, Answer.channel_id == channel_id]
        finished = missed[miss].finished_at(now) if miss is not None else None
        if finished is not None:
            where.append(Answer.answered_at >= finished)
        since.append(and_(*where))
    posts: dict[tuple[int, int], list[StreakPost]] = {
        pair: [missed[miss]] if miss is not None else [] for pair, miss in misses.items()
    }
    answered: dict[tuple[int, int], dict[int, tuple[datetime, bool]]] = defaultdict(dict)
    answers = (
        select(Answer.user_id, Answer.answered_at, Answer.is_correct, *_POST_COLUMNS)
        .join(Post, Post.id == Answer.post_id)
        .where(*_scheduled(), or_(*since))
    )
    for row in await session.execute(answers):
        pair = (int(row.user_id), int(row.channel_id))
        posts[pair].append(_streak_post(row))
        answered[pair][int(row.id)] = (row.answered_at, bool(row.is_correct))
    histories: Histories = defaultdict(dict)
    for (user_id, channel_id), listed in posts.items():
        histories[user_id][channel_id] = settled_outcomes(listed, answered[(user_id, channel_id)], now)
    return histories


async def user_streaks(
    session: AsyncSession,
    users: Sequence[int],
    *,
    timezone: str,
    now: datetime,
    channel: int | None = None,
    history: bool = True,
) -> dict[int, tuple[Streak, Streak]]:
    """(question streak, day streak) of each user; question streaks in one channel, or the best of their channels.

    Outcomes are taken in the order they were settled (bot.domain.streaks). With `history=False` (boards, which
    show current streaks only) just the tail of each channel's scheduled questions and the last RECENT_DAYS of
    answers are read, and only the current values are exact.
    """
    if not users:
        return {}
    read = _whole_histories if history else _tails
    histories = await read(session, users, channel, now)
    since = None if history else now - timedelta(days=RECENT_DAYS)
    days = await _answer_days(session, users, timezone, since)
    today = local_date(now, timezone)
    long_runs = [
        u for u in users if since is not None and day_streak(days.get(u, ()), today).current >= RECENT_DAYS - 2
    ]
    if long_runs:
        days.update(await _answer_days(session, long_runs, timezone, None))
    result: dict[int, tuple[Streak, Streak]] = {}
    for user in users:
        per_channel = [question_streak(outcomes) for outcomes in histories.get(user, {}).values()]
        result[user] = (best_of(per_channel), day_streak(days.get(user, ()), today))
    return result


class Stats:
    """Leaderboards, cohort boards and per-user stats."""

    def __init__(self, uow: UnitOfWorkFactory) -> None:
        self.uow = uow

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
            workspace = await workspace_row(session, channel.platform, channel.workspace_id)
            if scope is Scope.COHORT:
                found = await find_cohort(session, workspace[0] if workspace else None, cohort or "")
                label = f"cohort {found.name} from {found.start_date.isoformat()}"
            season_label: str | None = None
            season_bounds: Span | None = None
            if window is Window.SEASON:
                found_season = await find_season(session, workspace[0] if workspace else None, season)
                season_label, season_bounds = found_season.name, season_span(found_season)
            if workspace is None:
                return Leaderboard(scope=label, window=window.value, rows=())
            workspace_id, timezone = workspace
            span = window_span(window, now, timezone, season=season_bounds)
            start = span.start
            streak_channel: int | None = None
            rollup = start is None
            totals: Select[Any, Any, Any, Any]
            if scope is Scope.CHANNEL:
                streak_channel = await channel_row(session, workspace_id, channel)
                if streak_channel is None:
                    return Leaderboard(scope=label, window=window.value, rows=(), season=season_label)
                if start is None:
                    totals = select(
                        ChannelScore.user_id, ChannelScore.points, ChannelScore.correct, ChannelScore.answered
                    ).where(ChannelScore.channel_id == streak_channel)
                else:
                    totals = _windowed_totals([Answer.channel_id == streak_channel, *in_span(span)])
            elif scope is Scope.WORKSPACE:
                if start is None:
                    totals = select(UserScore.user_id, UserScore.points, UserScore.correct, UserScore.answered).where(
                        UserScore.workspace_id == workspace_id
                    )
                elif window in ROLLUP_WINDOWS and await _periods_agree(
                    session, PeriodScore, PeriodScore.workspace_id == workspace_id, window, start
                ):
                    rollup = True
                    totals = select(
                        PeriodScore.user_id, PeriodScore.points, PeriodScore.correct, PeriodScore.answered
                    ).where(
                        PeriodScore.workspace_id == workspace_id,
                        PeriodScore.period == window.value,
                        PeriodScore.period_start == start,
                    )
                else:
                    totals = _windowed_totals([Answer.workspace_id == workspace_id, *in_span(span)])
            else:
                assert found is not None
                if start is None:
                    totals = select(
                        CohortMember.user_id, CohortMember.points, CohortMember.correct, CohortMember.answered
                    ).where(CohortMember.cohort_id == found.id, CohortMember.answered > 0)
                else:
                    members = select(CohortMember.user_id).where(CohortMember.cohort_id == found.id)
                    totals = _windowed_totals([Answer.user_id.in_(members), *in_span(span, since=found.starts_at)])
            entries = await top_entries(session, totals, limit, rollup=rollup)
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
            sizes = dict(
                (
                    await session.execute(
                        select(Cohort.id, func.count(CohortMember.user_id))
                        .outerjoin(CohortMember, CohortMember.cohort_id == Cohort.id)
                        .where(Cohort.workspace_id == workspace_id)
                        .group_by(Cohort.id)
                    )
                ).all()
            )
            names = dict(
                (await session.execute(select(Cohort.id, Cohort.name).where(Cohort.workspace_id == workspace_id))).all()
            )
            if start is None:
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
                        func.count(Answer.id),
                    )
                    .join(Answer, Answer.user_id == CohortMember.user_id)
                    .join(Cohort, Cohort.id == CohortMember.cohort_id)
                    .where(Cohort.workspace_id == workspace_id, *in_span(span), Answer.answered_at >= Cohort.starts_at)
                    .group_by(CohortMember.cohort_id)
                )
            rows = (await session.execute(query)).all()
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
            workspace = await workspace_row(session, user.platform, user.workspace_id)
            empty = UserStats(name=user.display_name, answered=0, correct=0, points=0, rank=None)
            if workspace is None:
                return empty
            workspace_id, timezone = workspace
            user_row = (
                await session.execute(
                    select(User.id).where(User.workspace_id == workspace_id, User.external_id == user.user_id)
                )
            ).scalar()
            if user_row is None:
                return empty
            cohorts = tuple(
                (
                    await session.execute(
                        select(Cohort.name)
                        .join(CohortMember, CohortMember.cohort_id == Cohort.id)
                        .where(CohortMember.user_id == user_row)
                        .order_by(Cohort.key)
                    )
                ).scalars()
            )
            mine = await session.get(UserScore, user_row)
            if mine is None:
                return UserStats(name=user.display_name, answered=0, correct=0, points=0, rank=None, cohorts=cohorts)
            ahead = (
                await session.execute(
                    select(func.count()).where(
                        UserScore.workspace_id == workspace_id,
                        (UserScore.points > mine.points)
                        | ((UserScore.points == mine.points) & (UserScore.correct > mine.correct))
                        | (
                            (UserScore.points == mine.points)
                            & (UserScore.correct == mine.correct)
                            & (UserScore.answered < mine.answered)
                        ),
                    )
                )
            ).scalar_one()
            missed = (
                await session.execute(
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
            answered=mine.answered,
            correct=mine.correct,
            points=mine.points,
            rank=int(ahead) + 1,
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
