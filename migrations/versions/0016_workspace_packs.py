"""workspace packs: a team's own packs and the drafts waiting for review

A workspace's own pack (`/quiz write`, `/quiz drafts`, an uploaded pack) is an ordinary `packs` row with its
questions, stored under a qualified id (`<workspace row>:<slug>`); `workspace_packs` says whose it is and by which
slug people name it there. `question_drafts` holds the questions written in chat (or uploaded without an
explanation) until a lead approves or rejects them. A workspace question keeps its references (`questions.references`,
NULL for shipped packs, whose references live in their files) so the pack exports whole.

Revision ID: 0016
Revises: 0014
Create Date: 2026-12-06 06:10:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

# Plain ALTER TABLE for the new column, as 0012 does: a batch would rebuild `questions`, which the foreign keys
# pointing at it refuse on SQLite.


def upgrade() -> None:
    op.add_column("questions", sa.Column("references", sa.JSON(), nullable=True))
    op.create_table(
        "workspace_packs",
        sa.Column("id", BigId, nullable=False),
        sa.Column("workspace_id", BigId, nullable=False),
        sa.Column("slug", sa.String(length=64), nullable=False),
        sa.Column("pack_id", sa.String(length=64), nullable=False),
        sa.Column("created_by", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_workspace_packs_workspace_id_workspaces"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["pack_id"], ["packs.id"], name=op.f("fk_workspace_packs_pack_id_packs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_workspace_packs")),
        sa.UniqueConstraint("pack_id", name=op.f("uq_workspace_packs_pack_id")),
        sa.UniqueConstraint("workspace_id", "slug", name=op.f("uq_workspace_packs_workspace_id_slug")),
    )
    op.create_table(
        "question_drafts",
        sa.Column("id", BigId, nullable=False),
        sa.Column("workspace_id", BigId, nullable=False),
        sa.Column("pack_slug", sa.String(length=64), nullable=False),
        sa.Column("prompt", sa.Text(), nullable=False),
        sa.Column("choices", sa.JSON(), nullable=False),
        sa.Column("correct_index", sa.Integer(), nullable=True),
        sa.Column("explanation", sa.Text(), nullable=False),
        sa.Column("references", sa.JSON(), nullable=False),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("difficulty", sa.String(length=16), nullable=True),
        sa.Column("extra", sa.JSON(), nullable=True),
        sa.Column("author_id", sa.String(length=64), nullable=False),
        sa.Column("author_name", sa.String(length=200), nullable=False),
        sa.Column("origin", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("decided_by", sa.String(length=200), nullable=True),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("question_key", sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_question_drafts_workspace_id_workspaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_question_drafts")),
    )
    op.create_index(op.f("ix_question_drafts_workspace_id"), "question_drafts", ["workspace_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_question_drafts_workspace_id"), table_name="question_drafts")
    op.drop_table("question_drafts")
    op.drop_table("workspace_packs")
    op.drop_column("questions", "references")
