"""post snapshots: a post keeps what it showed

question_versions holds what a question said (prompt, choices in the pack's order then, correct choice,
explanation), immutable and named by a digest of that content; post_snapshots pins each post to the version it
showed and to the card's "question 3 of 8"; review_snapshots does the same for a review question that is out,
and review answers record the version they answered. Answers' choice_index and posts' choice_order (and review's
shown_order and choice_index) index the version's choices.

Snapshots are tables of their own, not columns of posts and review_items: on SQLite a NOT NULL or named foreign
key column needs the table rebuilt, and dropping the old posts (or review_items) with foreign keys on would
cascade into answers (or review_answers). review_answers references nothing that cascades, so it is rebuilt.

Backfill: each question's current row becomes its first version and every existing post, pending review question
and review answer points at it (the only text there is). Where an earlier edit already shrank a question below
an index some post, answer or review used, the version is padded with a placeholder choice so that no stored
index is out of range, and a post whose shown order lacks the correct choice gets it appended, so every old post
can be revealed and exported again.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02 10:00:00.000000
"""

import hashlib
import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MISSING_CHOICE = "(choice no longer in the pack)"
"""Text of a choice that a post showed, but that an edit before this migration removed from its question."""

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _digest(prompt: str, choices: list[str], correct_index: int, explanation: str) -> str:
    # A frozen copy of bot.domain.versions.content_digest as of this revision.
    canonical = json.dumps(
        {"prompt": prompt, "choices": list(choices), "correct_index": correct_index, "explanation": explanation},
        ensure_ascii=False,
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def upgrade() -> None:
    op.create_table(
        "question_versions",
        sa.Column("id", BigId, nullable=False),
        sa.Column("question_id", BigId, nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("prompt", sa.Text(), nullable=False),
        sa.Column("choices", sa.JSON(), nullable=False),
        sa.Column("correct_index", sa.Integer(), nullable=False),
        sa.Column("explanation", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["question_id"],
            ["questions.id"],
            name=op.f("fk_question_versions_question_id_questions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_question_versions")),
        sa.UniqueConstraint("question_id", "digest", name=op.f("uq_question_versions_question_id_digest")),
    )
    op.create_table(
        "post_snapshots",
        sa.Column("post_id", BigId, nullable=False),
        sa.Column("question_version_id", BigId, nullable=False),
        sa.Column("question_number", sa.Integer(), nullable=False),
        sa.Column("question_count", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["post_id"], ["posts.id"], name=op.f("fk_post_snapshots_post_id_posts"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["question_version_id"],
            ["question_versions.id"],
            name=op.f("fk_post_snapshots_question_version_id_question_versions"),
        ),
        sa.PrimaryKeyConstraint("post_id", name=op.f("pk_post_snapshots")),
    )
    op.create_index(
        op.f("ix_post_snapshots_question_version_id"), "post_snapshots", ["question_version_id"], unique=False
    )
    op.create_table(
        "review_snapshots",
        sa.Column("item_id", BigId, nullable=False),
        sa.Column("question_version_id", BigId, nullable=False),
        sa.ForeignKeyConstraint(
            ["item_id"], ["review_items.id"], name=op.f("fk_review_snapshots_item_id_review_items"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["question_version_id"],
            ["question_versions.id"],
            name=op.f("fk_review_snapshots_question_version_id_question_versions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("item_id", name=op.f("pk_review_snapshots")),
    )
    op.add_column("review_answers", sa.Column("question_version_id", BigId, nullable=True))
    _backfill()
    # Nothing references review_answers, so rebuilding it on SQLite (batch mode) cascades nowhere.
    with op.batch_alter_table("review_answers", schema=None) as batch_op:
        batch_op.alter_column("question_version_id", existing_type=BigId, nullable=False)
        batch_op.create_foreign_key(
            batch_op.f("fk_review_answers_question_version_id_question_versions"),
            "question_versions",
            ["question_version_id"],
            ["id"],
            ondelete="CASCADE",
        )


def _backfill() -> None:
    bind = op.get_bind()
    questions = sa.table(
        "questions",
        sa.column("id", BigId),
        sa.column("pack_id", sa.String),
        sa.column("position", sa.Integer),
        sa.column("prompt", sa.Text),
        sa.column("choices", sa.JSON),
        sa.column("correct_index", sa.Integer),
        sa.column("explanation", sa.Text),
        sa.column("active", sa.Boolean),
    )
    posts = sa.table(
        "posts", sa.column("id", BigId), sa.column("question_id", BigId), sa.column("choice_order", sa.JSON)
    )
    answers = sa.table("answers", sa.column("post_id", BigId), sa.column("choice_index", sa.Integer))
    items = sa.table(
        "review_items",
        sa.column("question_id", BigId),
        sa.column("asked_at", sa.DateTime(timezone=True)),
        sa.column("shown_order", sa.JSON),
    )
    review_answers = sa.table("review_answers", sa.column("question_id", BigId), sa.column("choice_index", sa.Integer))
    versions = sa.table(
        "question_versions",
        sa.column("question_id", BigId),
        sa.column("digest", sa.String),
        sa.column("prompt", sa.Text),
        sa.column("choices", sa.JSON),
        sa.column("correct_index", sa.Integer),
        sa.column("explanation", sa.Text),
        sa.column("created_at", sa.DateTime(timezone=True)),
    )

    # The highest choice index anything stored for each question: shown orders, answers, review.
    used: dict[int, int] = {}

    def note(question_id: int, indexes: list[int] | None) -> None:
        for index in indexes or ():
            used[question_id] = max(used.get(question_id, -1), int(index))

    post_orders = bind.execute(sa.select(posts.c.id, posts.c.question_id, posts.c.choice_order)).all()
    for _post_id, question_id, order in post_orders:
        note(question_id, order)
    for question_id, index in bind.execute(
        sa.select(posts.c.question_id, sa.func.max(answers.c.choice_index))
        .join(answers, answers.c.post_id == posts.c.id)
        .group_by(posts.c.question_id)
    ):
        note(question_id, [index])
    for question_id, order in bind.execute(
        sa.select(items.c.question_id, items.c.shown_order).where(items.c.asked_at.is_not(None))
    ):
        note(question_id, order)
    for question_id, index in bind.execute(
        sa.select(review_answers.c.question_id, sa.func.max(review_answers.c.choice_index)).group_by(
            review_answers.c.question_id
        )
    ):
        note(question_id, [index])

    rows = []
    correct_of: dict[int, int] = {}
    for question in bind.execute(sa.select(questions)).all():
        choices = list(question.choices)
        choices += [MISSING_CHOICE] * (used.get(question.id, -1) + 1 - len(choices))
        correct_of[question.id] = question.correct_index
        rows.append(
            {
                "question_id": question.id,
                "digest": _digest(question.prompt, choices, question.correct_index, question.explanation),
                "prompt": question.prompt,
                "choices": choices,
                "correct_index": question.correct_index,
                "explanation": question.explanation,
            }
        )
    if rows:
        bind.execute(versions.insert().values(created_at=sa.func.current_timestamp()), rows)

    # A post whose shown order lacks the (current) correct choice could never be revealed: show it at the end.
    for post_id, question_id, order in post_orders:
        correct = correct_of[question_id]
        if correct not in (order or []):
            bind.execute(posts.update().where(posts.c.id == post_id).values(choice_order=[*(order or []), correct]))

    op.execute(
        "INSERT INTO post_snapshots (post_id, question_version_id, question_number, question_count) "
        "SELECT p.id, v.id, q.position + 1, "
        "(SELECT COUNT(*) FROM questions o WHERE o.pack_id = q.pack_id AND o.active) "
        "FROM posts p JOIN questions q ON q.id = p.question_id JOIN question_versions v ON v.question_id = q.id"
    )
    op.execute("UPDATE post_snapshots SET question_count = question_number WHERE question_count < question_number")
    op.execute(
        "INSERT INTO review_snapshots (item_id, question_version_id) "
        "SELECT r.id, v.id FROM review_items r JOIN question_versions v ON v.question_id = r.question_id "
        "WHERE r.asked_at IS NOT NULL"
    )
    op.execute(
        "UPDATE review_answers SET question_version_id = "
        "(SELECT v.id FROM question_versions v WHERE v.question_id = review_answers.question_id)"
    )


def downgrade() -> None:
    # Posts read their question's current row again; what old posts showed, where it differs, is lost.
    with op.batch_alter_table("review_answers", schema=None) as batch_op:
        batch_op.drop_constraint(
            batch_op.f("fk_review_answers_question_version_id_question_versions"), type_="foreignkey"
        )
        batch_op.drop_column("question_version_id")
    op.drop_table("review_snapshots")
    op.drop_index(op.f("ix_post_snapshots_question_version_id"), table_name="post_snapshots")
    op.drop_table("post_snapshots")
    op.drop_table("question_versions")
