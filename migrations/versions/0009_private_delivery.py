"""private delivery: cohort schedules, direct messages per member, and how recovery finds a fire's post

- schedules.cohort_id: a cohort schedule posts the cohort's next curriculum question on each fire;
- cohorts.delivery: `channel` (default, what every existing cohort keeps) or `dm` (each member privately);
- posts.fire_key: the fire slot that posted it, so recovery finds a cohort post (source cohort) per fire;
- post_recipients: the one member a privately delivered post was sent to (only their click counts);
- users.timezone: the platform profile's timezone, cached (delivery at the member's local time);
- member_fires: one row per (schedule, member, local slot), claimed by a unique insert like schedule_fires.

New nullable columns and new tables: nothing to backfill. Nothing is rebuilt on SQLite (a named foreign key on
`posts` or `schedules` would need that, cascading into `answers` and `schedule_fires`): the recipient is a table of
its own, and `schedules.cohort_id` has no foreign key (deleting a cohort deletes its schedules in code).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 12:45:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.add_column("users", sa.Column("timezone", sa.String(length=64), nullable=True))
    op.add_column(
        "cohorts", sa.Column("delivery", sa.String(length=16), server_default="channel", nullable=False)
    )
    op.add_column("posts", sa.Column("fire_key", sa.String(length=40), nullable=True))
    op.create_index("ix_posts_fire_key", "posts", ["fire_key"], unique=False)
    op.add_column("schedules", sa.Column("cohort_id", BigId, nullable=True))
    op.create_table(
        "post_recipients",
        sa.Column("post_id", BigId, nullable=False),
        sa.Column("user_id", BigId, nullable=False),
        sa.ForeignKeyConstraint(
            ["post_id"], ["posts.id"], name=op.f("fk_post_recipients_post_id_posts"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_post_recipients_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("post_id", name=op.f("pk_post_recipients")),
    )
    op.create_index("ix_post_recipients_user_id", "post_recipients", ["user_id"], unique=False)
    op.create_index("ix_schedules_cohort_id", "schedules", ["cohort_id"], unique=False)
    op.create_table(
        "member_fires",
        sa.Column("id", BigId, nullable=False),
        sa.Column("schedule_id", BigId, nullable=False),
        sa.Column("user_id", BigId, nullable=False),
        sa.Column("slot_key", sa.String(length=16), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.String(length=100), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("post_id", BigId, nullable=True),
        sa.Column("detail", sa.String(length=300), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["post_id"], ["posts.id"], name=op.f("fk_member_fires_post_id_posts"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["schedule_id"], ["schedules.id"], name=op.f("fk_member_fires_schedule_id_schedules"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_member_fires_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_member_fires")),
        sa.UniqueConstraint(
            "schedule_id", "user_id", "slot_key", name=op.f("uq_member_fires_schedule_id_user_id_slot_key")
        ),
    )
    op.create_index("ix_member_fires_status_claimed", "member_fires", ["status", "claimed_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_member_fires_status_claimed", table_name="member_fires")
    op.drop_table("member_fires")
    op.drop_index("ix_post_recipients_user_id", table_name="post_recipients")
    op.drop_table("post_recipients")
    op.drop_index("ix_schedules_cohort_id", table_name="schedules")
    op.drop_index("ix_posts_fire_key", table_name="posts")
    # Cohort schedules cannot be pack schedules at 0005: they go (their posts stay).
    op.execute("DELETE FROM schedules WHERE cohort_id IS NOT NULL")
    op.drop_column("schedules", "cohort_id")
    op.drop_column("posts", "fire_key")
    op.drop_column("cohorts", "delivery")
    op.drop_column("users", "timezone")
