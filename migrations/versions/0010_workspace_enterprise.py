"""workspaces.enterprise_id: the Slack Enterprise Grid organisation a workspace belongs to

A click from another workspace of the same organisation, in a channel the workspaces share, counts on the post's
boards; the post's workspace learns its organisation from its signed commands. A new nullable column: nothing to
backfill (a workspace's organisation is recorded with its next command; until then such clicks are refused, as
before).

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


def downgrade() -> None:
    op.drop_column("workspaces", "enterprise_id")
