"""What the same-job references of the Slack and Discord paths share: record one click as a bare app would.

A bare app that does the bot's job for a click (issue 26) verifies it, inserts the answer row with one plain
INSERT through the bot's driver and pool (`bot.db.Database`: same engine settings, BEGIN IMMEDIATE on SQLite,
pre-ping on PostgreSQL; only its wait for a pooled connection is longer, QUEUE_FOR_A_CONNECTION), and only after
the commit answers the click with its verdict. It does nothing else: no user upsert (it reads the users and posts
the bot created once, at start-up), no rollups, no card counts, no duplicate check but the unique index. The bench
runs it on the bot's database after the bot's run, with the answers deleted, so the very same rows are inserted
again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import delete, func, insert, select, text

from bench.common import PATIENT
from bot.db import Database
from bot.db.models import Answer, Channel, Post, QuestionRow, User
from bot.timeouts import DatabaseTimeouts

_INSERT = insert(Answer)

QUEUE_FOR_A_CONNECTION = DatabaseTimeouts(pool=120.0)
"""The bot's timeouts, but a click waits as long as it takes for a pooled connection (the bot's 1 s would fail a
third of the clicks: 200 in flight, each holding one of the pool's 30 connections for its transaction, where the
bot's group commit shares one): the reference completes every click, and is measured doing so."""


@dataclass(frozen=True)
class _Card:
    workspace_id: int
    channel_id: int
    correct: int
    opened_at: datetime


def _aware(at: datetime) -> datetime:
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


class SameJob:
    """The users and cards of the bot's database, read once; `record` inserts one answer and says if it was right."""

    def __init__(self, db: Database, users: dict[str, int], cards: dict[int, _Card]) -> None:
        self.db = db
        self.users = users
        self.cards = cards

    @classmethod
    async def open(cls, url: str) -> SameJob:
        """Read the users and the posted cards of the database at `url`."""
        db = Database.from_url(url, timeouts=QUEUE_FOR_A_CONNECTION)
        async with db.engine.connect() as conn:
            users = {external: int(row) for external, row in await conn.execute(select(User.external_id, User.id))}
            query = select(Post.id, QuestionRow.correct_index, Post.opened_at, Post.channel_id).join(
                QuestionRow, QuestionRow.id == Post.question_id
            )
            workspaces = {int(c): int(w) for c, w in await conn.execute(select(Channel.id, Channel.workspace_id))}
            cards = {
                int(post): _Card(workspaces[int(channel)], int(channel), int(correct), _aware(opened))
                for post, correct, opened, channel in await conn.execute(query)
            }
        return cls(db, users, cards)

    async def record(self, post_id: int, user: str, choice: int) -> bool:
        """Insert the answer of `user` (their platform id) to `post_id` in its own transaction; True if right."""
        card = self.cards[post_id]
        right = choice == card.correct
        now = datetime.now(UTC)
        async with self.db.engine.begin() as conn:
            await conn.execute(
                _INSERT,
                {
                    "post_id": post_id,
                    "user_id": self.users[user],
                    "workspace_id": card.workspace_id,
                    "channel_id": card.channel_id,
                    "choice_index": choice,
                    "is_correct": right,
                    "points": 10 if right else 0,
                    "answered_at": now,
                    "latency_ms": int((now - card.opened_at).total_seconds() * 1000),
                },
            )
        return right

    async def close(self) -> None:
        """Close the pool."""
        await self.db.dispose()


async def forget_answers(url: str) -> int:
    """Delete every answer of the database at `url` (after the bot's run, before the same-job app's), so the
    same-job app inserts the same rows; on PostgreSQL, vacuum the table so it starts as clean as the bot's did."""
    db = Database.from_url(url)
    try:
        async with db.engine.begin() as conn:
            deleted = (await conn.execute(delete(Answer))).rowcount
        if db.dialect == "postgresql":
            async with db.engine.connect() as conn:
                await (await conn.execution_options(isolation_level="AUTOCOMMIT")).execute(
                    text("VACUUM ANALYZE answers")
                )
        return int(deleted)
    finally:
        await db.dispose()


async def count_answers(url: str) -> int:
    """How many answers the database at `url` holds."""
    db = Database.from_url(url, timeouts=PATIENT)
    try:
        async with db.engine.connect() as conn:
            return int((await conn.execute(select(func.count(Answer.id)))).scalar_one())
    finally:
        await db.dispose()
