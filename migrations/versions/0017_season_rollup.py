"""season rollup: a season's board reads its rows of period_scores instead of summing the season's answers

Each season's totals per user are kept in `period_scores` with period `season:<season id>` and period_start the
season's `starts_at`, written by the click path's periods statement (bot/service/repositories/scores.py) and
settled when a season starts or ends (bot/service/repositories/seasons.py). This fills the rows of every season
already there from its answers, in [starts_at, ended_at), or while it runs up to its planned `ends_at`: one
INSERT .. SELECT on either database. No schema change.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-06 09:10:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FILL = """
INSERT INTO period_scores (user_id, period, period_start, workspace_id, points, correct, answered)
SELECT answers.user_id, 'season:' || CAST(seasons.id AS VARCHAR(20)), seasons.starts_at, answers.workspace_id,
       SUM(answers.points), SUM(CASE WHEN answers.is_correct THEN 1 ELSE 0 END), COUNT(*)
FROM seasons
JOIN answers ON answers.workspace_id = seasons.workspace_id
    AND answers.answered_at >= seasons.starts_at
    AND (COALESCE(seasons.ended_at, seasons.ends_at) IS NULL
         OR answers.answered_at < COALESCE(seasons.ended_at, seasons.ends_at))
GROUP BY answers.user_id, seasons.id, seasons.starts_at, answers.workspace_id
"""


def upgrade() -> None:
    op.execute(sa.text(FILL))


def downgrade() -> None:
    op.execute(sa.text("DELETE FROM period_scores WHERE period LIKE 'season:%'"))
