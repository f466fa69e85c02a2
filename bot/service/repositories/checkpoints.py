"""Checkpoints of `/quiz me` (`uow.checkpoints`): one row per user, read whole and replaced whole.

A checkpoint is derived data (bot/db/models/checkpoints.py); the read side (bot/service/streak_stats.py) decides
what it holds. This repository only keeps the row safe under concurrent calls: a write replaces the stored
checkpoint only with a later one (or one taken in another timezone), so of two `/quiz me` at once the one that
settled further wins, whichever commits last; each is a whole row, never a mix of the two.
"""

from __future__ import annotations

import functools
from datetime import datetime
from types import SimpleNamespace
from typing import Any

from sqlalchemy import bindparam, exists, or_, select

from bot.db.models import MeCheckpoint, User
from bot.domain.streaks import Checkpoint, DayRun, Streak
from bot.service.repositories.base import Repository
from bot.service.repositories.directory import insert_for

VERSION = 2
"""The shape of a stored checkpoint; a row of another version is ignored (and replaced by the next call). 1 kept
wrong answers per question in `missed`; 2 keeps [answered, correct] per question there."""


def checkpoint_of(row: Any) -> Checkpoint | None:
    """The checkpoint in a `me_checkpoints` row (its columns by name), None for a row of another version."""
    if row is None or row.version != VERSION:
        return None
    settled_to: datetime = row.settled_to
    return Checkpoint(
        settled_to=settled_to,
        timezone=row.timezone,
        channels={int(key): Streak(current=int(v[0]), best=int(v[1])) for key, v in (row.channels or {}).items()},
        days=DayRun(run=int(row.day_run), best=int(row.day_best), last=row.last_day),
        questions={int(key): (int(v[0]), int(v[1])) for key, v in (row.missed or {}).items()},
    )


_BESIDE = "checkpoint_"
"""The prefix of a checkpoint's columns read beside other columns (`stored_columns`, `stored_checkpoint`)."""


def stored_columns() -> list[Any]:
    """The `me_checkpoints` columns labelled `checkpoint_<name>`, for a statement that reads a user's stored
    checkpoint beside other columns (`/quiz me`'s own statement, the background settle's); `stored_checkpoint`
    reads them back."""
    return [column.label(f"{_BESIDE}{column.key}") for column in MeCheckpoint.__table__.c]


def stored_checkpoint(row: Any) -> Checkpoint | None:
    """The checkpoint in a row read with `stored_columns` (`checkpoint_of` of those columns by their own names);
    None when the user has none, or one of another version."""
    if getattr(row, f"{_BESIDE}user_id") is None:
        return None
    columns = {column.key: getattr(row, f"{_BESIDE}{column.key}") for column in MeCheckpoint.__table__.c}
    return checkpoint_of(SimpleNamespace(**columns))


class Checkpoints(Repository):
    """Each user's `/quiz me` checkpoint (a repository over `me_checkpoints`)."""

    async def get(self, user_row: int) -> Checkpoint | None:
        """The user's checkpoint, None when there is none (or one of another version)."""
        row = (await self._session.execute(select(MeCheckpoint).where(MeCheckpoint.user_id == user_row))).scalar()
        return checkpoint_of(row)

    async def advance(self, user_row: int, checkpoint: Checkpoint) -> bool:
        """Store `checkpoint` unless the stored one settled as far or further in the same timezone and version
        (INSERT .. ON CONFLICT DO UPDATE with that guard: on PostgreSQL a concurrent writer of the same user waits
        for the other's commit and then sees its row). Whether it was stored."""
        values: dict[str, Any] = {
            "user_id": user_row,
            "version": VERSION,
            "settled_to": checkpoint.settled_to,
            "timezone": checkpoint.timezone,
            "day_run": checkpoint.days.run,
            "day_best": checkpoint.days.best,
            "last_day": checkpoint.days.last,
            "channels": {
                str(channel): [streak.current, streak.best]
                for channel, streak in sorted(checkpoint.channels.items())
                if streak != Streak()
            },
            "missed": {
                str(question): [answered, correct]
                for question, (answered, correct) in sorted(checkpoint.questions.items())
                if answered
            },
        }
        # On the session's connection, not through the ORM: a Core statement with its parameters, no ORM bulk-insert
        # handling of the row.
        conn = await self._session.connection()
        return (await conn.execute(_advance_statement(conn.dialect.name), values)).scalar() is not None


_COLUMNS = ("user_id", "version", "settled_to", "timezone", "day_run", "day_best", "last_day", "channels", "missed")


@functools.cache
def _advance_statement(dialect: str) -> Any:
    """The guarded upsert of `advance`, built once per dialect with its values as parameters. The row is inserted
    only while its user is there: a user forgotten (`forget-user`) between a read and this write leaves nothing to
    store, not a foreign-key error."""
    table = MeCheckpoint.__table__.c
    values = select(*(bindparam(name, type_=table[name].type) for name in _COLUMNS)).where(
        exists().where(User.id == bindparam("user_id"))
    )
    statement = insert_for(dialect, MeCheckpoint).from_select(list(_COLUMNS), values)
    return statement.on_conflict_do_update(
        index_elements=["user_id"],
        set_={name: statement.excluded[name] for name in _COLUMNS if name != "user_id"},
        where=or_(
            table.settled_to < statement.excluded.settled_to,
            table.timezone != statement.excluded.timezone,
            table.version != statement.excluded.version,
        ),
    ).returning(table.user_id)
