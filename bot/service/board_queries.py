"""The statements of the boards a read model ranks (bot/service/stats.py): each board's totals from a rollup or
summed from answers, its top rows and ties at the cut, built once per shape with bound parameters, so a board
builds and compiles nothing per call. Split out of stats.py.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import (
    BindParameter,
    Boolean,
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
    true,
    union_all,
)
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.orm import aliased

from bot.db.models import Answer, ChannelScore, Cohort, CohortMember, PeriodScore, User, UserScore
from bot.domain.ranking import Entry
from bot.domain.windows import Span, Window
from bot.service.repositories.lookups import among_rows
from bot.service.streak_stats import tails_and_days_select

PERIOD_SLACK = timedelta(hours=27)
"""Two timezones' starts of the same local period are less than this apart (UTC offsets span 26 hours); the
starts of two periods of one window, at least a week."""


_ROLLUPS = ("user_scores", "channel_scores", "period_scores", "season_scores")
"""Sources of a board's totals that are rollups read in board order through their index (ix_*_board); the others
are ranked in SQL: sums of answers, a cohort's members' rows (`cohort_members`: no index in board order, so each
of the cut's three reads sorted every member, where a rank sorts them once) and their season rows
(`cohort_season_scores`)."""

_KEYED = ("period_scores", "season_scores", "cohort_season_scores")
"""Sources read by their rollup rows' key (`period`, `start`), not by bounds on `answers.answered_at`."""


def _keyed_elsewhere() -> list[Select[Any]]:
    """Rows of the same period of a workspace keyed at another start than the period's (parameters: scope, period,
    start, and the bounds around it): keyed in another timezone (the workspace's timezone was changed). If there is
    one, the period's rollup rows are not the period's totals.

    Two queries, one a range on each side of `start`: one range with `!= start` would read every row keyed at
    `start` (every user of the period) to skip them, and SQLite reads an OR of two ranges as no range at all.
    """
    keyed = (PeriodScore.workspace_id == bindparam("scope"), PeriodScore.period == bindparam("period"))
    start: BindParameter[Any] = bindparam("start")
    before = and_(PeriodScore.period_start > bindparam("slack_from"), PeriodScore.period_start < start)
    after = and_(PeriodScore.period_start > start, PeriodScore.period_start < bindparam("slack_to"))
    return [select(PeriodScore.user_id).where(*keyed, side).limit(1) for side in (before, after)]


@functools.cache
def _keyed_elsewhere_query() -> Select[Any]:
    """Whether a period has rows keyed elsewhere (`_keyed_elsewhere`), as one statement."""
    return select(or_(*(side.exists() for side in _keyed_elsewhere())))


def period_params(workspace_id: int, window: Window, span: Span) -> dict[str, Any]:
    """The parameters of a workspace's board in the current period of a rollup window (`period_scores`)."""
    assert span.start is not None
    return {
        "scope": workspace_id,
        "period": window.value,
        "start": span.start,
        "slack_from": span.start - PERIOD_SLACK,
        "slack_to": span.start + PERIOD_SLACK,
    }


async def period_unkeyed(
    conn: AsyncConnection, workspace_id: int, window: Window, span: Span, limit: int
) -> list[Entry]:
    """What a period's board that read empty from `period_scores` shows: nothing, unless some of the period's rows
    were keyed elsewhere (another timezone), when it is summed from answers.

    The check is a one-time NOT EXISTS inside the board's own statement (`_board_query`): a period keyed elsewhere
    reads as an empty board, and only an empty board costs this second statement to tell the two apart.
    """
    if not (await conn.execute(_keyed_elsewhere_query(), period_params(workspace_id, window, span))).scalar():
        return []
    return await board_top(conn, "workspace_answers", span_params(workspace_id, span), limit)


def correct_count() -> ColumnElement[Any]:
    return func.sum(case((Answer.is_correct, 1), else_=0))


def in_span(span: Span, *, since: datetime | None = None) -> list[ColumnElement[bool]]:
    """The conditions on `answers.answered_at` of a span (starting no earlier than `since`, if given); none for an
    unbounded span (all time) without `since`."""
    starts = [at for at in (span.start, since) if at is not None]
    conditions = [Answer.answered_at >= max(starts)] if starts else []
    if span.end is not None:
        conditions.append(Answer.answered_at < span.end)
    return conditions


def span_params(scope: int, span: Span, *, since: datetime | None = None) -> dict[str, Any]:
    """The parameters of a board summing answers (`_totals`): its scope's row id and the bounds of the window (from
    no earlier than `since`, if given), only those it has."""
    starts = [at for at in (span.start, since) if at is not None]
    params: dict[str, Any] = {"scope": scope}
    if starts:
        params["start"] = max(starts)
    if span.end is not None:
        params["end"] = span.end
    return params


def _windowed_totals(conditions: Sequence[ColumnElement[bool]]) -> Select[Any, Any, Any, Any]:
    return (
        select(
            Answer.user_id.label("user_id"),
            func.sum(Answer.points).label("points"),
            correct_count().label("correct"),
            func.count().label("answered"),
        )
        .where(and_(*conditions))
        .group_by(Answer.user_id)
    )


def _totals(source: str, start: bool, end: bool) -> Select[Any, Any, Any, Any]:
    """The totals (user_id, points, correct, answered) of a board's source, with bound parameters: `scope` (the
    workspace, channel or cohort row id); `period` and `start` for the sources keyed by period (`_KEYED`: a period's
    rows, a season's, a cohort's members' rows of a season); `start` and `end` for a source summing answers when
    `start` / `end` are set."""
    scope: BindParameter[Any] = bindparam("scope")
    if source == "user_scores":
        return select(UserScore.user_id, UserScore.points, UserScore.correct, UserScore.answered).where(
            UserScore.workspace_id == scope
        )
    if source == "channel_scores":
        return select(ChannelScore.user_id, ChannelScore.points, ChannelScore.correct, ChannelScore.answered).where(
            ChannelScore.channel_id == scope
        )
    if source == "cohort_members":
        return select(CohortMember.user_id, CohortMember.points, CohortMember.correct, CohortMember.answered).where(
            CohortMember.cohort_id == scope, CohortMember.answered > 0
        )
    if source in _KEYED:
        period = (PeriodScore.period == bindparam("period"), PeriodScore.period_start == bindparam("start"))
        rows = select(PeriodScore.user_id, PeriodScore.points, PeriodScore.correct, PeriodScore.answered)
        if source == "cohort_season_scores":  # its members' season rows, one primary key lookup each
            members = CohortMember.cohort_id == scope
            return rows.join(CohortMember, CohortMember.user_id == PeriodScore.user_id).where(members, *period)
        return rows.where(PeriodScore.workspace_id == scope, *period)
    conditions: list[ColumnElement[bool]] = [
        {
            "workspace_answers": Answer.workspace_id == scope,
            "channel_answers": Answer.channel_id == scope,
            "cohort_answers": Answer.user_id.in_(select(CohortMember.user_id).where(CohortMember.cohort_id == scope)),
        }[source]
    ]
    if start:
        conditions.append(Answer.answered_at >= bindparam("start"))
    if end:
        conditions.append(Answer.answered_at < bindparam("end"))
    return _windowed_totals(conditions)


FLOOR = -(2**31)
"""Below any total (what a missing cut compares as: a board shorter than its limit shows every row)."""


@functools.cache
def _board_query(source: str, start: bool, end: bool, limit: int) -> Select[Any, Any, Any, Any, Any]:
    """The top `limit` users of a source's totals (`_totals`), plus everyone tied at the cut, with their names:
    built once per shape, with bound parameters, so a board builds and compiles nothing.

    Ties at the cut are always fetched whole, so who makes the board never depends on the database's sort order.
    A rollup is read in board order through its index (ix_*_board is in that order): the cut is the limit-th row's
    totals, read from the top of the index, and the rows at or above it are a range of the same index (points >=
    the cut's), in one statement however long a tie. An aggregate over answers is ranked in SQL instead (RANK() <=
    limit), so the answers are summed once. Names are joined in the same statement (plain rows, no ORM entities).
    A period's board (`period_scores`) also checks that no row of the period was keyed elsewhere
    (`_keyed_elsewhere`): a condition of no row, on the outer query only, so the cut's subqueries do not repeat it.
    A season's (`season_scores`) does not: its rows are keyed by the season itself, whatever the timezone.
    """
    sub = _totals(source, start, end).subquery()
    key = (sub.c.points.desc(), sub.c.correct.desc(), sub.c.answered)
    columns = (sub.c.user_id, sub.c.points, sub.c.correct, sub.c.answered)
    if source not in _ROLLUPS:
        ranked = select(*columns, func.rank().over(order_by=key).label("place")).subquery()
        return _named(
            select(ranked.c.user_id, ranked.c.points, ranked.c.correct, ranked.c.answered), ranked.c.user_id
        ).where(ranked.c.place <= limit)

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
    if source == "period_scores":
        query = query.where(and_(*(~side.exists() for side in _keyed_elsewhere())))
    return query


def board_query(source: str, params: dict[str, Any], limit: int) -> Select[Any, Any, Any, Any, Any]:
    """The statement of a board of `source` with these parameters (`_board_query`)."""
    keyed = source in _KEYED
    return _board_query(source, "start" in params and not keyed, "end" in params and not keyed, limit)


async def board_top(conn: AsyncConnection, source: str, params: dict[str, Any], limit: int) -> list[Entry]:
    """The top of a board (`_board_query`) of `source` with these parameters."""
    return [_entry(row) for row in await conn.execute(board_query(source, params, limit), params)]


@functools.cache
def placed(board: Select[*tuple[Any, ...]], place: Select[*tuple[Any, ...]]) -> Select[*tuple[Any, ...]]:
    """A board's statement and its lookups' as one (the parameters of both): the lookups' row (`place`, at most
    one) beside each of the board's rows, an outer join on true, so the lookups' row comes back alone when the
    board is empty and nothing comes back when they find nothing. Built once per pair of statements."""
    found, rows = place.subquery("place"), board.subquery("board")
    return select(*found.c, *rows.c).select_from(found.outerjoin(rows, true()))


BOARD_PART, STREAK_PART = 0, 1
"""The first column of a `with_streaks` row: a row of the board (`placed`'s columns next, then whether its user's
streaks were read), or of its streaks (`streak_stats.tails_and_days_select`'s nine columns last)."""


@functools.cache
def with_streaks(board: Select[*tuple[Any, ...]], skip: int, one_channel: bool, dialect: str) -> CompoundSelect[Any]:
    """A board (`placed`: its lookups' columns, `skip` of them, then its rows) and the current streaks of the users
    of its first `streak_rows` rows (`tails_and_days_select`) as one statement, so a board is one round trip and one
    statement (parameters: the board's, `now`, `since`, `streak_rows`, the board's limit, and `streak_channel` when
    `one_channel`, the channel of the question streaks). The board is a CTE its streaks read their users from (as
    one array on PostgreSQL, `among_rows`: key lookups, not a hash of the tables); its rows come first, each with
    whether its user's streaks were read, each part's columns NULL in the other's rows (`BOARD_PART`, `STREAK_PART`).

    The first rows are in board order, ties by name as `rank_entries` breaks them (lower-case, then as written, then
    the user's id; byte order, where Python's `casefold` and the database's `lower` agree: ASCII), so the rows
    shown are the rows whose streaks were read; where they are not (a name the two fold apart, tied at the cut), the
    flag says so and the caller reads those users' streaks apart. Built once per shape."""
    shown = board.cte("shown")
    user_id, points, correct, answered, name = list(shown.c)[skip : skip + 5]
    named: ColumnElement[Any] = func.coalesce(name, "?")
    if dialect == "postgresql":
        named = named.collate("C")
    order = (points.desc(), correct.desc(), answered, func.lower(named), named, user_id)
    users = select(user_id).where(user_id.is_not(None)).order_by(*order).limit(bindparam("streak_rows"))

    def of_users(column: Any) -> ColumnElement[bool]:
        if dialect == "postgresql":
            return among_rows(column, users)
        return cast(ColumnElement[bool], column.in_(users))

    streaks = tails_and_days_select(of_users, "streak_channel" if one_channel else None, dialect).subquery("streaks")
    read = of_users(user_id).label("streaks_read")
    return union_all(
        select(literal_column(str(BOARD_PART), Integer), *shown.c, read, *(null().cast(c.type) for c in streaks.c)),
        select(
            literal_column(str(STREAK_PART), Integer),
            *(null().cast(c.type) for c in shown.c),
            null().cast(Boolean),
            *streaks.c,
        ),
    )


def placed_entries(rows: Sequence[Any], skip: int) -> list[Entry]:
    """The board's entries of `placed` rows, whose first `skip` columns are the lookups'."""
    return [_entry(row[skip:]) for row in rows if row[skip] is not None]


def _named(query: Select[Any, Any, Any, Any], user_id: ColumnElement[Any]) -> Select[Any, Any, Any, Any, Any]:
    """`query` with the user's display name as a fifth column: a primary key lookup per row shown. Not an outer
    join: PostgreSQL cannot tell how few rows a board keeps (a rank or a cut), so it planned one as a hash join over
    every user of the table (a sequential scan of `users`, most of a board's time at 10,000 users)."""
    name = select(User.display_name).where(User.id == user_id).scalar_subquery()
    return query.add_columns(name.label("display_name"))


def _entry(row: Any) -> Entry:
    return Entry(int(row[0]), row[4] or "?", int(row[1]), int(row[2]), int(row[3]))


def _members_answers(window: list[ColumnElement[bool]]) -> Select[Any, Any, Any, Any, Any, Any]:
    """Each cohort of the workspace (parameter: scope) with its members' answers in `window` summed."""
    return (
        select(
            CohortMember.cohort_id.label("cohort_id"),
            func.count(func.distinct(Answer.user_id)).label("active"),
            func.sum(Answer.points).label("points"),
            correct_count().label("correct"),
            func.count().label("answered"),  # not count(answers.id): the id is not in the user index, the rest is
        )
        .join(Answer, Answer.user_id == CohortMember.user_id)
        .join(Cohort, Cohort.id == CohortMember.cohort_id)
        .where(Cohort.workspace_id == bindparam("scope"), *window)
        .group_by(CohortMember.cohort_id)
    )


@functools.cache
def cohort_board_query(
    rollup: bool, start: bool, end: bool, season: bool = False, period: bool = False, *, late: bool = True
) -> Select[Any, Any, Any, Any, Any, Any]:
    """Cohort vs cohort in one statement, built once per shape (parameters: scope, the workspace's row id; start
    and end when set): each cohort with answers (name, members, active members, points, correct, answered), from
    the members' rollups (`rollup`, all time) or summed from their answers in the window since the cohort's start.
    A season's (`season`; parameters also `period`, the season's rows, and `start`, its start) joins the members of
    the cohorts that had started by the season's start to their season rows, and sums the answers of the others.
    A week's or a month's (`period`, with `season`; parameters as `period_params` gives them) does the same with
    the period's rollup rows (`period_scores`), and says in a seventh column (`elsewhere`, computed once) whether
    some of the period's rows were keyed elsewhere (the workspace's timezone changed, `_keyed_elsewhere`): then
    the rows are not the period's, and the caller sums every cohort's answers (`cohort_board_query(False, True,
    False)`; an empty board asks `keyed_elsewhere`). That sum was a third branch of the statement, behind a one-time
    filter: never read, but planned, and its cost for an unknown `start` kept PostgreSQL on custom plans.

    Without `late` (no cohort of the workspace starts after `start`, as the caller read it), a season's or a
    period's statement leaves out the branch that sums the answers of the cohorts started later: it reads nothing
    then, but its cost is planned. On PostgreSQL that kept the statement on custom plans, planned at every call, at
    10M answers (with the branch, the generic plan's estimate for an unknown `start` is 30 times the custom one's),
    where at 1M PostgreSQL settles on a generic plan after five calls: 1 ms of planning that grew with the table.
    """
    workspace: BindParameter[Any] = bindparam("scope")
    if rollup:
        totals = (
            select(
                CohortMember.cohort_id.label("cohort_id"),
                func.count(CohortMember.user_id).label("active"),
                func.sum(CohortMember.points).label("points"),
                func.sum(CohortMember.correct).label("correct"),
                func.sum(CohortMember.answered).label("answered"),
            )
            .join(Cohort, Cohort.id == CohortMember.cohort_id)
            .where(Cohort.workspace_id == workspace, CohortMember.answered > 0)
            .group_by(CohortMember.cohort_id)
        )
    else:
        window = [Answer.answered_at >= Cohort.starts_at]
        if start:
            window.append(Answer.answered_at >= bindparam("start"))
        if end:
            window.append(Answer.answered_at < bindparam("end"))
        if season:
            window.append(Cohort.starts_at > bindparam("start"))  # the others read their season rows (below)
        totals = _members_answers(window)
    if season:
        season_rows = and_(
            PeriodScore.user_id == CohortMember.user_id,
            PeriodScore.period == bindparam("period"),
            PeriodScore.period_start == bindparam("start"),
        )
        from_rows = (
            select(
                CohortMember.cohort_id.label("cohort_id"),
                func.count(PeriodScore.user_id).label("active"),
                func.sum(PeriodScore.points).label("points"),
                func.sum(PeriodScore.correct).label("correct"),
                func.sum(PeriodScore.answered).label("answered"),
            )
            .join(Cohort, Cohort.id == CohortMember.cohort_id)
            .join(PeriodScore, season_rows)
            .where(Cohort.workspace_id == workspace, Cohort.starts_at <= bindparam("start"))
            .group_by(CohortMember.cohort_id)
        )
        found = union_all(from_rows, totals).subquery() if late else from_rows.subquery()
    else:
        found = totals.subquery()
    members = aliased(CohortMember)
    size = select(func.count()).select_from(members).where(members.cohort_id == Cohort.id).scalar_subquery()
    query = (
        select(Cohort.name, size, found.c.active, found.c.points, found.c.correct, found.c.answered)
        .select_from(found)
        .join(Cohort, Cohort.id == found.c.cohort_id)
    )
    if period:
        query = query.add_columns(_keyed_elsewhere_query().scalar_subquery().label("elsewhere"))
    return query


async def keyed_elsewhere(conn: AsyncConnection, params: dict[str, Any]) -> bool:
    """Whether some rows of a workspace's period (`period_params`) were keyed at another start (`_keyed_elsewhere`)."""
    return bool((await conn.execute(_keyed_elsewhere_query(), params)).scalar())
