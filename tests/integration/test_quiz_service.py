"""The quiz core through its services: posting, answering, revealing, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from bot.clock import ManualClock
from bot.content import Catalog
from bot.db.models import Answer, PackRow, Post
from bot.domain import AnswerOutcome, ChannelRef
from bot.errors import InvalidChoice, NoOpenPost, QuizError, UnknownPack, UnknownPost
from bot.ports import PlatformError
from bot.runtime import Runtime
from tests.conftest import make_user
from tests.fakes.fake_platform import FakePlatform


async def test_post_question_shows_shuffled_choices_and_records_the_order(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef
) -> None:
    posted = await runtime.quiz.post_question(channel, pack_id="data-parallelism")
    card = posted.card
    pack = runtime.catalog.get("data-parallelism")
    question = next(q for q in pack.questions if q.prompt == card.prompt)
    assert sorted(card.choice_ids) == list(range(len(question.choices)))
    assert card.choices == tuple(question.choices[i] for i in card.choice_ids)
    assert card.pack_title == "Data Parallelism Quiz"
    assert card.question_count == 8
    assert platform.of_kind("post_card")[0].card == card
    async with runtime.db.transaction() as session:
        post = await session.get(Post, card.post_id)
    assert post is not None
    assert post.choice_order == list(card.choice_ids)
    assert post.message_ref == posted.message_ref
    assert post.source == "command"


async def test_shuffles_differ_between_posts(runtime: Runtime, channel: ChannelRef) -> None:
    orders = {(await runtime.quiz.post_question(channel, pack_id="data-parallelism")).card.choice_ids for _ in range(8)}
    assert len(orders) > 1


async def test_no_repeat_until_the_pack_is_used_up_then_a_new_cycle(runtime: Runtime, channel: ChannelRef) -> None:
    prompts = [
        (await runtime.quiz.post_question(channel, pack_id="model-pipeline-parallelism")).card.prompt for _ in range(8)
    ]
    assert len(set(prompts)) == 8
    next_cycle = [
        (await runtime.quiz.post_question(channel, pack_id="model-pipeline-parallelism")).card.prompt for _ in range(8)
    ]
    assert set(next_cycle) == set(prompts)


async def test_each_channel_has_its_own_cycle(runtime: Runtime, channel: ChannelRef) -> None:
    other = ChannelRef("fake", "W1", "C2")
    for _ in range(8):
        await runtime.quiz.post_question(channel, pack_id="data-parallelism")
    prompts = {(await runtime.quiz.post_question(other, pack_id="data-parallelism")).card.prompt for _ in range(8)}
    assert len(prompts) == 8


async def test_unknown_pack_names_the_packs_there_are(runtime: Runtime, channel: ChannelRef) -> None:
    with pytest.raises(UnknownPack, match="data-parallelism"):
        await runtime.quiz.post_question(channel, pack_id="nope")


async def test_a_refused_post_leaves_no_post_row(runtime: Runtime, platform: FakePlatform, channel: ChannelRef) -> None:
    platform.fail_next_post = PlatformError("channel_not_found", permanent=True)
    with pytest.raises(PlatformError):
        await runtime.quiz.post_question(channel)
    async with runtime.db.transaction() as session:
        assert (await session.execute(select(func.count(Post.id)))).scalar_one() == 0


async def test_right_and_wrong_answers_are_recorded_with_latency_and_points(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    card = (await runtime.quiz.post_question(channel, pack_id="data-parallelism")).card
    question = runtime.catalog.get("data-parallelism")
    correct = next(q for q in question.questions if q.prompt == card.prompt).correct_index
    wrong = next(i for i in card.choice_ids if i != correct)

    clock.advance(30)
    right = await runtime.app.answer(post_id=card.post_id, user=make_user("alice"), choice_index=correct)
    clock.advance(30)
    miss = await runtime.app.answer(post_id=card.post_id, user=make_user("bob"), choice_index=wrong)

    assert right.outcome is AnswerOutcome.RECORDED
    assert right.correct is True
    assert right.explanation
    assert miss.correct is False
    assert miss.chosen is not None
    assert miss.correct_choice == right.correct_choice
    async with runtime.db.transaction() as session:
        rows = {r.choice_index: r for r in (await session.execute(select(Answer))).scalars()}
    assert rows[correct].is_correct
    assert rows[correct].latency_ms == 30_000
    assert rows[correct].points == 20  # 10 + a speed bonus of 10 * (1 - 30 s / 1 h), rounded
    assert rows[wrong].latency_ms == 60_000
    assert rows[wrong].points == 0


async def test_second_click_is_told_its_first_answer_and_changes_nothing(runtime: Runtime, channel: ChannelRef) -> None:
    card = (await runtime.quiz.post_question(channel)).card
    first = await runtime.app.answer(post_id=card.post_id, user=make_user("alice"), choice_index=card.choice_ids[0])
    again = await runtime.app.answer(post_id=card.post_id, user=make_user("alice"), choice_index=card.choice_ids[1])
    assert again.outcome is AnswerOutcome.ALREADY_ANSWERED
    assert again.chosen == card.choices[0]
    assert again.correct == first.correct
    async with runtime.db.transaction() as session:
        rows = (await session.execute(select(Answer))).scalars().all()
    assert [r.choice_index for r in rows] == [card.choice_ids[0]]


async def test_click_after_reveal_is_told_the_post_is_closed(runtime: Runtime, channel: ChannelRef) -> None:
    card = (await runtime.quiz.post_question(channel)).card
    await runtime.app.reveal(card.post_id)
    late = await runtime.app.answer(post_id=card.post_id, user=make_user("carol"), choice_index=card.choice_ids[0])
    assert late.outcome is AnswerOutcome.CLOSED
    async with runtime.db.transaction() as session:
        assert (await session.execute(select(func.count(Answer.id)))).scalar_one() == 0


async def test_click_after_the_close_time_is_refused(runtime: Runtime, channel: ChannelRef, clock: ManualClock) -> None:
    card = (await runtime.quiz.post_question(channel, closes_at=clock.now() + timedelta(minutes=5))).card
    clock.advance(timedelta(minutes=5))
    late = await runtime.app.answer(post_id=card.post_id, user=make_user("dan"), choice_index=card.choice_ids[0])
    assert late.outcome is AnswerOutcome.CLOSED


async def test_unknown_post_and_bad_choice_are_refused(runtime: Runtime, channel: ChannelRef) -> None:
    with pytest.raises(UnknownPost):
        await runtime.app.answer(post_id=999_999, user=make_user("eve"), choice_index=0)
    card = (await runtime.quiz.post_question(channel)).card
    with pytest.raises(InvalidChoice):
        await runtime.app.answer(post_id=card.post_id, user=make_user("eve"), choice_index=17)
    with pytest.raises(InvalidChoice):
        await runtime.app.answer(post_id=card.post_id, user=make_user("eve"), choice_index=-1)


async def test_reveal_shows_distribution_in_shown_order_and_who_got_it_right(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef, clock: ManualClock
) -> None:
    card = (await runtime.quiz.post_question(channel, pack_id="data-parallelism")).card
    pack = runtime.catalog.get("data-parallelism")
    correct = next(q for q in pack.questions if q.prompt == card.prompt).correct_index
    wrong = next(i for i in card.choice_ids if i != correct)
    for name, choice in [("alice", correct), ("bob", wrong), ("carol", correct)]:
        clock.advance(1)
        await runtime.app.answer(post_id=card.post_id, user=make_user(name), choice_index=choice)

    revealed = await runtime.app.reveal(await runtime.app.current_post_id(channel))

    assert revealed.reveal is not None
    assert revealed.choice_ids[revealed.reveal.correct_position] == correct
    assert revealed.reveal.counts[revealed.reveal.correct_position] == 2
    assert revealed.reveal.counts[revealed.choice_ids.index(wrong)] == 1
    assert sum(revealed.reveal.counts) == 3
    assert revealed.reveal.correct_users == ("alice", "carol")
    edits = platform.of_kind("update_card")
    assert edits[-1].card == revealed
    assert edits[-1].message_ref == platform.of_kind("post_card")[0].message_ref
    with pytest.raises(NoOpenPost):
        await runtime.app.current_post_id(channel)


async def test_reveal_with_no_open_question_says_so(runtime: Runtime, channel: ChannelRef) -> None:
    with pytest.raises(NoOpenPost):
        await runtime.app.current_post_id(channel)


async def test_adapter_not_running_is_a_clear_error(runtime: Runtime) -> None:
    with pytest.raises(QuizError, match="adapter is not running"):
        await runtime.quiz.post_question(ChannelRef("nowhere", "W", "C"))


async def test_concurrent_clicks_by_one_user_record_exactly_one_answer(runtime: Runtime, channel: ChannelRef) -> None:
    card = (await runtime.quiz.post_question(channel)).card
    user = make_user("racer")
    results = await asyncio.gather(
        *(runtime.app.answer(post_id=card.post_id, user=user, choice_index=card.choice_ids[i % 4]) for i in range(40))
    )
    outcomes = [r.outcome for r in results]
    assert outcomes.count(AnswerOutcome.RECORDED) == 1
    assert outcomes.count(AnswerOutcome.ALREADY_ANSWERED) == 39
    recorded = next(r for r in results if r.outcome is AnswerOutcome.RECORDED)
    assert all(r.chosen == recorded.chosen for r in results)
    async with runtime.db.transaction() as session:
        assert (await session.execute(select(func.count(Answer.id)))).scalar_one() == 1


async def test_concurrent_clicks_by_many_users_are_all_recorded(runtime: Runtime, channel: ChannelRef) -> None:
    card = (await runtime.quiz.post_question(channel)).card
    results = await asyncio.gather(
        *(
            runtime.app.answer(post_id=card.post_id, user=make_user(f"u{i}"), choice_index=card.choice_ids[0])
            for i in range(60)
        )
    )
    assert all(r.outcome is AnswerOutcome.RECORDED for r in results)
    async with runtime.db.transaction() as session:
        assert (await session.execute(select(func.count(Answer.id)))).scalar_one() == 60


async def test_answer_count_edits_are_coalesced(runtime: Runtime, platform: FakePlatform, channel: ChannelRef) -> None:
    runtime.cards.interval = 3600  # the edit waits; we run it by hand, so no timing is involved
    card = (await runtime.quiz.post_question(channel)).card
    await asyncio.gather(
        *(
            runtime.app.answer(post_id=card.post_id, user=make_user(f"c{i}"), choice_index=card.choice_ids[0])
            for i in range(25)
        )
    )
    assert platform.of_kind("update_card") == []  # 25 clicks, no edit yet: one is pending
    await runtime.cards.flush()
    edits = platform.of_kind("update_card")
    assert len(edits) == 1
    assert edits[0].card is not None
    assert edits[0].card.answer_count == 25
    await runtime.app.answer(post_id=card.post_id, user=make_user("late"), choice_index=card.choice_ids[0])
    await runtime.cards.flush()
    assert [e.card.answer_count for e in platform.of_kind("update_card")] == [25, 26]  # type: ignore[union-attr]


async def test_a_pending_edit_runs_after_its_interval(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef
) -> None:
    runtime.cards.interval = 0.01
    card = (await runtime.quiz.post_question(channel)).card
    await runtime.app.answer(post_id=card.post_id, user=make_user("a"), choice_index=card.choice_ids[0])
    async with asyncio.timeout(60):  # a bound for a hang (5 s was short for a loaded machine), not a speed check
        while not platform.of_kind("update_card"):  # noqa: ASYNC110 - polls the refresher running in the background
            await asyncio.sleep(0.01)
    assert platform.of_kind("update_card")[0].card.answer_count == 1  # type: ignore[union-attr]


async def test_pending_edits_are_flushed_on_close(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef
) -> None:
    runtime.cards.interval = 30
    card = (await runtime.quiz.post_question(channel)).card
    await runtime.app.answer(post_id=card.post_id, user=make_user("f"), choice_index=card.choice_ids[0])
    assert platform.of_kind("update_card") == []
    await runtime.app.aclose()
    assert platform.of_kind("update_card")[-1].card.answer_count == 1  # type: ignore[union-attr]


async def test_content_sync_retires_removed_questions_and_keeps_old_posts_readable(
    runtime: Runtime, channel: ChannelRef
) -> None:
    from bot.content import Catalog

    card = (await runtime.quiz.post_question(channel, pack_id="data-parallelism")).card
    pack = runtime.catalog.get("data-parallelism")
    kept = [q for q in pack.questions if q.prompt != card.prompt]
    smaller = type(pack)(
        id=pack.id, title=pack.title, description=pack.description, questions=tuple(kept), tags=pack.tags
    )
    runtime.quiz.catalog = Catalog(packs=(smaller, runtime.catalog.get("model-pipeline-parallelism")))
    await runtime.app.sync_content()
    prompts = {(await runtime.quiz.post_question(channel, pack_id="data-parallelism")).card.prompt for _ in range(7)}
    assert card.prompt not in prompts
    _, _, old = await runtime.app.card(card.post_id)
    assert old.prompt == card.prompt


async def test_a_pack_title_as_long_as_the_schema_allows_is_synced_and_posted(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef
) -> None:
    long_title = "Collectives " * 166 + "end"  # 1,995 characters: schema-legal (up to 2,000)
    pack = runtime.catalog.get("data-parallelism")
    runtime.quiz.catalog = Catalog(packs=(replace(pack, title=long_title),))
    await runtime.app.sync_content()  # PostgreSQL refused this with VARCHAR(300)
    async with runtime.db.transaction() as session:
        stored = await session.get(PackRow, pack.id)
    assert stored is not None and stored.title == long_title
    posted = await runtime.quiz.post_question(channel, pack_id=pack.id)
    assert posted.card.pack_title == long_title
