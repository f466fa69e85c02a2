"""Current and best streaks for the read models: one statement for the rows a board shows (`history=False`), the
whole history for `/quiz me`. Split out of bot/service/stats.py, which ranks the boards.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    CompoundSelect,
    Integer,
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

from bot.db.models import Answer, ChannelScore, Post, post_finish_time
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
from bot.service.repositories.lookups import local_date

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
