"""Use cases: sync content, post a question, record an answer, close and reveal a post.

A post is a snapshot of what it showed. Posting pins the question's current version (PostSnapshot -> QuestionVersion:
prompt, choices in the pack's order, correct choice, explanation) and the card's number and count; cards and
reveals are drawn from that, never from the pack as it is now, so syncing an edited pack changes only later posts.
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.clock import Clock
from bot.content import Catalog
from bot.db.models import (
    Answer,
    Channel,
    Cohort,
    PackRow,
    Post,
    PostSnapshot,
    QuestionRow,
    QuestionVersion,
    Schedule,
    User,
    Workspace,
)
from bot.domain import (
    ChannelRef,
    PostSource,
    QuestionCard,
    QuestionKey,
    RevealView,
    UserRef,
)
from bot.domain.flags import DEFAULT_PAUSE_THRESHOLD
from bot.errors import NoOpenPost, QuizError, UnknownPack, UnknownPost
from bot.ops.metrics import Metrics
from bot.ports import PlatformError, PlatformRegistry
from bot.scheduling.fires import FireKey
from bot.service.flags import paused_questions
from bot.service.lookups import CHANNEL_REF_COLUMNS, channel_ref_of, in_channel, joined_to_channel
from bot.service.uow import UnitOfWorkFactory
from bot.service.versions import current_version
from bot.wording import cards as card_words
from bot.wording.flags import all_paused

log = logging.getLogger(__name__)


class PostedCard(NamedTuple):
    """A post's card as it stands, and where it was posted (message_ref is None until the platform answered)."""

    channel: ChannelRef
    message_ref: str | None
    card: QuestionCard


class _Shown(NamedTuple):
    """A post with what it showed (its snapshot and version) and its question as it is now (retired or not)."""

    post: Post
    snapshot: PostSnapshot
    version: QuestionVersion
    question: QuestionRow


@dataclass(frozen=True, slots=True)
class PostedQuestion:
    """A question that was posted: its card and where."""

    channel: ChannelRef
    card: QuestionCard
    message_ref: str


class QuizService:
    """The quiz's use cases. Each opens its own transaction; platforms are called outside transactions."""

    def __init__(
        self,
        *,
        uow: UnitOfWorkFactory,
        catalog: Catalog,
        platforms: PlatformRegistry,
        clock: Clock,
        rng: random.Random | None = None,
        metrics: Metrics | None = None,
        pause_threshold: int = DEFAULT_PAUSE_THRESHOLD,
    ) -> None:
        self.metrics = metrics or Metrics()
        self.pause_threshold = pause_threshold  # questions this many people flagged are out of rotation
        self.uow = uow
        self.catalog = catalog
        self.platforms = platforms
        self.clock = clock
        self.rng = rng or random.Random()

    async def sync_content(self) -> None:
        """Copy the loaded packs into the database; questions no longer in a pack are kept but retired.

        Only the current text of each question changes here; posts already made keep the version they showed.
        """
        for attempt in range(3):
            try:
                async with self.uow() as uow:
                    session = uow.session
                    await self._sync(session)
                    await uow.commit()
                return
            except IntegrityError:  # another replica synced the same rows at the same moment
                if attempt == 2:
                    raise
                log.info("content sync raced another process; retrying")

    async def _sync(self, session: AsyncSession) -> None:
        now = self.clock.now()
        packs = {row.id: row for row in (await session.execute(select(PackRow))).scalars()}
        questions = {(row.pack_id, row.key): row for row in (await session.execute(select(QuestionRow))).scalars()}
        loaded_ids = {pack.id for pack in self.catalog.packs}
        for pack_id, pack_row in packs.items():
            pack_row.active = pack_id in loaded_ids
        for pack in self.catalog.packs:
            existing_pack = packs.get(pack.id)
            if existing_pack is None:
                session.add(
                    PackRow(
                        id=pack.id,
                        title=pack.title,
                        description=pack.description,
                        tags=list(pack.tags),
                        active=True,
                        synced_at=now,
                    )
                )
            else:
                existing_pack.title, existing_pack.description, existing_pack.tags, existing_pack.synced_at = (
                    pack.title,
                    pack.description,
                    list(pack.tags),
                    now,
                )
        await session.flush()
        seen: set[tuple[str, str]] = set()
        for pack in self.catalog.packs:
            for position, question in enumerate(pack.questions):
                key = (pack.id, question.key)
                seen.add(key)
                fields = {
                    "position": position,
                    "prompt": question.prompt,
                    "choices": list(question.choices),
                    "correct_index": question.correct_index,
                    "explanation": question.explanation,
                    "tags": list(question.tags),
                    "difficulty": question.difficulty,
                    "active": True,
                }
                existing = questions.get(key)
                if existing is None:
                    session.add(QuestionRow(pack_id=pack.id, key=question.key, **fields))
                else:
                    for name, value in fields.items():
                        if getattr(existing, name) != value:
                            setattr(existing, name, value)
        for key, question_row in questions.items():
            if key not in seen and question_row.active:
                question_row.active = False

    async def post_question(
        self,
        channel: ChannelRef,
        *,
        pack_id: str | None = None,
        source: PostSource = PostSource.COMMAND,
        source_ref: str | None = None,
        posted_by: UserRef | None = None,
        closes_at: datetime | None = None,
        pack_ids: list[str] | None = None,
        question: QuestionKey | None = None,
    ) -> PostedQuestion:
        """Post the channel's next question (least posted here first, so no repeat until a pack is used up).

        `question` = (pack id, question id) posts that very question instead (a cohort's curriculum).
        The post row is created first; if the platform refuses the message the row is removed again.
        """
        platform = self.platforms.get(channel.platform)
        if platform is None:
            raise QuizError(card_words.adapter_not_running(channel.platform))
        packs = [pack_id] if pack_id else (pack_ids or [p.id for p in self.catalog.packs])
        if question is not None:
            packs = [question[0]]
        for name in packs:
            self.catalog.get(name)  # raises UnknownPack with the list of packs
        now = self.clock.now()
        async with self.uow() as uow:
            session = uow.session
            channel_row = await uow.places.channel_id(channel, now)
            if question is None:
                chosen = await self._next_question(session, channel_row, packs)
            else:
                chosen = await self._question(session, *question)
            version = await current_version(session, chosen, now)
            order = list(range(len(version.choices)))
            self.rng.shuffle(order)
            poster = await uow.places.user_id(posted_by, now) if posted_by else None
            post = Post(
                channel_id=channel_row,
                question_id=chosen.id,
                choice_order=order,
                source=source.value,
                source_ref=source_ref,
                posted_by=poster,
                opened_at=now,
                closes_at=closes_at,
            )
            session.add(post)
            await session.flush()
            in_pack = (
                await session.execute(
                    select(func.count(QuestionRow.id)).where(
                        QuestionRow.pack_id == chosen.pack_id, QuestionRow.active.is_(True)
                    )
                )
            ).scalar_one()
            snapshot = PostSnapshot(
                post_id=post.id,
                question_version_id=version.id,
                question_number=chosen.position + 1,
                question_count=max(in_pack, chosen.position + 1),
            )
            session.add(snapshot)
            await session.flush()
            card = await self._card(session, _Shown(post, snapshot, version, chosen))
            await uow.commit()
        try:
            message_ref = await platform.post_card(channel, card)
        except Exception as exc:
            async with self.uow() as uow:
                session = uow.session
                await session.execute(delete(Post).where(Post.id == card.post_id))
                await uow.commit()
            log.warning(
                "posting a question failed: %s",
                exc,
                extra={"platform": channel.platform, "workspace": channel.workspace_id, "channel": channel.channel_id},
            )
            if isinstance(exc, PlatformError):
                kind = "rate_limited" if exc.retry_after is not None else "permanent" if exc.permanent else "error"
                self.metrics.platform_errors.labels(channel.platform, kind).inc()
                raise
            self.metrics.platform_errors.labels(channel.platform, "error").inc()
            raise QuizError(card_words.could_not_post(exc)) from exc
        async with self.uow() as uow:
            session = uow.session
            await session.execute(update(Post).where(Post.id == card.post_id).values(message_ref=message_ref))
            await uow.commit()
        self.metrics.posts.labels(channel.platform, source.value).inc()
        log.info(
            "posted question",
            extra={
                "platform": channel.platform,
                "workspace": channel.workspace_id,
                "channel": channel.channel_id,
                "post_id": card.post_id,
            },
        )
        return PostedQuestion(channel=channel, card=card, message_ref=message_ref)

    async def _next_question(self, session: AsyncSession, channel_row: int, packs: list[str]) -> QuestionRow:
        """One of the pool's questions asked least in this channel, at random, but never the pool's question asked
        here last: a new cycle does not start with the question that ended the previous one, and two consecutive
        posts never share a question when the pool has more than one."""
        times = func.count(Post.id).label("times")
        last_post = func.max(Post.id).label("last_post")
        rows = (
            await session.execute(
                select(QuestionRow.id, times, last_post)
                .outerjoin(Post, (Post.question_id == QuestionRow.id) & (Post.channel_id == channel_row))
                .where(QuestionRow.pack_id.in_(packs), QuestionRow.active.is_(True))
                .group_by(QuestionRow.id)
                .order_by(QuestionRow.id)
            )
        ).all()
        if not rows:
            raise UnknownPack(card_words.no_questions_in(packs))
        paused = await paused_questions(session, self.pause_threshold, channel_id=channel_row)
        rows = [row for row in rows if row.id not in paused]
        if not rows:
            raise UnknownPack(all_paused(packs))
        if len(rows) > 1:
            asked_last = max(rows, key=lambda row: row.last_post or 0)
            rows = [row for row in rows if row.id != asked_last.id or asked_last.last_post is None]
        fewest = min(row.times for row in rows)
        candidates = [row.id for row in rows if row.times == fewest]
        question = await session.get(QuestionRow, self.rng.choice(candidates))
        assert question is not None
        return question

    @staticmethod
    async def _question(session: AsyncSession, pack_id: str, key: str) -> QuestionRow:
        found = (
            await session.execute(
                select(QuestionRow).where(
                    QuestionRow.pack_id == pack_id, QuestionRow.key == key, QuestionRow.active.is_(True)
                )
            )
        ).scalar()
        if found is None:
            raise UnknownPack(card_words.question_not_loaded(pack_id, key))
        return found

    @staticmethod
    async def _shown(session: AsyncSession, post_id: int) -> _Shown:
        row = (
            await session.execute(
                select(Post, PostSnapshot, QuestionVersion, QuestionRow)
                .join(PostSnapshot, PostSnapshot.post_id == Post.id)
                .join(QuestionVersion, QuestionVersion.id == PostSnapshot.question_version_id)
                .join(QuestionRow, QuestionRow.id == Post.question_id)
                .where(Post.id == post_id)
            )
        ).first()
        if row is None:
            raise UnknownPost(card_words.unknown_post())
        return _Shown(row[0], row[1], row[2], row[3])

    async def current_post_id(self, channel: ChannelRef) -> int:
        """The newest open post in a channel, or NoOpenPost."""
        async with self.uow() as uow:
            session = uow.session
            post_id = (
                await session.execute(
                    joined_to_channel(select(Post.id), Post.channel_id)
                    .where(*in_channel(channel), Post.closed_at.is_(None), Post.message_ref.is_not(None))
                    .order_by(Post.opened_at.desc(), Post.id.desc())
                    .limit(1)
                )
            ).scalar()
        if post_id is None:
            raise NoOpenPost(card_words.no_open_post())
        return int(post_id)

    async def close_post(self, post_id: int) -> PostedCard:
        """Close a post (idempotent) and return where it is and its revealed card."""
        now = self.clock.now()
        async with self.uow() as uow:
            session = uow.session
            await session.execute(
                update(Post).where(Post.id == post_id, Post.closed_at.is_(None)).values(closed_at=now)
            )
            shown = await self._shown(session, post_id)
            channel = await self._channel_ref(session, shown.post.channel_id)
            card = await self._card(session, shown)
            await uow.commit()
        log.info(
            "post closed",
            extra={"post_id": post_id, "platform": channel.platform, "channel": channel.channel_id},
        )
        return PostedCard(channel, shown.post.message_ref, card)

    async def card(self, post_id: int) -> PostedCard:
        """A post's current card, where it was posted, and its message reference."""
        async with self.uow() as uow:
            session = uow.session
            shown = await self._shown(session, post_id)
            channel = await self._channel_ref(session, shown.post.channel_id)
            card = await self._card(session, shown)
        return PostedCard(channel, shown.post.message_ref, card)

    @staticmethod
    async def _channel_ref(session: AsyncSession, channel_row: int) -> ChannelRef:
        query = joined_to_channel(select(*CHANNEL_REF_COLUMNS)).where(Channel.id == channel_row)
        return channel_ref_of((await session.execute(query)).one())

    @staticmethod
    async def _card(session: AsyncSession, shown: _Shown) -> QuestionCard:
        """The card of a post as it was posted (its version, shown order, number and count) with its answers now.

        Only a few things come from the present: the pack's title, whether the question has since been retired
        from its pack, the cohort's name, and the timezone its closing time is shown in (the schedule's for a
        scheduled post, else the channel's, else its workspace's).
        """
        post, snapshot, version, question = shown
        pack = await session.get(PackRow, question.pack_id)
        zones = (
            await session.execute(
                select(Channel.timezone, Workspace.timezone)
                .join(Workspace, Workspace.id == Channel.workspace_id)
                .where(Channel.id == post.channel_id)
            )
        ).first()
        timezone = (zones[0] or zones[1]) if zones else "UTC"
        if post.source == PostSource.SCHEDULE.value and post.source_ref:
            # A scheduled card speaks the schedule's timezone (`tz:` when it was added), as its replies do.
            try:
                schedule_id = FireKey.parse(post.source_ref).schedule_id
            except ValueError:
                schedule_id = None
            if schedule_id is not None:
                timezone = (
                    await session.execute(select(Schedule.timezone).where(Schedule.id == schedule_id))
                ).scalar() or timezone
        cohort_name = None
        if post.source == PostSource.COHORT.value and post.source_ref and post.source_ref.isdigit():
            cohort_name = (await session.execute(select(Cohort.name).where(Cohort.id == int(post.source_ref)))).scalar()
        order = list(post.choice_order)
        reveal = None
        if post.closed_at is None:
            answer_count = (
                await session.execute(select(func.count(Answer.id)).where(Answer.post_id == post.id))
            ).scalar_one()
        else:
            answers = (
                await session.execute(
                    select(Answer.choice_index, Answer.is_correct, User.display_name)
                    .join(User, User.id == Answer.user_id)
                    .where(Answer.post_id == post.id)
                    .order_by(Answer.answered_at, Answer.id)
                )
            ).all()
            answer_count = len(answers)
            by_choice = Counter(row.choice_index for row in answers)
            reveal = RevealView(
                correct_position=order.index(version.correct_index),
                counts=tuple(by_choice.get(choice, 0) for choice in order),
                explanation=version.explanation,
                correct_users=tuple(row.display_name for row in answers if row.is_correct),
            )
        return QuestionCard(
            post_id=post.id,
            pack_title=pack.title if pack else question.pack_id,
            question_number=snapshot.question_number,
            question_count=snapshot.question_count,
            prompt=version.prompt,
            choices=tuple(version.choices[i] for i in order),
            choice_ids=tuple(order),
            answer_count=answer_count,
            closes_at=post.closes_at,
            reveal=reveal,
            retired=not question.active,
            source=PostSource(post.source),
            cohort=cohort_name,
            opened_at=post.opened_at,
            timezone=timezone,
        )
