"""The repositories a unit of work exposes: what the use cases load and save, one class per aggregate.

Each wraps the unit of work's session; none opens, commits or rolls back a transaction (the unit of work does).
Use cases call `uow.posts`, `uow.questions`, `uow.schedules`, `uow.cohorts` and `uow.review`; the read models
(boards, `/quiz me`, reports) stay tuned queries on the read side (service/stats.py, service/report.py), and the
click path's batched statements live with the group commit that runs them (service/answers.py, scores.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple, cast

from sqlalchemy import ColumnElement, Row, Select, case, delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import (
    Answer,
    Channel,
    Cohort,
    CohortMember,
    MemberFire,
    PackRow,
    Post,
    PostRecipient,
    PostSnapshot,
    QuestionFlag,
    QuestionRow,
    QuestionVersion,
    ReviewAnswer,
    ReviewItem,
    ReviewSnapshot,
    Schedule,
    User,
    Workspace,
)
from bot.domain import ChannelRef, Delivery, PostSource, UserRef
from bot.domain.versions import content_digest
from bot.scheduling.fires import FireKey
from bot.service.directory import Directory, dialect_insert, insert_ignoring_conflict
from bot.service.lookups import (
    CHANNEL_REF_COLUMNS,
    WorkspaceRow,
    channel_ref_of,
    find_cohort,
    in_channel,
    joined_to_channel,
    workspace_row,
)


class Shown(NamedTuple):
    """A post with what it showed (its snapshot and version) and its question as it is now (retired or not)."""

    post: Post
    snapshot: PostSnapshot
    version: QuestionVersion
    question: QuestionRow


class Rotation(NamedTuple):
    """A question of a pool, how often it was posted in a channel, and its newest post there (None: never)."""

    id: int
    times: int
    last_post: int | None


class RevealedAnswer(NamedTuple):
    """One answer to a closed post, as its reveal shows it."""

    choice_index: int
    is_correct: bool
    display_name: str


class FlaggedPost(NamedTuple):
    """The question a post showed, as a flag on it names it."""

    question_id: int
    pack_id: str
    key: str
    prompt: str


class Seen(NamedTuple):
    """A post someone answered or flagged, and when."""

    post_id: int
    at: datetime


class DeliveryMember(NamedTuple):
    """A member of a privately delivered cohort: their row, platform ids, profile timezone (cached) and join time."""

    user_row: int
    user: UserRef
    timezone: str | None
    joined_at: datetime


class FirePost(NamedTuple):
    """A post a fire slot made (recovery adopts it when it has a message reference)."""

    id: int
    message_ref: str | None


class Totals(NamedTuple):
    """Points, right answers and answers, summed."""

    points: int
    correct: int
    answered: int


class _Repository:
    def __init__(self, session: AsyncSession) -> None:
        self._session = session


class Places:
    """The workspace, channel and user rows behind platform ids, within one unit of work (a repository)."""

    def __init__(self, session: AsyncSession, directory: Directory) -> None:
        self._session = session
        self._directory = directory

    async def workspace(self, platform: str, external_id: str) -> WorkspaceRow | None:
        """A workspace's row id and timezone, or None if it has never been seen (nothing is created)."""
        return await workspace_row(self._session, platform, external_id)

    async def workspace_id(self, platform: str, external_id: str, now: datetime) -> int:
        """The row id of a workspace, created on first sight."""
        return await self._directory.workspace_id(self._session, platform, external_id, now)

    async def channel_id(self, ref: ChannelRef, now: datetime) -> int:
        """The row id of a channel, created on first sight."""
        return await self._directory.channel_id(self._session, ref, now)

    async def user_id(self, ref: UserRef, now: datetime) -> int:
        """The row id of a user, created on first sight; the display name is kept current."""
        return await self._directory.user_id(self._session, ref, now)

    async def remember_timezone(self, user_row: int, timezone: str) -> None:
        """Cache the timezone a user's platform profile gives ("" when it gives none)."""
        await self._session.execute(update(User).where(User.id == user_row).values(timezone=timezone[:64]))


class Questions(_Repository):
    """Packs, their questions as last synced from `content/`, and the immutable versions posts point at."""

    async def packs(self) -> dict[str, PackRow]:
        """Every pack row, loaded or not, by id."""
        return {row.id: row for row in (await self._session.execute(select(PackRow))).scalars()}

    async def all(self) -> dict[tuple[str, str], QuestionRow]:
        """Every question row, active or retired, by (pack id, question key)."""
        rows = (await self._session.execute(select(QuestionRow))).scalars()
        return {(row.pack_id, row.key): row for row in rows}

    def add(self, row: PackRow | QuestionRow) -> None:
        """A new pack or question row (inserted at the next flush)."""
        self._session.add(row)

    async def flush(self) -> None:
        """Send pending rows now (a question row needs its pack row first)."""
        await self._session.flush()

    async def pack(self, pack_id: str) -> PackRow | None:
        """A pack row by id."""
        return await self._session.get(PackRow, pack_id)

    async def titles(self, pack_ids: Sequence[str]) -> dict[str, str]:
        """The titles of these packs, by id (packs never synced are missing)."""
        rows = await self._session.execute(select(PackRow.id, PackRow.title).where(PackRow.id.in_(pack_ids)))
        return {str(row.id): str(row.title) for row in rows}

    async def get(self, question_id: int) -> QuestionRow | None:
        """A question row by row id."""
        return await self._session.get(QuestionRow, question_id)

    async def active(self, pack_id: str, key: str) -> QuestionRow | None:
        """The question of this key in a pack, if it is still in the pack."""
        return (
            await self._session.execute(
                select(QuestionRow).where(
                    QuestionRow.pack_id == pack_id, QuestionRow.key == key, QuestionRow.active.is_(True)
                )
            )
        ).scalar()

    async def any(self, pack_id: str, key: str) -> QuestionRow | None:
        """The question of this key in a pack, still in the pack or retired."""
        query = select(QuestionRow).where(QuestionRow.pack_id == pack_id, QuestionRow.key == key)
        return (await self._session.execute(query)).scalar()

    async def active_count(self, pack_id: str) -> int:
        """How many questions a pack has now."""
        return int(
            (
                await self._session.execute(
                    select(func.count(QuestionRow.id)).where(
                        QuestionRow.pack_id == pack_id, QuestionRow.active.is_(True)
                    )
                )
            ).scalar_one()
        )

    async def rotation(self, channel_row: int, pack_ids: Sequence[str]) -> list[Rotation]:
        """The active questions of these packs, each with how often and how lately it was posted in a channel."""
        times = func.count(Post.id).label("times")
        last_post = func.max(Post.id).label("last_post")
        rows = await self._session.execute(
            select(QuestionRow.id, times, last_post)
            .outerjoin(Post, (Post.question_id == QuestionRow.id) & (Post.channel_id == channel_row))
            .where(QuestionRow.pack_id.in_(pack_ids), QuestionRow.active.is_(True))
            .group_by(QuestionRow.id)
            .order_by(QuestionRow.id)
        )
        return [Rotation(int(row.id), int(row.times), row.last_post) for row in rows]

    async def of_packs(self, pack_ids: Sequence[str]) -> list[QuestionRow]:
        """The active questions of these packs, in no particular order."""
        query = select(QuestionRow).where(QuestionRow.pack_id.in_(pack_ids), QuestionRow.active.is_(True))
        return list((await self._session.execute(query)).scalars().all())

    async def current_version(self, question: QuestionRow, now: datetime) -> QuestionVersion:
        """The version holding the question's current text, recorded first if nothing showed this text yet.

        Race-safe: two replicas posting the same new text at once insert one row (the unique (question, digest)
        key), and both read it back.
        """
        digest = content_digest(
            question.prompt, question.choices, question.correct_index, question.explanation, question.images
        )
        match = select(QuestionVersion).where(
            QuestionVersion.question_id == question.id, QuestionVersion.digest == digest
        )
        found = (await self._session.execute(match)).scalar()
        if found is not None:
            return found
        values = {
            "question_id": question.id,
            "digest": digest,
            "prompt": question.prompt,
            "choices": list(question.choices),
            "correct_index": question.correct_index,
            "explanation": question.explanation,
            "created_at": now,
            "images": question.images,
        }
        await self._session.execute(
            insert_ignoring_conflict(self._session, QuestionVersion, values, ["question_id", "digest"])
        )
        return (await self._session.execute(match)).scalar_one()


class Posts(_Repository):
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

    async def channel(self, channel_row: int) -> ChannelRef:
        """The platform ids of the channel a post is in."""
        query = joined_to_channel(select(*CHANNEL_REF_COLUMNS)).where(Channel.id == channel_row)
        return channel_ref_of((await self._session.execute(query)).one())

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


class Cohorts(_Repository):
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


class Schedules(_Repository):
    """Channel schedules."""

    async def in_channel(self, channel_row: int) -> list[Schedule]:
        """Every schedule of a channel."""
        query = select(Schedule).where(Schedule.channel_id == channel_row)
        return list((await self._session.execute(query)).scalars())

    async def add(self, schedule: Schedule) -> Schedule:
        """Insert a schedule; its id is set on return."""
        self._session.add(schedule)
        await self._session.flush()
        return schedule

    async def get(self, schedule_id: int) -> Schedule | None:
        """A schedule by id."""
        return await self._session.get(Schedule, schedule_id)

    async def remove(self, schedule_id: int) -> None:
        """Delete a schedule (its past posts stay)."""
        await self._session.execute(delete(Schedule).where(Schedule.id == schedule_id))

    async def flush(self) -> None:
        """Send changes to loaded schedules now."""
        await self._session.flush()

    async def rows(
        self, query: Select[Schedule, str, str, str, Cohort]
    ) -> Sequence[Row[Schedule, str, str, str, Cohort]]:
        """The rows of a schedule listing query (see ScheduleService for the join that names people)."""
        return (await self._session.execute(query)).all()

    async def advance(self, schedule_id: int, due: datetime, slot_key: str) -> None:
        """Set when a schedule fires next (a privately delivered one: what its listing shows as next)."""
        await self._session.execute(
            update(Schedule).where(Schedule.id == schedule_id).values(next_fire_at=due, next_slot=slot_key)
        )

    async def of_cohort(self, cohort_id: int) -> list[Schedule]:
        """Every schedule of a cohort."""
        query = select(Schedule).where(Schedule.cohort_id == cohort_id).order_by(Schedule.id)
        return list((await self._session.execute(query)).scalars())

    async def privately_delivered(self, platforms: Sequence[str], *, limit: int) -> list[tuple[Schedule, Cohort]]:
        """Enabled schedules of cohorts delivered by direct message, on these platforms."""
        rows = await self._session.execute(
            select(Schedule, Cohort)
            .join(Cohort, Cohort.id == Schedule.cohort_id)
            .join(Workspace, Workspace.id == Schedule.workspace_id)
            .where(
                Schedule.enabled.is_(True),
                Cohort.delivery == Delivery.DM.value,
                Workspace.platform.in_(list(platforms)),
            )
            .order_by(Schedule.id)
            .limit(limit)
        )
        return [(row[0], row[1]) for row in rows]

    async def channel_timezone(self, channel_row: int) -> str:
        """The timezone a channel's schedules default to: the channel's own, else its workspace's, else UTC."""
        row = (
            await self._session.execute(
                joined_to_channel(select(Channel.timezone, Workspace.timezone.label("workspace_timezone"))).where(
                    Channel.id == channel_row
                )
            )
        ).one()
        return str(row.timezone or row.workspace_timezone or "UTC")


class MemberFires(_Repository):
    """The claims of private deliveries: one row per (schedule, member, local slot), like `schedule_fires`.

    Every change to a claim row is fenced: it matches only while the row is still the attempt its holder has
    (`attempts`, and `claimed_by` for renewals), so a replica whose claim was taken over learns it and stops.
    """

    async def claimed_keys(self, schedule_id: int, slot_keys: Sequence[str]) -> set[tuple[int, str]]:
        """(member row, slot key) of this schedule's claims among these slot keys, whatever their status."""
        if not slot_keys:
            return set()
        rows = await self._session.execute(
            select(MemberFire.user_id, MemberFire.slot_key).where(
                MemberFire.schedule_id == schedule_id, MemberFire.slot_key.in_(list(slot_keys))
            )
        )
        return {(int(row[0]), str(row[1])) for row in rows}

    async def claim(self, values: dict[str, Any]) -> int | None:
        """Insert a claim; its id, or None when another replica claimed the (schedule, member, slot) first."""
        statement = insert_ignoring_conflict(self._session, MemberFire, values, ["schedule_id", "user_id", "slot_key"])
        inserted = (await self._session.execute(statement.returning(MemberFire.id))).scalar()
        return int(inserted) if inserted is not None else None

    async def get(self, fire_id: int) -> MemberFire | None:
        """A claim row by id."""
        return await self._session.get(MemberFire, fire_id)

    async def update_held(
        self, fire_id: int, attempts: int, values: dict[str, Any], *, replica: str | None = None
    ) -> bool:
        """Change a claim that is still `claimed` in attempt `attempts` (and by `replica`, if given)."""
        conditions = [MemberFire.id == fire_id, MemberFire.status == "claimed", MemberFire.attempts == attempts]
        if replica is not None:
            conditions.append(MemberFire.claimed_by == replica)
        result = await self._session.execute(update(MemberFire).where(*conditions).values(values))
        return int(cast(Any, result).rowcount) > 0

    async def keep_alive(self, fire_ids: Sequence[int], replica: str, now: datetime) -> None:
        """Renew the claims this replica is still working on."""
        if fire_ids:
            await self._session.execute(
                update(MemberFire)
                .where(
                    MemberFire.id.in_(list(fire_ids)),
                    MemberFire.status == "claimed",
                    MemberFire.claimed_by == replica,
                )
                .values(claimed_at=now)
            )

    async def expired(self, before: datetime, platforms: Sequence[str], *, limit: int) -> list[tuple[int, int]]:
        """(id, attempts) of claims whose lease ran out (their replica died or stalled), on these platforms."""
        rows = await self._session.execute(
            select(MemberFire.id, MemberFire.attempts)
            .join(Schedule, Schedule.id == MemberFire.schedule_id)
            .join(Workspace, Workspace.id == Schedule.workspace_id)
            .where(
                MemberFire.status == "claimed",
                MemberFire.claimed_at < before,
                Workspace.platform.in_(list(platforms)),
            )
            .order_by(MemberFire.claimed_at)
            .limit(limit)
        )
        return [(int(row[0]), int(row[1])) for row in rows]

    async def take_over(self, fire_id: int, attempts: int, *, expired: datetime, now: datetime, replica: str) -> bool:
        """Take an expired claim over, bumping `attempts` so that its old holder is fenced out."""
        result = await self._session.execute(
            update(MemberFire)
            .where(
                MemberFire.id == fire_id,
                MemberFire.status == "claimed",
                MemberFire.attempts == attempts,
                MemberFire.claimed_at < expired,
            )
            .values(claimed_at=now, claimed_by=replica, attempts=attempts + 1)
        )
        return int(cast(Any, result).rowcount) > 0


def _live(user_row: int) -> Select[ReviewItem]:
    return (
        select(ReviewItem)
        .join(QuestionRow, QuestionRow.id == ReviewItem.question_id)
        .where(ReviewItem.user_id == user_row, ReviewItem.retired_at.is_(None), QuestionRow.active.is_(True))
    )


class Review(_Repository):
    """A user's review items (Leitner boxes), the version a review question showed, and review answers."""

    async def out(self, user_row: int, *, lock: bool = False) -> ReviewItem | None:
        """The item whose question is out (asked and not answered yet), newest first."""
        query = _live(user_row).where(ReviewItem.asked_at.is_not(None)).order_by(ReviewItem.asked_at.desc())
        if lock:
            query = query.with_for_update(of=ReviewItem)
        return (await self._session.execute(query.limit(1))).scalars().first()

    async def due_longest(self, user_row: int, now: datetime) -> ReviewItem | None:
        """The live item that has been due longest."""
        query = _live(user_row).where(ReviewItem.due_at <= now).order_by(ReviewItem.due_at, ReviewItem.id).limit(1)
        return (await self._session.execute(query)).scalar()

    async def shown_version(self, item_id: int) -> QuestionVersion | None:
        """The version an item's question showed when it was asked (None when none is out)."""
        return (
            await self._session.execute(
                select(QuestionVersion)
                .join(ReviewSnapshot, ReviewSnapshot.question_version_id == QuestionVersion.id)
                .where(ReviewSnapshot.item_id == item_id)
            )
        ).scalar()

    async def pin(self, item_id: int, version_id: int) -> None:
        """Record the version an item's question is asked in."""
        pinned = dialect_insert(self._session, ReviewSnapshot).values(item_id=item_id, question_version_id=version_id)
        await self._session.execute(
            pinned.on_conflict_do_update(index_elements=["item_id"], set_={"question_version_id": version_id})
        )

    async def unpin(self, item_id: int) -> None:
        """Forget the version an answered item's question was asked in."""
        await self._session.execute(delete(ReviewSnapshot).where(ReviewSnapshot.item_id == item_id))

    async def add_answer(self, answer: ReviewAnswer) -> None:
        """Record a review answer (it counts for mastery, never for a board)."""
        self._session.add(answer)
        await self._session.flush()

    async def due(self, user_row: int, now: datetime) -> int:
        """How many live items are due."""
        return await self._count(_live(user_row).where(ReviewItem.due_at <= now))

    async def learning(self, user_row: int) -> int:
        """How many items are live (due or not)."""
        return await self._count(_live(user_row))

    async def mastered(self, user_row: int) -> int:
        """How many items were retired (answered right in the last box)."""
        return await self._count(
            select(ReviewItem).where(ReviewItem.user_id == user_row, ReviewItem.retired_at.is_not(None))
        )

    async def next_due_at(self, user_row: int) -> datetime | None:
        """When the next live item falls due."""
        live = _live(user_row).subquery()
        found: datetime | None = (await self._session.execute(select(func.min(live.c.due_at)))).scalar()
        return found

    async def _count(self, query: Select[ReviewItem]) -> int:
        count = select(func.count()).select_from(query.subquery())
        return int((await self._session.execute(count)).scalar_one())


class Flags(_Repository):
    """People's reports on questions (one per person and question), per workspace."""

    async def question_of_post(self, post_id: int, workspace: int) -> FlaggedPost | None:
        """The question a post of this workspace showed (None: no such post here, or a forged id)."""
        row = (
            await self._session.execute(
                select(Post.question_id, QuestionRow.pack_id, QuestionRow.key, QuestionRow.prompt)
                .join(Channel, Channel.id == Post.channel_id)
                .join(QuestionRow, QuestionRow.id == Post.question_id)
                .where(Post.id == post_id, Channel.workspace_id == workspace)
            )
        ).first()
        return FlaggedPost(int(row.question_id), row.pack_id, row.key, row.prompt) if row is not None else None

    async def add(self, values: dict[str, Any]) -> bool:
        """Insert a flag; False when this person has one on the question already (the unique key decides)."""
        statement = insert_ignoring_conflict(self._session, QuestionFlag, values, ["user_id", "question_id"])
        return (await self._session.execute(statement.returning(QuestionFlag.id))).scalar() is not None

    async def of_user(self, user_row: int, question_id: int) -> QuestionFlag:
        """A person's flag on a question (it exists)."""
        query = select(QuestionFlag).where(QuestionFlag.user_id == user_row, QuestionFlag.question_id == question_id)
        return (await self._session.execute(query)).scalar_one()

    async def open_count(self, workspace: int, question_id: int) -> int:
        """How many uncleared flags a question has in a workspace."""
        query = select(func.count(QuestionFlag.id)).where(
            QuestionFlag.workspace_id == workspace,
            QuestionFlag.question_id == question_id,
            QuestionFlag.cleared_at.is_(None),
        )
        return int((await self._session.execute(query)).scalar_one())

    async def last_answered(self, user_row: int, channel_row: int) -> Seen | None:
        """The post a person answered last in a channel."""
        row = (
            await self._session.execute(
                select(Answer.post_id, Answer.answered_at)
                .where(Answer.user_id == user_row, Answer.channel_id == channel_row)
                .order_by(Answer.answered_at.desc(), Answer.id.desc())
                .limit(1)
            )
        ).first()
        return Seen(int(row[0]), row[1]) if row is not None else None

    async def last_flagged(self, user_row: int, channel_row: int) -> Seen | None:
        """The post a person flagged last in a channel."""
        row = (
            await self._session.execute(
                select(QuestionFlag.post_id, QuestionFlag.updated_at)
                .join(Post, Post.id == QuestionFlag.post_id)
                .where(QuestionFlag.user_id == user_row, Post.channel_id == channel_row)
                .order_by(QuestionFlag.updated_at.desc(), QuestionFlag.id.desc())
                .limit(1)
            )
        ).first()
        return Seen(row[0], row[1]) if row is not None and row[0] is not None else None

    async def newest_post(self, channel_row: int) -> int | None:
        """The newest published post in a channel."""
        found = (
            await self._session.execute(
                select(Post.id)
                .where(Post.channel_id == channel_row, Post.message_ref.is_not(None))
                .order_by(Post.opened_at.desc(), Post.id.desc())
                .limit(1)
            )
        ).scalar()
        return int(found) if found is not None else None

    async def clear(self, workspace: int, question_id: int, now: datetime, by: int) -> int:
        """Clear a question's open flags in a workspace (rows kept, stamped); returns how many."""
        result = await self._session.execute(
            update(QuestionFlag)
            .where(
                QuestionFlag.workspace_id == workspace,
                QuestionFlag.question_id == question_id,
                QuestionFlag.cleared_at.is_(None),
            )
            .values(cleared_at=now, cleared_by=by)
        )
        return int(result.rowcount or 0)  # type: ignore[attr-defined]

    async def paused(
        self, threshold: int, *, workspace_id: int | None = None, channel_id: int | None = None
    ) -> set[int]:
        """Row ids of the questions paused in a workspace (given itself, or by one of its channels): at least
        `threshold` open flags there."""
        if workspace_id is not None:
            workspace: ColumnElement[Any] | int = workspace_id
        elif channel_id is not None:
            workspace = select(Channel.workspace_id).where(Channel.id == channel_id).scalar_subquery()
        else:
            raise ValueError("paused needs a workspace or a channel")
        query = (
            select(QuestionFlag.question_id)
            .where(QuestionFlag.workspace_id == workspace, QuestionFlag.cleared_at.is_(None))
            .group_by(QuestionFlag.question_id)
            .having(func.count(QuestionFlag.id) >= threshold)
        )
        return {int(question) for question in (await self._session.execute(query)).scalars()}
