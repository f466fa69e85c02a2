"""names on one line: every stored display name without line breaks or invisible characters

A display name with a line break rendered as a line of its own on a leaderboard, and one with zero-width or
bidirectional characters could look like another person's. New names are cleaned when they arrive
(`bot.domain.UserRef`); this cleans the names stored before, the same way (`bot.domain.text.display_name`).
Data only: no column changes. Nothing to undo on downgrade (the old names are not kept).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 23:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from bot.domain.text import display_name

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DISPLAY_NAME_MAX = 200


def upgrade() -> None:
    users = sa.table("users", sa.column("id", sa.BigInteger()), sa.column("display_name", sa.String(200)))
    bind = op.get_bind()
    changed = []
    for user_id, name in bind.execute(sa.select(users.c.id, users.c.display_name)):
        clean = display_name(name)[:DISPLAY_NAME_MAX] or name
        if clean != name:
            changed.append({"user_id": user_id, "clean": clean})
    if changed:
        bind.execute(
            users.update().where(users.c.id == sa.bindparam("user_id")).values(display_name=sa.bindparam("clean")),
            changed,
        )


def downgrade() -> None:
    pass
