"""Read models: leaderboards, cohort boards and a user's stats, written as queries for speed.

All-time boards read the score rollups (`user_scores`, `channel_scores`, `cohort_members`): an index scan that
stops after the top rows. A workspace's week and month boards read the period rollup (`period_scores`) the
same way; channel and cohort windows, seasons, and any window not in scores.ROLLUP_WINDOWS, sum `answers` in the
window's [start, end) through covering indexes (an index-only range scan, bounded on both sides for a past
season). Streaks are computed for the rows shown only.
"""

from __future__ import annotations

import functools
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    CompoundSelect,
    Integer,
    Select,
    and_,
    bindparam,
    case,
    func,
    literal_column,
    null,
    or_,
    select,
    union_all,
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
from bot.service.lookups import channel_place, find_cohort, find_season, local_date, season_span, workspace_row
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
    so the answers are summed once. Names are joined in the same statement (plain rows, no ORM entities).
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
        rows = [_entry(row) for row in await conn.execute(query)]
    else:
        query = _named(select(*columns), sub.c.user_id).order_by(*key, sub.c.user_id).limit(limit + 1)
        rows = [_entry(row) for row in await conn.execute(query)]
        if len(rows) > limit and rows[limit].key == rows[limit - 1].key:
            cut = rows[limit - 1].key
            tied = _named(select(*columns), sub.c.user_id).where(
                sub.c.points == cut[0], sub.c.correct == cut[1], sub.c.answered == cut[2]
            )
            rows = [row for row in rows[:limit] if row.key != cut] + [_entry(row) for row in await conn.execute(tied)]
    return rows


def _named(query: Select[Any, Any, Any, Any], user_id: ColumnElement[Any]) -> Select[Any, Any, Any, Any, Any]:
    """`query` with the user's display name as a fifth column."""
    return query.add_columns(User.display_name).outerjoin(User, User.id == user_id)


def _entry(row: Any) -> Entry:
    return Entry(int(row[0]), row[4] or "?", int(row[1]), int(row[2]), int(row[3]))


RECENT_DAYS = 62
"""Boards read this many days of answers for day streaks, and all of them only for a user that long in a row."""


async def _answer_days(
    session: AsyncSession, users: Sequence[int], timezone: str, since: datetime | None
) -> dict[int, set[date]]:
    query = select(Answer.user_id, Answer.answered_at).where(Answer.user_id.in_(users))
    if since is not None:
        query = query.where(Answer.answered_at >= since)
    days: dict[int, set[date]] = defaultdict(set)
    for user_id, answered_at in await (await session.connection()).execute(query):
        days[int(user_id)].add(local_date(answered_at, timezone))
    return days


Histories = dict[int, dict[int, list[Outcome]]]
"""Each user's outcomes on each channel's scheduled questions, in the order they were settled."""

Days = dict[int, set[date]]
"""Each user's local dates with an answer."""


def _finished(now: datetime | ColumnElement[Any]) -> ColumnElement[bool]:
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
    session: AsyncSession, users: Sequence[int], channel: int | None, now: datetime, timezone: str
) -> tuple[Histories, Days]:
    """Every scheduled question of the channels where the users answered one, and their answers to them; and the
    local days of all their answers (read in the same statement: the scheduled answers are a subset of them)."""
    conn = await session.connection()
    everything = (
        select(Answer.user_id, Answer.post_id, Answer.answered_at, Answer.is_correct, Post.channel_id, Post.source)
        .join(Post, Post.id == Answer.post_id)
        .where(Answer.user_id.in_(users))
    )
    answered: dict[int, dict[int, tuple[datetime, bool]]] = defaultdict(dict)
    channels_of: dict[int, set[int]] = defaultdict(set)
    days: Days = defaultdict(set)
    for user_id, post_id, answered_at, is_correct, channel_id, source in await conn.execute(everything):
        days[int(user_id)].add(local_date(answered_at, timezone))
        if source in STREAK_SOURCES and (channel is None or channel_id == channel):
            answered[int(user_id)][int(post_id)] = (answered_at, bool(is_correct))
            channels_of[int(user_id)].add(int(channel_id))
    channels = set().union(*channels_of.values()) if channels_of else set()
    posts: dict[int, list[StreakPost]] = defaultdict(list)
    if channels:
        query = select(*_POST_COLUMNS).where(Post.channel_id.in_(list(channels)), *_scheduled())
        for row in await conn.execute(query):
            posts[int(row.channel_id)].append(_streak_post(row))
    histories = {
        user: {c: settled_outcomes(posts[c], answered[user], now) for c in user_channels}
        for user, user_channels in channels_of.items()
    }
    return histories, days


EVER = datetime(1970, 1, 1, tzinfo=UTC)
"""Earlier than any answer."""

_TAIL, _DAY, _MISS = 0, 1, 2
"""What a row of `_tails_and_days_query` is: an answer since the latest miss, an answer day, the latest miss."""


@functools.cache
def _tails_and_days_query(one_channel: bool) -> CompoundSelect[Any]:
    """One statement for the current streaks of some users (parameters: users, now, since, and channel when
    `one_channel`): per (user, channel) of the channel rollup the user's latest miss there, their scheduled answers
    there since it, and the times of their answers since `since` (for day streaks).

    The latest miss is the finished scheduled question they did not answer that finished last: a correlated
    subquery over the channel's scheduled questions (the top of ix_posts_channel_finish), anti-joined with the
    user's answers. A current streak runs from it: only answers are settled after it, read through the user's
    answer index (all their scheduled answers in a channel where they never missed one). Built once, with bound
    parameters, so each board compiles nothing.
    """
    users: BindParameter[Any] = bindparam("users", expanding=True)
    now: BindParameter[Any] = bindparam("now", type_=Post.opened_at.type)
    since = bindparam("since", type_=Answer.answered_at.type)
    # A pair that never missed reads all its answers; a bound (not `finished IS NULL OR ...`) keeps the range an
    # index condition of the user index.
    since_ever = bindparam("ever", EVER, type_=Answer.answered_at.type)
    pairs = select(ChannelScore.user_id, ChannelScore.channel_id).where(ChannelScore.user_id.in_(users))
    if one_channel:
        pairs = pairs.where(ChannelScore.channel_id == bindparam("channel"))
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
    found = pairs.add_columns(latest_miss.label("miss")).cte("latest_misses")
    finish = _finish_time()
    misses = (
        select(
            found.c.user_id,
            found.c.channel_id,
            *(column.label(column.key) for column in _POST_COLUMNS if column is not Post.channel_id),
            case((finish <= now, finish), else_=null()).label("finished"),
        )
        .select_from(found)
        .outerjoin(Post, Post.id == found.c.miss)
        .cte("misses")
    )
    no_answer = (null().cast(Answer.answered_at.type), null().cast(Answer.is_correct.type))
    missed_rows = select(
        misses.c.user_id,
        misses.c.channel_id,
        misses.c.id,
        misses.c.opened_at,
        misses.c.closes_at,
        misses.c.closed_at,
        *no_answer,
        literal_column(str(_MISS), Integer),
    )
    tail_rows = (
        select(
            Answer.user_id,
            Post.channel_id,
            Post.id,
            Post.opened_at,
            Post.closes_at,
            Post.closed_at,
            Answer.answered_at,
            Answer.is_correct,
            literal_column(str(_TAIL), Integer),
        )
        .join(misses, and_(misses.c.user_id == Answer.user_id, misses.c.channel_id == Answer.channel_id))
        .join(Post, Post.id == Answer.post_id)
        .where(Answer.answered_at >= func.coalesce(misses.c.finished, since_ever), *_scheduled())
    )
    no_post = (null().cast(Post.channel_id.type), null().cast(Post.id.type))
    no_times = (null().cast(Post.opened_at.type), null().cast(Post.closes_at.type), null().cast(Post.closed_at.type))
    day_rows = select(
        Answer.user_id, *no_post, *no_times, Answer.answered_at, no_answer[1], literal_column(str(_DAY), Integer)
    ).where(Answer.user_id.in_(users), Answer.answered_at >= since)
    return union_all(missed_rows, tail_rows, day_rows)


async def _tails_and_days(
    session: AsyncSession, users: Sequence[int], channel: int | None, now: datetime, *, timezone: str, since: datetime
) -> tuple[Histories, Days]:
    """Just enough of each channel's scheduled questions for current streaks (from each latest miss), and the days
    of the answers since `since`, in one statement (`_tails_and_days_query`). Only current values are exact."""
    params: dict[str, Any] = {"users": list(users), "now": now, "since": since}
    if channel is not None:
        params["channel"] = channel
    posts: dict[tuple[int, int], list[StreakPost]] = defaultdict(list)
    answered: dict[tuple[int, int], dict[int, tuple[datetime, bool]]] = defaultdict(dict)
    days: Days = defaultdict(set)
    query = _tails_and_days_query(channel is not None)
    for user_id, channel_id, post_id, opened_at, closes_at, closed_at, answered_at, is_correct, kind in await (
        await session.connection()
    ).execute(query, params):
        if kind == _DAY:
            days[int(user_id)].add(local_date(answered_at, timezone))
            continue
        pair = (int(user_id), int(channel_id))
        listed = posts[pair]  # a pair with no miss and no answer since still has its (empty) history
        if post_id is None:
            continue
        listed.append(StreakPost(int(post_id), opened_at, closes_at, closed_at))
        if kind == _TAIL:
            answered[pair][int(post_id)] = (answered_at, bool(is_correct))
    histories: Histories = defaultdict(dict)
    for (user_id, channel_id), listed in posts.items():
        histories[user_id][channel_id] = settled_outcomes(listed, answered[(user_id, channel_id)], now)
    return histories, days


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
    since = None if history else now - timedelta(days=RECENT_DAYS)
    if since is None:
        histories, days = await _whole_histories(session, users, channel, now, timezone)
    else:
        histories, days = await _tails_and_days(session, users, channel, now, timezone=timezone, since=since)
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
            rollup = start is None
            totals: Select[Any, Any, Any, Any]
            if scope is not Scope.CHANNEL:
                streak_channel = None  # question streaks: the best of the user's channels
            elif streak_channel is None:
                return Leaderboard(scope=label, window=window.value, rows=(), season=season_label)
            if scope is Scope.CHANNEL:
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
