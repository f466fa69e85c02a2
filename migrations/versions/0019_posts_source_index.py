"""posts by source: an index on (source_ref, source)

A cohort's progress, the questions it has been asked and what was sent to a member find the cohort's posts by
`source = 'cohort' AND source_ref = <cohort id>`; without an index each of those read every post of the workspace.
`source_ref` leads: `source` alone (four values) must not match the index's first column, or SQLite, which has no
statistics unless ANALYZE has run, takes the index for any `source = ?` and reads every scheduled post through it.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-06 14:50:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_posts_source_ref", "posts", ["source_ref", "source"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_posts_source_ref", table_name="posts")
