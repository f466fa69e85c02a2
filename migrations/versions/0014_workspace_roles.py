"""workspace roles: admins and leads granted in chat

`/quiz role grant @user lead|admin` keeps one row per person (or platform role) per workspace: who, their name
when known, the role, who granted it and when. Platform admins and the environment's bootstrap admins need no row.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-06 03:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "workspace_roles",
        sa.Column("id", BigId, nullable=False),
        sa.Column("workspace_id", BigId, nullable=False),
        sa.Column("subject", sa.String(length=16), nullable=False),
        sa.Column("subject_id", sa.String(length=64), nullable=False),
        sa.Column("subject_name", sa.String(length=200), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("granted_by", sa.String(length=64), nullable=False),
        sa.Column("granted_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_workspace_roles_workspace_id_workspaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_workspace_roles")),
        sa.UniqueConstraint(
            "workspace_id", "subject", "subject_id", name=op.f("uq_workspace_roles_workspace_id_subject_subject_id")
        ),
    )


def downgrade() -> None:
    op.drop_table("workspace_roles")
