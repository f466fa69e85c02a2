"""The personal home's read model (bot/service/home.py) through the unit of work, and `/quiz me` built from it."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select

from bot.clock import ManualClock
from bot.db.models import User
from bot.domain import ChannelRef
from bot.ports import ActionKind, Message
from bot.runtime import Runtime
from bot.service.facade import Invocation, Reply
from bot.wording import use_translator
from tests.conftest import make_user
from tests.integration.test_wording_coverage import content_values, shout, untranslated


async def _answer(runtime: Runtime, channel: ChannelRef, answers: dict[str, bool]) -> None:
    card = (await runtime.quiz.post_question(channel, pack_id="data-parallelism")).card
    pack = next(p for p in runtime.catalog.packs if p.title == card.pack_title)
    correct = next(q for q in pack.questions if q.prompt == card.prompt).correct_index
    wrong = next(i for i in card.choice_ids if i != correct)
    for name, right in answers.items():
        user = make_user(name, channel.workspace_id)
        await runtime.app.answer(post_id=card.post_id, user=user, choice_index=correct if right else wrong)
    await runtime.app.reveal(card.post_id)


async def run(runtime: Runtime, channel: ChannelRef, who: str, text: str, *, admin: bool = False) -> Reply:
    return await runtime.app.handle_command(Invocation(channel, make_user(who), text, is_admin=admin))


async def test_the_home_shows_standing_per_channel_weakest_topics_cohorts_review_and_the_next_question(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    other = ChannelRef("fake", "W1", "C2")
    await run(runtime, channel, "lead", "cohort create Q1 packs:data-parallelism start:2020-01-01")
    await run(runtime, channel, "ann", "cohort join Q1")
    await _answer(runtime, channel, {"ann": True, "bob": True})
    await _answer(runtime, channel, {"ann": False, "bob": True})
    await _answer(runtime, other, {"ann": True})
    await run(runtime, channel, "lead", "cohort next Q1")
    await run(runtime, other, "admin", "schedule add weekdays 09:30", admin=True)
    clock.advance(timedelta(minutes=11))  # the miss is due for review

    async with runtime.uow() as uow:
        home = await runtime.app.home_reader.home(uow, make_user("ann"), now=clock.now())
    assert (home.stats.answered, home.stats.correct) == (3, 2)
    # Most points first; at equal points more answers first. Bob (two right) leads C1.
    assert [(c.channel.channel_id, c.points, c.rank, c.players, c.correct, c.answered) for c in home.channels] == [
        ("C1", 20, 2, 2, 1, 2),
        ("C2", 20, 1, 1, 1, 1),
    ]
    assert home.weakest and all(t.correct < t.answered for t in home.weakest) and len(home.weakest) <= 3
    assert [t.accuracy for t in home.weakest] == sorted(t.accuracy for t in home.weakest)
    [cohort] = home.cohorts
    assert (cohort.name, cohort.posted, cohort.total, cohort.answered) == ("Q1", 1, 8, 0)
    assert home.next_question is not None and home.next_question.channel.channel_id == "C2"
    assert home.next_question.due > clock.now()
    assert home.stats.review_due == 1

    me = await run(runtime, channel, "ann", "me")
    assert me.page is not None
    titles = [section.title for section in me.page.sections]
    assert titles == [
        "Your record",
        "Streaks",
        "Your channels",
        "Weakest topics",
        "Review",
        "Your cohorts",
        "Next question",
    ]
    assert [a.kind for a in me.page.actions] == [ActionKind.START_REVIEW]
    # The text keeps what `/quiz me` always said, then adds the page's new parts.
    assert me.message.lines[0] == "Answered: 3 · correct: 2 · accuracy: 67%"
    assert "Review: 1 due now (`/quiz review`) · 1 learning · 0 mastered" in me.message.lines
    assert "  #C2: 20 points · rank 1 of 1 · 1 of 1 right" in me.message.lines
    assert "  Q1: 1 of 8 curriculum questions asked · you answered 0, 0 right" in me.message.lines


async def test_opening_a_strangers_home_writes_nothing(runtime: Runtime, channel: ChannelRef) -> None:
    await _answer(runtime, channel, {"ann": True})
    async with runtime.db.transaction() as session:
        before = (await session.execute(select(func.count()).select_from(User))).scalar_one()
    page = await runtime.app.home(make_user("nobody"))
    assert page.title == "nobody: no answers yet." and page.actions == ()
    assert [s.title for s in page.sections] == ["Your record"]
    elsewhere = await runtime.app.home(make_user("ann", "W-unknown"))
    assert elsewhere.sections[0].lines[0].text == "Answer a question to get on the board."
    async with runtime.db.transaction() as session:
        assert (await session.execute(select(func.count()).select_from(User))).scalar_one() == before


async def test_a_home_opened_without_a_name_uses_the_stored_one(runtime: Runtime, channel: ChannelRef) -> None:
    await _answer(runtime, channel, {"ann": True})
    nameless = make_user("ann")
    page = await runtime.app.home(type(nameless)(nameless.platform, nameless.workspace_id, nameless.user_id, ""))
    assert page.title == "Your quiz record, ann"


async def test_the_home_goes_through_the_translation_hook(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await run(runtime, channel, "lead", "cohort create Q1 packs:data-parallelism start:2020-01-01")
    await run(runtime, channel, "ann", "cohort join Q1")
    await _answer(runtime, channel, {"ann": False})
    await run(runtime, channel, "admin", "schedule add weekdays 09:30", admin=True)
    clock.advance(timedelta(minutes=11))
    tags = {tag for pack in runtime.app.packs for question in pack.questions for tag in question.tags}
    use_translator(shout)
    try:
        me = await run(runtime, channel, "ann", "me")
    finally:
        use_translator(None)
    assert me.page is not None
    values = content_values(runtime) | tags | {"ann", "Q1", "C1", "#C1", "Mon", "Tue", "Wed", "Thu", "Fri", "UTC"}
    assert untranslated(me, values) == [], me.message.text
    page = me.page
    everything = [s.title for s in page.sections] + [line.text for s in page.sections for line in s.lines]
    everything += [action.label for action in page.actions]
    assert untranslated(Reply(Message(page.title, tuple(everything))), values) == [], everything
    assert [s.title for s in me.page.sections][-1] == "NEXT QUESTION"
