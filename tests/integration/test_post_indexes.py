"""A cohort's posts are found through an index, not by reading every post of the database.

Cohort progress, the questions a cohort was asked and what was sent to a member all look posts up by
`(source, source_ref)`; the plans here are the databases' own answer to whether an index serves that lookup.
"""

from __future__ import annotations

from sqlalchemy import select, text

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
