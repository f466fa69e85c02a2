"""Read models: leaderboards, cohort boards and a user's stats, written as queries for speed.

All-time boards read the score rollups (`user_scores`, `channel_scores`: an index scan that stops after the top
rows; a cohort's members' rows in `cohort_members`, ranked in one read). A workspace's week and month boards read
the period rollup (`period_scores`) the same way, and so does its season board (the season's rows of
`period_scores`, `season_period`); a cohort's season board joins its members to their season rows when the cohort
had started by the season's start. Channel windows,
cohort week and month, a cohort that started during the season, and any window not in scores.ROLLUP_WINDOWS, sum
`answers` in the window's [start, end) through covering indexes (an index-only range scan, bounded on both sides
for a past season). Streaks are computed for the rows shown only, in the board's own statement once its lookups are
known (`board_queries.with_streaks`).
"""

from __future__ import annotations

import functools
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import date, datetime, timedelta
from typing import Any, NamedTuple

from sqlalchemy import (
    ColumnElement,
    Select,
    and_,
    bindparam,
    func,
    select,
)
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
from sqlalchemy.orm import aliased

from bot.db.database import read_only_options
from bot.db.models import (
    Channel,
    Cohort,
    CohortMember,
    MeCheckpoint,
    QuestionRow,
    ReviewItem,
    Season,
    User,
    UserScore,
    Workspace,
)
from bot.db.problems import first_line
from bot.domain import ChannelRef, CohortBoard, CohortStanding, Leaderboard, LeaderboardRow, UserRef, UserStats
from bot.domain.ranking import Entry, rank_cohorts, rank_entries
from bot.domain.streaks import Checkpoint
from bot.domain.views import ReviewSummary, TagResult
from bot.domain.windows import Scope, Span, Window, window_span
from bot.errors import QuizError, StorageUnavailable
from bot.service.board_queries import (
    BOARD_PART,
    STREAK_PART,
    board_query,
    board_top,
    cohort_board_query,
    in_span,
    keyed_elsewhere,
    period_params,
    period_unkeyed,
    placed,
    placed_entries,
    span_params,
    with_streaks,
)
from bot.service.repositories.checkpoints import stored_checkpoint, stored_columns
from bot.service.repositories.lookups import WorkspaceRow, find_cohort, find_season, season_span
from bot.service.repositories.scores import season_period
from bot.service.scores import ROLLUP_WINDOWS
from bot.service.streak_stats import (
    CHECKPOINT_AGE,
    EVER,
    SETTLE_MARGIN,
    board_streaks,
    recent_since,
    resumed_record,
    scan_end_query,
    unsent_pin,
    unsettled_query,
    user_streaks,
)
from bot.service.uow import UnitOfWork, UnitOfWorkFactory, reading
from bot.wording import boards as board_words

log = logging.getLogger(__name__)

__all__ = ["Settled", "Stats", "in_span", "viewing"]
"""`in_span` (bot/service/board_queries.py) is read by the seasons' use cases from here too."""


@asynccontextmanager
async def viewing(factory: UnitOfWorkFactory, within: UnitOfWork | None) -> AsyncIterator[UnitOfWork]:
    """`reading`, and when the view opens its own unit of work, one that only reads: its connection starts no
    transaction of its own (`read_only_options`: no BEGIN and ROLLBACK round trips on PostgreSQL, no BEGIN
    IMMEDIATE queueing behind writers on SQLite); each statement reads committed data."""
    async with reading(factory, within) as uow:
        if within is None:
            await uow.session.connection(execution_options=read_only_options(uow.dialect))
        yield uow


@functools.cache
def _me_query() -> Select[Any, *tuple[Any, ...]]:
    """A user's workspace (id, timezone), row id and stored name, all-time totals and how many of the workspace rank
    ahead of them, their `/quiz me` checkpoint (columns `checkpoint_*`) and where a new one must stay before (`pin`,
    streak_stats.unsent_pin), their review counts (`due`, `learning`, `mastered`: as `uow.review.due`, `learning`
    and `mastered` count them, bot/service/repositories/review.py) and how many cohorts they are in (`memberships`),
    in one statement (parameters: platform, workspace, user: the platform ids; now); None columns when unknown."""
    others = aliased(UserScore)

    def count(*where: ColumnElement[bool]) -> ColumnElement[Any]:
        return (
            select(func.count())
            .select_from(others)
            .where(others.workspace_id == Workspace.id, *where)
            .correlate(Workspace, UserScore)
            .scalar_subquery()
        )

    # Three counts, each a range of ix_user_scores_board (one count of their OR scans the whole workspace's index
    # on SQLite): more points; as many and more right; as many of both in fewer answers.
    ahead = (
        count(others.points > UserScore.points)
        + count(others.points == UserScore.points, others.correct > UserScore.correct)
        + count(
            others.points == UserScore.points,
            others.correct == UserScore.correct,
            others.answered < UserScore.answered,
        )
    )
    memberships = select(func.count()).where(CohortMember.user_id == User.id).correlate(User).scalar_subquery()
    return (
        select(
            Workspace.id,
            Workspace.timezone,
            User.id.label("user_row"),
            User.display_name.label("stored_name"),
            UserScore.points,
            UserScore.correct,
            UserScore.answered,
            ahead.label("ahead"),
            *stored_columns(),
            unsent_pin(User.id).label("pin"),
            *(count.label(name) for name, count in zip(("due", "learning", "mastered"), _review_counts(), strict=True)),
            memberships.label("memberships"),
        )
        .outerjoin(User, and_(User.workspace_id == Workspace.id, User.external_id == bindparam("user")))
        .outerjoin(UserScore, UserScore.user_id == User.id)
        .outerjoin(MeCheckpoint, MeCheckpoint.user_id == User.id)
        .where(Workspace.platform == bindparam("platform"), Workspace.external_id == bindparam("workspace"))
    )


def _review_counts() -> tuple[ColumnElement[Any], ColumnElement[Any], ColumnElement[Any]]:
    """A user's (`users.id` of the enclosing statement) review items due, learning and mastered at `now` (a
    parameter), as `uow.review.due`, `learning` and `mastered` count them: three scalar subqueries over the user's
    review items."""
    live = and_(ReviewItem.retired_at.is_(None), QuestionRow.active.is_(True))
    now = bindparam("now", type_=ReviewItem.due_at.type)

    def count(*where: ColumnElement[bool]) -> ColumnElement[Any]:
        return (
            select(func.count())
            .select_from(ReviewItem)
            .join(QuestionRow, QuestionRow.id == ReviewItem.question_id)
            .where(ReviewItem.user_id == User.id, *where)
            .correlate(User)
            .scalar_subquery()
        )

    return count(live, ReviewItem.due_at <= now), count(live), count(ReviewItem.retired_at.is_not(None))


def _review_summary(me: Any) -> ReviewSummary:
    """The review counts of `_me_query`'s row."""
    return ReviewSummary(due=int(me.due or 0), learning=int(me.learning or 0), mastered=int(me.mastered or 0))


def _tag_results(questions: dict[int, tuple[int, int]], tags: dict[int, list[str]]) -> tuple[TagResult, ...]:
    """The user's answers and right answers per tag, from their (answered, correct) per question and each
    question's tags as they are now (a question with several tags counts for each), tags in order."""
    answered: Counter[str] = Counter()
    correct: Counter[str] = Counter()
    for question, (count, right) in questions.items():
        for tag in tags.get(question, ()):
            answered[tag] += count
            correct[tag] += right
    return tuple(TagResult(tag=t, answered=answered[t], correct=correct[t]) for t in sorted(answered))


class MeCohort(NamedTuple):
    """One of the user's cohorts as `/quiz me` and the home read it: row id, name, curriculum packs in order."""

    id: int
    name: str
    packs: tuple[str, ...]


@functools.cache
def _cohorts_query() -> Select[Any, Any, Any]:
    """The user's cohorts (parameter: user, a users.id), in key order."""
    return (
        select(Cohort.id, Cohort.name, Cohort.packs)
        .join(CohortMember, CohortMember.cohort_id == Cohort.id)
        .where(CohortMember.user_id == bindparam("user"))
        .order_by(Cohort.key)
    )


class MeRecordView(NamedTuple):
    """What `Stats.user_record` reads: the user's stats (named by their stored name when the reference has none),
    their answers per tag (None when the user has no totals, so none were read), their row id (None when the
    database does not know them) and their cohorts, so the home reads none of it again."""

    stats: UserStats
    tags: tuple[TagResult, ...] | None
    user_row: int | None = None
    cohorts: tuple[MeCohort, ...] = ()


async def _keep(uow: UnitOfWork, user_row: int, checkpoint: Checkpoint, *, own: bool) -> bool:
    """Store a `/quiz me` checkpoint: in the caller's unit of work (theirs to commit: `/quiz me` and the home tab
    do), or, in a view's own read-only one, committed at once. A checkpoint is a cache: when it cannot be written
    (SQLite busy with another writer, the user forgotten meanwhile) the view is still right, and the next call
    reads a little more. Whether it was stored (`Checkpoints.advance`: not over one settled as far or further)."""
    if not own:
        return await uow.checkpoints.advance(user_row, checkpoint)
    try:
        stored = await uow.checkpoints.advance(user_row, checkpoint)
        await uow.commit()
    except (StorageUnavailable, IntegrityError, OperationalError) as exc:
        # Expected now and then, and harmless: one line, no traceback in the operator's log.
        log.info("a /quiz me checkpoint was not stored: %s", first_line(getattr(exc, "orig", None) or exc))
        return False
    except DBAPIError:
        log.warning("a /quiz me checkpoint was not stored", exc_info=True)
        return False
    return stored


class Settled(NamedTuple):
    """What one background pass over the users (`Stats.settle_checkpoints`) did: the users whose checkpoint it
    stored, and the users.id the next pass starts after (past the last one, a pass starts over from the first)."""

    users: tuple[int, ...]
    after: int


class _CohortRow(NamedTuple):
    id: int
    name: str
    start_date: date
    starts_at: datetime


class _SeasonRow(NamedTuple):
    id: int
    name: str
    span: Span


_SEASON_NAMED, _SEASON_RUNNING = "named", "running"
"""How `_place_query` finds a board's season: by its key, or the one running."""


@functools.cache
def _place_query(cohort: bool, season: str | None, cohorts: bool = False) -> Select[Any, *tuple[Any, ...]]:
    """Everything a board looks up before its totals, in one statement built once per shape (parameters: platform,
    workspace, channel: the platform ids; `cohort_key` with `cohort`; `season_key` for a named season): the
    channel's workspace (id, timezone) and row id (`channel`, None if never seen), and the cohort the board names
    (`cohort_*` columns) and its season (`season_*`: named, or the running one), None when there is no such one;
    with `cohorts` (cohort vs cohort), when the workspace's latest cohort starts (`latest_cohort`, None without
    one). No row when the workspace was never seen."""
    columns: list[Any] = [Workspace.id, Workspace.timezone, Channel.id.label("channel")]
    if cohorts:  # by the platform ids, not correlated: computed once, not once a row of the board read beside it
        of = aliased(Workspace)
        latest = (
            select(func.max(Cohort.starts_at))
            .join(of, of.id == Cohort.workspace_id)
            .where(of.platform == bindparam("platform"), of.external_id == bindparam("workspace"))
            .correlate(None)
            .scalar_subquery()
        )
        columns.append(latest.label("latest_cohort"))
    if cohort:
        columns += [Cohort.id.label("cohort_id"), Cohort.name.label("cohort_name")]
        columns += [Cohort.start_date.label("cohort_start_date"), Cohort.starts_at.label("cohort_starts_at")]
    if season is not None:
        columns += [Season.id.label("season_id"), Season.name.label("season_name")]
        columns += [Season.starts_at.label("season_starts_at"), Season.ends_at.label("season_ends_at")]
        columns += [Season.ended_at.label("season_ended_at")]
    query = select(*columns).outerjoin(
        Channel, and_(Channel.workspace_id == Workspace.id, Channel.external_id == bindparam("channel"))
    )
    if cohort:
        query = query.outerjoin(
            Cohort, and_(Cohort.workspace_id == Workspace.id, Cohort.key == bindparam("cohort_key"))
        )
    if season is not None:
        which = Season.key == bindparam("season_key") if season == _SEASON_NAMED else Season.ended_at.is_(None)
        query = query.outerjoin(Season, and_(Season.workspace_id == Workspace.id, which))
    return query.where(Workspace.platform == bindparam("platform"), Workspace.external_id == bindparam("workspace"))


class _Place(NamedTuple):
    """What `_place` found: the workspace (None if never seen), the channel's row id, the cohort and the season; and
    the lookups' statement, parameters and row as read (None without one), to read them again beside a board."""

    workspace: WorkspaceRow | None
    channel: int | None
    cohort: _CohortRow | None
    season: _SeasonRow | None
    query: Select[*tuple[Any, ...]]
    params: dict[str, Any]
    seen: tuple[Any, ...] | None
    latest_cohort: datetime | None = None
    """When the workspace's latest cohort starts (read for cohort vs cohort only)."""


async def _place(
    session: AsyncSession,
    channel: ChannelRef,
    *,
    cohort: str | None = None,
    seasonal: bool = False,
    season: str | None = None,
    cohorts: bool = False,
) -> _Place:
    """A board's lookups in one statement (`_place_query`): the channel's place, the cohort named `cohort` (when
    not None) and, when `seasonal`, the season named `season` (None: the running one). A cohort or a season asked
    for and not found raises as `find_cohort` and `find_season` do (the cohort first), naming what there is."""
    which = None if not seasonal else _SEASON_RUNNING if season is None else _SEASON_NAMED
    params: dict[str, Any] = {
        "platform": channel.platform,
        "workspace": channel.workspace_id,
        "channel": channel.channel_id,
    }
    if cohort is not None:
        params["cohort_key"] = cohort.casefold()
    if which == _SEASON_NAMED and season is not None:
        params["season_key"] = season.casefold()
    query = _place_query(cohort is not None, which, cohorts)
    row = (await (await session.connection()).execute(query, params)).first()
    workspace = None if row is None else WorkspaceRow(int(row.id), row.timezone)
    found_cohort = found_season = None
    if cohort is not None:
        found_cohort = await _cohort(session, workspace.id if workspace else None, cohort, row)
    if which is not None:
        found_season = await _season(session, workspace.id if workspace else None, season, row)
    channel_row = None if row is None or row.channel is None else int(row.channel)
    seen = None if row is None else tuple(row)
    latest = row.latest_cohort if cohorts and row is not None else None
    return _Place(workspace, channel_row, found_cohort, found_season, query, params, seen, latest)


async def _cohort(session: AsyncSession, workspace: int | None, name: str, row: Any) -> _CohortRow:
    """The cohort a board names, from `_place_query`'s row (`find_cohort`, which loads the ORM entity, only to name
    the cohorts there are when there is none of that name)."""
    if row is not None and row.cohort_id is not None:
        return _CohortRow(int(row.cohort_id), row.cohort_name, row.cohort_start_date, row.cohort_starts_at)
    found = await find_cohort(session, workspace, name)
    return _CohortRow(found.id, found.name, found.start_date, found.starts_at)


async def _season(session: AsyncSession, workspace: int | None, name: str | None, row: Any) -> _SeasonRow:
    """The id, name and span (`season_span`) of the season a board names, or of the running one, from
    `_place_query`'s row (`find_season` only to say what there is when there is no such season)."""
    if row is not None and row.season_id is not None:
        span = Span(start=row.season_starts_at, end=row.season_ended_at or row.season_ends_at)
        return _SeasonRow(int(row.season_id), row.season_name, span)
    found = await find_season(session, workspace, name)
    return _SeasonRow(found.id, found.name, season_span(found))


class _Board(NamedTuple):
    """What a board reads once its lookups are known (`Stats._board`): its source and parameters (`board_top`),
    and for a period board (`period_scores`) the window and span to sum answers in when it reads empty and the
    period was keyed elsewhere (`period_unkeyed`); the timezone and channel of its streaks."""

    source: str
    params: dict[str, Any]
    period: tuple[Window, Span] | None
    timezone: str
    streak_channel: int | None


class _Warm(NamedTuple):
    """What `_warm_board` read: the board's entries, and the rows of the streaks of the users in `read`."""

    entries: list[Entry]
    streak_rows: list[Any]
    read: set[int]


async def _warm_board(
    conn: AsyncConnection, place: _Place, board: _Board, *, limit: int, now: datetime
) -> _Warm | None:
    """A board and the streaks of its first rows in one statement (`with_streaks`), with its lookups as last read;
    None when they no longer read the same (or find nothing)."""
    assert place.seen is not None
    skip, one_channel = len(place.seen), board.streak_channel is not None
    totals = placed(board_query(board.source, board.params, limit), place.query)
    statement = with_streaks(totals, skip, one_channel, conn.dialect.name)
    params = board.params | place.params | {"now": now, "since": recent_since(now), "streak_rows": limit}
    if one_channel:
        params["streak_channel"] = board.streak_channel
    rows = (await conn.execute(statement, params)).all()
    shown = [row[1:] for row in rows if row[0] == BOARD_PART]
    if not shown or tuple(shown[0][:skip]) != place.seen:
        return None
    width = len(totals.selected_columns)  # the board's columns, then whether the row's streaks were read
    read = {int(row[skip]) for row in shown if row[width]}
    streak_rows = [row[width + 2 :] for row in rows if row[0] == STREAK_PART]
    return _Warm(placed_entries(shown, skip), streak_rows, read)


def _scope_label(scope: Scope, place: _Place) -> str:
    """How a board names its scope: a cohort by its name and start."""
    if place.cohort is not None:
        return board_words.cohort_scope(place.cohort.name, place.cohort.start_date)
    return scope.value


def _named(place: _Place) -> str | None:
    """The name of a board's season, if it has one."""
    return place.season.name if place.season is not None else None


_PLACES_KEPT = 1024
"""At most this many boards' lookups are kept for reading again beside their totals (`Stats.leaderboard`)."""


class Stats:
    """Leaderboards, cohort boards and per-user stats."""

    def __init__(self, uow: UnitOfWorkFactory, *, rollups: bool = True) -> None:
        """`rollups=False` sums every board from `answers` (the plan the rollups replace: the benchmark's
        reference, with the same lookups and streaks)."""
        self.uow = uow
        self.rollups = rollups
        self._places: dict[tuple[Any, ...], _Place] = {}
        """Each board's lookups as last read (a board whose lookups found everything it needs), read again beside
        its totals in one statement and used only when they read the same again."""

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

        One statement: the board's totals and the current streaks of its first rows (`with_streaks`), with the
        lookups (the channel's place, the cohort, the season: `_place`) read beside them (`placed`) with the
        parameters their last reading gave, and used only when they read the same again; else (the first time, or
        something changed: a timezone, a season ended) they are read on their own first, then the totals, then the
        streaks of the rows shown (three statements). A row shown whose streaks the statement did not read (a
        name tied at the cut that the database orders apart) has them read apart (one statement more).
        """
        if scope is Scope.COHORTS:
            raise QuizError(board_words.cohorts_board_elsewhere())  # use cohort_board
        named = (cohort or "") if scope is Scope.COHORT else None
        key = ("leaderboard", channel, named, window is Window.SEASON, season)
        async with viewing(self.uow, within) as uow:
            session = uow.session
            conn = await session.connection()
            entries: list[Entry] | None = None
            place = self._places.get(key)
            board = None if place is None else self._board(place, scope=scope, window=window, now=now)
            warm: _Warm | None = None  # the board and its streaks, read beside the lookups as last read
            if place is not None and board is not None:  # None: kept by a board of another scope, this one empty
                warm = await _warm_board(conn, place, board, limit=limit, now=now)
                if warm is None:
                    self._places.pop(key, None)
                else:
                    entries = warm.entries
            if entries is None or place is None:
                place = await _place(session, channel, cohort=named, seasonal=window is Window.SEASON, season=season)
                board = self._board(place, scope=scope, window=window, now=now)
                if board is None:
                    return Leaderboard(
                        scope=_scope_label(scope, place), window=window.value, rows=(), season=_named(place)
                    )
                entries = await board_top(conn, board.source, board.params, limit)
                if len(self._places) >= _PLACES_KEPT:
                    self._places.clear()
                self._places[key] = place
            assert board is not None
            if board.period is not None and not entries:
                (period, span), workspace_id = board.period, board.params["scope"]
                entries = await period_unkeyed(conn, workspace_id, period, span, limit)
                warm = None  # its streaks were read for the board as it read (empty), not for these
            ranked = rank_entries(entries)[:limit]
            users = [e.user_id for _, e in ranked]
            streaks = {}
            if warm is not None:
                found = [user for user in users if user in warm.read]
                streaks = await board_streaks(session, found, warm.streak_rows, timezone=board.timezone, now=now)
            if missing := [user for user in users if user not in streaks]:  # not read beside the totals
                streaks |= await user_streaks(
                    session, missing, timezone=board.timezone, now=now, channel=board.streak_channel, history=False
                )
        rows_shown = tuple(
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
        return Leaderboard(scope=_scope_label(scope, place), window=window.value, rows=rows_shown, season=_named(place))

    def _board(self, place: _Place, *, scope: Scope, window: Window, now: datetime) -> _Board | None:
        """What a board of `scope` and `window` reads with these lookups; None for a board with nothing to read (its
        workspace or, for a channel's board, its channel never seen)."""
        found, found_season = place.cohort, place.season
        if place.workspace is None:
            return None
        (workspace_id, timezone), streak_channel = place.workspace, place.channel
        span = window_span(window, now, timezone, season=found_season.span if found_season else None)
        rollup = span.start is None and self.rollups
        if scope is not Scope.CHANNEL:
            streak_channel = None  # question streaks: the best of the user's channels
        elif streak_channel is None:
            return None
        if scope is Scope.CHANNEL:
            assert streak_channel is not None
            params = span_params(streak_channel, span)
            source = "channel_scores" if rollup else "channel_answers"
        elif scope is Scope.WORKSPACE:
            params = span_params(workspace_id, span)
            source = "user_scores" if rollup else "workspace_answers"
        else:
            assert found is not None
            params = {"scope": found.id} if rollup else span_params(found.id, span, since=found.starts_at)
            source = "cohort_members" if rollup else "cohort_answers"
        if self.rollups and found_season is not None and scope is not Scope.CHANNEL:
            # A season's rollup rows: a workspace's, or a cohort's members' when it started by the season's start
            # (one that started later counts only its members' answers since its own start: summed from answers).
            keyed = {"period": season_period(found_season.id), "start": found_season.span.start}
            if found is None:
                return _Board("season_scores", {"scope": workspace_id, **keyed}, None, timezone, streak_channel)
            if found_season.span.start is not None and found.starts_at <= found_season.span.start:
                return _Board("cohort_season_scores", {"scope": found.id, **keyed}, None, timezone, streak_channel)
        elif scope is Scope.WORKSPACE and not rollup and self.rollups and window in ROLLUP_WINDOWS:
            params = period_params(workspace_id, window, span)
            return _Board("period_scores", params, (window, span), timezone, streak_channel)
        return _Board(source, params, None, timezone, streak_channel)

    async def cohort_board(
        self,
        channel: ChannelRef,
        *,
        window: Window,
        now: datetime,
        season: str | None = None,
        within: UnitOfWork | None = None,
    ) -> CohortBoard:
        """Cohorts of the channel's workspace ranked by points per active member (members who answered).

        One statement: the lookups (`_place`) are read beside the board as `leaderboard` reads them."""
        key = ("cohorts", channel, window is Window.SEASON, season)
        async with viewing(self.uow, within) as uow:
            session = uow.session
            conn = await session.connection()
            found: list[Any] | None = None
            place = self._places.get(key)
            if place is not None:
                query, params, summed = self._cohorts(place, window=window, now=now)
                assert place.seen is not None
                rows = (await conn.execute(placed(query, place.query), params | place.params)).all()
                if rows and tuple(rows[0][: len(place.seen)]) == place.seen:
                    found = [row[len(place.seen) :] for row in rows if row[len(place.seen)] is not None]
                else:
                    self._places.pop(key, None)
            if found is None or place is None:
                place = await _place(session, channel, seasonal=window is Window.SEASON, season=season, cohorts=True)
                if place.workspace is None:
                    return CohortBoard(window=window.value, rows=())
                query, params, summed = self._cohorts(place, window=window, now=now)
                found = list((await conn.execute(query, params)).all())
                if len(self._places) >= _PLACES_KEPT:
                    self._places.clear()
                self._places[key] = place
            if summed is not None and (found[0][6] if found else await keyed_elsewhere(conn, params)):
                found = list((await conn.execute(*summed)).all())  # the period's rows are keyed elsewhere
        standings = [
            CohortStanding(
                rank=0,
                name=name,
                members=int(size or 0),
                active=int(active),
                points=int(points or 0),
                correct=int(correct or 0),
                answered=int(answered or 0),
            )
            for name, size, active, points, correct, answered, *_ in found
            if active
        ]
        return CohortBoard(window=window.value, rows=tuple(rank_cohorts(standings)), season=_named(place))

    def _cohorts(
        self, place: _Place, *, window: Window, now: datetime
    ) -> tuple[Select[*tuple[Any, ...]], dict[str, Any], tuple[Select[*tuple[Any, ...]], dict[str, Any]] | None]:
        """The statement and parameters of cohort vs cohort with these lookups (a workspace found); for a period's
        rollup rows, also the statement and parameters that sum every cohort's answers instead, when they say the
        period's rows were keyed elsewhere (`cohort_board_query`)."""
        assert place.workspace is not None
        workspace_id, timezone = place.workspace
        found_season = place.season
        span = window_span(window, now, timezone, season=found_season.span if found_season else None)
        rollup = span.start is None and self.rollups
        params = span_params(workspace_id, span)
        # Whether a cohort starts after the window's (a season's, a period's) start: only then is a branch summing
        # its members' answers part of the statement.
        late = span.start is None or place.latest_cohort is None or place.latest_cohort > span.start
        from_season = self.rollups and found_season is not None
        if from_season:
            assert found_season is not None
            params["period"] = season_period(found_season.id)
        elif self.rollups and window in ROLLUP_WINDOWS and span.start is not None and span.end is None:
            summed = cohort_board_query(False, True, False), params
            rows = period_params(workspace_id, window, span)  # the period's rollup rows (`period_scores`)
            return cohort_board_query(False, True, False, season=True, period=True, late=late), rows, summed
        return cohort_board_query(rollup, "start" in params, "end" in params, from_season, late=late), params, None

    async def settle_checkpoints(
        self,
        *,
        now: datetime,
        platforms: list[str],
        after: int = 0,
        scan: int = 1000,
        limit: int = 50,
        age: timedelta = CHECKPOINT_AGE,
        budget: float | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> Settled:
        """Settle, in the background, the `/quiz me` checkpoints of up to `limit` users among the next `scan` with
        totals after the users.id `after` (of workspaces on `platforms`): those whose checkpoint is missing, unusable
        (another version or timezone) or settled more than `age` before `now`, and who answered since it and before
        where a checkpoint can stand now (`streak_stats.unsettled_query`). Each is what `/quiz me` itself computes
        and stores (`resumed_record` from the stored checkpoint and the user's pin, `_keep`): the same fold, the
        same guarded write, so a `/quiz me` of the same user at the same time keeps whichever settled further.

        Statements: where the pass stops (a range of user_scores' key), the users to settle with what each starts
        from (one), then per user what `/quiz me` reads (one or two) and the checkpoint's write, each user in a
        read-only unit of work of their own (`viewing`), so on SQLite no write lock is held while a history is
        read. With a `budget` (seconds of `monotonic`), no further user is started once it is spent: the pass goes
        on after the last user settled, so a tick's share of the event loop and the database stays bounded while
        long histories are first folded (at 10M answers, ~40 ms a user)."""
        started = monotonic()
        async with viewing(self.uow, None) as uow:
            conn = await uow.session.connection()
            until = (await conn.execute(scan_end_query(), {"after": after, "scan": scan})).scalar()
            if until is None and after:  # past the last user: this pass starts over
                after = 0
                until = (await conn.execute(scan_end_query(), {"after": after, "scan": scan})).scalar()
            if until is None:
                return Settled((), 0)
            params = {
                "after": after,
                "until": until,
                "platforms": platforms,
                "settled": now - SETTLE_MARGIN,
                "ever": EVER,
                "stale": now - age,
                "limit": limit,
            }
            rows = (await conn.execute(unsettled_query(), params)).all()
        settled: list[int] = []
        for done, row in enumerate(rows):
            if done and budget is not None and monotonic() - started >= budget:
                return Settled(tuple(settled), int(rows[done - 1].user_row))
            user_row = int(row.user_row)
            async with viewing(self.uow, None) as uow:
                stored = stored_checkpoint(row)
                # Chosen for its checkpoint's age (`unsettled_query`): any move on is stored, however short.
                record = await resumed_record(
                    uow.session,
                    user_row,
                    timezone=row.timezone,
                    now=now,
                    stored=stored,
                    pin=row.pin,
                    advance=timedelta(0),
                )
                if record.checkpoint is not None and await _keep(uow, user_row, record.checkpoint, own=True):
                    settled.append(user_row)
        next_after = int(rows[-1].user_row) if len(rows) >= limit else int(until)
        return Settled(tuple(settled), next_after)

    async def user_stats(self, user: UserRef, *, now: datetime, within: UnitOfWork | None = None) -> UserStats:
        """A user's all-time record in their workspace: totals, rank, streaks, review, cohorts, missed topics."""
        return (await self.user_record(user, now=now, within=within)).stats

    async def user_record(self, user: UserRef, *, now: datetime, within: UnitOfWork | None = None) -> MeRecordView:
        """`user_stats`, and the user's answers and right answers per tag (the home's weakest topics), both from
        their `/quiz me` checkpoint and what was settled since (bot/service/streak_stats.py), with the user's row id
        and cohorts. A reference without a name gets the stored one. Statements: the user's row with totals, rank,
        checkpoint and review counts (`_me_query`), their cohorts (only when they are in one), what was settled
        since the checkpoint with their questions' tags (one or two), the checkpoint moved on."""
        async with viewing(self.uow, within) as uow:
            session = uow.session
            conn = await session.connection()
            params = {"platform": user.platform, "workspace": user.workspace_id, "user": user.user_id, "now": now}
            me = (await conn.execute(_me_query(), params)).first()
            empty = UserStats(name=user.display_name, answered=0, correct=0, points=0, rank=None)
            if me is None or me.user_row is None:
                return MeRecordView(empty, None)
            name = user.display_name or me.stored_name or user.display_name
            timezone, user_row = me.timezone, int(me.user_row)
            found: tuple[MeCohort, ...] = ()
            if me.memberships:
                rows = await conn.execute(_cohorts_query(), {"user": user_row})
                found = tuple(MeCohort(int(id_), cohort_name, tuple(packs or ())) for id_, cohort_name, packs in rows)
            cohorts = tuple(cohort.name for cohort in found)
            if me.points is None:
                unscored = UserStats(name=name, answered=0, correct=0, points=0, rank=None, cohorts=cohorts)
                return MeRecordView(unscored, None, user_row, found)
            stored = stored_checkpoint(me)
            record = await resumed_record(session, user_row, timezone=timezone, now=now, stored=stored, pin=me.pin)
            tags = _tag_results(record.questions, record.tags)
            missed = [(t.tag, t.answered - t.correct) for t in tags if t.correct < t.answered]
            streaks = (record.streak, record.day_streak)
            review = _review_summary(me)
            if record.checkpoint is not None:
                await _keep(uow, user_row, record.checkpoint, own=within is None)
        stats = UserStats(
            name=name,
            answered=int(me.answered),
            correct=int(me.correct),
            points=int(me.points),
            rank=int(me.ahead) + 1,
            missed_tags=tuple(sorted(missed, key=lambda item: (-item[1], item[0]))[:3]),
            streak=streaks[0].current,
            best_streak=streaks[0].best,
            day_streak=streaks[1].current,
            best_day_streak=streaks[1].best,
            review_due=review.due,
            review_learning=review.learning,
            review_mastered=review.mastered,
            cohorts=cohorts,
        )
        return MeRecordView(stats, tags, user_row, found)
