"""Seasons: a workspace's named windows of answers, at most one running at a time, and their rollup rows.

A season's board reads its rows of `period_scores` (`season_period`), which the click path's `periods` statement
keeps (repositories/scores.py: each answer is added to every season of its workspace whose [start, end) contains
it, the end being `ended_at`, or while the season runs its planned `ends_at`). Starting and ending a season change
which answers that statement takes, so both settle the rows in the same transaction:

- starting adds the answers already stored that the new season contains (given at or after its start: clicks
  that were recorded while it was being started);
- ending before the planned end takes back the answers the rows took that were given at or after the end (an end
  at the planned end, as the ticker's, changes nothing: those were never taken).

On PostgreSQL (READ COMMITTED) a click batch that is in flight while a season starts or ends would not see the
change, and the settling statement would not see its answers: `_hold_answers` locks `answers` in SHARE mode
before settling, which waits for the batches in flight and keeps new ones from inserting until this transaction
ends (a few milliseconds), so each answer is counted by the batch or by the settling, exactly once. It is taken
after the transaction's other writes (user rows, the season's row), none of which a batch that holds `answers`
waits for, so it cannot deadlock with one. On SQLite every writer holds the database's write lock (BEGIN
IMMEDIATE): batches and seasons' starts and ends already run one after the other.
"""

from __future__ import annotations

import functools
from datetime import datetime
from typing import Any, cast

from sqlalchemy import ColumnElement, Integer, String, Table, bindparam, delete, select, text, update
from sqlalchemy.exc import IntegrityError

from bot.db.models import Answer, Channel, PeriodScore, Season, UTCDateTime
from bot.domain import ChannelRef
from bot.domain.windows import Span
from bot.service.repositories.base import Repository
from bot.service.repositories.directory import insert_for
from bot.service.repositories.lookups import CHANNEL_REF_COLUMNS, channel_ref_of, joined_to_channel, running_season
from bot.service.repositories.scores import COUNTERS, counter_sums, season_period


class Seasons(Repository):
    """A workspace's seasons: started, ended once, listed."""

    async def get(self, season_id: int) -> Season | None:
        """The season of this id, if there is one."""
        return await self._session.get(Season, season_id)

    async def running(self, workspace: int | None) -> Season | None:
        """The season running in a workspace (at most one), if any."""
        return await running_season(self._session, workspace)

    async def name_taken(self, workspace: int, name: str) -> bool:
        """Whether a season of the workspace already has this name (any case)."""
        same_name = select(Season.id).where(Season.workspace_id == workspace, Season.key == name.casefold())
        return (await self._session.execute(same_name)).scalar() is not None

    async def add(self, season: Season) -> bool:
        """Insert a season and its rollup rows (the answers already stored that it contains); False if another one
        took its place first (one running per workspace, names unique)."""
        self._session.add(season)
        try:
            await self._session.flush()
        except IntegrityError:
            return False
        await self._hold_answers()
        await self._add_answers(
            season.id,
            workspace=season.workspace_id,
            starts_at=season.starts_at,
            since=season.starts_at,
            until=season.ends_at,
            sign=1,
        )
        return True

    async def end(self, season_id: int, ended_at: datetime, ended_by: int | None) -> bool:
        """End a running season, taking back from its rollup rows the answers given from `ended_at` on; False if it
        has already ended (the ticker or another admin got there first)."""
        changed = await self._session.execute(
            update(Season)
            .where(Season.id == season_id, Season.ended_at.is_(None))
            .values(ended_at=ended_at, ended_by=ended_by)
            .returning(Season.workspace_id, Season.starts_at, Season.ends_at)
            .execution_options(synchronize_session=False)
        )
        ended = changed.first()
        if ended is None:
            return False
        workspace, starts_at, ends_at = ended
        if ends_at is None or ended_at < ends_at:  # the rows took answers up to the planned end (or with no end)
            await self._hold_answers()
            since = max(ended_at, starts_at)
            await self._add_answers(
                season_id, workspace=workspace, starts_at=starts_at, since=since, until=ends_at, sign=-1
            )
        return True

    async def _hold_answers(self) -> None:
        """PostgreSQL: wait for the click batches in flight and hold new ones until this transaction ends (the
        module's docstring says why). SQLite: nothing (this transaction holds the write lock already)."""
        if self._session.get_bind().dialect.name == "postgresql":
            await self._session.execute(text("LOCK TABLE answers IN SHARE MODE"))

    async def _add_answers(
        self, season_id: int, *, workspace: int, starts_at: datetime, since: datetime, until: datetime | None, sign: int
    ) -> None:
        """Add to the season's rollup rows (`sign` 1) or take back from them (-1) the sums of the workspace's answers
        given in [since, until); rows left with no answer go."""
        params: dict[str, Any] = {"workspace": workspace, "since": since, "period": season_period(season_id)}
        params |= {"start": starts_at, "sign": sign} | ({} if until is None else {"until": until})
        await self._session.execute(_season_sums(self._session.get_bind().dialect.name, until is not None), params)
        if sign < 0:
            await self._session.execute(
                delete(PeriodScore)
                .where(
                    PeriodScore.workspace_id == workspace,
                    PeriodScore.period == params["period"],
                    PeriodScore.period_start == starts_at,
                    PeriodScore.answered <= 0,
                )
                .execution_options(synchronize_session=False)
            )

    async def of_workspace(self, workspace: int) -> list[Season]:
        """The workspace's seasons: the running one first, then the others, newest first."""
        query = (
            select(Season)
            .where(Season.workspace_id == workspace)
            .order_by(Season.ended_at.is_not(None), Season.starts_at.desc())
        )
        return list((await self._session.execute(query)).scalars().all())

    async def channels_with_answers(self, workspace: int, span: Span) -> list[ChannelRef]:
        """The workspace's channels that had answers within `span`, in the order they were first seen."""
        answered_here = select(Answer.id).where(Answer.channel_id == Channel.id, *_in_span(span)).exists()
        query = (
            joined_to_channel(select(*CHANNEL_REF_COLUMNS))
            .where(Channel.workspace_id == workspace, answered_here)
            .order_by(Channel.id)
        )
        return [channel_ref_of(row) for row in await self._session.execute(query)]


def _in_span(span: Span) -> list[ColumnElement[bool]]:
    """The conditions on `answers.answered_at` of a span (as the read side's `stats.in_span`)."""
    conditions = [Answer.answered_at >= span.start] if span.start is not None else []
    if span.end is not None:
        conditions.append(Answer.answered_at < span.end)
    return conditions


@functools.cache
def _season_sums(dialect: str, bounded: bool) -> Any:
    """Add `sign` times the sums per user of a workspace's answers given in [since, until) (no upper bound unless
    `bounded`) to a season's rows (`period`, `start`): one INSERT .. SELECT .. ON CONFLICT DO UPDATE, built once per
    dialect and shape."""
    sign = bindparam("sign", type_=Integer())
    window = [
        Answer.workspace_id == bindparam("workspace"),
        Answer.answered_at >= bindparam("since", type_=UTCDateTime()),
    ]
    if bounded:
        window.append(Answer.answered_at < bindparam("until", type_=UTCDateTime()))
    rows = (
        select(
            Answer.user_id,
            bindparam("period", type_=String()).label("period"),
            bindparam("start", type_=UTCDateTime()).label("period_start"),
            Answer.workspace_id,
            *((sign * total).label(name) for total, name in zip(counter_sums(Answer), COUNTERS, strict=True)),
        )
        .where(*window)
        .group_by(Answer.user_id, Answer.workspace_id)
        .order_by(Answer.user_id)
    )
    statement = insert_for(dialect, PeriodScore).from_select(
        ["user_id", "period", "period_start", "workspace_id", *COUNTERS], rows
    )
    table = cast(Table, PeriodScore.__table__)
    return statement.on_conflict_do_update(
        index_elements=["user_id", "period", "period_start"],
        set_={name: table.c[name] + statement.excluded[name] for name in COUNTERS},
    )
