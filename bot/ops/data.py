"""Data export (for analysis or backup) and deletion of one person's data (a data-deletion request)."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from bot.domain.ranking import Entry, rank_entries
from bot.domain.text import spreadsheet_cell
from bot.errors import QuizError
from bot.service.operator_uow import OperatorUnitOfWork
from bot.wording import operator as operator_words

ANSWER_FIELDS = (
    "answer_id",
    "answered_at",
    "platform",
    "workspace",
    "channel",
    "user_id",
    "user_name",
    "post_id",
    "pack_id",
    "question_id",
    "choice_index",
    "choice",
    "correct",
    "points",
    "latency_ms",
)
POST_FIELDS = (
    "post_id",
    "platform",
    "workspace",
    "channel",
    "pack_id",
    "question_id",
    "source",
    "source_ref",
    "opened_at",
    "closes_at",
    "closed_at",
    "answers",
)
LEADERBOARD_FIELDS = ("platform", "workspace", "rank", "user_id", "user_name", "points", "correct", "answered")


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


EXPORT_STEPS = 4
"""The steps export_data reports to its `progress`: answers, posts and totals read, rows built."""


async def export_data(
    uow: OperatorUnitOfWork, *, since: datetime | None = None, progress: Callable[[int, int], None] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """Answers and posts (since a time, if given) and the all-time leaderboard of every workspace.

    `progress(done, EXPORT_STEPS)` is called as each step ends (`quizbot export`'s progress bar)."""
    step = progress or (lambda done, total: None)
    answer_rows = await uow.exports.answers(since)
    step(1, EXPORT_STEPS)
    post_rows = await uow.exports.posts(since)
    step(2, EXPORT_STEPS)
    totals = await uow.exports.totals()
    step(3, EXPORT_STEPS)
    answers = [
        {
            "answer_id": row.Answer.id,
            "answered_at": _iso(row.Answer.answered_at),
            "platform": row.platform,
            "workspace": row.workspace,
            "channel": row.channel,
            "user_id": row.user_id,
            "user_name": row.display_name,
            "post_id": row.Answer.post_id,
            "pack_id": row.pack_id,
            "question_id": row.key,
            "choice_index": row.Answer.choice_index,
            "choice": row.choices[row.Answer.choice_index],
            "correct": row.Answer.is_correct,
            "points": row.Answer.points,
            "latency_ms": row.Answer.latency_ms,
        }
        for row in answer_rows
    ]
    posts = [
        {
            "post_id": row.Post.id,
            "platform": row.platform,
            "workspace": row.workspace,
            "channel": row.channel,
            "pack_id": row.pack_id,
            "question_id": row.key,
            "source": row.Post.source,
            "source_ref": row.Post.source_ref,
            "opened_at": _iso(row.Post.opened_at),
            "closes_at": _iso(row.Post.closes_at),
            "closed_at": _iso(row.Post.closed_at),
            "answers": int(row.answers),
        }
        for row in post_rows
    ]
    by_workspace: dict[tuple[str, str], list[Any]] = {}
    for row in totals:
        by_workspace.setdefault((row.platform, row.external_id), []).append(row)
    leaderboard: list[dict[str, Any]] = []
    for (platform, workspace), rows in sorted(by_workspace.items()):
        # Ranked as the boards rank; each entry keeps its row's index, so ids never come from (shared) names.
        entries = [
            Entry(index, r.display_name, int(r.points), int(r.correct), int(r.answered)) for index, r in enumerate(rows)
        ]
        leaderboard.extend(
            {
                "platform": platform,
                "workspace": workspace,
                "rank": rank,
                "user_id": rows[entry.user_id].user_id,
                "user_name": entry.name,
                "points": entry.points,
                "correct": entry.correct,
                "answered": entry.answered,
            }
            for rank, entry in rank_entries(entries)
        )
    step(EXPORT_STEPS, EXPORT_STEPS)
    return {"answers": answers, "posts": posts, "leaderboard": leaderboard}


def to_csv(rows: Sequence[dict[str, Any]], fields: Sequence[str]) -> str:
    """Rows as CSV text with a header line; every text cell made safe to open in a spreadsheet (names are chosen by
    anyone: `=HYPERLINK(...)` must not become a live formula), see `bot.domain.text.spreadsheet_cell`."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(fields), lineterminator="\n")
    writer.writeheader()
    writer.writerows(
        {key: spreadsheet_cell(value) if isinstance(value, str) else value for key, value in row.items()}
        for row in rows
    )
    return buffer.getvalue()


CSV_FILES = {"answers.csv": ANSWER_FIELDS, "posts.csv": POST_FIELDS, "leaderboard.csv": LEADERBOARD_FIELDS}
"""The files of a CSV export, and their columns."""


def write_csv_folder(data: dict[str, list[dict[str, Any]]], folder: Path) -> list[Path]:
    """Write answers.csv, posts.csv and leaderboard.csv into a folder (created if missing, but not its parents,
    so a mistyped path is not turned into a tree of folders); returns the files written."""
    folder.mkdir(exist_ok=True)
    written = []
    for filename, fields in CSV_FILES.items():
        name = filename.removesuffix(".csv")
        path = folder / filename
        path.write_text(to_csv(data[name], fields), encoding="utf-8")
        written.append(path)
    return written


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What a deletion removed."""

    users: int
    rows: dict[str, int]


def _unknown_user(platform: str, user_id: str, workspace: str | None) -> QuizError:
    return QuizError(operator_words.unknown_user(platform, user_id, workspace))


async def known_user(
    uow: OperatorUnitOfWork, *, platform: str, user_id: str, workspace: str | None = None, installed: Sequence[str] = ()
) -> int:
    """How many identity rows (one per workspace) `forget_user` would delete; QuizError if there are none, which
    says so of the platform itself when it is neither `installed` (an adapter's name) nor in the database."""
    found = len(await uow.people.identities(platform, user_id, workspace))
    if not found:
        platforms = {*installed, *await uow.people.platforms()}
        if platform not in platforms:
            raise QuizError(operator_words.not_a_platform(platform, sorted(platforms)))
        raise _unknown_user(platform, user_id, workspace)
    return found


async def forget_user(
    uow: OperatorUnitOfWork, *, platform: str, user_id: str, workspace: str | None = None
) -> Forgotten:
    """Delete one person's answers and every other row about them, and their identity, and commit.

    Rows that merely point at them without being theirs (who posted a question, who paused a schedule) are kept
    with the pointer cleared, so no column holds their name or id afterwards. Leaderboards are derived from
    answers, so they stay consistent. Raises QuizError if unknown.
    """
    ids = await uow.people.identities(platform, user_id, workspace)
    if not ids:
        raise _unknown_user(platform, user_id, workspace)
    removed = await uow.people.forget(ids, platform=platform, user_id=user_id, workspace=workspace)
    await uow.commit()
    return Forgotten(users=len(ids), rows=removed)
