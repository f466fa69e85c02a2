"""A post is a snapshot of what it showed: editing a pack while its posts are open or answered changes only later
posts (issue 12, "History survives pack edits"). On SQLite and PostgreSQL.

Each test edits the data-parallelism pack in memory, syncs it (as a restart with edited content/ does), and then
clicks, reveals, reviews, reports and exports what was posted before the edit.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select

from bot.cli import main
from bot.clock import ManualClock
from bot.content import Catalog
from bot.db.models import Answer, PostSnapshot, QuestionRow, QuestionVersion, ReviewAnswer
from bot.domain import AnswerOutcome, ChannelRef, Question, QuestionCard, QuestionKey
from bot.runtime import Runtime
from bot.service.facade import Invocation, Reply
from bot.wording.cards import card_footer
from tests.conftest import SEED_CONTENT, make_user, use_patient_database

PACK = "data-parallelism"
KEY = "dp-gpu-holds"  # four choices, the first one correct
ORIGINAL = (
    "A complete copy of the model, processing a different slice of the batch",
    "A different slice of the model's layers",
    "Only the optimizer state, with weights stored centrally",
    "A compressed version of the model with fewer parameters",
)


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, database_url: str, tmp_path: Path) -> Path:
    """`quizbot` commands run against the test database."""
    import os

    for name in list(os.environ):
        if name.startswith("QUIZBOT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", database_url)
    use_patient_database(monkeypatch)
    monkeypatch.setenv("QUIZBOT_CONTENT_DIR", str(SEED_CONTENT))
    monkeypatch.chdir(tmp_path)
    return tmp_path


async def export(capsys: pytest.CaptureFixture[str]) -> dict[str, list[dict[str, object]]]:
    """`quizbot export --format json`, parsed; fails the test if the command fails."""
    capsys.readouterr()
    code = await asyncio.to_thread(main, ["export", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data: dict[str, list[dict[str, object]]] = json.loads(out)
    return data


async def edit(runtime: Runtime, change: Callable[[Question], Question | None], key: str = KEY) -> None:
    """Change (or with None, remove) one question of the pack, and sync the edited pack into the database."""
    pack = runtime.quiz.catalog.get(PACK)
    questions = []
    for question in pack.questions:
        changed = change(question) if question.key == key else question
        if changed is not None:
            questions.append(changed)
    edited = dataclasses.replace(pack, questions=tuple(questions))
    runtime.quiz.catalog = Catalog(packs=tuple(edited if p.id == PACK else p for p in runtime.quiz.catalog.packs))
    await runtime.app.sync_content()


async def post_it(runtime: Runtime, channel: ChannelRef, key: str = KEY) -> QuestionCard:
    return (await runtime.quiz.post_question(channel, question=QuestionKey(PACK, key))).card


async def click(runtime: Runtime, card: QuestionCard, who: str, choice: int) -> object:
    return await runtime.app.answer(post_id=card.post_id, user=make_user(who), choice_index=choice)


async def reveal_command(runtime: Runtime, channel: ChannelRef) -> Reply:
    # the reveal is what these tests are about: an admin's, who may reveal any question (issue 23)
    return await runtime.app.handle_command(Invocation(channel, make_user("lead"), "reveal", is_admin=True))


async def shrunk(runtime: Runtime, channel: ChannelRef) -> QuestionCard:
    """A post of the question, answered on its third choice; then the pack cuts the question to two choices."""
    card = await post_it(runtime, channel)
    assert set(card.choices) == set(ORIGINAL)
    await click(runtime, card, "early", 2)
    await edit(runtime, lambda q: dataclasses.replace(q, choices=(ORIGINAL[1], ORIGINAL[0]), correct_index=1))
    return card


async def test_shrunk_choices_a_click_on_a_vanished_choice_is_recorded_against_the_snapshot(
    runtime: Runtime, channel: ChannelRef
) -> None:
    card = await shrunk(runtime, channel)
    late = await runtime.app.answer(post_id=card.post_id, user=make_user("late"), choice_index=3)
    right = await runtime.app.answer(post_id=card.post_id, user=make_user("right"), choice_index=0)
    assert late.outcome is AnswerOutcome.RECORDED
    assert (late.chosen, late.correct, late.correct_choice) == (ORIGINAL[3], False, ORIGINAL[0])
    assert (right.chosen, right.correct) == (ORIGINAL[0], True)
    again = await runtime.app.answer(post_id=card.post_id, user=make_user("early"), choice_index=0)
    assert (again.outcome, again.chosen) == (AnswerOutcome.ALREADY_ANSWERED, ORIGINAL[2])
    async with runtime.db.transaction() as session:
        assert sorted((await session.execute(select(Answer.choice_index, Answer.is_correct))).all()) == [
            (0, True),
            (2, False),
            (3, False),
        ]
    later = await post_it(runtime, channel)  # a new post shows the pack as it is now
    assert sorted(later.choices) == sorted(ORIGINAL[:2])


async def test_shrunk_choices_quiz_reveal_shows_what_the_post_showed(runtime: Runtime, channel: ChannelRef) -> None:
    card = await shrunk(runtime, channel)
    await runtime.app.answer(post_id=card.post_id, user=make_user("right"), choice_index=0)
    reply = await reveal_command(runtime, channel)
    assert reply.ok, reply.message
    assert reply.message.title == f"Revealed: {ORIGINAL[0]}"
    _, _, revealed = await runtime.app.card(card.post_id)
    assert revealed.reveal is not None
    assert revealed.choices == card.choices  # all four, in the order shown
    assert revealed.choices[revealed.reveal.correct_position] == ORIGINAL[0]
    assert revealed.reveal.counts[card.choice_ids.index(2)] == 1
    assert sum(revealed.reveal.counts) == 2
    assert revealed.reveal.correct_users == ("right",)


async def test_shrunk_choices_quizbot_export_works(
    runtime: Runtime, channel: ChannelRef, cli_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await shrunk(runtime, channel)
    data = await export(capsys)
    assert [(a["user_name"], a["choice_index"], a["choice"], a["correct"]) for a in data["answers"]] == [
        ("early", 2, ORIGINAL[2], False),
    ]
    assert [(p["question_id"], p["answers"]) for p in data["posts"]] == [(KEY, 1)]


async def test_reordered_choices_and_a_moved_answer_keep_old_answers_and_the_old_reveal(
    runtime: Runtime, channel: ChannelRef, cli_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    card = await post_it(runtime, channel)
    await click(runtime, card, "ann", 0)  # right when posted
    await click(runtime, card, "ben", 1)  # wrong when posted
    # Reverse the choices and make another one correct; also move the question to the end of the pack.
    await edit(runtime, lambda q: dataclasses.replace(q, choices=ORIGINAL[::-1], correct_index=0))
    pack = runtime.quiz.catalog.get(PACK)
    moved = dataclasses.replace(pack, questions=(*pack.questions[1:], pack.questions[0]))
    runtime.quiz.catalog = Catalog(packs=tuple(moved if p.id == PACK else p for p in runtime.quiz.catalog.packs))
    await runtime.app.sync_content()

    cat = await runtime.app.answer(post_id=card.post_id, user=make_user("cat"), choice_index=0)
    assert (cat.chosen, cat.correct) == (ORIGINAL[0], True)  # index 0 still means what it showed
    async with runtime.db.transaction() as session:
        stored = dict((await session.execute(select(Answer.choice_index, Answer.is_correct))).all())
    assert stored == {0: True, 1: False}

    _, _, open_card = await runtime.app.card(card.post_id)
    assert (open_card.choices, open_card.choice_ids) == (card.choices, card.choice_ids)
    assert card_footer(open_card) == card_footer(card).replace("0 answers", "3 answers")  # still "question 1"
    revealed = await runtime.app.reveal(card.post_id)
    assert revealed.reveal is not None
    assert revealed.choices == card.choices
    assert revealed.choices[revealed.reveal.correct_position] == ORIGINAL[0]
    assert revealed.reveal.correct_users == ("ann", "cat")
    assert revealed.reveal.explanation == runtime.catalog.get(PACK).question(KEY).explanation  # type: ignore[union-attr]

    data = await export(capsys)
    assert [(a["choice"], a["correct"]) for a in data["answers"]] == [
        (ORIGINAL[0], True),
        (ORIGINAL[1], False),
        (ORIGINAL[0], True),
    ]

    later = await post_it(runtime, channel)  # the edit shows in new posts only
    assert later.choices[later.choice_ids.index(0)] == ORIGINAL[3]
    assert later.question_number == 8
    new = await runtime.app.answer(post_id=later.post_id, user=make_user("ann"), choice_index=0)
    assert (new.chosen, new.correct) == (ORIGINAL[3], True)


async def test_a_removed_question_is_retired_and_its_posts_still_reveal_and_export(
    runtime: Runtime, channel: ChannelRef, cli_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    last_key = runtime.catalog.get(PACK).questions[-1].key
    card = await post_it(runtime, channel, last_key)
    assert "· question 8 · 8 questions in the pack ·" in card_footer(card)
    await click(runtime, card, "ann", card.choice_ids[0])
    await edit(runtime, lambda q: None, key=last_key)

    async with runtime.db.transaction() as session:
        row = (
            await session.execute(select(QuestionRow).where(QuestionRow.pack_id == PACK, QuestionRow.key == last_key))
        ).scalar_one()
    assert row.active is False  # retired, history kept

    _, _, open_card = await runtime.app.card(card.post_id)
    footer = card_footer(open_card)
    assert "question 8 (retired)" in footer
    assert " of " not in footer.removeprefix(open_card.pack_title)
    assert open_card.retired
    await click(runtime, card, "ben", card.choice_ids[1])

    reply = await reveal_command(runtime, channel)
    assert reply.ok, reply.message
    _, _, revealed = await runtime.app.card(card.post_id)
    assert revealed.reveal is not None and sum(revealed.reveal.counts) == 2
    assert revealed.choices == card.choices
    assert card_footer(revealed).endswith("· question 8 (retired) · 2 answers · closed")

    data = await export(capsys)
    assert [a["question_id"] for a in data["answers"]] == [last_key, last_key]
    assert [a["choice"] for a in data["answers"]] == [card.choices[0], card.choices[1]]
    assert [p["question_id"] for p in data["posts"]] == [last_key]

    later = [(await runtime.quiz.post_question(channel, pack_id=PACK)).card for _ in range(7)]
    assert card.prompt not in {c.prompt for c in later}
    assert all(" · 7 questions in the pack · " in card_footer(c) for c in later)


def shown_choices(reply: Reply) -> dict[str, int]:
    """A review question's choices as text -> the number to type."""
    return {text: int(n) for n, text in re.findall(r"^\s+(\d+)\. (.*)$", reply.message.text, flags=re.MULTILINE)}


async def test_a_review_question_out_is_answered_against_what_it_showed(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    card = await post_it(runtime, channel)
    await click(runtime, card, "ann", 3)  # wrong: into review
    clock.advance(timedelta(hours=1))
    asked = await runtime.app.handle_command(Invocation(channel, make_user("ann"), "review"))
    assert set(shown_choices(asked)) == set(ORIGINAL)
    await edit(runtime, lambda q: dataclasses.replace(q, choices=(ORIGINAL[2], ORIGINAL[0]), correct_index=0))

    again = await runtime.app.handle_command(Invocation(channel, make_user("ann"), "review"))
    assert again.message == asked.message  # still the question as it was shown
    number = shown_choices(asked)[ORIGINAL[0]]
    result = await runtime.app.handle_command(Invocation(channel, make_user("ann"), f"review {number}"))
    assert result.ok, result.message
    assert result.message.title.startswith("Correct!")
    async with runtime.db.transaction() as session:
        review_answer = (await session.execute(select(ReviewAnswer))).scalar_one()
        version = await session.get(QuestionVersion, review_answer.question_version_id)
    assert version is not None
    assert version.choices[review_answer.choice_index] == ORIGINAL[0]

    # The next time it comes back it is asked as the pack has it now.
    clock.advance(timedelta(days=30))
    later = await runtime.app.handle_command(Invocation(channel, make_user("ann"), "review"))
    assert set(shown_choices(later)) == {ORIGINAL[2], ORIGINAL[0]}
    wrong = await runtime.app.handle_command(
        Invocation(channel, make_user("ann"), f"review {shown_choices(later)[ORIGINAL[0]]}")
    )
    assert wrong.message.title.startswith("Not quite.")


async def test_a_report_shows_each_version_as_its_posts_showed_it(runtime: Runtime, channel: ChannelRef) -> None:
    before = await post_it(runtime, channel)
    await click(runtime, before, "ann", 0)
    await click(runtime, before, "ben", 1)
    await edit(
        runtime,
        lambda q: dataclasses.replace(q, prompt="What does each GPU hold?", choices=ORIGINAL[:3], correct_index=2),
    )
    after = await post_it(runtime, channel)
    await click(runtime, after, "ann", 2)

    report = await runtime.app.reports.build(platform="fake", workspace="W1", daily=False)
    rows = [(q.key, q.prompt, q.correct_choice, q.answered, q.correct) for q in report.questions]
    assert rows == [
        (KEY, before.prompt, ORIGINAL[0], 2, 1),
        (KEY, "What does each GPU hold?", ORIGINAL[2], 1, 1),
    ]
    assert (report.answers, report.correct) == (3, 2)


async def test_posts_of_the_same_text_share_one_version(runtime: Runtime, channel: ChannelRef) -> None:
    cards = [await post_it(runtime, ChannelRef("fake", "W1", f"C{n}")) for n in range(5)]
    await edit(runtime, lambda q: dataclasses.replace(q, explanation="Edited."))
    edited = await post_it(runtime, channel)
    await edit(runtime, lambda q: runtime.catalog.get(PACK).question(KEY))  # the edit undone
    undone = await post_it(runtime, channel)
    async with runtime.db.transaction() as session:
        assert (await session.execute(select(func.count()).select_from(QuestionVersion))).scalar_one() == 2
        version_of = dict((await session.execute(select(PostSnapshot.post_id, PostSnapshot.question_version_id))).all())
    assert len({version_of[c.post_id] for c in cards}) == 1
    assert version_of[undone.post_id] == version_of[cards[0].post_id] != version_of[edited.post_id]
