"""Group commit: clicks that arrive together share one transaction, and each still gets its own answer."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import insert, select, text

from bot.db.models import Answer, User, Workspace
from bot.domain import DISPLAY_NAME_MAX, AnswerOutcome, ChannelRef, UserRef
from bot.errors import Busy, InvalidChoice, UnknownPost
from bot.ops.data import forget_user
from bot.runtime import Runtime
from bot.service.operator_uow import operator_unit_of_work
from tests.conftest import make_user
from tests.held_commits import held_commits, metric


async def test_one_batch_sorts_out_every_kind_of_click(runtime: Runtime, channel: ChannelRef) -> None:
    open_card = (await runtime.quiz.post_question(channel)).card
    closed_card = (await runtime.quiz.post_question(channel)).card
    await runtime.app.answer(post_id=open_card.post_id, user=make_user("early"), choice_index=open_card.choice_ids[2])
    await runtime.app.answer(
        post_id=closed_card.post_id, user=make_user("early"), choice_index=closed_card.choice_ids[0]
    )
    await runtime.app.reveal(closed_card.post_id)
    batches_before = runtime.app.answers.batches

    clicks = [
        (open_card.post_id, "alice", open_card.choice_ids[0]),  # recorded
        (open_card.post_id, "alice", open_card.choice_ids[1]),  # same batch, same user: already answered (first wins)
        (open_card.post_id, "early", open_card.choice_ids[0]),  # answered in an earlier batch
        (closed_card.post_id, "early", closed_card.choice_ids[1]),  # closed, with an earlier answer
        (closed_card.post_id, "bob", closed_card.choice_ids[1]),  # closed, never answered
        (999_999, "bob", 0),  # no such post
        (open_card.post_id, "bob", 99),  # no such choice
        (open_card.post_id, "bob", open_card.choice_ids[3]),  # recorded
    ]
    results = await asyncio.gather(
        *(runtime.app.answer(post_id=p, user=make_user(u), choice_index=c) for p, u, c in clicks),
        return_exceptions=True,
    )
    assert runtime.app.answers.batches == batches_before + 1

    outcomes = [r.outcome if not isinstance(r, BaseException) else type(r) for r in results]
    assert outcomes == [
        AnswerOutcome.RECORDED,
        AnswerOutcome.ALREADY_ANSWERED,
        AnswerOutcome.ALREADY_ANSWERED,
        AnswerOutcome.CLOSED,
        AnswerOutcome.CLOSED,
        UnknownPost,
        InvalidChoice,
        AnswerOutcome.RECORDED,
    ]
    assert results[1].chosen == open_card.choices[0]  # type: ignore[union-attr]
    assert results[2].chosen == open_card.choices[2]  # type: ignore[union-attr]
    assert results[3].chosen == closed_card.choices[0]  # type: ignore[union-attr]
    assert results[4].chosen is None  # type: ignore[union-attr]
    async with runtime.db.transaction() as session:
        rows = (
            await session.execute(
                select(User.display_name, Answer.post_id, Answer.choice_index)
                .join(User, User.id == Answer.user_id)
                .order_by(Answer.id)
            )
        ).all()
    assert [tuple(r) for r in rows] == [
        ("early", open_card.post_id, open_card.choice_ids[2]),
        ("early", closed_card.post_id, closed_card.choice_ids[0]),
        ("alice", open_card.post_id, open_card.choice_ids[0]),
        ("bob", open_card.post_id, open_card.choice_ids[3]),
    ]


async def test_a_user_deleted_by_another_process_is_recreated_on_the_next_click(
    runtime: Runtime, channel: ChannelRef
) -> None:
    card = (await runtime.quiz.post_question(channel)).card
    await runtime.app.answer(post_id=card.post_id, user=make_user("zoe"), choice_index=card.choice_ids[0])
    async with operator_unit_of_work(runtime.db) as uow:
        await forget_user(uow, platform="fake", user_id="U-zoe")  # the recorder still caches zoe's old id
    again = await runtime.app.answer(post_id=card.post_id, user=make_user("zoe"), choice_index=card.choice_ids[1])
    assert again.outcome is AnswerOutcome.RECORDED
    assert again.chosen == card.choices[1]


async def test_display_names_follow_the_platform(runtime: Runtime, channel: ChannelRef) -> None:
    first = (await runtime.quiz.post_question(channel)).card
    second = (await runtime.quiz.post_question(channel)).card
    user = make_user("sam")
    await runtime.app.answer(post_id=first.post_id, user=user, choice_index=first.choice_ids[0])
    renamed = type(user)(user.platform, user.workspace_id, user.user_id, "Samantha")
    await runtime.app.answer(post_id=second.post_id, user=renamed, choice_index=second.choice_ids[0])
    async with runtime.db.transaction() as session:
        names = list((await session.execute(select(User.display_name))).scalars())
    assert names == ["Samantha"]


@pytest.mark.parametrize("users", [1, 7])
async def test_a_large_burst_records_every_first_click_once(runtime: Runtime, channel: ChannelRef, users: int) -> None:
    cards = [(await runtime.quiz.post_question(channel)).card for _ in range(5)]
    clicks = [
        runtime.app.answer(post_id=card.post_id, user=make_user(f"u{n}"), choice_index=card.choice_ids[(n + k) % 4])
        for k in range(3)
        for card in cards
        for n in range(users)
    ]
    results = await asyncio.gather(*clicks)
    assert sum(r.outcome is AnswerOutcome.RECORDED for r in results) == len(cards) * users
    async with runtime.db.transaction() as session:
        assert len((await session.execute(select(Answer.id))).all()) == len(cards) * users


async def test_past_the_pending_cap_a_click_is_refused_at_once_and_nothing_is_recorded(
    runtime: Runtime, channel: ChannelRef
) -> None:
    card = (await runtime.quiz.post_question(channel)).card
    runtime.app.max_pending_clicks = 2
    with held_commits(runtime) as release:
        pending = [
            asyncio.create_task(runtime.app.answer(post_id=card.post_id, user=make_user(name), choice_index=0))
            for name in ("alice", "bob")
        ]
        await asyncio.sleep(0)  # both accepted, neither committed
        with pytest.raises(Busy, match="busy right now and did not record that click"):
            await runtime.app.answer(post_id=card.post_id, user=make_user("carol"), choice_index=0)
        release.set()
        assert [r.outcome for r in await asyncio.gather(*pending)] == [AnswerOutcome.RECORDED] * 2
    assert metric(runtime, "quizbot_busy_refusals_total", "fake") == 1
    # Under the cap again: carol's next click counts.
    assert (await runtime.app.answer(post_id=card.post_id, user=make_user("carol"), choice_index=0)).outcome is (
        AnswerOutcome.RECORDED
    )
    async with runtime.db.transaction() as session:
        names = (await session.execute(select(User.external_id).join(Answer, Answer.user_id == User.id))).scalars()
        assert sorted(names) == ["U-alice", "U-bob", "U-carol"]


async def test_a_name_longer_than_the_column_is_cut_to_fit_and_the_click_still_counts(
    runtime: Runtime, channel: ChannelRef
) -> None:
    # A name as long as a terminal user may type: on PostgreSQL the 200-character column refused the whole batch
    # ("database unavailable"), and SQLite stored it whole.
    card = (await runtime.quiz.post_question(channel)).card
    long_name = "n" * 150 + "é" * 150
    user = UserRef("fake", "W1", "U-long", long_name)
    result = await runtime.app.answer(post_id=card.post_id, user=user, choice_index=card.choice_ids[0])
    assert result.outcome is AnswerOutcome.RECORDED
    async with runtime.db.transaction() as session:
        stored = (await session.execute(select(User.display_name).where(User.external_id == "U-long"))).scalar_one()
    assert stored == long_name[:DISPLAY_NAME_MAX]
    assert user.display_name == long_name[:DISPLAY_NAME_MAX]


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
async def test_a_user_another_process_inserts_during_the_batch_gets_that_row(
    runtime: Runtime, channel: ChannelRef
) -> None:
    """The batch finds or inserts its new users in one statement on PostgreSQL; a user another process has just
    inserted (not committed yet) is neither found nor inserted by it: the batch waits on that row, then reads it
    again, and the click counts for that one row."""
    card = (await runtime.quiz.post_question(channel)).card
    async with runtime.db.transaction() as session:
        workspace = (await session.execute(select(Workspace.id).where(Workspace.external_id == "W1"))).scalar_one()
    other = runtime.db.sessions()  # another process's transaction, holding its new row of the user uncommitted
    try:
        await other.execute(
            insert(User).values(
                workspace_id=workspace, external_id="U-ivy", display_name="ivy", created_at=runtime.clock.now()
            )
        )
        theirs = (await other.execute(select(User.id).where(User.external_id == "U-ivy"))).scalar_one()
        click = asyncio.create_task(
            runtime.app.answer(post_id=card.post_id, user=make_user("ivy"), choice_index=card.choice_ids[0])
        )
        while not await _waiting_on_a_lock(runtime):  # the batch's INSERT of the user waits for that row
            assert not click.done(), click.result()
            await asyncio.sleep(0.01)
        await other.commit()
    finally:
        await other.close()
    result = await click
    assert result.outcome is AnswerOutcome.RECORDED
    async with runtime.db.transaction() as session:
        users = list((await session.execute(select(User.id).where(User.external_id == "U-ivy"))).scalars())
        answerers = list((await session.execute(select(Answer.user_id))).scalars())
    assert users == [theirs]
    assert answerers == [theirs]


async def _waiting_on_a_lock(runtime: Runtime) -> bool:
    async with runtime.db.transaction() as session:
        waiting = await session.execute(
            text(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
        )
        return bool(waiting.scalar_one())
