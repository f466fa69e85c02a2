"""Score rollups, kept in step with `answers` inside the transaction that records the answer.

All-time boards read these rollups (an index scan of at most one row per user) instead of summing every answer;
a workspace's week and month boards read the period rollup (`period_scores`: a user's totals in the period of
each window in ROLLUP_WINDOWS that contains the answer, in the workspace's timezone) the same way, and its season
boards the rows of each season that contains the answer (`season_period`, written by the same statement).
bench/leaderboard_queries.py measures both against the plain GROUP BY over answers.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any, cast

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Integer,
    Interval,
    Select,
    String,
    Table,
    and_,
    bindparam,
    case,
    func,
    literal,
    or_,
    select,
    true,
    union_all,
    update,
)
from sqlalchemy import cast as sql_cast
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import (
    Answer,
    Base,
    ChannelScore,
    Cohort,
    CohortMember,
    PeriodScore,
    Post,
    ReviewItem,
    Season,
    UserScore,
    UTCDateTime,
)
from bot.domain import ranking
from bot.domain.leitner import BOX_INTERVALS
from bot.domain.windows import Window, window_start
from bot.service.repositories.directory import insert_for
from bot.service.repositories.lookups import json_rows, one_of, postgresql_array

COUNTERS = ("points", "correct", "answered")
"""The totals every rollup row keeps."""

ROLLUP_WINDOWS: tuple[Window, ...] = (Window.WEEK, Window.MONTH)
"""Windows whose boards read period rollups. A window added to bot.domain.windows is summed from answers until it
is listed here, with a migration that fills its rows for the current periods (as 0008 does for these)."""


SEASON_PERIOD = "season:"
"""The `period` of a season's rollup rows is this and the season's id (`season_period`), their `period_start` the
season's `starts_at`: keyed by the season, so two seasons never share rows, whatever their starts."""


def season_period(season_id: int) -> str:
    """The `period` of the rollup rows of this season."""
    return f"{SEASON_PERIOD}{season_id}"


def season_period_of(season: Any) -> ColumnElement[str]:
    """`season_period` in SQL, of a seasons table's row (the model, or an alias of it)."""
    return literal(SEASON_PERIOD, String()) + sql_cast(season.id, String())


def in_season(season: Any, answered_at: Any) -> ColumnElement[bool]:
    """Whether an answer given at `answered_at` counts in the season (a seasons row): in [starts_at, end), its end
    being when it ended or, while it runs, its planned end (`season_span`'s), so an answer given after a planned end
    that the ticker has not noticed yet is never taken."""
    end = func.coalesce(season.ended_at, season.ends_at)
    return and_(season.starts_at <= answered_at, or_(end.is_(None), answered_at < end))


def _season_rows(in_batch: ColumnElement[bool], answer: Any = Answer) -> Select[Any]:
    """The batch's sums per user in each season of its workspace that contains the answer: the season branch of the
    `periods` statement (columns as its other branches: user, period, period_start, workspace, COUNTERS). `answer`
    is where the batch's rows are read: the answers table (the model), or the columns of the rows just inserted."""
    return (
        select(
            answer.user_id,
            season_period_of(Season).label("period"),
            Season.starts_at.label("period_start"),
            answer.workspace_id,
            *counter_sums(answer),
        )
        .join(Season, and_(Season.workspace_id == answer.workspace_id, in_season(Season, answer.answered_at)))
        .where(in_batch)
        .group_by(answer.user_id, Season.id, Season.starts_at, answer.workspace_id)
    )


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
    """What the rollups need to know about an answer that was just inserted (the rest they read from its row)."""

    answer_id: int
    user_id: int
    correct: bool
    points: int
    answered_at: datetime
    timezone: str
    """The IANA timezone of the answer's workspace, which its week and month start in."""


def counter_sums(answer: type[Answer] | Any) -> tuple[ColumnElement[Any], ...]:
    """The counters of a group of answer rows, in COUNTERS order."""
    return (
        func.sum(answer.points),
        func.sum(case((answer.is_correct, 1), else_=0)),
        func.count(),
    )


def _in_batch(column: Any, dialect: str, name: str = "ids") -> ColumnElement[bool]:
    """Rows whose `column` is one of the `name` parameter (`batch_parameter`): one array parameter on PostgreSQL
    (`one_of`); on SQLite one JSON text read by `json_each`, so the statement has one text whatever the batch's size:
    SQLAlchemy does not expand a list into a parameter a value at each execution (measured: ~5% of the click
    path's Python on SQLite, six statements a batch of 200 ids each) and SQLite finds it in its statement cache."""
    if dialect == "postgresql":
        return one_of(column, dialect, name)
    return cast(ColumnElement[bool], column.in_(select(json_rows(name).c.value)))


def batch_parameter(dialect: str, ids: Sequence[int]) -> Any:
    """The value of an `_in_batch` parameter: the ids as a list (PostgreSQL's array), or as JSON text (SQLite)."""
    return list(ids) if dialect == "postgresql" else json.dumps(list(ids))


@lru_cache(maxsize=4)
def _statements(dialect: str) -> dict[str, Any]:
    """The batch's rollup statements, built once per dialect (SQLAlchemy then reuses their compiled form), reading
    the batch's new answer rows by id (`_pieces`), and the read of which of their users are in a cohort."""
    in_batch = _in_batch(Answer.id, dialect)  # the answer rows of this batch (or of part of it)
    return {
        "in_cohorts": select(CohortMember.user_id)
        .where(CohortMember.user_id.in_(select(Answer.user_id).where(in_batch)))
        .distinct()
        .order_by(CohortMember.user_id),
        **_pieces(dialect, Answer, in_batch, bindparam("due", type_=UTCDateTime())),
    }


def _pieces(dialect: str, answer: Any, in_batch: ColumnElement[bool], due: ColumnElement[Any]) -> dict[str, Any]:
    """The batch's rollup upserts: `users`, `channels`, `periods` (every rollup window's period and the seasons)
    and `review` (the misses' review boxes, due at `due`).

    Each reads the batch's answer rows, the rows of `answer` that are `in_batch` (the answers table by the batch's
    ids; or, on PostgreSQL, the columns of the answers INSERT's RETURNING, `_recorded_with_effects`), and adds their
    sums per key in one INSERT .. SELECT .. ON CONFLICT DO UPDATE: no row of parameters goes through Python, and
    the rows are grouped by key (one INSERT may not update the same row twice) in key order (so concurrent batches
    lock rows in the same order).
    """

    def add_sums(
        model: type[Base],
        keys: list[str],
        columns: Sequence[Sequence[Any]],
        group: Sequence[Any],
        more: Sequence[Select[Any]] = (),
    ) -> Any:
        """One INSERT of the sums grouped by `group`, for each of the column lists (several: a UNION ALL, e.g. one
        per rollup window), and of the rows of `more` (the same columns, grouped their own way)."""
        table = cast(Table, model.__table__)
        grouped = [select(*cols, *counter_sums(answer)).where(in_batch).group_by(*group) for cols in columns]
        grouped += more
        rows = grouped[0].order_by(*group) if len(grouped) == 1 else union_all(*grouped).order_by(*keys)
        names = [column.key for column in columns[0]]
        statement = insert_for(dialect, model).from_select([*names, *COUNTERS], rows)
        changes = {name: table.c[name] + statement.excluded[name] for name in COUNTERS}
        return statement.on_conflict_do_update(index_elements=keys, set_=changes)

    user_workspace, user_channel = [answer.user_id, answer.workspace_id], [answer.user_id, answer.channel_id]
    each_period = [
        [
            answer.user_id,
            bindparam(f"period_{n}", type_=String()).label("period"),
            bindparam(f"start_{n}", type_=UTCDateTime()).label("period_start"),
            answer.workspace_id,
        ]
        for n in range(len(ROLLUP_WINDOWS))
    ]
    reviews = cast(Table, ReviewItem.__table__)
    missed = (
        select(
            answer.user_id,
            Post.question_id,
            literal(1).label("box"),
            due.label("due_at"),
            literal(0).label("reviews"),
            literal(0).label("lapses"),
            func.max(answer.answered_at).label("created_at"),
            func.max(answer.answered_at).label("updated_at"),
        )
        .join(Post, Post.id == answer.post_id)
        .where(in_batch, answer.is_correct.is_(False))
        .group_by(answer.user_id, Post.question_id)
        .order_by(answer.user_id, Post.question_id)
    )
    review = insert_for(dialect, ReviewItem).from_select(
        ["user_id", "question_id", "box", "due_at", "reviews", "lapses", "created_at", "updated_at"], missed
    )
    review = review.on_conflict_do_update(
        index_elements=["user_id", "question_id"],
        set_={
            "box": 1,
            "due_at": review.excluded.due_at,
            "retired_at": None,
            "updated_at": review.excluded.updated_at,
            "lapses": reviews.c.lapses + 1,
        },
    )
    return {
        "users": add_sums(UserScore, ["user_id"], [user_workspace], user_workspace),
        "channels": add_sums(ChannelScore, ["user_id", "channel_id"], [user_channel], user_channel),
        "periods": add_sums(
            PeriodScore,
            ["user_id", "period", "period_start"],
            each_period,
            user_workspace,
            [_season_rows(in_batch, answer)],
        ),
        "review": review,
    }


ROLLUP_PIECES = ("users", "channels", "periods", "review")
"""Every upsert of `_pieces`, in the order they run."""


def with_effects(inserted: Any) -> Any:
    """PostgreSQL: the batch's answers INSERT and everything it changes besides its own rows in one statement: the
    INSERT (`inserted`: an INSERT .. ON CONFLICT DO NOTHING RETURNING the columns of `INSERTED_COLUMNS`) as a
    data-modifying CTE whose rows every rollup upsert of `_pieces` reads (each a CTE of its own), and as the query
    the inserted rows (id, post, user) with whether their user is in a cohort (`in_cohort`).

    One round trip for the batch's writes instead of two, and the rollups read the rows the INSERT returns rather
    than the answers table by id. The rows a conflict skipped (an answer already given) are not returned, so they
    count nowhere, as before. PostgreSQL runs each data-modifying CTE exactly once and to completion; none reads a
    table another writes (the rollups read the INSERT's RETURNING, not `answers`). The review boxes are due one
    interval after the batch's last miss (`first_interval` after the latest `answered_at` of its wrong rows).
    The caller passes the rollup windows' periods (`_period_parameters`): only for a batch whose answers are all in
    the same periods (else the INSERT goes alone and `record_answers_effects` follows).
    """
    batch = inserted.cte("batch_answers")
    rows = batch.c
    last_miss = select(func.max(rows.answered_at)).where(rows.is_correct.is_(False)).scalar_subquery()
    due = last_miss + bindparam("first_interval", type_=Interval())
    pieces = _pieces("postgresql", rows, true(), due)
    ctes = [pieces[name].cte(f"{name}_rollup") for name in ROLLUP_PIECES]
    in_cohort = select(CohortMember.user_id).where(CohortMember.user_id == rows.user_id).exists()
    return select(rows.id, rows.post_id, rows.user_id, in_cohort.label("in_cohort")).add_cte(*ctes)


INSERTED_COLUMNS = (
    Answer.id,
    Answer.post_id,
    Answer.user_id,
    Answer.workspace_id,
    Answer.channel_id,
    Answer.is_correct,
    Answer.points,
    Answer.answered_at,
)
"""What the answers INSERT of `with_effects` returns: what the rollups read of each new row."""


@lru_cache(maxsize=8)
def _combined(dialect: str, pieces: tuple[str, ...]) -> Any:
    """PostgreSQL: the named upserts of `_statements` as data-modifying CTEs of one statement, whose own query is
    `in_cohorts`; one round trip and one parse for the batch's rollups instead of one for each. Used after the
    batch's INSERT when its answers are in different periods (`with_effects` takes the INSERT in too otherwise).

    Every piece reads the batch's answer rows by the same `ids` parameter (and its own parameters, e.g. the
    periods' starts), so a piece composes as it is: a new upsert (a new table, or another window's branch in the
    periods piece) joins by being named here. PostgreSQL runs each data-modifying CTE exactly once and to
    completion whether or not the query reads it; they all see the answers as the statement starts (inserted by
    the batch's earlier INSERT), and none reads a table another one writes.
    """
    statements = _statements(dialect)
    ctes = [statements[name].cte(f"{name}_rollup") for name in pieces]
    return statements["in_cohorts"].add_cte(*ctes)


def _period_groups(answers: Sequence[RecordedAnswer]) -> list[tuple[tuple[datetime, ...], list[int]]]:
    """The batch's answer ids by the starts of their rollup windows' periods (one group but at a period's edge,
    or for workspaces in timezones whose week or month starts at different instants).

    A period's start never goes back as time goes on, so when a timezone's earliest and latest answers of the batch
    are in the same periods, all its answers are: the starts are looked up twice a timezone, not twice an answer
    (that lookup was the click path's largest Python cost of its own)."""
    by_zone: dict[str, list[RecordedAnswer]] = defaultdict(list)
    for answer in answers:
        by_zone[answer.timezone].append(answer)
    periods: dict[tuple[datetime, ...], list[int]] = defaultdict(list)
    for timezone, of_zone in by_zone.items():
        first = min(answer.answered_at for answer in of_zone)
        last = max(answer.answered_at for answer in of_zone)
        starts = _starts(first, timezone)
        if starts == _starts(last, timezone):
            periods[starts].extend(answer.answer_id for answer in of_zone)
            continue
        for answer in of_zone:
            periods[_starts(answer.answered_at, timezone)].append(answer.answer_id)
    return sorted(periods.items())


def _starts(at: datetime, timezone: str) -> tuple[datetime, ...]:
    """The starts of the periods of every rollup window that contain `at`."""
    return tuple(period_start(window, at, timezone) for window in ROLLUP_WINDOWS)


def _period_parameters(starts: tuple[datetime, ...]) -> dict[str, Any]:
    """The parameters of the periods piece besides `ids`: each rollup window's name and its period's start."""
    return {
        **{f"period_{n}": window.value for n, window in enumerate(ROLLUP_WINDOWS)},
        **{f"start_{n}": start for n, start in enumerate(starts)},
    }


async def record_answers_effects(session: AsyncSession, answers: Sequence[RecordedAnswer]) -> None:
    """Everything a batch of inserted answers changes besides their own rows: score rollups, cohort totals, review.

    The rollups are set-based statements over the batch's answer rows (`_statements`): one for the user totals,
    one for the channel totals, one for the periods of every rollup window (one per distinct set of periods:
    usually one) and one for the review boxes of the wrong answers, whatever the batch's size. On PostgreSQL they
    go as one statement (`_combined`) with the read of which answerers are in a cohort, the periods apart when the
    answers are in different periods (a batch all in the same ones goes with its INSERT instead: `with_effects`);
    on SQLite, which has no data-modifying CTEs, one after the other.
    """
    if not answers:
        return
    dialect = session.get_bind().dialect.name
    statements = _statements(dialect)
    ids = batch_parameter(dialect, [answer.answer_id for answer in answers])
    groups = _period_groups(answers)
    wrong = [answer for answer in answers if not answer.correct]
    # Into box 1 (back to box 1, un-retired, if already there), due one interval after the batch's last miss.
    due = max(answer.answered_at for answer in wrong) + BOX_INTERVALS[0] if wrong else None
    if dialect == "postgresql":
        # The answers of a batch are nearly always all in the same week and month: then their periods go in the
        # one statement too (all its pieces read the same `ids`); else each set of periods in its own.
        together = len(groups) == 1
        pieces = ("users", "channels", *(("periods",) if together else ()), *(("review",) if wrong else ()))
        parameters: dict[str, Any] = {"ids": ids, **({"due": due} if wrong else {})}
        if together:
            parameters.update(_period_parameters(groups[0][0]))
        members = set((await session.execute(_combined(dialect, pieces), parameters)).scalars())
        if not together:
            for starts, of_periods in groups:
                await session.execute(
                    statements["periods"], {"ids": batch_parameter(dialect, of_periods), **_period_parameters(starts)}
                )
    else:
        await session.execute(statements["users"], {"ids": ids})
        await session.execute(statements["channels"], {"ids": ids})
        for starts, of_periods in groups:
            parameters = {"ids": ids if len(groups) == 1 else batch_parameter(dialect, of_periods)}
            await session.execute(statements["periods"], {**parameters, **_period_parameters(starts)})
        members = set((await session.execute(statements["in_cohorts"], {"ids": ids})).scalars())
        if wrong:
            await session.execute(statements["review"], {"ids": ids, "due": due})
    await _add_to_cohorts(session, members, ((a.user_id, a.answered_at, a.points, a.correct) for a in answers))


def common_starts(answers: Sequence[tuple[datetime, str]]) -> tuple[datetime, ...] | None:
    """The starts of the rollup windows' periods of answers given at these (instant, workspace timezone) pairs when
    they are all in the same periods (nearly every batch), else None. Looked up twice a timezone, as
    `_period_groups` does."""
    by_zone: dict[str, list[datetime]] = defaultdict(list)
    for at, timezone in answers:
        by_zone[timezone].append(at)
    common: tuple[datetime, ...] | None = None
    for timezone, instants in by_zone.items():
        starts = _starts(min(instants), timezone)
        if starts != _starts(max(instants), timezone) or (common is not None and starts != common):
            return None
        common = starts
    return common


async def insert_with_effects(
    session: AsyncSession,
    statement: Any,
    parameters: dict[str, Any],
    starts: tuple[datetime, ...],
    rows: Sequence[Mapping[str, Any]],
) -> dict[tuple[int, int], int]:
    """PostgreSQL: run a `with_effects` statement (the batch's answers INSERT with every rollup and the review, one
    statement) for answer `rows` (what `parameters` hold, as dicts with the answers' column names) all in the
    periods that start at `starts` (`common_starts`), then the cohort totals of the rows inserted whose user is in
    a cohort. Returns the ids of the rows inserted by (post, user), as `Answers.insert` does."""
    result = await session.execute(
        statement, {**parameters, **_period_parameters(starts), "first_interval": BOX_INTERVALS[0]}
    )
    inserted: dict[tuple[int, int], int] = {}
    members: set[int] = set()
    for answer_id, post_id, user_id, in_cohort in result:
        inserted[(post_id, user_id)] = answer_id
        if in_cohort:
            members.add(user_id)
    if members:
        recorded = (
            (row["user_id"], row["answered_at"], row["points"], row["is_correct"])
            for row in rows
            if (row["post_id"], row["user_id"]) in inserted
        )
        await _add_to_cohorts(session, members, recorded)
    return inserted


async def warm_up_effects(session: AsyncSession, now: datetime) -> None:
    """Run the statements of `record_answers_effects` and of `channel_ranks` once for an empty batch (they read no
    answer row and so write nothing), so that SQLAlchemy has compiled them and, on PostgreSQL, the session's
    connection has prepared them before the first batch of clicks. The caller rolls back.

    On PostgreSQL the forms `record_answers_effects` runs (with and without wrong answers; with the periods, or
    without them and the periods piece on its own, for a batch across a period's edge; a batch in one week and month
    runs `with_effects`, which `Answers.warm_up` warms); on SQLite each statement.
    """
    dialect = session.get_bind().dialect.name
    periods = _period_parameters(_starts(now, "UTC"))
    none = batch_parameter(dialect, [])
    if dialect == "postgresql":
        # With the parameters a batch passes: SQLAlchemy's compiled forms are keyed by the parameters' names too
        # (a batch without wrong answers passes no `due`).
        forms: tuple[tuple[tuple[str, ...], dict[str, Any]], ...] = (
            (("users", "channels", "periods", "review"), {"due": now, **periods}),
            (("users", "channels", "periods"), periods),
            (("users", "channels", "review"), {"due": now}),  # a batch across a period's edge: its periods apart
            (("users", "channels"), {}),
        )
        for pieces, parameters in forms:
            await session.execute(_combined(dialect, pieces), {"ids": none, **parameters})
        await session.execute(_statements(dialect)["periods"], {"ids": none, **periods})
    else:
        statements = _statements(dialect)
        for name in ("users", "channels", "in_cohorts"):
            await session.execute(statements[name], {"ids": none})
        await session.execute(statements["periods"], {"ids": none, **periods})
        await session.execute(statements["review"], {"ids": none, "due": now})
    await session.execute(_ranks_statement(dialect), {"ids": none, "channels": none, "top": ranking.RANKED_TOP})


async def _add_to_cohorts(
    session: AsyncSession, in_cohorts: Container[int], answers: Iterable[tuple[int, datetime, int, bool]]
) -> None:
    """Add each answer (user, answered at, points, right) to the totals of its user's cohorts that had started when
    it was given.

    Most answerers are in no cohort: `in_cohorts` are the ones who are (the `in_cohorts` statement's, or the
    `in_cohort` column of `with_effects`), and only their memberships are updated.
    """
    by_member: dict[tuple[int, datetime], dict[str, int]] = {}
    for user_id, answered_at, points, correct in answers:
        if user_id in in_cohorts:
            totals = by_member.setdefault((user_id, answered_at), dict.fromkeys(COUNTERS, 0))
            totals["points"] += points
            totals["correct"] += int(correct)
            totals["answered"] += 1
    if not by_member:
        return
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
        [
            {"member": user, "at": at, **{f"add_{name}": value for name, value in totals.items()}}
            for (user, at), totals in sorted(by_member.items())
        ],
    )


@lru_cache(maxsize=4)
def _ranks_statement(dialect: str) -> Any:
    """The rank statement of `channel_ranks`, built once per dialect: RANK() over the first `top` places of the
    board of each channel in `channels` (ties at the last place included), kept for the users in `ids`
    (`_in_batch` parameters: one statement text whatever their lengths).

    On PostgreSQL each channel's places are read from the top of its board index and no further (a LATERAL
    subquery per channel, FETCH FIRST `top` ROWS WITH TIES): a batch costs the same on a board of a hundred
    thousand members as on one of a thousand. SQLite, whose window has no such stop, ranks each channel's rows and
    keeps the first `top` places: it serves a team, not a community of that size."""
    board_order = (ChannelScore.points.desc(), ChannelScore.correct.desc(), ChannelScore.answered)
    rank = func.rank().over(partition_by=ChannelScore.channel_id, order_by=board_order).label("rank")
    places = select(ChannelScore.user_id, ChannelScore.channel_id, rank)
    if dialect == "postgresql":
        channels = (
            func.unnest(bindparam("channels", type_=postgresql_array(BigInteger())))
            .table_valued("id")
            .render_derived(name="c")
        )
        top = (
            places.where(ChannelScore.channel_id == channels.c.id)
            .order_by(*board_order)
            .fetch(bindparam("top", type_=Integer()), with_ties=True)
            .lateral("places")
        )
        return (
            select(top.c.user_id, top.c.channel_id, top.c.rank)
            .select_from(channels)
            .join(top, true())
            .where(_in_batch(top.c.user_id, dialect))
        )
    ranked = places.where(_in_batch(ChannelScore.channel_id, dialect, "channels")).subquery()
    return select(ranked.c.user_id, ranked.c.channel_id, ranked.c.rank).where(
        _in_batch(ranked.c.user_id, dialect), ranked.c.rank <= bindparam("top", type_=Integer())
    )


async def channel_ranks(session: AsyncSession, pairs: Sequence[tuple[int, int]]) -> dict[tuple[int, int], int]:
    """Rank of each (user, channel) on the channel's all-time board, as the board ranks (ties share a rank), for
    the pairs within the board's first `ranking.RANKED_TOP` places; a pair below them has none.

    One statement for the pairs: RANK() over each of their channels' rollup rows in the board's order (points,
    then correct answers, then fewer answers), read from the top of the board down to RANKED_TOP places, however
    many of its users are asking and however many members it has (a rank below that is a pass over the whole
    board for every batch: 20-230 ms at 20,000-100,000 members). It reads the ranks of the pairs' users in all the
    pairs' channels (a batch's clicks are nearly always in one channel), and keeps the pairs'.
    """
    if not pairs:
        return {}
    wanted = set(pairs)
    dialect = session.get_bind().dialect.name
    parameters = {
        "ids": batch_parameter(dialect, sorted({user for user, _ in wanted})),
        "channels": batch_parameter(dialect, sorted({channel for _, channel in wanted})),
        "top": ranking.RANKED_TOP,
    }
    rows = await session.execute(_ranks_statement(dialect), parameters)
    ranks = {(int(user), int(channel)): int(rank) for user, channel, rank in rows}
    return {pair: rank for pair, rank in ranks.items() if pair in wanted}
