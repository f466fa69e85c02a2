"""The click path's rows as SQLite's one JSON parameter (repositories/answers.py `json_rows_text`): each value as
SQLAlchemy itself would bind it for its column, so what the batch INSERT stores is what the ORM stores (a timestamp's
text is compared as text by every range over it: boards, periods, streaks)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any, cast

import pytest
from sqlalchemy import Table
from sqlalchemy.dialects import sqlite

from bot.db.models import Answer, User
from bot.service.repositories.answers import _ANSWER_ROW, _USER_ROW, json_rows_text

DIALECT = sqlite.dialect()

INSTANTS = (
    datetime(2026, 12, 6, 20, 12, 9, 302861, tzinfo=UTC),
    datetime(2026, 12, 6, 20, 12, 9, tzinfo=UTC),  # no microseconds: still six digits
    datetime(2026, 12, 7, 0, 30, 0, 5, tzinfo=timezone(timedelta(hours=5, minutes=30))),  # another offset: in UTC
    datetime(2026, 3, 29, 1, 59, 59, 999999, tzinfo=timezone(timedelta(hours=-11))),  # the next day in UTC
    datetime(999, 1, 2, 3, 4, 5, 6, tzinfo=UTC),  # a year of three digits: padded
)


def _as_sqlalchemy_binds(rows: list[dict[str, Any]], model: type[Answer] | type[User], names: tuple[str, ...]) -> str:
    table = cast(Table, model.__table__)
    processors = [(name, table.c[name].type.dialect_impl(DIALECT).bind_processor(DIALECT)) for name in names]
    return json.dumps([[bind(row[name]) if bind else row[name] for name, bind in processors] for row in rows])


def test_answer_rows_are_bound_as_sqlalchemy_binds_them() -> None:
    rows = [
        {
            "post_id": 3,
            "user_id": 10 + n,
            "workspace_id": 1,
            "channel_id": 2,
            "choice_index": n % 4,
            "is_correct": n % 2 == 0,
            "points": 15 * (n % 2),
            "answered_at": at,
            "latency_ms": 1200 + n,
        }
        for n, at in enumerate(INSTANTS)
    ]
    text = json_rows_text(rows, Answer, _ANSWER_ROW, DIALECT)
    assert text == _as_sqlalchemy_binds(rows, Answer, _ANSWER_ROW)
    assert json.loads(text)[1][7] == "2026-12-06 20:12:09.000000"
    assert json.loads(text)[2][7] == "2026-12-06 19:00:00.000005"


def test_user_rows_are_bound_as_sqlalchemy_binds_them() -> None:
    rows = [
        {"workspace_id": 1, "external_id": f"U{n}", "display_name": f"user {n}", "created_at": at}
        for n, at in enumerate(INSTANTS)
    ]
    assert json_rows_text(rows, User, _USER_ROW, DIALECT) == _as_sqlalchemy_binds(rows, User, _USER_ROW)


def test_a_naive_timestamp_is_refused_as_the_column_type_refuses_it() -> None:
    row = {"workspace_id": 1, "external_id": "U1", "display_name": "u", "created_at": datetime(2026, 12, 6, 20, 0)}
    with pytest.raises(ValueError, match="naive datetime"):
        json_rows_text([row], User, _USER_ROW, DIALECT)
    with pytest.raises(ValueError, match="naive datetime"):
        _as_sqlalchemy_binds([row], User, _USER_ROW)
