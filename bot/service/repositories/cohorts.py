"""Cohorts: their members, curricula and standings."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, case, delete, func, select

from bot.db.models import (
    Answer,
    Channel,
    Cohort,
    CohortMember,
    PackRow,
    Post,
    PostRecipient,
    PostSnapshot,
    QuestionRow,
    QuestionVersion,
    Schedule,
    User,
    Workspace,
)
from bot.domain import ChannelRef, PostSource, UserRef
from bot.service.repositories.base import Repository
from bot.service.repositories.directory import insert_ignoring_conflict
from bot.service.repositories.lookups import CHANNEL_REF_COLUMNS, channel_ref_of, find_cohort


class DeliveryMember(NamedTuple):
    """A member of a privately delivered cohort: their row, platform ids, profile timezone (cached) and join time."""

    user_row: int
    user: UserRef
    timezone: str | None
    joined_at: datetime


class OpenCohortPost(NamedTuple):
    """A cohort post still open to answers: what a nudge lists."""

    post_id: int
    prompt: str
    pack_title: str
    channel: ChannelRef
    closes_at: datetime | None
    timezone: str


class MemberRow(NamedTuple):
    """A member of a cohort: their row, platform id, name, points since the cohort's start and when they joined."""

    user_row: int
    user_id: str
    name: str
    points: int
    joined_at: datetime


class Progress(NamedTuple):
    """What a cohort's progress is computed from (service/cohorts.py `cohort_view`)."""

    posts: list[int]
    """The cohort's published posts, newest first."""
    recipient_of: dict[int, int]
    """The one member (user row) a privately delivered post was sent to."""
    members: list[MemberRow]
    answers: dict[int, dict[int, tuple[bool, int]]]
    """user row -> post -> (right, points), for the members' answers to the cohort's posts."""
    last_answers: dict[int, datetime]
    """user row -> their last answer anywhere."""
    timezone: str | None
    """The cohort's workspace's timezone."""


class Totals(NamedTuple):
    """Points, right answers and answers, summed."""

    points: int
    correct: int
    answered: int


class Cohorts(Repository):
    """Cohorts and their memberships."""

    async def add(self, values: dict[str, Any]) -> Cohort | None:
        """Insert a cohort; None when the workspace already has one of that name."""
        statement = insert_ignoring_conflict(self._session, Cohort, values, ["workspace_id", "key"])
        created = (await self._session.execute(statement.returning(Cohort.id))).scalar()
        return await self._session.get(Cohort, created) if created is not None else None

    async def get(self, cohort_id: int) -> Cohort | None:
        """A cohort by row id."""
        return await self._session.get(Cohort, cohort_id)

    async def find(self, workspace: int | None, name: str) -> Cohort:
        """The cohort of this name (any case) in a workspace, or UnknownCohort naming the cohorts there are."""
        return await find_cohort(self._session, workspace, name)

    async def of_workspace(self, workspace: int) -> list[Cohort]:
        """A workspace's cohorts, by name."""
        query = select(Cohort).where(Cohort.workspace_id == workspace).order_by(Cohort.key)
        return list((await self._session.execute(query)).scalars().all())

    async def remove(self, cohort: Cohort) -> None:
        """Delete a cohort, its schedules and (by cascade) its memberships; answers and posts stay."""
        await self._session.execute(delete(Schedule).where(Schedule.cohort_id == cohort.id))
        await self._session.execute(delete(Cohort).where(Cohort.id == cohort.id))

    async def set_delivery(self, cohort: Cohort, delivery: str) -> None:
        """Change how a cohort's schedules deliver its curriculum."""
        cohort.delivery = delivery
        await self._session.flush()

    async def delivery_members(self, cohort_id: int) -> list[DeliveryMember]:
        """The members of a cohort with their platform ids and cached timezone, for private delivery."""
        rows = await self._session.execute(
            select(
                User.id,
                User.external_id,
                User.display_name,
                User.timezone,
                Workspace.platform,
                Workspace.external_id.label("workspace"),
                CohortMember.joined_at,
            )
            .join(CohortMember, CohortMember.user_id == User.id)
            .join(Workspace, Workspace.id == User.workspace_id)
            .where(CohortMember.cohort_id == cohort_id)
            .order_by(User.id)
        )
        return [
            DeliveryMember(
                int(row.id),
                UserRef(row.platform, row.workspace, row.external_id, row.display_name),
                row.timezone,
                row.joined_at,
            )
            for row in rows
        ]

    async def lock_member(self, user_row: int) -> None:
        """Lock a user's row, so a membership's starting totals and a concurrent answer's rollup serialize."""
        await self._session.execute(select(User.id).where(User.id == user_row).with_for_update())

    async def totals_since(self, user_row: int, since: datetime) -> Totals:
        """A user's points, right answers and answers since an instant."""
        row = (
            await self._session.execute(
                select(
                    func.coalesce(func.sum(Answer.points), 0),
                    func.coalesce(func.sum(case((Answer.is_correct, 1), else_=0)), 0),
                    func.count(Answer.id),
                ).where(Answer.user_id == user_row, Answer.answered_at >= since)
            )
        ).one()
        return Totals(int(row[0]), int(row[1]), int(row[2]))

    async def add_member(self, values: dict[str, Any]) -> bool:
        """Insert a membership; False when the user was a member already."""
        statement = insert_ignoring_conflict(self._session, CohortMember, values, ["cohort_id", "user_id"])
        return (await self._session.execute(statement.returning(CohortMember.user_id))).scalar() is not None

    async def remove_members(self, cohort: Cohort, user_ids: Sequence[str]) -> set[str]:
        """Remove members by platform id; returns the ids that were members."""
        rows = (
            await self._session.execute(
                select(User.id, User.external_id)
                .join(CohortMember, CohortMember.user_id == User.id)
                .where(
                    CohortMember.cohort_id == cohort.id,
                    User.workspace_id == cohort.workspace_id,
                    User.external_id.in_(user_ids),
                )
            )
        ).all()
        if rows:
            await self._session.execute(
                delete(CohortMember).where(
                    CohortMember.cohort_id == cohort.id, CohortMember.user_id.in_([row.id for row in rows])
                )
            )
        return {str(row.external_id) for row in rows}

    async def creator_name(self, cohort: Cohort) -> str | None:
        """The current name of whoever created a cohort."""
        creator = await self._session.get(User, cohort.created_by) if cohort.created_by else None
        return creator.display_name if creator else None

    async def workspace_timezone(self, workspace: int) -> str:
        """The timezone of a workspace (cohort start dates are local to it)."""
        query = select(Workspace.timezone).where(Workspace.id == workspace)
        return str((await self._session.execute(query)).scalar_one())

    async def progress(self, cohort: Cohort) -> Progress:
        """The rows a cohort's progress is computed from: four small queries, whatever the number of members."""
        session = self._session
        posts = list(
            (
                await session.execute(
                    select(Post.id).where(*_cohort_posts(cohort.id)).order_by(Post.opened_at.desc(), Post.id.desc())
                )
            ).scalars()
        )
        recipient_of = {
            int(post_id): int(user_id)
            for post_id, user_id in await session.execute(
                select(PostRecipient.post_id, PostRecipient.user_id).where(PostRecipient.post_id.in_(posts))
            )
        }
        members = [
            MemberRow(int(row.id), row.external_id, row.display_name, int(row.points), row.joined_at)
            for row in await session.execute(
                select(User.id, User.external_id, User.display_name, CohortMember.points, CohortMember.joined_at)
                .join(User, User.id == CohortMember.user_id)
                .where(CohortMember.cohort_id == cohort.id)
            )
        ]
        of_members = select(CohortMember.user_id).where(CohortMember.cohort_id == cohort.id)
        answers: dict[int, dict[int, tuple[bool, int]]] = {}
        for user_id, post_id, is_correct, points in await session.execute(
            select(Answer.user_id, Answer.post_id, Answer.is_correct, Answer.points)
            .join(Post, Post.id == Answer.post_id)
            .where(*_cohort_posts(cohort.id), Answer.user_id.in_(of_members))
        ):
            answers.setdefault(user_id, {})[post_id] = (bool(is_correct), int(points))
        last_answers = {
            int(user_id): last
            for user_id, last in await session.execute(
                select(Answer.user_id, func.max(Answer.answered_at))
                .where(Answer.user_id.in_(of_members))
                .group_by(Answer.user_id)
            )
        }
        timezone = (
            await session.execute(select(Workspace.timezone).where(Workspace.id == cohort.workspace_id))
        ).scalar()
        return Progress(posts, recipient_of, members, answers, last_answers, timezone)

    async def open_posts(self, cohort_id: int, now: datetime) -> list[OpenCohortPost]:
        """The cohort's published posts still open to answers at `now`, oldest first."""
        rows = await self._session.execute(
            select(Post.id, QuestionVersion.prompt, PackRow.title, Channel.timezone, Workspace.timezone.label("wtz"))
            .add_columns(*CHANNEL_REF_COLUMNS, Post.closes_at)
            .join(PostSnapshot, PostSnapshot.post_id == Post.id)
            .join(QuestionVersion, QuestionVersion.id == PostSnapshot.question_version_id)
            .join(QuestionRow, QuestionRow.id == Post.question_id)
            .join(PackRow, PackRow.id == QuestionRow.pack_id)
            .join(Channel, Channel.id == Post.channel_id)
            .join(Workspace, Workspace.id == Channel.workspace_id)
            .where(*_cohort_posts(cohort_id), Post.closed_at.is_(None))
            .where((Post.closes_at.is_(None)) | (Post.closes_at > now))
            .order_by(Post.opened_at, Post.id)
        )
        return [
            OpenCohortPost(
                post_id=int(row.id),
                prompt=row.prompt,
                pack_title=row.title,
                channel=channel_ref_of(row),
                closes_at=row.closes_at,
                timezone=row.timezone or row.wtz or "UTC",
            )
            for row in rows
        ]

    async def answered(self, post_ids: Sequence[int], user_ids: Sequence[str], workspace: int) -> set[tuple[int, str]]:
        """(post, platform user id) of the answers these users of the workspace gave to these posts."""
        rows = await self._session.execute(
            select(Answer.post_id, User.external_id)
            .join(User, User.id == Answer.user_id)
            .where(Answer.post_id.in_(post_ids))
            .where(User.external_id.in_(user_ids), User.workspace_id == workspace)
        )
        return {(int(post_id), str(user_id)) for post_id, user_id in rows}


def _cohort_posts(cohort_id: int) -> tuple[ColumnElement[bool], ...]:
    """Posts made for the cohort (published: a post whose platform call failed is no post)."""
    return (
        Post.source == PostSource.COHORT.value,
        Post.source_ref == str(cohort_id),
        Post.message_ref.is_not(None),
    )
