"""Data export (for analysis or backup) and deletion of one person's data (a data-deletion request)."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import ForeignKey, Table, and_, case, delete, func, or_, select, true, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db import Database
from bot.db.models import (
    Answer,
    Base,
    Channel,
    PendingConfirmation,
    Post,
    PostSnapshot,
    QuestionRow,
    QuestionVersion,
    Schedule,
    User,
    Workspace,
)
from bot.domain.ranking import Entry, rank_entries
from bot.domain.text import spreadsheet_cell
from bot.errors import QuizError
from bot.service.lookups import CHANNEL_REF_COLUMNS, joined_to_channel
from bot.service.schedules import paused_by
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
    db: Database, *, since: datetime | None = None, progress: Callable[[int, int], None] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """Answers and posts (since a time, if given) and the all-time leaderboard of every workspace.

    `progress(done, EXPORT_STEPS)` is called as each step ends (`quizbot export`'s progress bar)."""
    step = progress or (lambda done, total: None)
    async with db.transaction() as session:
        answer_rows = (
            await session.execute(
                select(
                    Answer,
                    Workspace.platform,
                    Workspace.external_id.label("workspace"),
                    Channel.external_id.label("channel"),
                    User.external_id.label("user_id"),
                    User.display_name,
                    QuestionRow.pack_id,
                    QuestionRow.key,
                    QuestionVersion.choices,  # as the post showed them: choice_index indexes these
                )
                .join(User, User.id == Answer.user_id)
                .join(Workspace, Workspace.id == Answer.workspace_id)
                .join(Channel, Channel.id == Answer.channel_id)
                .join(Post, Post.id == Answer.post_id)
                .join(QuestionRow, QuestionRow.id == Post.question_id)
                .join(PostSnapshot, PostSnapshot.post_id == Post.id)
                .join(QuestionVersion, QuestionVersion.id == PostSnapshot.question_version_id)
                .where(Answer.answered_at >= since if since else true())
                .order_by(Answer.id)
            )
        ).all()
        step(1, EXPORT_STEPS)
        answer_counts = select(Answer.post_id, func.count(Answer.id).label("n")).group_by(Answer.post_id).subquery()
        post_rows = (
            await session.execute(
                joined_to_channel(
                    select(
                        Post,
                        *CHANNEL_REF_COLUMNS,
                        QuestionRow.pack_id,
                        QuestionRow.key,
                        func.coalesce(answer_counts.c.n, 0).label("answers"),
                    ),
                    Post.channel_id,
                )
                .join(QuestionRow, QuestionRow.id == Post.question_id)
                .outerjoin(answer_counts, answer_counts.c.post_id == Post.id)
                .where(Post.opened_at >= since if since else true())
                .order_by(Post.id)
            )
        ).all()
        step(2, EXPORT_STEPS)
        totals = (
            await session.execute(
                select(
                    Workspace.platform,
                    Workspace.external_id,
                    User.external_id.label("user_id"),
                    User.display_name,
                    func.sum(Answer.points).label("points"),
                    func.sum(case((Answer.is_correct, 1), else_=0)).label("correct"),
                    func.count(Answer.id).label("answered"),
                )
                .join(User, User.id == Answer.user_id)
                .join(Workspace, Workspace.id == Answer.workspace_id)
                .group_by(Workspace.platform, Workspace.external_id, User.id, User.external_id, User.display_name)
            )
        ).all()
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


def _tables_referencing_users() -> list[tuple[Table, str, str | None]]:
    """(table, column, ondelete) for every foreign key to users.id, found from the models."""
    found = []
    for table in Base.metadata.sorted_tables:
        for column in table.columns:
            for fk in column.foreign_keys:
                if isinstance(fk, ForeignKey) and fk.target_fullname == "users.id":
                    found.append((table, column.name, fk.ondelete))
    return found


def _user_rows(platform: str, user_id: str, workspace: str | None) -> Any:
    query = (
        select(User.id)
        .join(Workspace, Workspace.id == User.workspace_id)
        .where(Workspace.platform == platform, User.external_id == user_id)
    )
    return query.where(Workspace.external_id == workspace) if workspace is not None else query


def _unknown_user(platform: str, user_id: str, workspace: str | None) -> QuizError:
    where = f" in workspace {workspace}" if workspace else ""
    return QuizError(f"No {platform} user {user_id}{where} is known; nothing was deleted.")


async def known_user(
    db: Database, *, platform: str, user_id: str, workspace: str | None = None, installed: Sequence[str] = ()
) -> int:
    """How many identity rows (one per workspace) `forget_user` would delete; QuizError if there are none, which
    says so of the platform itself when it is neither `installed` (an adapter's name) nor in the database."""
    async with db.transaction() as session:
        found = len(list((await session.execute(_user_rows(platform, user_id, workspace))).scalars()))
        if not found:
            stored = set((await session.execute(select(Workspace.platform).distinct())).scalars())
    if not found:
        platforms = {*installed, *stored}
        if platform not in platforms:
            raise QuizError(operator_words.not_a_platform(platform, sorted(platforms)))
        raise _unknown_user(platform, user_id, workspace)
    return found


async def forget_user(db: Database, *, platform: str, user_id: str, workspace: str | None = None) -> Forgotten:
    """Delete one person's answers and every other row about them, and their identity, in one transaction.

    Rows that merely point at them without being theirs (who posted a question, who paused a schedule) are kept
    with the pointer cleared, so no column holds their name or id afterwards. Leaderboards are derived from
    answers, so they stay consistent. Raises QuizError if unknown.
    """
    async with db.transaction() as session:
        ids = list((await session.execute(_user_rows(platform, user_id, workspace))).scalars())
        if not ids:
            raise _unknown_user(platform, user_id, workspace)
        removed: dict[str, int] = {}
        # Pending confirmations name their asker by platform id (they reference no row), so they go by that id.
        asked = delete(PendingConfirmation).where(
            PendingConfirmation.platform == platform, PendingConfirmation.user_external_id == user_id
        )
        if workspace is not None:
            asked = asked.where(PendingConfirmation.workspace_external_id == workspace)
        removed["pending_confirmations"] = (await session.execute(asked)).rowcount or 0  # type: ignore[attr-defined]
        removed["schedules (cleared paused_reason)"] = await _forget_pauses(session, ids)
        for table, column, ondelete in _tables_referencing_users():
            target = table.c[column]
            if ondelete and ondelete.upper() == "SET NULL":
                result = await session.execute(update(table).where(target.in_(ids)).values({column: None}))
                removed[f"{table.name} (cleared {column})"] = result.rowcount or 0  # type: ignore[attr-defined]
            else:
                result = await session.execute(delete(table).where(target.in_(ids)))
                removed[table.name] = result.rowcount or 0  # type: ignore[attr-defined]
        await session.execute(delete(User).where(User.id.in_(ids)))
    return Forgotten(users=len(ids), rows=removed)


async def _forget_pauses(session: AsyncSession, ids: list[int]) -> int:
    """Clear who paused a schedule from the reasons that name one of these users; returns how many changed.

    A pause records its user by row (`paused-by:<id>`); a reason written before that named them in words
    (`paused by <name or platform id>`, in their workspace), which is cleared too.
    """
    people = (
        await session.execute(select(User.workspace_id, User.display_name, User.external_id).where(User.id.in_(ids)))
    ).all()
    in_words = [
        and_(
            Schedule.workspace_id == person.workspace_id,
            Schedule.paused_reason.in_([f"paused by {person.display_name}", f"paused by {person.external_id}"]),
        )
        for person in people
    ]
    result = await session.execute(
        update(Schedule)
        .where(or_(Schedule.paused_reason.in_([paused_by(user_row) for user_row in ids]), *in_words))
        .values(paused_reason=paused_by(None))
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]
