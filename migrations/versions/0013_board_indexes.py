"""board indexes: the rollups' board indexes in the boards' own order

A board ranks by points (most first), then correct answers (most first), then answers (fewest first), then user
id. The rollups' board indexes had every column ascending, so no scan of them gave that order: each all-time,
week and month board sorted every row of its scope (10,000 rows of a workspace in the benchmark) to show ten.
Rebuilt in that order (points DESC, correct DESC, answered, user_id), a board is an index scan that stops after
the rows it shows, whatever the size of the workspace (bench/leaderboard_queries.py).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03 00:00:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BOARD_ORDER = "points DESC, correct DESC, answered, user_id"
INDEXES = {
    "ix_user_scores_board": ("user_scores", "workspace_id"),
    "ix_channel_scores_board": ("channel_scores", "channel_id"),
    "ix_period_scores_board": ("period_scores", "workspace_id, period, period_start"),
}
BEFORE = {
    "ix_user_scores_board": "workspace_id, points, correct, answered",
    "ix_channel_scores_board": "channel_id, points, correct, answered",
    "ix_period_scores_board": "workspace_id, period, period_start, points, correct, answered",
}


def upgrade() -> None:
    for name, (table, scope) in INDEXES.items():
        op.execute(f"DROP INDEX {name}")
        op.execute(f"CREATE INDEX {name} ON {table} ({scope}, {BOARD_ORDER})")


def downgrade() -> None:
    for name, (table, _) in INDEXES.items():
        op.execute(f"DROP INDEX {name}")
        op.execute(f"CREATE INDEX {name} ON {table} ({BEFORE[name]})")
