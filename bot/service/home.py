"""The personal home: a read model of everything one person's home shows (Slack's App Home tab, `/quiz me`).

Built from the same queries as `/quiz me` (`Stats.user_stats`: totals, workspace rank, both streaks, review
counts), plus the person's standing on each channel's board (the channel rollups), their weakest topics, their
cohorts' progress and the next scheduled question in their channels. It only reads: opening the home of someone
who never answered creates no row.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from bot.db.models import Answer, Channel, ChannelScore, Cohort, CohortMember, Post, Schedule, User
from bot.domain import ChannelRef, PostSource, UserRef
from bot.domain.views import ChannelStanding, CohortProgress, HomeView, NextQuestion, TagResult
from bot.service.cohorts import curriculum_questions
from bot.service.repositories.lookups import workspace_row
from bot.service.stats import Stats
from bot.service.uow import UnitOfWork

CHANNELS_SHOWN = 10
"""The home lists a person's channels with the most points first, at most this many."""
WEAKEST_SHOWN = 3


class HomeReader:
    """The personal home's read model."""

    def __init__(self, stats: Stats) -> None:
        self.stats = stats

    async def home(self, uow: UnitOfWork, user: UserRef, *, now: datetime) -> HomeView:
        """What `user`'s home shows now, read in the caller's unit of work. A user the database does not know gets
        an empty home (nothing written)."""
        session = uow.session
        workspace = await workspace_row(session, user.platform, user.workspace_id)
        user_row = None
        if workspace is not None:
            found = (
                await session.execute(
                    select(User.id, User.display_name).where(
                        User.workspace_id == workspace[0], User.external_id == user.user_id
                    )
                )
            ).first()
            if found is not None:
                user_row = int(found.id)
                if not user.display_name and found.display_name:
                    user = UserRef(user.platform, user.workspace_id, user.user_id, found.display_name)
        stats, tags = await self.stats.user_record(user, now=now, within=uow)
        if user_row is None:
            return HomeView(stats=stats, channels=(), weakest=(), cohorts=(), next_question=None, now=now)
        channels = await _channel_standings(session, user, user_row)
        # No tallies: the user has no totals row, so no answer (the rollups are written with the answers).
        weakest = _weakest_of(tags) if tags is not None else ()
        cohorts = await _cohort_progress(uow, user_row)
        next_question = await _next_question(session, user, user_row)
        return HomeView(
            stats=stats, channels=channels, weakest=weakest, cohorts=cohorts, next_question=next_question, now=now
        )


async def _channel_standings(session: AsyncSession, user: UserRef, user_row: int) -> tuple[ChannelStanding, ...]:
    """The user's row of each channel rollup, with their rank there (the boards' order) and the board's size."""
    mine = aliased(ChannelScore)
    other = aliased(ChannelScore)
    ahead = (
        select(func.count())
        .where(
            other.channel_id == mine.channel_id,
            or_(
                other.points > mine.points,
                and_(other.points == mine.points, other.correct > mine.correct),
                and_(other.points == mine.points, other.correct == mine.correct, other.answered < mine.answered),
            ),
        )
        .correlate(mine)
        .scalar_subquery()
    )
    everyone = aliased(ChannelScore)
    players = select(func.count()).where(everyone.channel_id == mine.channel_id).correlate(mine).scalar_subquery()
    rows = (
        await session.execute(
            select(Channel.external_id, mine.points, mine.correct, mine.answered, ahead, players)
            .join(Channel, Channel.id == mine.channel_id)
            .where(mine.user_id == user_row, mine.answered > 0)
            .order_by(mine.points.desc(), mine.answered.desc(), Channel.external_id)
            .limit(CHANNELS_SHOWN)
        )
    ).all()
    return tuple(
        ChannelStanding(
            channel=ChannelRef(user.platform, user.workspace_id, str(external_id)),
            points=int(points),
            rank=int(above) + 1,
            players=int(count),
            correct=int(correct),
            answered=int(answered),
        )
        for external_id, points, correct, answered, above, count in rows
    )


def _weakest_of(tags: tuple[TagResult, ...]) -> tuple[TagResult, ...]:
    """The three tags of lowest accuracy among those with a miss (then the most answered, then by name)."""
    results = [t for t in tags if t.correct < t.answered]
    results.sort(key=lambda r: (r.accuracy, -r.answered, r.tag))
    return tuple(results[:WEAKEST_SHOWN])


async def _cohort_progress(uow: UnitOfWork, user_row: int) -> tuple[CohortProgress, ...]:
    session = uow.session
    """Each of the user's cohorts: curriculum asked so far, and the user's answers to the cohort's questions."""
    cohorts = (
        (
            await session.execute(
                select(Cohort)
                .join(CohortMember, CohortMember.cohort_id == Cohort.id)
                .where(CohortMember.user_id == user_row)
                .order_by(Cohort.key)
            )
        )
        .scalars()
        .all()
    )
    progress = []
    for cohort in cohorts:
        curriculum = await curriculum_questions(uow, cohort)
        # The cohort's posts (a curriculum's worth), each with the user's answer if any, found by the answers'
        # (post_id, user_id) key: the questions asked so far and the user's answers in one statement, not a read
        # of every answer of the user.
        rows = (
            await session.execute(
                select(Post.question_id, Answer.is_correct)
                .select_from(Post)
                .outerjoin(Answer, and_(Answer.post_id == Post.id, Answer.user_id == user_row))
                .where(Post.source == PostSource.COHORT.value, Post.source_ref == str(cohort.id))
            )
        ).all()
        posted = {int(question) for question, _ in rows}
        answers = [bool(right) for _, right in rows if right is not None]
        progress.append(
            CohortProgress(
                name=cohort.name,
                posted=sum(1 for q in curriculum if q.id in posted),
                total=len(curriculum),
                answered=len(answers),
                correct=sum(answers),
            )
        )
    return tuple(progress)


async def _next_question(session: AsyncSession, user: UserRef, user_row: int) -> NextQuestion | None:
    """The soonest next fire of an enabled schedule in a channel where the user has answered."""
    theirs = select(ChannelScore.channel_id).where(ChannelScore.user_id == user_row)
    row = (
        await session.execute(
            select(Schedule.next_fire_at, Schedule.timezone, Channel.external_id)
            .join(Channel, Channel.id == Schedule.channel_id)
            .where(Schedule.channel_id.in_(theirs), Schedule.enabled.is_(True), Schedule.next_fire_at.is_not(None))
            .order_by(Schedule.next_fire_at, Schedule.id)
            .limit(1)
        )
    ).first()
    if row is None:
        return None
    return NextQuestion(
        channel=ChannelRef(user.platform, user.workspace_id, str(row.external_id)),
        due=row.next_fire_at,
        timezone=row.timezone,
    )
