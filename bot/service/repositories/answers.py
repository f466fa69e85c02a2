"""Answers: the click path's reads and writes, each a fixed handful of statements per batch of clicks
(service/answers.py runs them in one unit of work per batch: group commit)."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from functools import lru_cache
from operator import itemgetter
from typing import Any, NamedTuple, cast

from sqlalchemy import Select, String, Table, and_, bindparam, func, select, true, tuple_, union_all, update
from sqlalchemy.orm import aliased

from bot.db.models import (
    Answer,
    Channel,
    ChannelSetting,
    Post,
    PostRecipient,
    PostSnapshot,
    QuestionVersion,
    User,
    UTCDateTime,
    Workspace,
    WorkspaceSetting,
)
from bot.domain import ChannelRef
from bot.domain.settings import OFF, ON, SettingKey
from bot.service.repositories.base import Repository
from bot.service.repositories.directory import insert_for
from bot.service.repositories.lookups import (
    CHANNEL_REF_COLUMNS,
    channel_ref_of,
    joined_to_channel,
    json_item,
    json_rows,
    one_of,
    postgresql_array,
)
from bot.service.repositories.scores import (
    INSERTED_COLUMNS,
    ROLLUP_WINDOWS,
    RecordedAnswer,
    channel_ranks,
    common_starts,
    insert_with_effects,
    period_start,
    record_answers_effects,
    warm_up_effects,
    with_effects,
)

_Recipient = aliased(User)


class ClickedPost(NamedTuple):
    """A clicked post as it was shown (its snapshot's version), where it was posted, and to whom if privately."""

    post_id: int
    question_id: int
    channel_id: int
    workspace_id: int
    opened_at: datetime
    closes_at: datetime | None
    closed_at: datetime | None
    choices: tuple[str, ...]
    correct_index: int
    explanation: str
    place: ChannelRef
    """Where it was posted: its platform, workspace and channel (platform ids)."""
    timezone: str
    """Its workspace's timezone, which the period rollups start their weeks and months in."""
    recipient: str | None
    """The platform user id of the one person a privately delivered post was sent to (None: a channel's post)."""
    speed_points: bool = True
    """A correct answer earns more the faster it is (the channel's `speed-points` setting, `/quiz settings`)."""


class KnownUser(NamedTuple):
    """A user's row id, workspace row, platform id and stored name."""

    id: int
    workspace_id: int
    external_id: str
    display_name: str


_KNOWN_USER_COLUMNS = (User.id, User.workspace_id, User.external_id, User.display_name)
"""What a `KnownUser` is read from: the users read and the users inserted (RETURNING) alike."""


def _known_users(rows: Iterable[Any]) -> list[KnownUser]:
    return [KnownUser(int(row.id), int(row.workspace_id), row.external_id, row.display_name) for row in rows]


class Answers(Repository):
    """The answers clicks record, the posts they are on, and the clickers' rows."""

    async def posts(self, post_ids: Collection[int]) -> dict[int, ClickedPost]:
        """The clicked posts that exist, by id."""
        if len(post_ids) == 1:  # nearly every batch: everyone is answering the same question
            rows = await self._session.execute(_clicked_posts(self._dialect, True), {"post_id": next(iter(post_ids))})
        else:
            rows = await self._session.execute(_clicked_posts(self._dialect, False), {"post_ids": list(post_ids)})
        return {
            row.id: ClickedPost(
                post_id=row.id,
                question_id=row.question_id,
                channel_id=row.channel_id,
                workspace_id=row.workspace_id,
                opened_at=row.opened_at,
                closes_at=row.closes_at,
                closed_at=row.closed_at,
                choices=tuple(row.choices),
                correct_index=row.correct_index,
                explanation=row.explanation,
                place=replace(channel_ref_of(row), enterprise_id=row.enterprise_id),
                timezone=row.timezone or "UTC",
                recipient=row.recipient,
                speed_points=(row.channel_speed or row.workspace_speed or ON) != OFF,
            )
            for row in rows
        }

    @property
    def _dialect(self) -> str:
        return self._session.get_bind().dialect.name

    async def find_or_add_users(self, rows: Sequence[dict[str, Any]]) -> list[KnownUser]:
        """The users of these rows (workspace_id, external_id, display_name, created_at) that have a row, and those
        inserted: the rows not found are inserted, skipping those another transaction inserted first (the caller
        reads those again). On PostgreSQL one statement (`_find_or_add_users`), whatever the mix; on SQLite the
        read, then the INSERT of the users not found (the rows inserted come back)."""
        if self._dialect == "postgresql":
            return _known_users(await self._session.execute(_find_or_add_users(), _arrays(rows, _USER_ROW)))
        keys = json.dumps([[row["workspace_id"], row["external_id"]] for row in rows])
        found = _known_users(await self._session.execute(_users_by_json(), {"rows": keys}))
        known = {(user.workspace_id, user.external_id) for user in found}
        new = [row for row in rows if (row["workspace_id"], row["external_id"]) not in known]
        return found + (await self._add_users(new) if new else [])

    async def _add_users(self, rows: Sequence[dict[str, Any]]) -> list[KnownUser]:
        """SQLite: insert users (one statement), skipping those another transaction inserted first; the rows
        inserted."""
        return _known_users(await self._session.execute(_add_users_from_json(), self._json(rows, User, _USER_ROW)))

    def _json(self, rows: Sequence[dict[str, Any]], model: type[Answer] | type[User], names: Sequence[str]) -> Any:
        """SQLite: row dicts as the one JSON parameter of `_from_json`, each value as the column's type binds it."""
        return {"rows": json_rows_text(rows, model, tuple(names), self._session.get_bind().dialect)}

    async def rename_user(self, user_row: int, name: str) -> None:
        """Keep a user's stored name current."""
        await self._session.execute(update(User).where(User.id == user_row).values(display_name=name))

    async def insert(self, rows: Sequence[dict[str, Any]]) -> dict[tuple[int, int], int]:
        """Insert answer rows, skipping a (post, user) pair already answered; the new rows' ids by (post, user)."""
        if self._dialect == "postgresql":
            returned = await self._session.execute(_insert_answers_from_arrays(), _arrays(rows, _ANSWER_ROW))
        else:
            returned = await self._session.execute(_insert_answers_from_json(), self._json(rows, Answer, _ANSWER_ROW))
        return {(post_id, user_id): answer_id for answer_id, post_id, user_id in returned}  # RETURNING's order

    async def record(self, rows: Sequence[dict[str, Any]], timezones: Mapping[int, str]) -> dict[tuple[int, int], int]:
        """Insert answer rows, skipping a (post, user) pair already answered, and record what the rows inserted
        change besides themselves (rollups, review boxes, cohort totals: repositories/scores.py); the new rows' ids
        by (post, user). `timezones`: each post's workspace's timezone, which its rows' week and month start in.

        On PostgreSQL, for a batch whose answers are all in the same periods (nearly every one), the INSERT and
        every rollup are one statement (`scores.with_effects`); else the INSERT, then the rollups by the new ids."""
        if self._dialect == "postgresql":
            starts = common_starts([(row["answered_at"], timezones[row["post_id"]]) for row in rows])
            if starts is not None:
                parameters = _arrays(rows, _ANSWER_ROW)
                return await insert_with_effects(self._session, _insert_with_effects(), parameters, starts, rows)
        inserted = await self.insert(rows)
        await record_answers_effects(
            self._session,
            [
                RecordedAnswer(
                    answer_id=inserted[key],
                    user_id=row["user_id"],
                    correct=row["is_correct"],
                    points=row["points"],
                    answered_at=row["answered_at"],
                    timezone=timezones[row["post_id"]],
                )
                for row in rows
                if (key := (row["post_id"], row["user_id"])) in inserted
            ],
        )
        return inserted

    async def channel_ranks(self, pairs: Sequence[tuple[int, int]]) -> dict[tuple[int, int], int]:
        """Each (user row, channel row)'s rank on the channel's board, as of now in this transaction."""
        return await channel_ranks(self._session, pairs)

    async def existing(self, keys: Sequence[tuple[int, int]]) -> dict[tuple[int, int], tuple[int, bool]]:
        """The (choice, right) of the answers already given for these (post, user row) pairs."""
        if not keys:
            return {}
        if self._dialect == "postgresql":
            posts, users = _columns(keys, 2)
            rows = await self._session.execute(_existing_by_arrays(), {"post_id": posts, "user_id": users})
        else:
            rows = await self._session.execute(_existing_by_json(), {"rows": json.dumps([list(key) for key in keys])})
        return {(r.post_id, r.user_id): (r.choice_index, r.is_correct) for r in rows}

    async def warm_up(self, now: datetime) -> None:
        """Run the click path's statements once for an empty batch, reading and writing no row, so that SQLAlchemy
        has compiled them and, on PostgreSQL, this connection has prepared them (one prepared statement each,
        whatever a batch's size: `_unnest`, `_from_json`) before the first batch of clicks. The caller rolls back.
        Left cold: the rare ones (a user's new name, cohort totals)."""
        await self.posts(())
        await self.posts((0,))  # no post has row id 0
        await self.find_or_add_users(())
        await self.insert(())
        if self._dialect == "postgresql":
            starts = tuple(period_start(window, now, "UTC") for window in ROLLUP_WINDOWS)
            await insert_with_effects(self._session, _insert_with_effects(), _arrays((), _ANSWER_ROW), starts, ())
            await self._session.execute(_existing_by_arrays(), {"post_id": [], "user_id": []})
        else:
            await self._add_users(())
            await self.existing([(0, 0)])  # no answer has row ids 0
        await warm_up_effects(self._session, now)


_ANSWER_ROW = (
    "post_id",
    "user_id",
    "workspace_id",
    "channel_id",
    "choice_index",
    "is_correct",
    "points",
    "answered_at",
    "latency_ms",
)
"""The columns of an answer row the click path inserts (the keys of its row dicts)."""

_USER_ROW = ("workspace_id", "external_id", "display_name", "created_at")
"""The columns of a user row the click path inserts."""


def _columns(tuples: Iterable[tuple[Any, ...]], width: int) -> list[list[Any]]:
    """Tuples as `width` column lists (PostgreSQL's array parameters)."""
    columns: list[list[Any]] = [[] for _ in range(width)]
    for values in tuples:
        for column, value in zip(columns, values, strict=True):
            column.append(value)
    return columns


def _arrays(rows: Sequence[dict[str, Any]], names: Sequence[str]) -> dict[str, list[Any]]:
    """Row dicts as one array parameter a column (PostgreSQL)."""
    return {name: [row[name] for row in rows] for name in names}


def _unnest(table: Table, names: Sequence[str]) -> Any:
    """PostgreSQL: the rows of one array parameter a column (named as the columns, typed as theirs), as a table:
    a statement over it is one prepared statement whatever the number of rows, and its parameters are a handful
    of arrays instead of a parameter a value."""
    arrays = [bindparam(name, type_=postgresql_array(_unbounded(table.c[name].type))) for name in names]
    return func.unnest(*arrays).table_valued(*names).render_derived(name="batch")


def _unbounded(column_type: Any) -> Any:
    """A string column's type without its length: an array cast to VARCHAR(n)[] would cut a longer value short
    where the column refuses it."""
    return String() if isinstance(column_type, String) else column_type


def _upsert_from_arrays(model: type[Answer] | type[User], names: Sequence[str], keys: list[str]) -> Any:
    table = cast(Table, model.__table__)
    rows = _unnest(table, names)
    return (
        insert_for("postgresql", model)
        .from_select(list(names), select(*rows.c))
        .on_conflict_do_nothing(index_elements=keys)
    )


@lru_cache(maxsize=1)
def _insert_answers_from_arrays() -> Any:
    """PostgreSQL: `_insert_answers` from one array a column (`_unnest`), built once."""
    statement = _upsert_from_arrays(Answer, _ANSWER_ROW, ["post_id", "user_id"])
    return statement.returning(Answer.id, Answer.post_id, Answer.user_id)


@lru_cache(maxsize=1)
def _insert_with_effects() -> Any:
    """PostgreSQL: `_insert_answers_from_arrays` returning what the rollups read, with every rollup of the rows it
    inserts, one statement (`scores.with_effects`), built once."""
    inserted = _upsert_from_arrays(Answer, _ANSWER_ROW, ["post_id", "user_id"]).returning(*INSERTED_COLUMNS)
    return with_effects(inserted)


@lru_cache(maxsize=1)
def _find_or_add_users() -> Any:
    """PostgreSQL: `find_or_add_users` in one statement: the rows of one array a column (`_unnest`), the users of
    their (workspace, platform id) pairs that have a row, and an INSERT of the others (ON CONFLICT DO NOTHING:
    a user another transaction inserted first is neither found, being outside this statement's snapshot, nor
    returned), built once. A read and an INSERT in one round trip for a batch of new users; for known ones the
    INSERT has no row, so no id of the sequence is spent."""
    table = cast(Table, User.__table__)
    wanted = select(*_unnest(table, _USER_ROW).c).cte("wanted")
    same = and_(User.workspace_id == wanted.c.workspace_id, User.external_id == wanted.c.external_id)
    found = select(*_KNOWN_USER_COLUMNS).join(wanted, same).cte("found")
    unknown = select(*wanted.c).where(
        ~select(found.c.id)
        .where(found.c.workspace_id == wanted.c.workspace_id, found.c.external_id == wanted.c.external_id)
        .exists()
    )
    added = (
        insert_for("postgresql", User)
        .from_select(list(_USER_ROW), unknown)
        .on_conflict_do_nothing(index_elements=["workspace_id", "external_id"])
        .returning(*_KNOWN_USER_COLUMNS)
        .cte("added")
    )
    return union_all(select(*found.c), select(*added.c))


@lru_cache(maxsize=1)
def _existing_by_arrays() -> Any:
    """PostgreSQL: the read of `Answers.existing`, the (post, user row) pairs as two arrays."""
    pairs = _unnest(cast(Table, Answer.__table__), ["post_id", "user_id"])
    return select(Answer.post_id, Answer.user_id, Answer.choice_index, Answer.is_correct).where(
        tuple_(Answer.post_id, Answer.user_id).in_(select(*pairs.c))
    )


def _from_json(model: type[Answer] | type[User], names: Sequence[str], keys: list[str]) -> Any:
    """SQLite: an INSERT of the rows of one JSON parameter, `rows` (an array of rows, each an array of the `names`
    columns' values), skipping rows that conflict on `keys`. One statement text and one parameter whatever the number
    of rows: SQLAlchemy does not process a row of parameters a row (an executemany of 200 answers spent more in
    that than SQLite spent inserting them) and SQLite finds the statement in its cache."""
    # The WHERE is SQLite's: without one, the ON of ON CONFLICT would read as a join's.
    statement = insert_for("sqlite", model).from_select(list(names), _json_rows(len(names)).where(true()))
    return statement.on_conflict_do_nothing(index_elements=keys)


def _json_rows(width: int) -> Select[Any]:
    """SQLite: the rows of the JSON parameter `rows` (an array of arrays of `width` values) as a SELECT."""
    rows = json_rows("rows")
    return select(*(json_item(rows.c.value, n) for n in range(width)))


@lru_cache(maxsize=1)
def _insert_answers_from_json() -> Any:
    """SQLite: the batch's INSERT of answer rows (`_from_json`), built once; the rows inserted come back."""
    return _from_json(Answer, _ANSWER_ROW, ["post_id", "user_id"]).returning(Answer.id, Answer.post_id, Answer.user_id)


@lru_cache(maxsize=1)
def _users_by_json() -> Any:
    """SQLite: the read of `Answers.find_or_add_users`, the (workspace row, platform id) pairs the rows of one JSON
    parameter (`_joined_to_json`)."""
    return _joined_to_json(select(*_KNOWN_USER_COLUMNS), User, ("workspace_id", "external_id"))


@lru_cache(maxsize=1)
def _existing_by_json() -> Any:
    """SQLite: the read of `Answers.existing`, the (post, user row) pairs the rows of one JSON parameter
    (`_joined_to_json`)."""
    columns = select(Answer.post_id, Answer.user_id, Answer.choice_index, Answer.is_correct)
    return _joined_to_json(columns, Answer, ("post_id", "user_id"))


def _joined_to_json(columns: Any, model: type[Answer] | type[User], names: tuple[str, str]) -> Any:
    """SQLite: the rows of `model` whose `names` columns (its unique key) are a pair of the JSON parameter `rows`:
    one statement text whatever the number of pairs (not a parameter a value), and each pair joined to its row
    through the unique index. `(a, b) IN (..)`, of a list or of a subquery, had SQLite scan the table, or read the
    index by its first column only (EXPLAIN QUERY PLAN): every answer of the database for a click already answered."""
    pairs = json_rows("rows")
    first, second = (json_item(pairs.c.value, n) for n in range(2))
    table = cast(Table, model.__table__)
    return columns.select_from(pairs).join(table, and_(table.c[names[0]] == first, table.c[names[1]] == second))


@lru_cache(maxsize=1)
def _add_users_from_json() -> Any:
    """SQLite: the users INSERT of `Answers._add_users` (`_from_json`), built once; the rows inserted come back."""
    return _from_json(User, _USER_ROW, ["workspace_id", "external_id"]).returning(*_KNOWN_USER_COLUMNS)


def json_rows_text(
    rows: Sequence[Mapping[str, Any]], model: type[Answer] | type[User], names: tuple[str, ...], dialect: Any
) -> str:
    """SQLite: rows (dicts with the `names` columns) as the JSON text of `_from_json`'s `rows` parameter: an array of
    rows, each an array of its values as the columns' types bind them (`_bind_processors`). The values are taken a
    row at a time and converted a column at a time, only in the columns whose type converts them (a batch's answers:
    two of nine), so a batch's rows cost no Python call per value."""
    table = cast(Table, model.__table__)
    take = itemgetter(*names)  # a tuple of the values (two names at least: a `_from_json` row)
    values = [list(take(row)) for row in rows]
    for index, (_name, bind) in enumerate(_bind_processors(table, names, dialect)):
        if bind is not _as_is:
            for row_values in values:
                row_values[index] = bind(row_values[index])
    return json.dumps(values)


@lru_cache(maxsize=8)
def _bind_processors(table: Table, names: tuple[str, ...], dialect: Any) -> list[tuple[str, Callable[[Any], Any]]]:
    """Each column's bind processor for this dialect (what SQLAlchemy does to a parameter of that column, e.g. a
    timestamp stored in UTC as text), or the value as it is. A `UTCDateTime` on SQLite is bound by `_sqlite_utc_text`,
    which gives the same text as SQLAlchemy's two processors (the type's, then SQLite's DATETIME's) in one call."""
    processors: list[tuple[str, Callable[[Any], Any]]] = []
    for name in names:
        column_type = table.c[name].type
        process = column_type.dialect_impl(dialect).bind_processor(dialect)
        if process is None:
            processors.append((name, _as_is))
        elif dialect.name == "sqlite" and isinstance(column_type, UTCDateTime):
            processors.append((name, _sqlite_utc_text(process)))
        else:
            processors.append((name, process))
    return processors


def _sqlite_utc_text(fallback: Callable[[Any], Any]) -> Callable[[datetime | None], Any]:
    """A `UTCDateTime` parameter as SQLite stores it: the instant in UTC as `YYYY-MM-DD HH:MM:SS.ffffff` (SQLAlchemy's
    DATETIME storage format on SQLite: six digits of microseconds always, no offset), held to SQLAlchemy's own
    processors by tests/unit/test_answer_rows_json.py. None and a naive value go to `fallback` (those processors: None
    stays None, a naive value is refused as the type refuses it)."""

    def bind(value: datetime | None) -> Any:
        if value is None or value.tzinfo is None:
            return fallback(value)
        return value.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")

    return bind


def _as_is(value: Any) -> Any:
    return value


@lru_cache(maxsize=4)
def _clicked_posts(dialect: str, single: bool) -> Any:
    """The read of `Answers.posts`, built once per dialect (SQLAlchemy then reuses its compiled form): the posts in
    the `post_ids` parameter (an array on PostgreSQL: one prepared statement whatever the count), or the one post
    of the `post_id` parameter, with what they showed, where, to whom, and their speed-points setting.

    The one post's form is for PostgreSQL's planner: after a few executions it keeps a generic plan of a statement
    whose parameter is a primary key, while it plans the array's form again at each execution (custom plans; 0.9 ms
    of planning against 0.1 ms of execution for this join of nine tables)."""
    columns = select(
        Post.id,
        Post.question_id,
        Post.channel_id,
        Channel.workspace_id,
        Post.opened_at,
        Post.closes_at,
        Post.closed_at,
        # What the post showed (its snapshot's version), never the pack as it is now: a click and
        # its stored choice_index keep meaning what they meant when the question was posted.
        QuestionVersion.choices,
        QuestionVersion.correct_index,
        QuestionVersion.explanation,
        _Recipient.external_id.label("recipient"),
        *CHANNEL_REF_COLUMNS,
        Workspace.timezone,
        Workspace.enterprise_id,
        ChannelSetting.value.label("channel_speed"),
        WorkspaceSetting.value.label("workspace_speed"),
    )
    speed = SettingKey.SPEED_POINTS.value
    return (
        joined_to_channel(columns, Post.channel_id)
        .join(PostSnapshot, PostSnapshot.post_id == Post.id)
        .join(QuestionVersion, QuestionVersion.id == PostSnapshot.question_version_id)
        .outerjoin(PostRecipient, PostRecipient.post_id == Post.id)
        .outerjoin(_Recipient, _Recipient.id == PostRecipient.user_id)
        .outerjoin(ChannelSetting, (ChannelSetting.channel_id == Post.channel_id) & (ChannelSetting.key == speed))
        .outerjoin(
            WorkspaceSetting,
            (WorkspaceSetting.workspace_id == Channel.workspace_id) & (WorkspaceSetting.key == speed),
        )
        .where(Post.id == bindparam("post_id") if single else one_of(Post.id, dialect, "post_ids"))
    )
