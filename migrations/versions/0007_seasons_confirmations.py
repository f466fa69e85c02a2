"""seasons and pending confirmations

seasons: a named window of a workspace ([starts_at, ended_at)), at most one running per workspace (a partial
unique index on SQLite and PostgreSQL alike); pending_confirmations: destructive commands waiting for their
asker's click, by a random token.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 12:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "seasons",
        sa.Column("id", BigId, nullable=False),
        sa.Column("workspace_id", BigId, nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ends_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_by", BigId, nullable=True),
        sa.Column("ended_by", BigId, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"], ["workspaces.id"], name=op.f("fk_seasons_workspace_id_workspaces"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["created_by"], ["users.id"], name=op.f("fk_seasons_created_by_users"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(["ended_by"], ["users.id"], name=op.f("fk_seasons_ended_by_users"), ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seasons")),
        sa.UniqueConstraint("workspace_id", "key", name=op.f("uq_seasons_workspace_id_key")),
    )
    with op.batch_alter_table("seasons", schema=None) as batch_op:
        batch_op.create_index(
            "ix_seasons_running",
            ["workspace_id"],
            unique=True,
            sqlite_where=sa.text("ended_at IS NULL"),
            postgresql_where=sa.text("ended_at IS NULL"),
        )
        batch_op.create_index("ix_seasons_due", ["ended_at", "ends_at"], unique=False)

    op.create_table(
        "pending_confirmations",
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("workspace_external_id", sa.String(length=64), nullable=False),
        sa.Column("channel_external_id", sa.String(length=64), nullable=False),
        sa.Column("user_external_id", sa.String(length=64), nullable=False),
        sa.Column("user_name", sa.String(length=200), nullable=False),
        sa.Column("command", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("outcome", sa.String(length=16), nullable=True),
        sa.PrimaryKeyConstraint("token", name=op.f("pk_pending_confirmations")),
    )
    with op.batch_alter_table("pending_confirmations", schema=None) as batch_op:
        batch_op.create_index("ix_pending_confirmations_expires", ["expires_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("pending_confirmations", schema=None) as batch_op:
        batch_op.drop_index("ix_pending_confirmations_expires")
    op.drop_table("pending_confirmations")
    with op.batch_alter_table("seasons", schema=None) as batch_op:
        batch_op.drop_index("ix_seasons_due")
        batch_op.drop_index("ix_seasons_running")
    op.drop_table("seasons")
