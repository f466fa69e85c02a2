"""Use cases: sync content, post a question, record an answer, close and reveal a post.

A post is a snapshot of what it showed. Posting pins the question's current version (PostSnapshot -> QuestionVersion:
prompt, choices in the pack's order, correct choice, explanation) and the card's number and count; cards and
reveals are drawn from that, never from the pack as it is now, so syncing an edited pack changes only later posts.

Transactions: closing a post, reading its card and syncing content run in the unit of work the caller gives them
(the dispatcher's, QuizApp). The one exception is publishing a post (`post_question`, `publish_unsent`): a
platform call must not run inside a transaction that holds SQLite's write lock, so publication is steps, each
its own committed transaction (`publication_step`, the only place this module opens one): insert the post and
commit; call the platform; record the message id (or delete the refused post). A post left without a message id by
a crash is published again as the same post by the slot's retry.
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from bot.clock import Clock
from bot.content import Catalog
from bot.db.models import PackRow, Post, PostSnapshot, QuestionRow
from bot.domain import (
    ChannelRef,
    Image,
    PostSource,
    QuestionCard,
    QuestionKey,
    RevealView,
    UserRef,
)
from bot.domain.drafts import is_workspace_pack_key
from bot.domain.flags import DEFAULT_PAUSE_THRESHOLD
from bot.errors import NoOpenPost, QuizError, UnknownPack, UnknownPost
from bot.ports import ChatPlatform, FindsPostedCards, NoMetrics, PlatformError, PlatformRegistry, ServiceMetrics
from bot.service.repositories import Shown
from bot.service.uow import UnitOfWork, UnitOfWorkFactory, committed
from bot.wording import cards as card_words
from bot.wording.flags import all_paused

log = logging.getLogger(__name__)


class PostedCard(NamedTuple):
    """A post's card as it stands, and where it was posted (message_ref is None until the platform answered)."""

    channel: ChannelRef
    message_ref: str | None
    card: QuestionCard


@dataclass(frozen=True, slots=True)
class PostedQuestion:
    """A question that was posted: its card and where."""

    channel: ChannelRef
    card: QuestionCard
    message_ref: str


class QuizService:
    """The quiz's use cases, in the caller's unit of work, except a post's publication (its own steps, each one
    transaction: `publication_step`); platforms are called outside transactions."""

    def __init__(
        self,
        *,
        uow: UnitOfWorkFactory,
        catalog: Catalog,
        platforms: PlatformRegistry,
        clock: Clock,
        rng: random.Random | None = None,
        metrics: ServiceMetrics | None = None,
        pause_threshold: int = DEFAULT_PAUSE_THRESHOLD,
    ) -> None:
        self.metrics: ServiceMetrics = metrics or NoMetrics()
        self.pause_threshold = pause_threshold  # questions this many people flagged are out of rotation
        self.uow = uow
        self.catalog = catalog
        self.platforms = platforms
        self.clock = clock
        self.rng = rng or random.Random()

    async def sync_content(self, uow: UnitOfWork) -> None:
        """Copy the loaded packs into the database in `uow` (the caller commits, and retries a race with another
        replica: QuizApp.sync_content); questions no longer in a pack are kept but retired.

        Only the current text of each question changes here; posts already made keep the version they showed.
        """
        await self._sync(uow)

    async def _sync(self, uow: UnitOfWork) -> None:
        now = self.clock.now()
        team_packs = await uow.workspace_packs.all_keys()  # a workspace's own packs are not content's to sync
        packs = {key: row for key, row in (await uow.questions.packs()).items() if key not in team_packs}
        questions = {key: row for key, row in (await uow.questions.all()).items() if key[0] not in team_packs}
        loaded_ids = {pack.id for pack in self.catalog.packs}
        for pack_id, pack_row in packs.items():
            pack_row.active = pack_id in loaded_ids
        for pack in self.catalog.packs:
            existing_pack = packs.get(pack.id)
            if existing_pack is None:
                uow.questions.add(
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
        await uow.questions.flush()
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
                    "images": question.images_json(),
                }
                existing = questions.get(key)
                if existing is None:
                    uow.questions.add(QuestionRow(pack_id=pack.id, key=question.key, **fields))
                else:
                    for name, value in fields.items():
                        if getattr(existing, name) != value:
                            setattr(existing, name, value)
        for key, question_row in questions.items():
            if key not in seen and question_row.active:
                question_row.active = False

    def publication_step(self) -> AbstractAsyncContextManager[UnitOfWork]:
        """One step of a post's publication in its own transaction, committed when the step ends normally (see the
        module's docstring: the one place QuizService opens units of work)."""
        return committed(self.uow)

    async def team_packs(self, uow: UnitOfWork, channel: ChannelRef) -> dict[str, str]:
        """The channel's workspace's own packs: their stored key by slug (what `Catalog.resolve_key` takes)."""
        workspace = await uow.places.workspace_id(channel.platform, channel.workspace_id, self.clock.now())
        return await uow.workspace_packs.keys(workspace)

    async def _packs_to_draw_from(
        self,
        uow: UnitOfWork,
        channel: ChannelRef,
        pack_id: str | None,
        pack_ids: list[str] | None,
        question: QuestionKey | None,
    ) -> list[str]:
        """The stored pack ids a post draws from: shipped packs and the workspace's own; UnknownPack (with
        suggestions and the list of packs) for a miss. With no pack named, every shipped pack and the team's."""
        if question is not None:
            return [question[0] if is_workspace_pack_key(question[0]) else self.catalog.get(question[0]).id]
        team = await self.team_packs(uow, channel)
        if pack_id:
            return [self.catalog.resolve_key(pack_id, team)]  # as typed: any case, or the start of one pack's name
        if pack_ids:
            return [name if is_workspace_pack_key(name) else self.catalog.get(name).id for name in pack_ids]
        return [*(p.id for p in self.catalog.packs), *team.values()]

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
        fire_key: str | None = None,
        recipient: UserRef | None = None,
        admit: Callable[[UnitOfWork], Awaitable[None]] | None = None,
    ) -> PostedQuestion:
        """Post the channel's next question (least posted here first, so no repeat until a pack is used up).

        `question` = (pack id, question id) posts that very question instead (a cohort's curriculum).
        `fire_key`: the schedule's fire slot that posts it (how recovery finds it). `recipient`: the one person a
        private post (into their direct-message channel) is for; only their click counts.
        `admit`: a check that may refuse the post (raise), run in the post row's own transaction with the channel's
        row locked, so two posts at once in one channel are checked one after the other (`/quiz now`'s limits).
        The post row is created first; if the platform refuses the message the row is removed again.
        """
        platform = self.platforms.get(channel.platform)
        if platform is None:
            raise QuizError(card_words.adapter_not_running(channel.platform))
        if fire_key is not None:
            resumed = await self.publish_unsent(channel, fire_key=fire_key, recipient=recipient, source=source)
            if resumed is not None:
                return resumed
        now = self.clock.now()
        async with self.publication_step() as uow:  # the first step: the post's row, committed
            channel_row = await uow.places.channel_id(channel, now)
            if admit is not None:
                await uow.places.lock_channel(channel_row)
                await admit(uow)
            packs = await self._packs_to_draw_from(uow, channel, pack_id, pack_ids, question)
            if question is None:
                chosen = await self._next_question(uow, channel_row, packs)
            else:
                chosen = await self._question(uow, *question)
            version = await uow.questions.current_version(chosen, now)
            order = list(range(len(version.choices)))
            self.rng.shuffle(order)
            poster = await uow.places.user_id(posted_by, now) if posted_by else None
            post = await uow.posts.add(
                Post(
                    channel_id=channel_row,
                    question_id=chosen.id,
                    choice_order=order,
                    source=source.value,
                    source_ref=source_ref,
                    posted_by=poster,
                    opened_at=now,
                    closes_at=closes_at,
                    fire_key=fire_key,
                )
            )
            if recipient is not None:
                await uow.posts.address(post.id, await uow.places.user_id(recipient, now))
            in_pack = await uow.questions.active_count(chosen.pack_id)
            snapshot = PostSnapshot(
                post_id=post.id,
                question_version_id=version.id,
                question_number=chosen.position + 1,
                question_count=max(in_pack, chosen.position + 1),
            )
            await uow.posts.pin(snapshot)
            card = await self._card(uow, Shown(post, snapshot, version, chosen))
        return await self._publish(platform, channel, card, source)

    async def publish_unsent(
        self,
        channel: ChannelRef,
        *,
        fire_key: str,
        recipient: UserRef | None = None,
        source: PostSource = PostSource.SCHEDULE,
    ) -> PostedQuestion | None:
        """Publish again the post of fire slot `fire_key` that an attempt killed mid-publication left without a
        message reference (None when there is none): the slot's retry shows that post, not another question."""
        platform = self.platforms.get(channel.platform)
        if platform is None:
            raise QuizError(card_words.adapter_not_running(channel.platform))
        unsent = await self._unsent_of_fire(fire_key, recipient)
        return None if unsent is None else await self._publish_again(platform, channel, unsent, source)

    async def _unsent_of_fire(self, fire_key: str, recipient: UserRef | None) -> Shown | None:
        """The post of a fire slot that a killed attempt created and never saw published (no message reference):
        recovery left it for the slot's next attempt, which publishes that very post again (the same id, so the
        platform can tell a repeat: see `_publish_again`)."""
        async with self.publication_step() as uow:
            recipient_row = await uow.places.user_id(recipient, self.clock.now()) if recipient else None
            posts = await uow.posts.of_fire(fire_key, recipient=recipient_row)
            unsent = [post.id for post in posts if post.message_ref is None]
            if not unsent or len(unsent) < len(posts):
                return None
            return await uow.posts.shown(max(unsent))

    async def _publish_again(
        self, platform: ChatPlatform, channel: ChannelRef, unsent: Shown, source: PostSource
    ) -> PostedQuestion:
        """Publish a post an earlier attempt may already have published: the platform is asked first where it can
        say (`FindsPostedCards`) and its card adopted if there; else it is posted (Discord's nonce, derived from
        the post's id, makes the platform itself answer a repeat with the first message)."""
        async with self.publication_step() as uow:
            card = await self._card(uow, unsent)
        extra = {"platform": channel.platform, "channel": channel.channel_id, "post_id": card.post_id}
        if isinstance(platform, FindsPostedCards):
            found = await platform.find_card(channel, card, since=unsent.post.opened_at)
            if found is not None:
                async with self.publication_step() as uow:
                    await uow.posts.record_message(card.post_id, found)
                log.warning(
                    "post %s was published before its process died: adopted, not posted again",
                    card.post_id,
                    extra=extra,
                )
                return PostedQuestion(channel=channel, card=card, message_ref=found)
        log.info("publishing post %s again after its process died", card.post_id, extra=extra)
        return await self._publish(platform, channel, card, source)

    async def _publish(
        self, platform: ChatPlatform, channel: ChannelRef, card: QuestionCard, source: PostSource
    ) -> PostedQuestion:
        """The second step: the platform call, then the message reference recorded (a refused post's row is
        removed again)."""
        try:
            message_ref = await platform.post_card(channel, card)
        except Exception as exc:
            async with self.publication_step() as uow:
                await uow.posts.remove(card.post_id)
            log.warning(
                "posting a question failed: %s",
                exc,
                extra={"platform": channel.platform, "workspace": channel.workspace_id, "channel": channel.channel_id},
            )
            if isinstance(exc, PlatformError):
                kind = "rate_limited" if exc.retry_after is not None else "permanent" if exc.permanent else "error"
                self.metrics.platform_error(channel.platform, kind)
                raise
            self.metrics.platform_error(channel.platform, "error")
            raise QuizError(card_words.could_not_post(exc)) from exc
        async with self.publication_step() as uow:
            await uow.posts.record_message(card.post_id, message_ref)
        self.metrics.posted(channel.platform, source.value)
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

    async def _next_question(self, uow: UnitOfWork, channel_row: int, packs: list[str]) -> QuestionRow:
        """One of the pool's questions asked least in this channel, at random, but never the pool's question asked
        here last: a new cycle does not start with the question that ended the previous one, and two consecutive
        posts never share a question when the pool has more than one."""
        rows = await uow.questions.rotation(channel_row, packs)
        if not rows:
            raise UnknownPack(card_words.no_questions_in(packs))
        paused = await uow.flags.paused(self.pause_threshold, channel_id=channel_row)
        rows = [row for row in rows if row.id not in paused]
        if not rows:
            raise UnknownPack(all_paused(packs))
        if len(rows) > 1:
            asked_last = max(rows, key=lambda row: row.last_post or 0)
            rows = [row for row in rows if row.id != asked_last.id or asked_last.last_post is None]
        fewest = min(row.times for row in rows)
        candidates = [row.id for row in rows if row.times == fewest]
        question = await uow.questions.get(self.rng.choice(candidates))
        assert question is not None
        return question

    @staticmethod
    async def _question(uow: UnitOfWork, pack_id: str, key: str) -> QuestionRow:
        found = await uow.questions.active(pack_id, key)
        if found is None:
            raise UnknownPack(card_words.question_not_loaded(pack_id, key))
        return found

    @staticmethod
    async def _shown(uow: UnitOfWork, post_id: int) -> Shown:
        shown = await uow.posts.shown(post_id)
        if shown is None:
            raise UnknownPost(card_words.unknown_post())
        return shown

    async def current_post_id(self, uow: UnitOfWork, channel: ChannelRef) -> int:
        """The newest open post in a channel, or NoOpenPost."""
        post_id = await uow.posts.newest_open(channel)
        if post_id is None:
            raise NoOpenPost(card_words.no_open_post())
        return post_id

    async def close_post(self, uow: UnitOfWork, post_id: int) -> PostedCard:
        """Close a post (idempotent; the caller commits) and return where it is and its revealed card."""
        now = self.clock.now()
        await uow.posts.close(post_id, now)
        shown = await self._shown(uow, post_id)
        channel = await uow.places.channel_ref(shown.post.channel_id)
        card = await self._card(uow, shown)
        log.info(
            "post closed",
            extra={"post_id": post_id, "platform": channel.platform, "channel": channel.channel_id},
        )
        return PostedCard(channel, shown.post.message_ref, card)

    async def card(self, uow: UnitOfWork, post_id: int) -> PostedCard:
        """A post's current card, where it was posted, and its message reference."""
        shown = await self._shown(uow, post_id)
        channel = await uow.places.channel_ref(shown.post.channel_id)
        card = await self._card(uow, shown)
        return PostedCard(channel, shown.post.message_ref, card)

    @staticmethod
    async def _card(uow: UnitOfWork, shown: Shown) -> QuestionCard:
        """The card of a post as it was posted (its version, shown order, number and count) with its answers now.

        Only a few things come from the present: the pack's title, whether the question has since been retired
        from its pack, the cohort's name, and the timezone its closing time is shown in (the schedule's for a
        scheduled post, else the channel's, else its workspace's).
        """
        post, snapshot, version, question = shown
        pack = await uow.questions.pack(question.pack_id)
        timezone, cohort_name = await uow.posts.origin(post)
        order = list(post.choice_order)
        reveal = None
        if post.closed_at is None:
            answer_count = await uow.posts.answer_count(post.id)
        else:
            answers = await uow.posts.answers(post.id)
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
            image=Image.from_json((version.images or {}).get("prompt")),
            explanation_image=Image.from_json((version.images or {}).get("explanation")),
        )
