"""pack titles as long as the pack schema allows

The schema (bot/content/schema.py) lets a pack's title run to 2,000 characters, but `packs.title` was
VARCHAR(300): PostgreSQL refused such a pack when the bot synced its content, so a pack `content check` passed
stopped the bot. The column becomes TEXT, like the description. SQLite does not enforce VARCHAR lengths, so only
PostgreSQL's column changes.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 12:40:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column("packs", "title", type_=sa.Text(), existing_type=sa.String(300), existing_nullable=False)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("UPDATE packs SET title = left(title, 300)")
        op.alter_column("packs", "title", type_=sa.String(300), existing_type=sa.Text(), existing_nullable=False)
