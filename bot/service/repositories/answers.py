"""Answers: the click path's reads and writes, each a fixed handful of statements per batch of clicks
(service/answers.py runs them in one unit of work per batch: group commit)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from functools import lru_cache
from typing import Any, NamedTuple

from sqlalchemy import bindparam, select, tuple_, update
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
    Workspace,
    WorkspaceSetting,
)
from bot.domain import ChannelRef
from bot.domain.settings import OFF, ON, SettingKey
from bot.service.repositories.base import Repository
from bot.service.repositories.directory import insert_for, insert_ignoring_conflict
from bot.service.repositories.lookups import CHANNEL_REF_COLUMNS, channel_ref_of, joined_to_channel
from bot.service.repositories.scores import RecordedAnswer, channel_ranks, record_answers_effects

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
        rows = await self._session.execute(_clicked_posts(), {"post_ids": list(post_ids)})
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

    async def users(self, keys: Collection[tuple[int, str]]) -> list[KnownUser]:
        """The users of these (workspace row, platform user id) pairs that have a row."""
        rows = await self._session.execute(
            select(*_KNOWN_USER_COLUMNS).where(tuple_(User.workspace_id, User.external_id).in_(list(keys)))
        )
        return _known_users(rows)

    async def add_users(self, rows: Sequence[dict[str, Any]]) -> list[KnownUser]:
        """Insert users (one executemany), skipping those another transaction inserted first; the rows inserted,
        so the caller reads again only the users another transaction inserted first."""
        statement = insert_ignoring_conflict(self._session, User, None, ["workspace_id", "external_id"]).returning(
            *_KNOWN_USER_COLUMNS
        )
        return _known_users(await self._session.execute(statement, list(rows)))

    async def rename_user(self, user_row: int, name: str) -> None:
        """Keep a user's stored name current."""
        await self._session.execute(update(User).where(User.id == user_row).values(display_name=name))

    async def insert(self, rows: Sequence[dict[str, Any]]) -> dict[tuple[int, int], int]:
        """Insert answer rows, skipping a (post, user) pair already answered; the new rows' ids by (post, user)."""
        dialect = self._session.get_bind().dialect.name
        returned = await self._session.execute(_insert_answers(dialect), list(rows))
        return {(row.post_id, row.user_id): row.id for row in returned}

    async def record_effects(self, answers: Sequence[RecordedAnswer]) -> None:
        """The rollups and review boxes of answers just inserted (repositories/scores.py)."""
        await record_answers_effects(self._session, answers)

    async def channel_ranks(self, pairs: Sequence[tuple[int, int]]) -> dict[tuple[int, int], int]:
        """Each (user row, channel row)'s rank on the channel's board, as of now in this transaction."""
        return await channel_ranks(self._session, pairs)

    async def existing(self, keys: Sequence[tuple[int, int]]) -> dict[tuple[int, int], tuple[int, bool]]:
        """The (choice, right) of the answers already given for these (post, user row) pairs."""
        if not keys:
            return {}
        rows = await self._session.execute(
            select(Answer.post_id, Answer.user_id, Answer.choice_index, Answer.is_correct).where(
                tuple_(Answer.post_id, Answer.user_id).in_(keys)
            )
        )
        return {(r.post_id, r.user_id): (r.choice_index, r.is_correct) for r in rows}


@lru_cache(maxsize=4)
def _insert_answers(dialect: str) -> Any:
    """The batch's INSERT of answer rows, built once per dialect: a (post, user) pair already answered is skipped,
    and the rows inserted come back with their ids (an executemany, batched into multi-row INSERTs)."""
    statement = insert_for(dialect, Answer).on_conflict_do_nothing(index_elements=["post_id", "user_id"])
    return statement.returning(Answer.id, Answer.post_id, Answer.user_id)


@lru_cache(maxsize=1)
def _clicked_posts() -> Any:
    """The read of `Answers.posts`, built once (SQLAlchemy then reuses its compiled form): the posts in the
    `post_ids` parameter, with what they showed, where, to whom, and their speed-points setting."""
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
        .where(Post.id.in_(bindparam("post_ids", expanding=True)))
    )
