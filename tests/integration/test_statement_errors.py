"""A statement PostgreSQL refuses for its own values is not an outage.

asyncpg's server errors that SQLAlchemy does not classify (a value too long for its column, a division by zero)
reach the bot as a bare DBAPIError, as a lost connection does. They must not be read as "the database could not be
reached": the user would be told to try again what can never work, and the operator would read a warning about
the database instead of the statement's traceback. A statement the server cancelled for its time limit stays
"unavailable" (busy: worth trying again)."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from bot.db.database import Database, is_unavailable
from bot.errors import StorageUnavailable

pytestmark = pytest.mark.postgres


async def _run(url: str, *statements: str) -> None:
    """The statements in one transaction of the bot's own Database."""
    database = Database.from_url(url)
    try:
        async with database.transaction() as session:
            for statement in statements:
                await session.execute(text(statement))
    finally:
        await database.dispose()


@pytest.mark.parametrize(
    "statements",
    [
        ("SELECT CAST(300000 AS SMALLINT)",),  # 22003: numeric value out of range
        ("SELECT 1 / (SELECT 0)",),  # 22012: division by zero
        ("SELECT (SELECT x FROM (VALUES (1), (2)) AS t (x))",),  # 21000: a scalar subquery's second row
        (
            "CREATE TEMPORARY TABLE short_names (name VARCHAR(3))",
            "INSERT INTO short_names VALUES ('far too long')",  # 22001: a value too long for its column
        ),
    ],
)
async def test_a_statement_refused_for_its_values_is_not_an_outage(
    postgres_template: str, statements: tuple[str, ...]
) -> None:
    with pytest.raises(DBAPIError) as raised:
        await _run(postgres_template, *statements)
    assert not isinstance(raised.value, StorageUnavailable)
    assert not is_unavailable(raised.value)


async def test_a_statement_cancelled_for_its_time_limit_is_still_unavailable(postgres_template: str) -> None:
    with pytest.raises(StorageUnavailable):
        # 57014: pg_sleep(1) outlives a 1 ms limit on any machine
        await _run(postgres_template, "SET LOCAL statement_timeout = 1", "SELECT pg_sleep(1)")
