"""Current and best streaks for the read models: one statement for the rows a board shows (`history=False`), the
whole history (`history=True`), and for `/quiz me` the history settled since the user's checkpoint (`resumed_record`).
Split out of bot/service/stats.py, which ranks the boards.

`/quiz me` resumes from a checkpoint (`me_checkpoints`, bot/db/models/checkpoints.py): the user's question streaks,
day streak and (answered, correct) counts per question folded up to an instant T, then only the outcomes settled
since T are read (the user's answers since T through their answer index, the scheduled questions of their channels
that finished since T through ix_posts_channel_finish), folded on, and the checkpoint moved on. The scheduler moves
checkpoints on in the background too (bot/scheduling/checkpoints.py, `Stats.settle_checkpoints`: the users
`unsettled_query` finds, each through `resumed_record` and the same guarded write), so a user's first call finds one
already. T must be an instant before which nothing can still be settled later, or the checkpoint would miss it:

- an answer is stored with the time its click arrived, committed a batch later (other replicas' clocks may differ a
  little): T is at most now minus SETTLE_MARGIN;
- a question stops taking answers when it finishes (a click at or after its close is refused), and its finish is
  its close time or its reveal, written when it happens: past T, nothing finishes before T any more;
- a post that did not reach the platform yet (no message reference: a publication step killed mid-way, retried
  within the scheduler's grace window) counts for nothing now, and could count from its open time once published,
  or be deleted with any answers it got: T is at most the open time of the oldest such post still open in any of
  the user's channels (`unsent_pin`).

Nothing else rewrites what a checkpoint folded: answers are never updated, posts are deleted only unsent (above),
forgetting a user deletes their checkpoint with them (its foreign key), and a checkpoint taken in another timezone
than the workspace's is not used. A question's tags are read when shown, so the checkpoint counts answers (and right
ones) per question, not per tag: `/quiz me`'s missed topics and the home's weakest topics both come from them.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
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
    tuple_,
    union_all,
)
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute, aliased
from sqlalchemy.sql.elements import UnaryExpression
from sqlalchemy.sql.operators import custom_op

from bot.db.models import (
    Answer,
    ChannelScore,
    MeCheckpoint,
    Post,
    QuestionRow,
    UserScore,
    Workspace,
    post_finish_time,
)
from bot.domain.streaks import (
    STREAK_SOURCES,
    Checkpoint,
    DayRun,
    Outcome,
    Streak,
    StreakPost,
    best_of,
    day_streak,
    day_streak_of,
    fold_days,
    question_streak,
    settled_events,
    settled_outcomes,
)
from bot.service.repositories.checkpoints import VERSION, stored_columns
from bot.service.repositories.lookups import among_rows, local_date, one_of

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


def _scheduled(dialect: str | None = None) -> list[ColumnElement[bool]]:
    """Posts that make up question streaks: a schedule's, that reached the platform.

    With `dialect` "sqlite", the source is tested as `+posts.source`, which SQLite's planner does not match to an
    index (its documented way to keep a term from choosing one): for a statement that reaches posts by their key
    from something else (a user's answers). SQLite keeps no statistics unless ANALYZE ran, and without them it
    takes `source = ?` on ix_posts_source_ref (migration 0019) for a handful of rows and reads every scheduled post
    of the database through it instead."""
    source: Any = Post.source
    if dialect == "sqlite":
        source = UnaryExpression(Post.source.expression, operator=custom_op("+"), type_=Post.source.type)
    return [source.in_(STREAK_SOURCES), Post.message_ref.is_not(None)]


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
def _tails_and_days_query(one_channel: bool, dialect: str) -> CompoundSelect[Any]:
    """`tails_and_days_select` for the users of a list parameter (`users`; and `channel` when `one_channel`)."""
    users: BindParameter[Any] = bindparam("users", expanding=True)
    return tails_and_days_select(lambda column: column.in_(users), "channel" if one_channel else None, dialect)


def tails_and_days_select(
    of_users: Callable[[Any], ColumnElement[bool]], channel: str | None, dialect: str
) -> CompoundSelect[Any]:
    """One statement for the current streaks of some users (those `of_users` selects of a users.id column;
    parameters: now, since, and the one named `channel` when not None, the channel's row id), its rows for
    `fold_tails_and_days`: per (user, channel) of the channel rollup the user's latest miss there, their scheduled
    answers there since it, and the times of their answers since `since` (for day streaks).

    The latest miss is the finished scheduled question they did not answer that finished last: a correlated
    subquery over the channel's scheduled questions (the top of ix_posts_channel_finish), each tested against the
    user's answers by the answers' (post, user) key, one probe a question until one is not answered. A current
    streak runs from it: only answers are settled after it, read through the user's answer index (all their
    scheduled answers in a channel where they never missed one), each post then by its key. Built with bound
    parameters, once per dialect and shape by its callers (`_tails_and_days_query`, `board_queries.with_streaks`),
    so a board compiles nothing.

    On PostgreSQL the test is kept a correlated subquery (OFFSET 0: PostgreSQL does not turn an EXISTS with an
    OFFSET into a join), where it planned an anti-join that read all of the user's answers for each pair (hundreds at
    1M answers, more as they grow), and the latest misses are MATERIALIZED, so each miss's post is one key lookup
    (inlined, the misses' subquery was joined to a hash of every post). SQLite plans both that way already.
    """
    now: BindParameter[Any] = bindparam("now", type_=Post.opened_at.type)
    since = bindparam("since", type_=Answer.answered_at.type)
    # A pair that never missed reads all its answers; a bound (not `finished IS NULL OR ...`) keeps the range an
    # index condition of the user index.
    since_ever = bindparam("ever", EVER, type_=Answer.answered_at.type)
    pairs = select(ChannelScore.user_id, ChannelScore.channel_id).where(of_users(ChannelScore.user_id))
    if channel is not None:
        pairs = pairs.where(ChannelScore.channel_id == bindparam(channel))
    probe = select(Answer.id).where(Answer.post_id == Post.id, Answer.user_id == ChannelScore.user_id)
    if dialect == "postgresql":
        probe = probe.offset(literal_column("0", Integer))  # kept a subquery: a probe a question (the docstring)
    answered_by_them = probe.correlate(Post, ChannelScore).exists()
    latest_miss = (
        select(Post.id)
        .where(Post.channel_id == ChannelScore.channel_id, *_scheduled(), _finished(now), ~answered_by_them)
        .order_by(_finish_time().desc(), Post.opened_at.desc(), Post.id.desc())
        .limit(1)
        .correlate(ChannelScore)
        .scalar_subquery()
    )
    found = (
        pairs.add_columns(latest_miss.label("miss"))
        .cte("latest_misses")
        .prefix_with("MATERIALIZED", dialect="postgresql")
    )
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
        no_answer[0].label("answered_at"),
        no_answer[1].label("is_correct"),
        literal_column(str(_MISS), Integer).label("kind"),
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
        .where(Answer.answered_at >= func.coalesce(misses.c.finished, since_ever), *_scheduled(dialect))
    )
    no_post = (null().cast(Post.channel_id.type), null().cast(Post.id.type))
    no_times = (null().cast(Post.opened_at.type), null().cast(Post.closes_at.type), null().cast(Post.closed_at.type))
    day_rows = select(
        Answer.user_id, *no_post, *no_times, Answer.answered_at, no_answer[1], literal_column(str(_DAY), Integer)
    ).where(of_users(Answer.user_id), Answer.answered_at >= since)
    return union_all(missed_rows, tail_rows, day_rows)


async def _tails_and_days(
    session: AsyncSession, users: Sequence[int], channel: int | None, now: datetime, *, timezone: str, since: datetime
) -> tuple[Histories, Days]:
    """Just enough of each channel's scheduled questions for current streaks (from each latest miss), and the days
    of the answers since `since`, in one statement (`_tails_and_days_query`). Only current values are exact."""
    params: dict[str, Any] = {"users": list(users), "now": now, "since": since}
    if channel is not None:
        params["channel"] = channel
    conn = await session.connection()
    query = _tails_and_days_query(channel is not None, conn.dialect.name)
    return fold_tails_and_days(await conn.execute(query, params), now=now, timezone=timezone)


def fold_tails_and_days(rows: Iterable[Sequence[Any]], *, now: datetime, timezone: str) -> tuple[Histories, Days]:
    """The outcomes and answer days of `tails_and_days_select`'s rows (its nine columns, in its order)."""
    posts: dict[tuple[int, int], list[StreakPost]] = defaultdict(list)
    answered: dict[tuple[int, int], dict[int, tuple[datetime, bool]]] = defaultdict(dict)
    days: Days = defaultdict(set)
    for user_id, channel_id, post_id, opened_at, closes_at, closed_at, answered_at, is_correct, kind in rows:
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
    if history:
        histories, days = await _whole_histories(session, users, channel, now, timezone)
        return await _streaks(session, users, histories, days, timezone=timezone, now=now, since=None)
    since = recent_since(now)
    histories, days = await _tails_and_days(session, users, channel, now, timezone=timezone, since=since)
    return await _streaks(session, users, histories, days, timezone=timezone, now=now, since=since)


def recent_since(now: datetime) -> datetime:
    """Where a board's day streaks start reading answers (`since` of `tails_and_days_select`)."""
    return now - timedelta(days=RECENT_DAYS)


async def board_streaks(
    session: AsyncSession, users: Sequence[int], rows: Iterable[Sequence[Any]], *, timezone: str, now: datetime
) -> dict[int, tuple[Streak, Streak]]:
    """`user_streaks(..., history=False)` of `users` from `tails_and_days_select`'s rows for them (and maybe
    others), read with `since` at `recent_since(now)` by the caller (in a board's own statement)."""
    histories, days = fold_tails_and_days(rows, now=now, timezone=timezone)
    return await _streaks(session, users, histories, days, timezone=timezone, now=now, since=recent_since(now))


async def _streaks(
    session: AsyncSession,
    users: Sequence[int],
    histories: Histories,
    days: Days,
    *,
    timezone: str,
    now: datetime,
    since: datetime | None,
) -> dict[int, tuple[Streak, Streak]]:
    """Each user's streaks from their outcomes and answer days; read since `since` (None: the whole history), a
    user whose day run reaches that far has their whole history of days read (one statement more)."""
    today = local_date(now, timezone)
    day_streaks = {user: day_streak(days.get(user, ()), today) for user in users}
    long_runs = [u for u in users if since is not None and day_streaks[u].current >= RECENT_DAYS - 2]
    if long_runs:
        days.update(await _answer_days(session, long_runs, timezone, None))
        day_streaks.update({user: day_streak(days.get(user, ()), today) for user in long_runs})
    result: dict[int, tuple[Streak, Streak]] = {}
    for user in users:
        per_channel = [question_streak(outcomes) for outcomes in histories.get(user, {}).values()]
        result[user] = (best_of(per_channel), day_streaks[user])
    return result


SETTLE_MARGIN = timedelta(hours=1)
"""A checkpoint is taken at least this far behind now: an answer is stored with its click's arrival time and
committed later (a batch, a queue, another replica's clock); none can still arrive from before now minus this."""

CHECKPOINT_AGE = timedelta(days=1)
"""The scheduler settles a user's checkpoint again once it is this old and they answered since (`unsettled_query`):
a user's first `/quiz me` then reads at most this much (and SETTLE_MARGIN) of what was settled since, however long
their history."""

ADVANCE_EVERY = 2 * CHECKPOINT_AGE
"""`/quiz me` (and the Home tab) writes a checkpoint itself only once it can move on this far. The background step
settles an active user's checkpoint once it is CHECKPOINT_AGE old, off the request path, so a call mostly reads a
day or less of outcomes and writes nothing: its transaction stays read-only, with no write and no WAL flush at
commit (~1 ms of a 3.5 ms `/quiz me` at 1M answers on PostgreSQL). A user the step passes over (nothing answered
since: only the questions that closed unanswered are new) or a bot whose scheduler does not run gets one written
by their own call once it is two days behind, so a call reads at most SETTLE_MARGIN + ADVANCE_EVERY of outcomes."""


@functools.cache
def scan_end_query() -> Select[Any]:
    """The last of the next `scan` users with totals after the users.id `after` (parameters), None past the last:
    where one background pass over the users (`unsettled_query`) stops, read from user_scores' key (at most `scan`
    rows, however many answers there are)."""
    scanned = (
        select(UserScore.user_id)
        .where(UserScore.user_id > bindparam("after"))
        .order_by(UserScore.user_id)
        .limit(bindparam("scan", type_=Integer))
        .subquery("scanned")
    )
    return select(func.max(scanned.c.user_id))


@functools.cache
def unsettled_query() -> Select[Any]:
    """The users (users.id in (`after`, `until`], of workspaces on the platforms `platforms`) whose `/quiz me`
    checkpoint is missing, of another version or timezone than their workspace's, or settled before `stale`, and
    who answered since it (or ever, without a usable one) and before `settled`: what the scheduler settles in the
    background (bot/scheduling/checkpoints.py), `limit` of them in users.id order. Each row: `user_row`, the
    workspace's `timezone`, the stored checkpoint's columns as `checkpoint_*` (None without one) and `pin`
    (`unsent_pin`), what `resumed_record` starts from, as `/quiz me`'s own statement reads them.

    Bounded: a range of user_scores' key (the users `scan_end_query` found), each joined to its workspace and its
    checkpoint by key, and the test for new answers one probe of the user's answer index (user_id, answered_at)."""
    settled = bindparam("settled", type_=Answer.answered_at.type)
    usable = and_(MeCheckpoint.version == VERSION, MeCheckpoint.timezone == Workspace.timezone)
    since = case((usable, MeCheckpoint.settled_to), else_=bindparam("ever", EVER, type_=Answer.answered_at.type))
    news = (
        select(Answer.id)
        .where(Answer.user_id == UserScore.user_id, Answer.answered_at >= since, Answer.answered_at < settled)
        .correlate(UserScore, MeCheckpoint, Workspace)
        .exists()
    )
    return (
        select(
            UserScore.user_id.label("user_row"),
            Workspace.timezone,
            *stored_columns(),
            unsent_pin(UserScore.user_id).label("pin"),
        )
        .join(Workspace, Workspace.id == UserScore.workspace_id)
        .outerjoin(MeCheckpoint, MeCheckpoint.user_id == UserScore.user_id)
        .where(
            UserScore.user_id > bindparam("after"),
            UserScore.user_id <= bindparam("until"),
            Workspace.platform.in_(bindparam("platforms", expanding=True)),
            or_(
                MeCheckpoint.user_id.is_(None),
                ~usable,
                MeCheckpoint.settled_to < bindparam("stale", type_=MeCheckpoint.settled_to.type),
            ),
            news,
        )
        .order_by(UserScore.user_id)
        .limit(bindparam("limit", type_=Integer))
    )


def unsent_pin(user: ColumnElement[Any] | InstrumentedAttribute[int]) -> ColumnElement[Any]:
    """The open time of the oldest post not yet on the platform (no message reference, not closed) in any channel
    where `user` (a users.id column or parameter) answered; NULL when there is none. A checkpoint stays before it
    (the module's docstring). Read through ix_posts_channel_open (channel, closed_at, opened_at)."""
    return (
        select(func.min(Post.opened_at))
        .join(ChannelScore, ChannelScore.channel_id == Post.channel_id)
        .where(ChannelScore.user_id == user, Post.closed_at.is_(None), Post.message_ref.is_(None))
        .correlate_except(Post, ChannelScore)
        .scalar_subquery()
    )


_ANSWER, _TAGS, _MISSED = 0, 1, 2
"""What a row of `_answers_since_query` is: one of the user's answers, a question's tags, or a scheduled question
the user missed (unbounded only: `_telling_misses`)."""


@functools.cache
def _answers_since_query(bounded: bool, dialect: str) -> CompoundSelect[Any]:
    """A user's answers (all of them, or since `since`) with what their posts say: channel, source, question,
    times, and whether it reached the platform (parameters: user, since), the user's answer index giving the range;
    and in the same statement the tags of the questions of those answers and of the questions in `known` (the
    checkpoint's: a question's tags are read when shown), rows of kind _TAGS with only `question_id` and `tags`."""
    answers = select(
        Answer.post_id,
        Answer.answered_at,
        Answer.is_correct,
        Post.channel_id,
        Post.source,
        Post.question_id,
        Post.opened_at,
        Post.closes_at,
        Post.closed_at,
        Post.message_ref.is_not(None).label("sent"),
    ).join(Post, Post.id == Answer.post_id)
    mine = [Answer.user_id == bindparam("user")]
    if bounded:
        mine.append(Answer.answered_at >= bindparam("since", type_=Answer.answered_at.type))
    found = answers.where(*mine, *_by_key(Post, dialect, mine)).cte("answers_since")
    tags_type = QuestionRow.tags.type
    answer_rows = select(
        literal_column(str(_ANSWER), Integer).label("kind"), *found.c, null().cast(tags_type).label("tags")
    )

    def tags_of(*where: ColumnElement[bool]) -> Select[Any]:
        columns = [QuestionRow.id if column.key == "question_id" else null().cast(column.type) for column in found.c]
        return select(literal_column(str(_TAGS), Integer), *columns, QuestionRow.tags).where(*where)

    # Two parts, each through the questions' key (a question in both comes twice, with the same tags).
    known = tags_of(one_of(QuestionRow.id, dialect, "known"))
    asked = tags_of(QuestionRow.id.in_(select(found.c.question_id)))
    if bounded:
        return union_all(answer_rows, known, asked)
    miss, telling = _telling_misses(found, dialect)
    of_miss = {"post_id": miss.id, "channel_id": miss.channel_id}
    of_miss |= {"opened_at": miss.opened_at, "closes_at": miss.closes_at, "closed_at": miss.closed_at}
    missed = select(
        literal_column(str(_MISSED), Integer),
        *(of_miss.get(column.key, null().cast(column.type)) for column in found.c),
        null().cast(tags_type),
    ).where(telling)
    return union_all(answer_rows, known, asked, missed)


def _by_key(post: Any, dialect: str, answers: list[ColumnElement[bool]]) -> list[ColumnElement[bool]]:
    """On PostgreSQL, `post` (Post or an alias) restricted to the posts of the answers `answers` select, as
    `id = ANY(ARRAY(...))`: the posts are then looked up by their key, where a join of some hundred answers to
    posts is planned as a hash join over every post (a sequential scan that grows with the posts). Nothing
    elsewhere: SQLite looks each post up by its key already."""
    if dialect != "postgresql":
        return []
    return [among_rows(post.id, select(Answer.post_id).where(*answers))]


@functools.cache
def _missed_since_query(dialect: str) -> Any:
    """The scheduled questions of some channels (parameter: channels) that finished since `since` and by `now`
    without the user's answer (parameters: user, since, now too), through ix_posts_channel_finish and the answers'
    (post, user) key: every outcome MISSED settled since the checkpoint. (Without a checkpoint, the statement that
    reads the user's answers reads the misses that tell too: `_telling_misses`.)"""
    finish = _finish_time()
    now: BindParameter[Any] = bindparam("now", type_=Post.opened_at.type)
    answered = (
        select(Answer.id).where(Answer.post_id == Post.id, Answer.user_id == bindparam("user")).correlate(Post).exists()
    )
    columns = (Post.id.label("post_id"), *(column for column in _POST_COLUMNS if column is not Post.id))
    return select(*columns).where(
        one_of(Post.channel_id, dialect, "channels"),
        *_scheduled(),
        finish >= bindparam("since", type_=Post.opened_at.type),
        finish <= now,
        ~answered,
    )


def _telling_misses(answers: Any, dialect: str) -> tuple[Any, ColumnElement[bool]]:
    """The misses of the user's whole history that decide their question streaks (parameters: user, settled, now),
    in each channel where they answered a scheduled question (`answers`: the user's answers, `_answers_since_query`'s
    CTE), as a Post alias and the condition its rows meet: the latest miss settled before each of those answers,
    the latest settled before `settled` (where the checkpoint stands) and the latest settled by `now`.

    Why these are enough: a streak only counts right answers in a row, and a miss only breaks it, so between two of
    the user's answers in a channel what matters is whether a miss was settled there, not which or how many. If one
    was, the latest miss settled before the later answer is one of them; the latest before `settled` is one of those
    between the last answer before it and `settled` (the checkpoint's streak), and the latest by `now` one of those
    after the last answer. Every other miss falls between the same two answers as one of these, and the folds come
    to the same streaks, current and best, and the same checkpoint (tests/integration/test_me_first_call.py checks
    them against every miss).
    Each is one step down ix_posts_channel_finish from where it starts, past the user's own answers."""
    finish = _finish_time()  # of `Post`: the misses' own expression, the one ix_posts_channel_finish indexes
    now: BindParameter[Any] = bindparam("now", type_=Post.opened_at.type)
    user: BindParameter[Any] = bindparam("user")
    anchors = (
        select(answers.c.channel_id, answers.c.answered_at, answers.c.opened_at, answers.c.post_id)
        .where(answers.c.source.in_(STREAK_SOURCES), answers.c.sent.is_(True))
        .cte("anchors")
    )
    channels = select(anchors.c.channel_id).distinct().subquery("channels")

    if dialect == "postgresql":  # the user's answered posts as one array, read once (not once a candidate)
        theirs = among_rows(Post.id, select(answers.c.post_id))
    else:
        theirs = select(Answer.id).where(Answer.post_id == Post.id, Answer.user_id == user).correlate(Post).exists()

    def latest(channel: ColumnElement[Any], *before: ColumnElement[bool]) -> ColumnElement[Any]:
        return (
            select(Post.id)
            .where(Post.channel_id == channel, *_scheduled(), finish <= now, *before, ~theirs)
            .order_by(finish.desc(), Post.opened_at.desc(), Post.id.desc())
            .limit(1)
            .correlate(anchors, channels)
            .scalar_subquery()
        )

    before_answer = latest(
        anchors.c.channel_id,
        tuple_(finish, Post.opened_at, Post.id) < tuple_(anchors.c.answered_at, anchors.c.opened_at, anchors.c.post_id),
    )
    before_settled = latest(channels.c.channel_id, finish < bindparam("settled", type_=Post.opened_at.type))
    by_now = latest(channels.c.channel_id)
    found = union_all(
        select(before_answer.label("miss")).select_from(anchors),
        select(before_settled.label("miss")).select_from(channels),
        select(by_now.label("miss")).select_from(channels),
    ).subquery("telling")
    miss = aliased(Post)
    telling = select(found.c.miss)
    if dialect == "postgresql":  # looked up by key (`_by_key`), not by a hash of every post
        return miss, among_rows(miss.id, telling)
    return miss, miss.id.in_(telling)


@dataclass(frozen=True, slots=True)
class MeRecord:
    """A user's streaks and (answered, correct) counts per question now, and the checkpoint worth storing (None:
    keep the stored one)."""

    streak: Streak
    day_streak: Streak
    questions: dict[int, tuple[int, int]]
    checkpoint: Checkpoint | None
    tags: dict[int, list[str]]
    """The tags of each question in `questions`, as they are now."""


def _tally(questions: dict[int, tuple[int, int]], question: int, right: bool) -> None:
    answered, correct = questions.get(question, (0, 0))
    questions[question] = (answered + 1, correct + int(right))


def settle_point(now: datetime, pin: datetime | None) -> datetime:
    """Where a checkpoint taken now can stand: SETTLE_MARGIN before now, and not after an unsent post's open time."""
    point = now - SETTLE_MARGIN
    return point if pin is None else min(point, pin)


def _fold_channels(
    posts: dict[int, list[StreakPost]],
    answers: dict[int, dict[int, tuple[datetime, bool]]],
    starts: dict[int, Streak],
    *,
    now: datetime,
    since: datetime | None,
    settled_to: datetime,
) -> tuple[dict[int, Streak], list[Streak]]:
    """Each channel's question streak at `settled_to` (resumed from `starts`, with the outcomes settled since
    `since`), and its streak now."""
    at_checkpoint: dict[int, Streak] = {}
    current: list[Streak] = []
    for channel in sorted(set(starts) | set(answers)):
        events = settled_events(posts[channel], answers[channel], now, since=since)
        settled = question_streak((e.outcome for e in events if e.at < settled_to), start=starts.get(channel, Streak()))
        at_checkpoint[channel] = settled
        current.append(question_streak((e.outcome for e in events if e.at >= settled_to), start=settled))
    return at_checkpoint, current


async def resumed_record(
    session: AsyncSession,
    user: int,
    *,
    timezone: str,
    now: datetime,
    stored: Checkpoint | None,
    pin: datetime | None,
    advance: timedelta = ADVANCE_EVERY,
) -> MeRecord:
    """The user's question streak (the best of their channels), day streak and (answered, correct) per question, from
    `stored` (when it is usable: same timezone, not past where a checkpoint could stand now) and what was settled
    since, or from their whole history; and the checkpoint at `settle_point` to store in its place, when it moves on
    `advance` or more (the background step, which chose the user for their checkpoint's age, stores any)."""
    settled_to = settle_point(now, pin)
    base = stored if stored is not None and stored.timezone == timezone and stored.settled_to <= settled_to else None
    since = base.settled_to if base is not None else None
    params: dict[str, Any] = {"user": user} | ({} if since is None else {"since": since})
    conn = await session.connection()
    answers: dict[int, dict[int, tuple[datetime, bool]]] = defaultdict(dict)
    posts: dict[int, list[StreakPost]] = defaultdict(list)
    days_before: set[date] = set()
    days_after: set[date] = set()
    questions = dict(base.questions) if base is not None else {}
    questions_after: list[tuple[int, bool]] = []
    known = sorted(base.questions) if base is not None else []
    tags: dict[int, list[str]] = {}
    query = _answers_since_query(since is not None, conn.dialect.name)
    missed: list[Any] = []
    values = params | {"known": known} | ({} if since is not None else {"settled": settled_to, "now": now})
    for row in (await conn.execute(query, values)).all():
        if row.kind == _TAGS:
            tags[int(row.question_id)] = list(row.tags or ())
            continue
        if row.kind == _MISSED:
            missed.append(row)
            continue
        before = row.answered_at < settled_to
        (days_before if before else days_after).add(local_date(row.answered_at, timezone))
        if before:
            _tally(questions, int(row.question_id), bool(row.is_correct))
        else:
            questions_after.append((int(row.question_id), bool(row.is_correct)))
        if row.source in STREAK_SOURCES and row.sent:
            channel = int(row.channel_id)
            answers[channel][int(row.post_id)] = (row.answered_at, bool(row.is_correct))
            posts[channel].append(StreakPost(int(row.post_id), row.opened_at, row.closes_at, row.closed_at))
    starts = dict(base.channels) if base is not None else {}
    channels = sorted(set(starts) | set(answers))
    if channels and since is not None:
        query = _missed_since_query(conn.dialect.name)
        missed = list(await conn.execute(query, params | {"channels": channels, "now": now}))
    for row in missed:
        post_id = int(row.post_id)
        if post_id not in answers[int(row.channel_id)]:  # an answered one is in `posts` already
            posts[int(row.channel_id)].append(StreakPost(post_id, row.opened_at, row.closes_at, row.closed_at))
    at_checkpoint, current = _fold_channels(posts, answers, starts, now=now, since=since, settled_to=settled_to)
    folded = fold_days(days_before, base.days if base is not None else DayRun())
    checkpoint = Checkpoint(settled_to, timezone, at_checkpoint, folded, dict(questions))
    for question, right in questions_after:
        _tally(questions, question, right)
    worth_storing = base is None or settled_to - base.settled_to >= advance
    return MeRecord(
        streak=best_of(current),
        day_streak=day_streak_of(fold_days(days_after, folded), local_date(now, timezone)),
        questions=questions,
        checkpoint=checkpoint if worth_storing else None,
        tags=tags,
    )
