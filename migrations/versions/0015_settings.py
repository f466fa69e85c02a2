"""settings in chat: a workspace's and a channel's own values, and their history

`/quiz settings channel|workspace KEY VALUE` keeps one row per key a workspace or a channel sets (a key with no row
is inherited: the channel's from its workspace, the workspace's from the environment), and every change in
`setting_changes` with who, when, where, and the value before and after.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-06 06:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "workspace_settings",
        sa.Column("workspace_id", BigId, nullable=False),
        sa.Column("key", sa.String(length=32), nullable=False),
        sa.Column("value", sa.String(length=64), nullable=False),
        sa.Column("changed_by", sa.String(length=64), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_workspace_settings_workspace_id_workspaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("workspace_id", "key", name=op.f("pk_workspace_settings")),
    )
    op.create_table(
        "channel_settings",
        sa.Column("channel_id", BigId, nullable=False),
        sa.Column("key", sa.String(length=32), nullable=False),
        sa.Column("value", sa.String(length=64), nullable=False),
        sa.Column("changed_by", sa.String(length=64), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["channel_id"],
            ["channels.id"],
            name=op.f("fk_channel_settings_channel_id_channels"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("channel_id", "key", name=op.f("pk_channel_settings")),
    )
    op.create_table(
        "setting_changes",
        sa.Column("id", BigId, nullable=False),
        sa.Column("workspace_id", BigId, nullable=False),
        sa.Column("channel_id", BigId, nullable=True),
        sa.Column("key", sa.String(length=32), nullable=False),
        sa.Column("old_value", sa.String(length=64), nullable=True),
        sa.Column("new_value", sa.String(length=64), nullable=True),
        sa.Column("changed_by", sa.String(length=64), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_setting_changes_workspace_id_workspaces"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["channel_id"],
            ["channels.id"],
            name=op.f("fk_setting_changes_channel_id_channels"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_setting_changes")),
    )
    op.create_index(
        "ix_setting_changes_workspace_id_changed_at", "setting_changes", ["workspace_id", "changed_at"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_setting_changes_workspace_id_changed_at", table_name="setting_changes")
    op.drop_table("setting_changes")
    op.drop_table("channel_settings")
    op.drop_table("workspace_settings")
