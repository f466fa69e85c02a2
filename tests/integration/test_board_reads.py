"""A board opened on its own only reads: it takes no write lock, so a writer holding one does not hold it up."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from bot.commands import Scope, Window
from bot.config import Settings
from bot.db.models import Workspace
from bot.domain import ChannelRef
from bot.runtime import Runtime
from tests.conftest import SEED_CONTENT, make_user, patient_settings


@pytest.fixture
def settings(database_url: str) -> Settings:
    """The usual test settings, with a SQLite writer giving up on the write lock after 0.2 s."""
    return patient_settings(
        database_url=database_url, content_dir=SEED_CONTENT, card_update_interval=0.0, sqlite_busy_timeout=0.2
    )


async def test_a_board_reads_while_a_writer_holds_the_write_lock(runtime: Runtime, channel: ChannelRef) -> None:
    card = (await runtime.quiz.post_question(channel)).card
    await runtime.app.answer(post_id=card.post_id, user=make_user("alice"), choice_index=card.choice_ids[0])
    async with runtime.db.transaction() as session:
        # An uncommitted write: on SQLite this transaction holds the file's write lock until the block ends.
        await session.execute(update(Workspace).values(timezone=Workspace.timezone))
        for scope in (Scope.CHANNEL, Scope.WORKSPACE):
            board = await runtime.stats.leaderboard(channel, window=Window.ALL, scope=scope, now=runtime.clock.now())
            assert [row.name for row in board.rows] == ["alice"]
        week = await runtime.stats.leaderboard(
            channel, window=Window.WEEK, scope=Scope.WORKSPACE, now=runtime.clock.now()
        )
        assert [row.name for row in week.rows] == ["alice"]
