"""A cohort's posts are found through an index, not by reading every post of the database.

Cohort progress, the questions a cohort was asked and what was sent to a member all look posts up by
`(source, source_ref)`; the plans here are the databases' own answer to whether an index serves that lookup.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select, text

from bot.db import Database
from bot.db.models import Post
from bot.domain import PostSource
from bot.runtime import Runtime


async def test_a_cohorts_posts_are_read_through_the_source_index(runtime: Runtime) -> None:
    query = select(Post.question_id).where(Post.source == PostSource.COHORT.value, Post.source_ref == "12").distinct()
    engine = runtime.db.engine
    sql = str(query.compile(engine, compile_kwargs={"literal_binds": True}))
    async with engine.connect() as conn:
        if engine.dialect.name == "postgresql":
            await conn.execute(text("SET enable_seqscan = off"))  # an empty table: ask what an index would serve
            plan = "\n".join(str(row[0]) for row in await conn.execute(text(f"EXPLAIN {sql}")))
        else:
            plan = "\n".join(str(row[-1]) for row in await conn.execute(text(f"EXPLAIN QUERY PLAN {sql}")))
    assert "ix_posts_source_ref" in plan, plan


async def test_posts_by_source_alone_are_not_looked_up_through_it(sqlite_template: Path) -> None:
    """`source` has four values: SQLite, which has no statistics until ANALYZE runs (and the bot never runs it),
    would search an index that leads with it for any `source = ?` (the boards' streak statement read every scheduled
    post through it, 30x slower). The index leads with `source_ref`, which only the cohort lookups name."""
    db = Database.from_url(f"sqlite+aiosqlite:///{sqlite_template}")
    query = select(Post.id, Post.channel_id).where(Post.source == PostSource.SCHEDULE.value)
    try:
        sql = str(query.compile(db.engine, compile_kwargs={"literal_binds": True}))
        async with db.engine.connect() as conn:
            plan = "\n".join(str(row[-1]) for row in await conn.execute(text(f"EXPLAIN QUERY PLAN {sql}")))
    finally:
        await db.dispose()
    assert "ix_posts_source_ref" not in plan, plan
