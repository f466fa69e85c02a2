"""workspaces.enterprise_id (a Slack Enterprise Grid organisation) and seen_deliveries (replayed requests)

- workspaces.enterprise_id: a click from another workspace of the same organisation, in a channel the workspaces
  share, counts on the post's boards; the post's workspace learns its organisation from its signed commands. A
  new nullable column: nothing to backfill (it is recorded with the workspace's next command; until then such
  clicks are refused, as before).
- seen_deliveries: the Slack slash commands run in the last minutes, by trigger_id (hashed), so that a signed copy
  replayed to another replica is not run twice. A new table, empty at first.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 23:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("workspaces", sa.Column("enterprise_id", sa.String(length=64), nullable=True))
    op.create_table(
        "seen_deliveries",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_seen_deliveries")),
    )
    op.create_index("ix_seen_deliveries_seen_at", "seen_deliveries", ["seen_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_seen_deliveries_seen_at", table_name="seen_deliveries")
    op.drop_table("seen_deliveries")
    op.drop_column("workspaces", "enterprise_id")
