"""user checkpoints: what `/quiz me` has settled of each user's history

`me_checkpoints` keeps, per user, the question streaks (per channel), the day streak (in the workspace's timezone)
and the wrong answers per question folded up to an instant before which all of the user's outcomes are settled, so
`/quiz me` reads only what was settled since instead of the user's whole history. Derived data, filled by `/quiz me`
itself: nothing to backfill; a user's row goes with the user (forget-user).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-06 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "me_checkpoints",
        sa.Column("user_id", BigId, nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("settled_to", sa.DateTime(timezone=True), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("day_run", sa.Integer(), nullable=False),
        sa.Column("day_best", sa.Integer(), nullable=False),
        sa.Column("last_day", sa.Date(), nullable=True),
        sa.Column("channels", sa.JSON(), nullable=False),
        sa.Column("missed", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_me_checkpoints_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_me_checkpoints")),
    )


def downgrade() -> None:
    op.drop_table("me_checkpoints")
