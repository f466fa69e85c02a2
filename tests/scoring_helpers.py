"""Helpers for the scores, cohorts, review and report tests: post a question, answer it right or wrong."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import event, update

from bot.db.database import READ_ONLY
from bot.db.models import Workspace
from bot.domain import AnswerResult, ChannelRef, PostSource, QuestionCard, UserRef
from bot.runtime import Runtime
from bot.service.facade import Context, Reply
from tests.conftest import make_user


async def post(
    runtime: Runtime,
    channel: ChannelRef,
    *,
    source: PostSource = PostSource.COMMAND,
    closes_at: datetime | None = None,
    pack: str | None = None,
) -> QuestionCard:
    """Post the channel's next question."""
    return (await runtime.quiz.post_question(channel, pack_id=pack, source=source, closes_at=closes_at)).card


def correct_index(runtime: Runtime, card: QuestionCard) -> int:
    """The pack index of the card's correct choice."""
    question = next(q for p in runtime.catalog.packs for q in p.questions if q.prompt == card.prompt)
    return question.correct_index


def wrong_index(runtime: Runtime, card: QuestionCard) -> int:
    """The pack index of a wrong choice of the card."""
    right = correct_index(runtime, card)
    return next(i for i in card.choice_ids if i != right)


async def answer(runtime: Runtime, card: QuestionCard, who: str | UserRef, *, right: bool) -> AnswerResult:
    """Answer a card right or wrong as a user (a name on workspace W1, or a UserRef)."""
    user = make_user(who) if isinstance(who, str) else who
    choice = correct_index(runtime, card) if right else wrong_index(runtime, card)
    return await runtime.app.answer(post_id=card.post_id, user=user, choice_index=choice)


async def set_timezone(runtime: Runtime, channel: ChannelRef, timezone: str) -> None:
    """Give the channel's workspace a timezone (creating the workspace row if needed)."""
    async with runtime.db.transaction() as session:
        row = await runtime.directory.workspace_id(session, channel.platform, channel.workspace_id, runtime.clock.now())
        await session.execute(update(Workspace).where(Workspace.id == row).values(timezone=timezone))


async def confirm(
    runtime: Runtime, asked: Reply, channel: ChannelRef, who: str | UserRef, *, admin: bool = False, accept: bool = True
) -> Reply:
    """Click Confirm (or Cancel) on a destructive command's question, as a user (a name on W1, or a UserRef)."""
    assert asked.confirm is not None, asked.message.text
    user = make_user(who) if isinstance(who, str) else who
    return await runtime.app.confirm(
        token=asked.confirm.token, context=Context(channel, user, is_admin=admin), accept=accept
    )


@contextmanager
def read_only_statements(runtime: Runtime) -> Iterator[list[str]]:
    """The statements read-only connections (boards, `/quiz me`) sent to the database inside the block, in order."""
    sent: list[str] = []

    def record(conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if conn.get_execution_options().get(READ_ONLY):
            sent.append(statement)

    engine = runtime.db.engine.sync_engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        event.remove(engine, "before_cursor_execute", record)
