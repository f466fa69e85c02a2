"""Flagging bad questions (issue 14) in the core, on SQLite and PostgreSQL: one flag per person and question, the
reason updated, the pause threshold taking a question out of rotation and curricula until an admin clears it,
`/quiz flags` for admins only, the report, `quizbot content flags`, and the migration both ways."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from bot.commands import FlagQuestion
from bot.db import Database
from bot.db.migrate import alembic_config, upgrade
from bot.db.models import Post, QuestionFlag, QuestionRow, User
from bot.domain import ChannelRef, QuestionCard, QuestionKey, UserRef
from bot.domain.flags import REASON_MAX
from bot.errors import UnknownPost
from bot.report_html import render_html
from bot.runtime import Runtime
from bot.service.facade import Context, Invocation, Reply
from tests.conftest import SEED_CONTENT, make_user, use_patient_database
from tests.scoring_helpers import answer, post


async def run(runtime: Runtime, channel: ChannelRef, who: str | UserRef, text: str, *, admin: bool = False) -> Reply:
    """`/quiz TEXT` typed by a user (a name on workspace W1, or a UserRef)."""
    user = make_user(who) if isinstance(who, str) else who
    return await runtime.app.handle_command(Invocation(channel, user, text, is_admin=admin))


async def flag_rows(runtime: Runtime) -> list[tuple[str, str, int | None, str | None, bool]]:
    """(user name, question key, post id, reason, open) of every flag, in insertion order."""
    async with runtime.db.transaction() as session:
        rows = await session.execute(
            select(
                User.display_name, QuestionRow.key, QuestionFlag.post_id, QuestionFlag.reason, QuestionFlag.cleared_at
            )
            .join(User, User.id == QuestionFlag.user_id)
            .join(QuestionRow, QuestionRow.id == QuestionFlag.question_id)
            .order_by(QuestionFlag.id)
        )
        return [(r[0], r[1], r[2], r[3], r[4] is None) for r in rows]


def key_of(runtime: Runtime, card: QuestionCard) -> QuestionKey:
    """(pack id, question id) of the question a card shows."""
    question = next(q for p in runtime.catalog.packs for q in p.questions if q.prompt == card.prompt)
    return QuestionKey(question.pack_id, question.key)


async def test_a_flag_is_recorded_once_per_person_and_question_and_a_new_reason_replaces_the_old(
    runtime: Runtime, channel: ChannelRef
) -> None:
    card = await post(runtime, channel, pack="data-parallelism")
    await answer(runtime, card, "alice", right=False)
    key = key_of(runtime, card)

    first = await run(runtime, channel, "alice", "flag")
    assert first.ok and first.private
    assert first.message.title == "Thanks, your report is recorded."
    assert f"({key.pack_id}/{key.key})" in first.message.lines[0]
    assert "/quiz flag REASON" in first.message.text  # asks for a reason, optionally

    again = await run(runtime, channel, "alice", "flag")
    assert again.message.title == "You have already reported this question; your report stands."
    reason = await run(runtime, channel, "alice", "flag the answer isn't C, it's B")
    assert reason.message.title == "Your report on this question now has your new reason."
    assert "Your reason: “the answer isn't C, it's B”" in reason.message.text  # an apostrophe needs no quoting
    same = await run(runtime, channel, "alice", "flag 'the answer isn't C, it's B'")
    assert same.message.title.startswith("You have already reported")

    # A button names its post; the same person flagging through it changes nothing.
    clicked = await runtime.app.execute(FlagQuestion(post_id=card.post_id), Context(channel, make_user("alice")))
    assert clicked.message.title.startswith("You have already reported")
    assert await flag_rows(runtime) == [("alice", key.key, card.post_id, "the answer isn't C, it's B", True)]

    bob = await runtime.app.execute(FlagQuestion(post_id=card.post_id), Context(channel, make_user("bob")))
    assert bob.message.title == "Thanks, your report is recorded."
    assert [row[0] for row in await flag_rows(runtime)] == ["alice", "bob"]

    # The database holds the rule too, whatever a future code path does.
    async with runtime.db.transaction() as session:
        row = (await session.execute(select(QuestionFlag).where(QuestionFlag.id == 1))).scalar_one()
        copy = {c.name: getattr(row, c.name) for c in QuestionFlag.__table__.columns if c.name != "id"}
    with pytest.raises(IntegrityError):
        async with runtime.db.transaction() as session:
            session.add(QuestionFlag(**copy))


async def test_a_reason_is_one_visible_line_of_at_most_500_characters(runtime: Runtime, channel: ChannelRef) -> None:
    await post(runtime, channel)
    text = "wrong\u202e\u200b\x1b[31m <@U1> " + "x" * 800
    reply = await runtime.app.execute(FlagQuestion(reason=text), Context(channel, make_user("alice")))
    assert reply.ok, reply.message.text
    [(_, _, _, stored, _)] = await flag_rows(runtime)
    assert stored is not None and len(stored) == REASON_MAX and stored.endswith("…")
    assert stored.startswith("wrong[31m <@U1> xxx")  # invisible and control characters gone; markup is escaped later


async def test_flag_finds_the_question_you_last_answered_or_reported_here_else_the_newest(
    runtime: Runtime, channel: ChannelRef
) -> None:
    nothing = await run(runtime, channel, "alice", "flag")
    assert not nothing.ok and "no question here to report yet" in nothing.message.text

    first = await post(runtime, channel)
    second = await post(runtime, channel)
    await answer(runtime, first, "alice", right=True)
    await run(runtime, channel, "alice", "flag")  # alice answered the first one
    await run(runtime, channel, "bob", "flag")  # bob answered nothing: the newest post
    runtime.clock.advance(60)  # type: ignore[attr-defined]
    await runtime.app.execute(FlagQuestion(post_id=second.post_id), Context(channel, make_user("alice")))
    await run(runtime, channel, "alice", "flag wrong answer")  # the report she just made, not her older answer
    rows = await flag_rows(runtime)
    assert [(name, post_id, reason) for name, _, post_id, reason, _ in rows] == [
        ("alice", first.post_id, None),
        ("bob", second.post_id, None),
        ("alice", second.post_id, "wrong answer"),
    ]


async def test_a_button_naming_another_workspaces_post_is_refused(runtime: Runtime, channel: ChannelRef) -> None:
    elsewhere = await post(runtime, ChannelRef("fake", "W2", "C9"))
    with pytest.raises(UnknownPost, match="no longer exists"):  # adapters answer the category's one line
        await runtime.app.execute(FlagQuestion(post_id=elsewhere.post_id), Context(channel, make_user("mallory")))
    assert await flag_rows(runtime) == []


async def test_the_threshold_pauses_a_question_and_clearing_it_resumes_rotation(
    runtime: Runtime, channel: ChannelRef
) -> None:
    assert runtime.settings.flag_pause_threshold == 3
    cards = [await post(runtime, channel, pack="data-parallelism") for _ in range(8)]  # each question once
    flagged = cards[2]
    key = key_of(runtime, flagged)
    for name in ("ann", "ben"):
        reply = await runtime.app.execute(FlagQuestion(post_id=flagged.post_id), Context(channel, make_user(name)))
        assert "out of rotation" not in reply.message.text
    third = await runtime.app.execute(
        FlagQuestion(post_id=flagged.post_id, reason="two answers are right"), Context(channel, make_user("cy"))
    )
    assert "3 people reported it, so it is out of rotation here" in third.message.text

    # Every other question is posted a second time, and then again: never the paused one.
    later = [await post(runtime, channel, pack="data-parallelism") for _ in range(9)]
    assert key not in {key_of(runtime, card) for card in later}
    # Another workspace's rotation is its own business.
    other = [await post(runtime, ChannelRef("fake", "W2", "C1"), pack="data-parallelism") for _ in range(8)]
    assert key in {key_of(runtime, card) for card in other}

    listing = await run(runtime, channel, "lead", "flags", admin=True)
    assert listing.ok and listing.message.title == "Flagged questions (1)"
    assert f"{key.pack_id}/{key.key} · Data Parallelism Quiz #" in listing.message.lines[0]
    assert "flagged by 3 people · no answers yet · paused" in listing.message.lines[0]
    assert any("cy, " in line and "“two answers are right”" in line for line in listing.message.lines)
    assert any("ann, " in line and "(no reason given)" in line for line in listing.message.lines)

    cleared = await run(runtime, channel, "lead", f"flags clear {key.pack_id}/{key.key}", admin=True)
    assert cleared.message.title == f"Cleared 3 flags on {key.pack_id}/{key.key}: it is back in rotation here."
    assert key_of(runtime, await post(runtime, channel, pack="data-parallelism")) == key  # posted fewest times
    again = await run(runtime, channel, "lead", f"flags clear {key.pack_id} {key.key}", admin=True)
    assert again.message.title.endswith("has no open flags here; nothing changed.")
    assert (await run(runtime, channel, "lead", "flags", admin=True)).message.title == "No flagged questions."
    assert [is_open for *_, is_open in await flag_rows(runtime)] == [False, False, False]  # history kept

    # Reported again after the clear: a new report, counting towards a new pause.
    renewed = await runtime.app.execute(FlagQuestion(post_id=flagged.post_id), Context(channel, make_user("ann")))
    assert renewed.message.title == "Thanks, your report is recorded."
    unknown = await run(runtime, channel, "lead", "flags clear data-parallelism/no-such-question", admin=True)
    assert not unknown.ok and "There is no question data-parallelism/no-such-question" in unknown.message.text


async def test_when_every_question_is_paused_now_and_cohort_next_say_so(runtime: Runtime, channel: ChannelRef) -> None:
    runtime.quiz.pause_threshold = runtime.app.flags.threshold = 1
    await run(runtime, channel, "lead", "cohort create spring packs:data-parallelism")
    for _ in range(8):
        card = await post(runtime, channel, pack="data-parallelism")
        await runtime.app.execute(FlagQuestion(post_id=card.post_id), Context(channel, make_user("ann")))
    reply = await run(runtime, channel, "ann", "now data-parallelism")
    assert not reply.ok
    assert "Every question of data-parallelism is paused because people reported problems" in reply.message.text
    cohort = await run(runtime, channel, "lead", "cohort next spring")
    assert not cohort.ok  # not "the curriculum is done": it is not
    assert "The 8 questions left in this curriculum are paused" in cohort.message.text


async def test_a_cohort_curriculum_skips_a_paused_question_until_it_is_cleared(
    runtime: Runtime, channel: ChannelRef
) -> None:
    lead = make_user("lead")
    await run(runtime, channel, lead, "cohort create spring packs:data-parallelism")
    pack = next(p for p in runtime.catalog.packs if p.id == "data-parallelism")
    first, second, third = (QuestionKey(pack.id, q.key) for q in pack.questions[:3])
    seen = (await runtime.quiz.post_question(ChannelRef("fake", "W1", "C2"), question=second)).card
    for name in ("ann", "ben", "cy"):
        await runtime.app.execute(FlagQuestion(post_id=seen.post_id), Context(channel, make_user(name)))

    asked = []
    for _ in range(2):
        posted = await runtime.app.cohorts.post_next_question(channel, cohort_id=1)
        assert posted is not None
        asked.append(key_of(runtime, posted.card))
    assert asked == [first, third]
    await run(runtime, channel, lead, f"flags clear {second.pack_id}/{second.key}", admin=True)
    posted = await runtime.app.cohorts.post_next_question(channel, cohort_id=1)
    assert posted is not None and key_of(runtime, posted.card) == second  # the skipped one comes next


async def test_listing_and_clearing_flags_are_for_admins_only(runtime: Runtime, channel: ChannelRef) -> None:
    card = await post(runtime, channel)
    await answer(runtime, card, "alice", right=True)
    await answer(runtime, card, "bob", right=False)
    await run(runtime, channel, "bob", "flag <!channel> the answer is wrong")
    key = key_of(runtime, card)
    for text in ("flags", "flags list", f"flags clear {key.pack_id}/{key.key}"):
        refused = await run(runtime, channel, "bob", text)
        assert not refused.ok, text
        assert refused.message.text.startswith("Only leads and admins can"), refused.message.text
    assert [is_open for *_, is_open in await flag_rows(runtime)] == [True]
    listing = await run(runtime, channel, "lead", "flags", admin=True)
    assert "flagged by 1 person · 50% right (2 answers)" in listing.message.lines[0]
    assert "“<!channel> the answer is wrong”" in listing.message.text  # the adapters escape it when they show it


async def test_the_report_shows_flags_per_question(runtime: Runtime, channel: ChannelRef) -> None:
    card = await post(runtime, channel)
    for name, right in (("alice", True), ("bob", False), ("carol", False), ("dan", True)):
        await answer(runtime, card, name, right=right)
    await run(runtime, channel, "bob", "flag two choices are right")
    await run(runtime, channel, "carol", "flag")
    key = key_of(runtime, card)
    summary = await run(runtime, channel, "alice", "report")
    assert "Reported as wrong:" in summary.message.lines
    assert f"  2 flags · 50% right: {card.prompt[:20]}" in summary.message.text
    assert f"({key.pack_id}/{key.key})" in summary.message.text

    report = await runtime.app.reports.build(platform="fake", workspace="W1")
    [flagged] = report.flagged
    assert (flagged.key, flagged.flags, flagged.answered, flagged.correct) == (key.key, 2, 4, 2)
    assert [r.reason for r in flagged.reasons] == [None, "two choices are right"]  # newest first
    html = render_html(report)
    assert "<table id='flagged'>" in html and "two choices are right" in html


async def test_quizbot_content_flags_prints_pack_and_question_ids_for_authors(
    runtime: Runtime,
    channel: ChannelRef,
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from bot.cli import main

    card = await post(runtime, channel)
    await answer(runtime, card, "alice", right=False)
    await run(runtime, channel, "alice", "flag the explanation contradicts the answer")
    elsewhere = ChannelRef("fake", "W2", "C1")
    other = await post(runtime, elsewhere)
    await runtime.app.execute(FlagQuestion(post_id=other.post_id), Context(elsewhere, make_user("zoe", "W2")))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", database_url)
    use_patient_database(monkeypatch)
    monkeypatch.setenv("QUIZBOT_CONTENT_DIR", str(SEED_CONTENT))
    key = key_of(runtime, card)

    assert await asyncio.to_thread(main, ["content", "flags"]) == 0
    everything = capsys.readouterr().out
    assert everything.startswith("Flagged questions in 2 workspaces (")
    assert f"{key.pack_id}/{key.key} · " in everything
    assert "alice, " in everything and "“the explanation contradicts the answer”" in everything
    assert "quizbot content check" in everything

    assert await asyncio.to_thread(main, ["content", "flags", "--platform", "fake", "--workspace", "W2"]) == 0
    one = capsys.readouterr().out
    assert one.startswith("Flagged questions in fake:W2 (1)") and "alice" not in one and "zoe, " in one

    assert await asyncio.to_thread(main, ["content", "flags", "--workspace", "W9"]) == 2
    err = capsys.readouterr().err
    assert "no workspace matches --platform/--workspace; workspaces in this database: fake:W1, fake:W2" in err
    missing = tmp_path / "missing.db"
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", f"sqlite+aiosqlite:///{missing}")
    assert await asyncio.to_thread(main, ["content", "flags"]) == 2  # reads a database, never creates one
    assert "quizbot db upgrade" in capsys.readouterr().err
    assert not missing.exists()


async def test_the_migration_upgrades_and_downgrades(runtime: Runtime, channel: ChannelRef, database_url: str) -> None:
    card = await post(runtime, channel)
    await runtime.app.execute(FlagQuestion(post_id=card.post_id), Context(channel, make_user("alice")))
    db = Database.from_url(database_url)

    def downgrade(connection: Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        command.downgrade(config, "0003")

    def tables(connection: Connection) -> set[str]:
        return set(inspect(connection).get_table_names())

    try:
        async with db.engine.begin() as connection:
            await connection.run_sync(downgrade)
        async with db.engine.connect() as connection:
            assert "question_flags" not in await connection.run_sync(tables)
            assert "posts" in await connection.run_sync(tables)
    finally:
        await upgrade(db)  # back to head for the other tests, whatever happened
    try:
        async with db.engine.connect() as connection:
            assert "question_flags" in await connection.run_sync(tables)
        async with db.transaction() as session:
            assert (await session.execute(select(QuestionFlag))).scalars().all() == []  # downgrading dropped them
            assert (await session.execute(select(Post.id))).scalars().all() == [card.post_id]
    finally:
        await db.dispose()
    again = await runtime.app.execute(FlagQuestion(post_id=card.post_id), Context(channel, make_user("alice")))
    assert again.message.title == "Thanks, your report is recorded."


def test_a_long_list_of_flags_is_cut_to_fit_chat_and_points_to_the_full_one() -> None:
    from datetime import UTC, datetime

    from adapters.discord import limits
    from adapters.discord.embeds import message_embed
    from bot.domain.flags import FlaggedQuestion, FlagReason
    from bot.wording.flags import listing_message

    reasons = tuple(FlagReason(f"user{i}", "r" * REASON_MAX, datetime(2026, 1, 5, tzinfo=UTC)) for i in range(5))
    questions = [
        FlaggedQuestion("pack", "Pack", f"q-{n}", n, "Why? " * 100, 5, reasons, answered=4, correct=1, paused_in=1)
        for n in range(12)
    ]
    message = listing_message(questions, threshold=3)
    assert message.title == "Flagged questions (12)"
    assert sum(line.startswith("pack/q-") for line in message.lines) == 8
    assert "… and 4 more questions; an operator prints them all with `quizbot content flags`." in message.lines
    assert sum("“rrr" in line for line in message.lines) == 8 * 3 and "  … and 2 more" in message.lines
    assert all(len(line) < 250 for line in message.lines)
    assert len(message_embed(message)) <= limits.EMBED_TOTAL
