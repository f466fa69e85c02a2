"""Onboarding cohorts: a named group of a workspace with members, a start date and a curriculum (packs in order).

Anyone may create a cohort, join or leave one; adding, removing, posting the next curriculum question and
deleting need a workspace admin (Invocation.is_admin) or the cohort's creator, who is usually the onboarding
lead and not always an admin. Members' points since the cohort's start are kept on their membership row (see
bot/service/scores.py), so cohort boards read one row per member.

`post_next_question` is the piece a cohort schedule calls: it posts the first question of the curriculum that
the cohort has not been asked yet, with PostSource.COHORT and source_ref = the cohort's id.

Transactions: the use cases run in the caller's unit of work (the dispatcher's), through its repositories
(`uow.cohorts`, `uow.places` ...). Posting a cohort's next question is a publication (QuizService's documented
steps): which question comes next is read in the publication's first step, `QuizService.publication_step`.
"""

from __future__ import annotations

import logging
from datetime import date, datetime

from bot.clock import Clock
from bot.content import Catalog
from bot.db.models import (
    Cohort,
    QuestionRow,
)
from bot.domain import ChannelRef, Delivery, PostSource, QuestionKey, UserRef
from bot.domain.attention import DEFAULT_RULES, AttentionRules
from bot.domain.views import CohortView, CurriculumPack, DueQuestion, MemberProgress, Nudge
from bot.errors import NotFound, QuizError
from bot.service.quiz import PostedQuestion, QuizService
from bot.service.repositories.lookups import (
    local_date,
    local_midnight,
)
from bot.service.uow import UnitOfWork
from bot.wording import cohorts as cohort_words
from bot.wording.flags import curriculum_paused

log = logging.getLogger(__name__)


class CohortService:
    """Cohort use cases. Each step runs inside the caller's open unit of work; none opens a transaction."""

    def __init__(
        self,
        *,
        catalog: Catalog,
        clock: Clock,
        quiz: QuizService,
        rules: AttentionRules = DEFAULT_RULES,
    ) -> None:
        self.catalog = catalog
        self.clock = clock
        self.quiz = quiz
        self.rules = rules  # who is behind or inactive (QUIZBOT_COHORT_BEHIND_AFTER, QUIZBOT_COHORT_INACTIVE_DAYS)

    async def view(self, uow: UnitOfWork, cohort: Cohort) -> CohortView:
        """The cohort with its progress and each member's, flagged by this service's rules, as of now."""
        return await cohort_view(uow, cohort, now=self.clock.now(), rules=self.rules)

    async def nudges(self, uow: UnitOfWork, cohort: Cohort) -> tuple[CohortView, list[Nudge]]:
        """For each member who is behind, the cohort questions they can still answer (posted, unanswered, open).

        A behind member with nothing open to answer gets no nudge: there is nothing to point them at.
        """
        view = await self.view(uow, cohort)
        behind = [m for m in view.members if m.behind]
        if not behind:
            return view, []
        open_posts = await uow.cohorts.open_posts(cohort.id, self.clock.now())
        if not open_posts:
            return view, []
        answered = await uow.cohorts.answered(
            [post.post_id for post in open_posts], [m.user_id for m in behind], cohort.workspace_id
        )
        platform, workspace = await uow.places.workspace_ref(cohort.workspace_id)
        nudges = []
        for member in behind:
            due = tuple(
                DueQuestion(
                    post_id=post.post_id,
                    prompt=post.prompt,
                    pack_title=post.pack_title,
                    channel=post.channel,
                    closes_at=post.closes_at,
                    timezone=post.timezone,
                )
                for post in open_posts
                if (post.post_id, member.user_id) not in answered
            )
            if due:
                user = UserRef(platform, workspace, member.user_id, member.name)
                nudges.append(Nudge(user=user, cohort=cohort.name, due=due))
        return view, nudges

    async def create(
        self,
        uow: UnitOfWork,
        channel: ChannelRef,
        creator: UserRef,
        *,
        name: str,
        start: date | None,
        packs: list[str],
        delivery: Delivery = Delivery.CHANNEL,
    ) -> CohortView:
        """Create a cohort in the channel's workspace; packs default to every loaded pack, start to today."""
        # expand resolves each name as typed (any case, a unique prefix); UnknownPack suggests and lists the packs
        now = self.clock.now()
        workspace = await uow.places.workspace_id(channel.platform, channel.workspace_id, now)
        team = await uow.workspace_packs.keys(workspace)  # the workspace's own packs count too, by slug
        curriculum = self.catalog.expand_keys(packs, team) if packs else [pack.id for pack in self.catalog.packs]
        timezone = await uow.cohorts.workspace_timezone(workspace)
        creator_row = await uow.places.user_id(creator, now)
        day = start or local_date(now, timezone)
        values = {
            "workspace_id": workspace,
            "key": name.casefold(),
            "name": name,
            "start_date": day,
            "starts_at": local_midnight(day, timezone),
            "packs": curriculum,
            "created_by": creator_row,
            "created_at": now,
            "delivery": delivery.value,
        }
        cohort = await uow.cohorts.add(values)
        if cohort is None:
            raise QuizError(cohort_words.already_exists(name))
        view = await self.view(uow, cohort)
        log.info("cohort created", extra={"platform": channel.platform, "workspace": channel.workspace_id})
        return view

    async def add_members(self, uow: UnitOfWork, cohort: Cohort, actor: UserRef, users: list[UserRef]) -> list[str]:
        """Add users (created on first sight) to a cohort; returns the user ids that were not members yet.

        Each new membership starts with the member's totals since the cohort's start. The user's row is locked
        first: an answer being recorded at the same moment holds a key-share lock on it, so the two serialize and
        the answer is counted exactly once (by the totals read here, or by the answer's own rollup update).
        """
        now = self.clock.now()
        actor_row = await uow.places.user_id(actor, now)
        added: list[str] = []
        for ref in users:
            user_row = await uow.places.user_id(ref, now)
            await uow.cohorts.lock_member(user_row)
            totals = await uow.cohorts.totals_since(user_row, cohort.starts_at)
            values = {
                "cohort_id": cohort.id,
                "user_id": user_row,
                "joined_at": now,
                "added_by": actor_row,
                "points": totals.points,
                "correct": totals.correct,
                "answered": totals.answered,
            }
            if await uow.cohorts.add_member(values):
                added.append(ref.user_id)
        return added

    @staticmethod
    async def remove_members(uow: UnitOfWork, cohort: Cohort, user_ids: list[str]) -> list[str]:
        """Remove users (by platform id) from a cohort; returns the ids that were members."""
        found = await uow.cohorts.remove_members(cohort, user_ids)
        return [uid for uid in user_ids if uid in found]

    @staticmethod
    async def delete(uow: UnitOfWork, cohort: Cohort) -> None:
        """Delete a cohort and its memberships (answers stay)."""
        await uow.cohorts.remove(cohort)

    async def all_cohorts(self, uow: UnitOfWork, channel: ChannelRef) -> list[CohortView]:
        """The cohorts of the channel's workspace, by name, with their progress (members without detail)."""
        workspace = await uow.places.workspace(channel.platform, channel.workspace_id)
        if workspace is None:
            return []
        return [await self.view(uow, cohort) for cohort in await uow.cohorts.of_workspace(workspace.id)]

    @staticmethod
    async def find(uow: UnitOfWork, channel: ChannelRef, name: str) -> Cohort:
        """The cohort of this name in the channel's workspace, or UnknownCohort listing the cohorts there are."""
        workspace = await uow.places.workspace(channel.platform, channel.workspace_id)
        return await uow.cohorts.find(workspace.id if workspace else None, name)

    @staticmethod
    async def set_delivery(uow: UnitOfWork, cohort: Cohort, delivery: Delivery) -> bool:
        """Change how the cohort's schedules deliver its curriculum; whether it changed. The caller commits."""
        if cohort.delivery == delivery.value:
            return False
        await uow.cohorts.set_delivery(cohort, delivery.value)
        return True

    async def next_question(self, uow: UnitOfWork, cohort_id: int, *, member: int | None = None) -> QuestionKey | None:
        """(pack id, question id) of the first curriculum question the cohort has not been asked, or None.

        With `member` (a user row), the first one not yet sent privately to that member (private delivery).
        Questions paused by flags in the cohort's workspace are skipped; once cleared, they come next again. When
        only paused questions are left, NotFound says so (the curriculum is not done).
        """
        cohort = await uow.cohorts.get(cohort_id)
        if cohort is None:
            raise QuizError(cohort_words.no_longer_exists(cohort_id))
        if member is None:
            posted = set(await uow.posts.asked_by_cohort(cohort.id))
        else:
            posted = set(await uow.posts.sent_to_member(cohort.id, member))
        paused = await uow.flags.paused(self.quiz.pause_threshold, workspace_id=cohort.workspace_id)
        left = [question for question in await curriculum_questions(uow, cohort) if question.id not in posted]
        for question in left:
            if question.id not in paused:
                return QuestionKey(question.pack_id, question.key)
        if left:
            raise NotFound(curriculum_paused(len(left)))
        return None

    async def post_next_question(
        self,
        channel: ChannelRef,
        *,
        cohort_id: int,
        closes_at: datetime | None = None,
        posted_by: UserRef | None = None,
        fire_key: str | None = None,
    ) -> PostedQuestion | None:
        """Post the cohort's next curriculum question to `channel` (None when the curriculum is done).

        This is what a cohort schedule calls on each fire (with the fire's key): one question, in curriculum order,
        recorded with PostSource.COHORT and source_ref = the cohort's id, so progress and boards count it (streaks
        never do: they count channel schedule posts only). Picking the question is a read; posting is
        QuizService.post_question's own two-step publication. A post of this fire left unpublished by a killed
        attempt is published first: its question already counts as asked.
        """
        if fire_key is not None:
            resumed = await self.quiz.publish_unsent(channel, fire_key=fire_key, source=PostSource.COHORT)
            if resumed is not None:
                return resumed
        async with self.quiz.publication_step() as uow:  # the publication's first step: which question
            question = await self.next_question(uow, cohort_id)
        if question is None:
            return None
        return await self.quiz.post_question(
            channel,
            question=question,
            source=PostSource.COHORT,
            source_ref=str(cohort_id),
            posted_by=posted_by,
            closes_at=closes_at,
            fire_key=fire_key,
        )

    async def send_next_privately(
        self,
        direct: ChannelRef,
        *,
        cohort_id: int,
        member: UserRef,
        member_row: int,
        fire_key: str,
        closes_at: datetime,
    ) -> PostedQuestion | None:
        """Send one member, in their direct-message channel `direct`, the next curriculum question they have not been
        sent (None when they have had them all). Recorded as a cohort post addressed to them, so the cohort's
        progress and board count their answer and nobody else's click does."""
        resumed = await self.quiz.publish_unsent(direct, fire_key=fire_key, recipient=member, source=PostSource.COHORT)
        if resumed is not None:
            return resumed
        async with self.quiz.publication_step() as uow:  # the publication's first step: which question
            question = await self.next_question(uow, cohort_id, member=member_row)
        if question is None:
            return None
        return await self.quiz.post_question(
            direct,
            question=question,
            source=PostSource.COHORT,
            source_ref=str(cohort_id),
            closes_at=closes_at,
            fire_key=fire_key,
            recipient=member,
        )


async def curriculum_questions(uow: UnitOfWork, cohort: Cohort) -> list[QuestionRow]:
    """The cohort's curriculum: active questions of its packs, pack by pack in order, each pack in its order."""
    order = {pack_id: index for index, pack_id in enumerate(cohort.packs)}
    rows = await uow.questions.of_packs(cohort.packs)
    return sorted(rows, key=lambda q: (order[q.pack_id], q.position, q.id))


async def cohort_view(
    uow: UnitOfWork, cohort: Cohort, *, now: datetime, rules: AttentionRules = DEFAULT_RULES
) -> CohortView:
    """A cohort with its curriculum progress and each member's: cohort questions answered and right, points since
    the start (and how many of them came from the cohort's questions), last active, behind or inactive.

    Members who never answered are listed too. Four small queries, whatever the number of members: the cohort's
    posts, the members, their answers to those posts, and each member's last answer (`uow.cohorts.progress`).
    """
    curriculum = await curriculum_questions(uow, cohort)
    posted = set(await uow.posts.asked_by_cohort(cohort.id))
    titles = await uow.questions.titles(cohort.packs)
    packs = tuple(
        CurriculumPack(
            pack_id=pack_id,
            title=titles.get(pack_id, pack_id),
            posted=sum(1 for q in curriculum if q.pack_id == pack_id and q.id in posted),
            total=sum(1 for q in curriculum if q.pack_id == pack_id),
        )
        for pack_id in cohort.packs
    )
    found = await uow.cohorts.progress(cohort)
    posts, recipient_of, answers, last_answers = found.posts, found.recipient_of, found.answers, found.last_answers
    progress = []
    for user_id, external_id, name, points, joined_at in found.members:
        mine = answers.get(user_id, {})
        last = last_answers.get(user_id)
        theirs = [post for post in posts if recipient_of.get(post, user_id) == user_id]
        progress.append(
            MemberProgress(
                name=name,
                answered=len(mine),
                correct=sum(1 for ok, _ in mine.values() if ok),
                points=points,
                cohort_points=sum(p for _, p in mine.values()),
                last_active=local_date(last, found.timezone or "UTC") if last else None,
                behind=rules.is_behind([post in mine for post in theirs]),
                sent=len(theirs),
                inactive=rules.is_inactive(last, since=max(joined_at, cohort.starts_at), now=now),
                user_id=external_id,
            )
        )
    progress.sort(key=lambda m: (-m.answered, -m.correct, m.name.casefold()))
    return CohortView(
        delivery=Delivery(cohort.delivery),
        name=cohort.name,
        start_date=cohort.start_date,
        created_by=await uow.cohorts.creator_name(cohort),
        curriculum=packs,
        members=tuple(progress),
        rules=rules,
        posts=len(posts),
    )
