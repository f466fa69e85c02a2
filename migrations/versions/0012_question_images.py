"""question images: the images a question and each of its versions show

A question may show an image with its prompt and another with its explanation (an https URL or a file under
content/images/, and its alt text). Both live in a nullable JSON column, on the question (as synced from its pack)
and on each question version (what a post showed); a question without images keeps NULL, and its digest.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02 00:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# Plain ALTER TABLE, not a batch: a batch rebuilds the table on SQLite, which its foreign keys (post_snapshots
# points at question_versions) refuse; SQLite adds and (since 3.35) drops a column in place.


def upgrade() -> None:
    op.add_column("questions", sa.Column("images", sa.JSON(), nullable=True))
    op.add_column("question_versions", sa.Column("images", sa.JSON(), nullable=True))


def downgrade() -> None:
    op.drop_column("question_versions", "images")
    op.drop_column("questions", "images")
