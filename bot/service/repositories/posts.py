"""Posts: questions as posted (their snapshots, message ids, fires) and what their reveal shows."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import NamedTuple

from sqlalchemy import delete, func, select, update

from bot.db.models import (
    Answer,
    Channel,
    Cohort,
    Post,
    PostRecipient,
    PostSnapshot,
    QuestionRow,
    QuestionVersion,
    Schedule,
    User,
    Workspace,
)
from bot.domain import ChannelRef, PostSource
from bot.domain.schedules import FireKey
from bot.service.repositories.base import Repository
from bot.service.repositories.lookups import (
    in_channel,
    joined_to_channel,
)


class PostOrigin(NamedTuple):
    """Why a post was posted, and who posted it (on demand) by platform id and name."""

    source: PostSource
    poster_id: str | None
    poster_name: str


class OnDemand(NamedTuple):
    """A channel's open on-demand posts, and when the newest on-demand post was posted."""

    open: int
    last: datetime | None


class Shown(NamedTuple):
    """A post with what it showed (its snapshot and version) and its question as it is now (retired or not)."""

    post: Post
    snapshot: PostSnapshot
    version: QuestionVersion
    question: QuestionRow


class RevealedAnswer(NamedTuple):
    """One answer to a closed post, as its reveal shows it."""

    choice_index: int
    is_correct: bool
    display_name: str


class FirePost(NamedTuple):
    """A post a fire slot made (recovery adopts it when it has a message reference)."""

    id: int
    message_ref: str | None


class Posts(Repository):
    """Posted questions, each with the snapshot of what it showed."""

    async def add(self, post: Post) -> Post:
        """Insert a post; its id is set on return."""
        self._session.add(post)
        await self._session.flush()
        return post

    async def pin(self, snapshot: PostSnapshot) -> None:
        """Record what a post showed (its version, number and count)."""
        self._session.add(snapshot)
        await self._session.flush()

    async def shown(self, post_id: int) -> Shown | None:
        """A post with its snapshot, version and question, or None if there is no such post."""
        row = (
            await self._session.execute(
                select(Post, PostSnapshot, QuestionVersion, QuestionRow)
                .join(PostSnapshot, PostSnapshot.post_id == Post.id)
                .join(QuestionVersion, QuestionVersion.id == PostSnapshot.question_version_id)
                .join(QuestionRow, QuestionRow.id == Post.question_id)
                .where(Post.id == post_id)
            )
        ).first()
        return Shown(row[0], row[1], row[2], row[3]) if row is not None else None

    async def remove(self, post_id: int) -> None:
        """Delete a post the platform refused (nothing was ever shown of it)."""
        await self._session.execute(delete(Post).where(Post.id == post_id))

    async def record_message(self, post_id: int, message_ref: str) -> None:
        """Record the platform's id of the message that shows a post."""
        await self._session.execute(update(Post).where(Post.id == post_id).values(message_ref=message_ref))

    async def close(self, post_id: int, now: datetime) -> None:
        """Close a post (idempotent: an already closed post keeps its time)."""
        await self._session.execute(
            update(Post).where(Post.id == post_id, Post.closed_at.is_(None)).values(closed_at=now)
        )

    async def newest_open(self, channel: ChannelRef) -> int | None:
        """The id of the newest open, published post in a channel."""
        found = (
            await self._session.execute(
                joined_to_channel(select(Post.id), Post.channel_id)
                .where(*in_channel(channel), Post.closed_at.is_(None), Post.message_ref.is_not(None))
                .order_by(Post.opened_at.desc(), Post.id.desc())
                .limit(1)
            )
        ).scalar()
        return int(found) if found is not None else None

    async def origin(self, post: Post) -> tuple[str, str | None]:
        """The timezone a post's card tells time in, and the name of the cohort it was posted for (if any).

        A scheduled card speaks its schedule's timezone (`tz:` when it was added), as its replies do; any other
        card the channel's, else the workspace's.
        """
        zones = (
            await self._session.execute(
                select(Channel.timezone, Workspace.timezone)
                .join(Workspace, Workspace.id == Channel.workspace_id)
                .where(Channel.id == post.channel_id)
            )
        ).first()
        timezone = str((zones[0] or zones[1]) if zones else "UTC")
        if post.source == PostSource.SCHEDULE.value and post.source_ref:
            try:
                schedule_id: int | None = FireKey.parse(post.source_ref).schedule_id
            except ValueError:
                schedule_id = None
            if schedule_id is not None:
                query = select(Schedule.timezone).where(Schedule.id == schedule_id)
                timezone = (await self._session.execute(query)).scalar() or timezone
        cohort_name = None
        if post.source == PostSource.COHORT.value and post.source_ref and post.source_ref.isdigit():
            query_name = select(Cohort.name).where(Cohort.id == int(post.source_ref))
            cohort_name = (await self._session.execute(query_name)).scalar()
        return timezone, cohort_name

    async def answer_count(self, post_id: int) -> int:
        """How many people answered a post."""
        query = select(func.count(Answer.id)).where(Answer.post_id == post_id)
        return int((await self._session.execute(query)).scalar_one())

    async def answers(self, post_id: int) -> list[RevealedAnswer]:
        """A post's answers in the order they came, with the answerer's current name."""
        rows = await self._session.execute(
            select(Answer.choice_index, Answer.is_correct, User.display_name)
            .join(User, User.id == Answer.user_id)
            .where(Answer.post_id == post_id)
            .order_by(Answer.answered_at, Answer.id)
        )
        return [RevealedAnswer(row.choice_index, row.is_correct, row.display_name) for row in rows]

    async def address(self, post_id: int, recipient_row: int) -> None:
        """Record the one person a privately delivered post is for (only their click counts)."""
        self._session.add(PostRecipient(post_id=post_id, user_id=recipient_row))
        await self._session.flush()

    async def sent_to_member(self, cohort_id: int, user_row: int) -> list[int]:
        """Question row ids of the cohort's curriculum already sent privately to one member."""
        query = (
            select(Post.question_id)
            .join(PostRecipient, PostRecipient.post_id == Post.id)
            .where(
                Post.source == PostSource.COHORT.value,
                Post.source_ref == str(cohort_id),
                PostRecipient.user_id == user_row,
            )
            .distinct()
        )
        return list((await self._session.execute(query)).scalars())

    async def of_fire(self, fire_key: str, *, recipient: int | None = None) -> list[FirePost]:
        """The posts a fire slot made: by its fire key (and the member, for a private delivery); channel schedule
        posts made before fire keys were recorded are found by their source ref."""
        legacy = (Post.source == PostSource.SCHEDULE.value) & (Post.source_ref == fire_key)
        query = select(Post.id, Post.message_ref).outerjoin(PostRecipient, PostRecipient.post_id == Post.id)
        if recipient is None:
            query = query.where((Post.fire_key == fire_key) | legacy, PostRecipient.user_id.is_(None))
        else:
            query = query.where(Post.fire_key == fire_key, PostRecipient.user_id == recipient)
        return [FirePost(int(row.id), row.message_ref) for row in await self._session.execute(query)]

    async def remove_unsent(self, post_ids: Sequence[int]) -> None:
        """Delete posts that never got a message reference (an attempt that died before the platform answered)."""
        if post_ids:
            await self._session.execute(delete(Post).where(Post.id.in_(post_ids), Post.message_ref.is_(None)))

    async def asked_by_cohort(self, cohort_id: int) -> list[int]:
        """Question row ids a cohort has been asked (posts with source cohort and this cohort's id)."""
        query = (
            select(Post.question_id)
            .where(Post.source == PostSource.COHORT.value, Post.source_ref == str(cohort_id))
            .distinct()
        )
        return list((await self._session.execute(query)).scalars())

    async def poster(self, post_id: int) -> PostOrigin:
        """Why a post was posted and, for one posted on demand, by whom (its platform id and name)."""
        row = (
            await self._session.execute(
                select(Post.source, User.external_id, User.display_name)
                .outerjoin(User, User.id == Post.posted_by)
                .where(Post.id == post_id)
            )
        ).one()
        return PostOrigin(PostSource(row.source), row.external_id, row.display_name or "")

    async def on_demand(self, channel: ChannelRef) -> OnDemand:
        """A channel's open on-demand posts and when its newest on-demand post was posted (for `/quiz now`'s limits)."""
        query = joined_to_channel(
            select(
                func.count(Post.id).filter(Post.closed_at.is_(None)).label("open"),
                func.max(Post.opened_at).label("last"),
            ),
            Post.channel_id,
        ).where(*in_channel(channel), Post.source == PostSource.COMMAND.value)
        row = (await self._session.execute(query)).one()
        last = row.last
        if isinstance(last, str):  # SQLite returns an aggregate of a timestamp as text
            last = datetime.fromisoformat(last)
        if last is not None and last.tzinfo is None:
            last = last.replace(tzinfo=UTC)
        return OnDemand(int(row.open or 0), last)
