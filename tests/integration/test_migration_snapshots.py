"""Migration 0005 with data in place, on SQLite and PostgreSQL: rows written at 0004 (before snapshots), upgraded, used, downgraded.

The rows are what a database looks like after the bug this migration ends (issue 12): posts of a question whose
choices an edit later shrank, an answer on a choice that is gone, a post that never showed the (now) correct
choice, a retired question, and a review question out. After the upgrade every old post has a snapshot, and can
be shown, clicked, revealed and exported again.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import func, insert, inspect, select, text
from sqlalchemy.engine import Connection

from bot.clock import ManualClock
from bot.db import Database
from bot.db.migrate import alembic_config, current_revision, head_revision, upgrade
from bot.db.models import (
    Answer,
    Channel,
    PackRow,
    Post,
    PostSnapshot,
    QuestionRow,
    QuestionVersion,
    ReviewAnswer,
    ReviewItem,
    ReviewSnapshot,
    User,
    Workspace,
)
from bot.domain import AnswerOutcome, ChannelRef, QuestionKey
from bot.domain.versions import content_digest
from bot.ops.data import export_data
from bot.runtime import build_runtime
from bot.service.facade import Invocation
from bot.service.operator_uow import operator_unit_of_work
from tests.conftest import _create_pg_database, _drop_pg_database, _pg_url, make_user, patient_settings
from tests.fakes.fake_platform import FakePlatform

BEFORE = "0004"  # the revision before the snapshots (0004 adds question flags)
MISSING = "(choice no longer in the pack)"
T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
NOW = T0 + timedelta(days=1)

PACK_YAML = """\
id: legacy
title: Legacy Pack
questions:
  - id: intact
    prompt: "Which letter is second?"
    choices: ["a", "b", "c", "d"]
    answer: 2
    explanation: "b comes after a."
  - id: shrunk
    prompt: "Which one is x?"
    choices: ["x", "y"]
    answer: 1
    explanation: "x is x."
  - id: grown
    prompt: "Which one was added last?"
    choices: ["r", "s", "t", "u"]
    answer: 4
    explanation: "u was added after the post."
"""


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
async def blank_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """The URL of an empty database (no tables): a new SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path}/legacy.db"
        return
    name = f"quizbot_migration_{uuid.uuid4().hex[:12]}"
    await _create_pg_database(name)
    try:
        yield _pg_url(name)
    finally:
        await _drop_pg_database(name)


async def downgrade(db: Database, revision: str) -> None:
    config = alembic_config()

    def _downgrade(connection: Connection) -> None:
        config.attributes["connection"] = connection
        command.downgrade(config, revision)

    async with db.engine.begin() as connection:
        await connection.run_sync(_downgrade)


QUESTIONS: list[dict[str, Any]] = [
    # (id, key, position, choices, correct, active): "shrunk" had four choices when p2 was posted and answered;
    # "gone" was removed from the pack (retired); "grown" got its correct choice after p4 was posted.
    {"id": 1, "key": "intact", "position": 0, "choices": ["a", "b", "c", "d"], "correct_index": 1, "active": True},
    {"id": 2, "key": "shrunk", "position": 1, "choices": ["x", "y"], "correct_index": 0, "active": True},
    {"id": 3, "key": "gone", "position": 2, "choices": ["m", "n", "o"], "correct_index": 2, "active": False},
    {"id": 4, "key": "grown", "position": 3, "choices": ["r", "s", "t", "u"], "correct_index": 3, "active": True},
]
PROMPTS = {
    "intact": ("Which letter is second?", "b comes after a."),
    "shrunk": ("Which one is x?", "x is x."),
    "gone": ("Which was removed?", "It was o."),
    "grown": ("Which one was added last?", "u was added after the post."),
}
ORDERS = {1: [3, 1, 0, 2], 2: [2, 0, 3, 1], 3: [0, 1, 2], 4: [2, 0, 1]}  # post id -> shown order (= question id)


async def seed_before_snapshots(db: Database) -> None:
    async with db.transaction() as session:
        await session.execute(
            insert(Workspace).values(id=1, platform="fake", external_id="W1", name="", timezone="UTC", created_at=T0)
        )
        await session.execute(
            insert(Channel).values(id=1, workspace_id=1, external_id="C1", name="", timezone=None, created_at=T0)
        )
        await session.execute(
            insert(User),
            [
                {"id": n, "workspace_id": 1, "external_id": f"U-{name}", "display_name": name, "created_at": T0}
                for n, name in ((1, "ann"), (2, "ben"))
            ],
        )
        await session.execute(
            insert(PackRow).values(id="legacy", title="Legacy Pack", description="", tags=[], active=True, synced_at=T0)
        )
        await session.execute(
            insert(QuestionRow),
            [
                {
                    **q,
                    "pack_id": "legacy",
                    "prompt": PROMPTS[q["key"]][0],
                    "explanation": PROMPTS[q["key"]][1],
                    "tags": [],
                    "difficulty": None,
                }
                for q in QUESTIONS
            ],
        )
        await session.execute(
            insert(Post),
            [
                {
                    "id": post_id,
                    "channel_id": 1,
                    "question_id": post_id,
                    "message_ref": f"m{post_id}",
                    "choice_order": order,
                    "source": "command",
                    "source_ref": None,
                    "posted_by": None,
                    "opened_at": T0,
                    "closes_at": None,
                    "closed_at": T0 + timedelta(hours=1) if post_id == 3 else None,
                }
                for post_id, order in ORDERS.items()
            ],
        )
        answer = {"workspace_id": 1, "channel_id": 1, "points": 10, "answered_at": T0, "latency_ms": 5}
        await session.execute(
            insert(Answer),
            [
                {**answer, "post_id": 1, "user_id": 1, "choice_index": 1, "is_correct": True},
                {**answer, "post_id": 2, "user_id": 1, "choice_index": 3, "is_correct": False},  # a choice now gone
                {**answer, "post_id": 2, "user_id": 2, "choice_index": 0, "is_correct": True},
                {**answer, "post_id": 3, "user_id": 1, "choice_index": 2, "is_correct": True},
            ],
        )
        item = {"box": 1, "due_at": T0, "reviews": 0, "lapses": 0, "created_at": T0, "updated_at": T0}
        await session.execute(
            insert(ReviewItem),
            [
                {**item, "id": 1, "user_id": 1, "question_id": 2, "asked_at": T0, "shown_order": [1, 3, 0, 2]},
                {**item, "id": 2, "user_id": 2, "question_id": 1, "asked_at": None, "shown_order": None},
            ],
        )
        await session.execute(
            insert(ReviewAnswer).values(
                id=1, item_id=1, user_id=1, question_id=2, box=1, choice_index=3, is_correct=False, answered_at=T0
            )
        )
        if db.dialect == "postgresql":  # the ids above were given, so move each sequence past them
            for table in (
                "workspaces",
                "channels",
                "users",
                "questions",
                "posts",
                "answers",
                "review_items",
                "review_answers",
            ):
                await session.execute(
                    text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}))")
                )


async def counts(db: Database) -> dict[str, int]:
    async with db.transaction() as session:
        return {
            model.__tablename__: (await session.execute(select(func.count()).select_from(model))).scalar_one()
            for model in (Post, Answer, ReviewItem, ReviewAnswer, QuestionRow)
        }


async def tables(db: Database) -> set[str]:
    async with db.engine.connect() as connection:
        return set(await connection.run_sync(lambda c: inspect(c).get_table_names()))


async def test_0005_backfills_snapshots_of_existing_posts_and_downgrades(blank_url: str, tmp_path: Path) -> None:
    db = Database.from_url(blank_url)
    try:
        await upgrade(db, BEFORE)
        await seed_before_snapshots(db)
        before = await counts(db)

        await upgrade(db)  # 0005, and the later revisions the models (used below) expect; they backfill nothing
        assert await counts(db) == before
        async with db.transaction() as session:
            versions = {v.question_id: v for v in (await session.execute(select(QuestionVersion))).scalars()}
            snapshots = {s.post_id: s for s in (await session.execute(select(PostSnapshot))).scalars()}
            orders = dict((await session.execute(select(Post.id, Post.choice_order))).all())
            review = (await session.execute(select(ReviewSnapshot))).scalars().all()
            review_answer = (await session.execute(select(ReviewAnswer))).scalar_one()
        assert sorted(versions) == [1, 2, 3, 4]
        assert versions[1].choices == ["a", "b", "c", "d"]
        assert (versions[1].prompt, versions[1].correct_index, versions[1].explanation) == (
            "Which letter is second?",
            1,
            "b comes after a.",
        )
        assert versions[1].digest == content_digest(
            "Which letter is second?", ["a", "b", "c", "d"], 1, "b comes after a."
        )
        assert versions[2].choices == ["x", "y", MISSING, MISSING]  # indexes 2 and 3 were shown and answered
        assert versions[3].choices == ["m", "n", "o"]
        assert {post_id: snapshots[post_id].question_version_id for post_id in ORDERS} == {
            post_id: versions[post_id].id for post_id in ORDERS
        }
        # Number as the card said it; count of the pack's active questions (at least the number).
        assert [(snapshots[p].question_number, snapshots[p].question_count) for p in ORDERS] == [
            (1, 3),
            (2, 3),
            (3, 3),
            (4, 4),
        ]
        assert orders == {1: [3, 1, 0, 2], 2: [2, 0, 3, 1], 3: [0, 1, 2], 4: [2, 0, 1, 3]}  # p4 gains its answer
        assert [(r.item_id, r.question_version_id) for r in review] == [(1, versions[2].id)]
        assert review_answer.question_version_id == versions[2].id
    finally:
        await db.dispose()

    # The app on the upgraded database: old posts show, take clicks, reveal and export; new ones reuse versions.
    content = tmp_path / "content"
    content.mkdir()
    (content / "legacy.yaml").write_text(PACK_YAML, encoding="utf-8")
    settings = patient_settings(database_url=blank_url, content_dir=content, card_update_interval=0.0)
    runtime = await build_runtime(settings, clock=ManualClock(NOW), rng=random.Random(5), migrate=False)
    runtime.platforms.register(FakePlatform())
    channel = ChannelRef("fake", "W1", "C1")
    try:
        _, _, stuck = await runtime.app.card(2)
        assert stuck.choices == (MISSING, "x", MISSING, "y")
        again = await runtime.app.answer(post_id=2, user=make_user("ann"), choice_index=1)
        assert (again.outcome, again.chosen, again.correct) == (AnswerOutcome.ALREADY_ANSWERED, MISSING, False)
        revealed = await runtime.app.reveal(2)
        assert revealed.reveal is not None
        assert revealed.choices[revealed.reveal.correct_position] == "x"
        assert revealed.reveal.counts == (0, 1, 1, 0)  # ann on the gone index 3, ben on x
        grown = await runtime.app.reveal(4)
        assert grown.reveal is not None and grown.choices == ("t", "r", "s", "u")
        assert grown.reveal.correct_position == 3
        _, _, retired = await runtime.app.card(3)
        assert retired.retired and retired.choices == ("m", "n", "o")
        async with operator_unit_of_work(runtime.db) as uow:
            data = await export_data(uow)
        assert [(a["post_id"], a["choice"], a["correct"]) for a in data["answers"]] == [
            (1, "b", True),
            (2, MISSING, False),
            (2, "x", True),
            (3, "o", True),
        ]
        pending = await runtime.app.handle_command(Invocation(channel, make_user("ann"), "review 3"))
        assert pending.ok and pending.message.title.startswith("Correct!")  # shown [y, missing, x, missing]

        await runtime.quiz.post_question(channel, question=QuestionKey("legacy", "intact"))
        async with runtime.db.transaction() as session:
            intact = (await session.execute(select(QuestionVersion).where(QuestionVersion.question_id == 1))).all()
        assert len(intact) == 1  # the backfilled version is the one the app finds for unchanged text
    finally:
        await runtime.aclose()

    db = Database.from_url(blank_url)
    try:
        after = await counts(db)
        await downgrade(db, BEFORE)
        assert await current_revision(db) == BEFORE
        assert {"question_versions", "post_snapshots", "review_snapshots"}.isdisjoint(await tables(db))
        assert await counts(db) == after  # nothing cascaded away (review_answers on SQLite was rebuilt)
        await upgrade(db)
        assert await current_revision(db) == head_revision()
        async with db.transaction() as session:
            assert (await session.execute(select(func.count()).select_from(PostSnapshot))).scalar_one() == after[
                "posts"
            ]
    finally:
        await db.dispose()
