"""board rollups: week and month boards from period rollups, latest misses from an index

period_scores holds each user's totals in each period (this week, this month, in the workspace's timezone) of
their workspace, kept in the transaction that records the answers (bot/service/scores.py), so the workspace's
windowed boards are an index scan like the all-time ones instead of a sum over the window's answers. Backfill: the answers of the last 40 days (every current week and month); older periods are
never read.

ix_posts_channel_finish orders a channel's posts by when they finished, the last first: a board's current
streaks start at each user's latest miss, now found at the top of that index instead of by sorting every
scheduled question of the channel for each user.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 12:30:00.000000
"""

from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
FINISH = (
    "(CASE WHEN (closed_at IS NOT NULL AND (closes_at IS NULL OR closed_at < closes_at)) "
    "THEN closed_at ELSE closes_at END)"
)
BACKFILL_DAYS = 40


def _counters() -> list[sa.Column[int]]:
    return [sa.Column(name, sa.Integer(), nullable=False) for name in ("points", "correct", "answered")]


def _period_starts(at: datetime, timezone: str) -> list[tuple[str, datetime]]:
    """(window, start) of the week and month containing `at` in `timezone`, in UTC (as bot.domain.windows)."""
    zone = ZoneInfo(timezone)
    local = at.astimezone(zone)
    midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
    starts = {"week": midnight - timedelta(days=local.weekday()), "month": midnight.replace(day=1)}
    return [(w, s.replace(tzinfo=None).replace(tzinfo=zone).astimezone(UTC)) for w, s in starts.items()]


def upgrade() -> None:
    op.create_table(
        "period_scores",
        sa.Column("user_id", BigId, nullable=False),
        sa.Column("period", sa.String(length=16), nullable=False),
        sa.Column("period_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("workspace_id", BigId, nullable=False),
        *_counters(),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_period_scores_user_id_users"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_period_scores_workspace_id_workspaces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", "period", "period_start", name=op.f("pk_period_scores")),
    )
    op.create_index(
        "ix_period_scores_board",
        "period_scores",
        ["workspace_id", "period", "period_start", "points", "correct", "answered"],
    )
    op.execute(f"CREATE INDEX ix_posts_channel_finish ON posts (channel_id, {FINISH} DESC, opened_at DESC, id DESC)")
    _backfill()


def _backfill() -> None:
    bind = op.get_bind()
    sqlite = bind.dialect.name == "sqlite"
    since = datetime.now(UTC) - timedelta(days=BACKFILL_DAYS)
    zones = dict(bind.execute(sa.text("SELECT id, timezone FROM workspaces")).all())
    rows = bind.execute(
        sa.text(
            "SELECT user_id, workspace_id, points, is_correct, answered_at FROM answers "
            "WHERE answered_at >= :since"
        ),
        {"since": since.replace(tzinfo=None) if sqlite else since},
    )
    by_user: dict[tuple[int, str, datetime], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for user_id, workspace_id, points, is_correct, answered_at in rows:
        if isinstance(answered_at, str):  # SQLite, read through text()
            answered_at = datetime.fromisoformat(answered_at)
        at = answered_at.replace(tzinfo=UTC) if answered_at.tzinfo is None else answered_at.astimezone(UTC)
        for window, start in _period_starts(at, zones.get(workspace_id) or "UTC"):
            totals = by_user[(user_id, window, start)]
            totals[0] += points
            totals[1] += 1 if is_correct else 0
            totals[2] += 1
            totals[3] = workspace_id

    def stored(at: datetime) -> datetime:
        return at.replace(tzinfo=None) if sqlite else at

    period_scores = sa.table(
        "period_scores", *(sa.column(c) for c in ("user_id", "period", "period_start", "workspace_id")),
        *(sa.column(c) for c in ("points", "correct", "answered")),
    )
    if by_user:
        bind.execute(
            period_scores.insert(),
            [
                {"user_id": u, "period": w, "period_start": stored(s), "workspace_id": t[3]}
                | {"points": t[0], "correct": t[1], "answered": t[2]}
                for (u, w, s), t in by_user.items()
            ],
        )


def downgrade() -> None:
    op.execute("DROP INDEX ix_posts_channel_finish")
    op.drop_index("ix_period_scores_board", table_name="period_scores")
    op.drop_table("period_scores")
