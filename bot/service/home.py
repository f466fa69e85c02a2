"""The personal home: a read model of everything one person's home shows (Slack's App Home tab, `/quiz me`).

Built from the same queries as `/quiz me` (`Stats.user_stats`: totals, workspace rank, both streaks, review
counts), plus the person's standing on each channel's board (the channel rollups), their weakest topics, their
cohorts' progress and the next scheduled question in their channels. It only reads: opening the home of someone
who never answered creates no row.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    CompoundSelect,
    Integer,
    String,
    and_,
    bindparam,
    desc,
    func,
    literal_column,
    null,
    select,
    union_all,
)
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.orm import aliased

from bot.db.models import Answer, Channel, ChannelScore, Post, QuestionRow, Schedule
from bot.domain import ChannelRef, PostSource, UserRef
from bot.domain.views import ChannelStanding, CohortProgress, HomeView, NextQuestion, TagResult
from bot.service.repositories.lookups import one_of
from bot.service.stats import MeCohort, Stats
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
        an empty home (nothing written).

        The user's row, stored name and cohorts come with their stats (`Stats.user_record`), so nothing is looked up
        twice; then one statement for the channel standings and the next question (`_page_query`), and for a user
        in cohorts one for all their cohorts' progress (`_cohorts_query`)."""
        record = await self.stats.user_record(user, now=now, within=uow)
        stats, tags, user_row = record.stats, record.tags, record.user_row
        if user_row is None:
            return HomeView(stats=stats, channels=(), weakest=(), cohorts=(), next_question=None, now=now)
        conn = await uow.session.connection()
        channels, next_question = await _standings_and_next(conn, user, user_row)
        # No tallies: the user has no totals row, so no answer (the rollups are written with the answers).
        weakest = _weakest_of(tags) if tags is not None else ()
        cohorts = await _cohort_progress(conn, user_row, record.cohorts)
        return HomeView(
            stats=stats, channels=channels, weakest=weakest, cohorts=cohorts, next_question=next_question, now=now
        )


_STANDING, _NEXT = 0, 1
"""What a row of `_page_query` is: one of the user's channel standings, or the next question."""


@functools.cache
def _page_query() -> CompoundSelect[Any]:
    """In one statement (parameter: user, a users.id): the user's row of each channel rollup where they answered,
    with their rank there (the boards' order) and the board's size, most points first, at most CHANNELS_SHOWN; then
    the soonest next fire of an enabled schedule in a channel where the user has answered (at most one row)."""
    mine = aliased(ChannelScore)
    other = aliased(ChannelScore)
    user_row = bindparam("user", type_=ChannelScore.user_id.type)

    def count(*where: ColumnElement[bool]) -> ColumnElement[Any]:
        return select(func.count()).where(other.channel_id == mine.channel_id, *where).correlate(mine).scalar_subquery()

    # Three counts, each a range of ix_channel_scores_board, as `_me_query` ranks the workspace (one count of their
    # OR reads every row of the channel's board): more points; as many and more right; as many of both in fewer
    # answers.
    ahead = (
        count(other.points > mine.points)
        + count(other.points == mine.points, other.correct > mine.correct)
        + count(other.points == mine.points, other.correct == mine.correct, other.answered < mine.answered)
    )
    everyone = aliased(ChannelScore)
    players = select(func.count()).where(everyone.channel_id == mine.channel_id).correlate(mine).scalar_subquery()
    standings = (
        select(
            Channel.external_id.label("channel"),
            mine.points.label("points"),
            mine.correct.label("correct"),
            mine.answered.label("answered"),
            ahead.label("ahead"),
            players.label("players"),
        )
        .join(Channel, Channel.id == mine.channel_id)
        .where(mine.user_id == user_row, mine.answered > 0)
        .order_by(mine.points.desc(), mine.answered.desc(), Channel.external_id)
        .limit(CHANNELS_SHOWN)
        .subquery("standings")
    )
    theirs = select(ChannelScore.channel_id).where(ChannelScore.user_id == user_row)
    upcoming = (
        select(Channel.external_id.label("channel"), Schedule.next_fire_at, Schedule.timezone)
        .join(Channel, Channel.id == Schedule.channel_id)
        .where(Schedule.channel_id.in_(theirs), Schedule.enabled.is_(True), Schedule.next_fire_at.is_not(None))
        .order_by(Schedule.next_fire_at, Schedule.id)
        .limit(1)
        .subquery("next_question")
    )
    counts = [null().cast(Integer) for _ in range(5)]
    return union_all(
        select(
            literal_column(str(_STANDING), Integer).label("kind"),
            standings.c.channel,
            standings.c.points,
            standings.c.correct,
            standings.c.answered,
            standings.c.ahead,
            standings.c.players,
            null().cast(Schedule.next_fire_at.type).label("due"),
            null().cast(String).label("timezone"),
        ),
        select(
            literal_column(str(_NEXT), Integer),
            upcoming.c.channel,
            *counts,
            upcoming.c.next_fire_at,
            upcoming.c.timezone,
        ),
    ).order_by("kind", desc("points"), desc("answered"), "channel")


async def _standings_and_next(
    conn: AsyncConnection, user: UserRef, user_row: int
) -> tuple[tuple[ChannelStanding, ...], NextQuestion | None]:
    """The user's channel standings and the next question in their channels (`_page_query`)."""
    standings: list[ChannelStanding] = []
    next_question: NextQuestion | None = None
    for row in await conn.execute(_page_query(), {"user": user_row}):
        channel = ChannelRef(user.platform, user.workspace_id, str(row.channel))
        if row.kind == _NEXT:
            next_question = NextQuestion(channel=channel, due=row.due, timezone=row.timezone)
            continue
        standings.append(
            ChannelStanding(
                channel=channel,
                points=int(row.points),
                rank=int(row.ahead) + 1,
                players=int(row.players),
                correct=int(row.correct),
                answered=int(row.answered),
            )
        )
    return tuple(standings), next_question


def _weakest_of(tags: tuple[TagResult, ...]) -> tuple[TagResult, ...]:
    """The three tags of lowest accuracy among those with a miss (then the most answered, then by name)."""
    results = [t for t in tags if t.correct < t.answered]
    results.sort(key=lambda r: (r.accuracy, -r.answered, r.tag))
    return tuple(results[:WEAKEST_SHOWN])


_CURRICULUM, _POSTED = 0, 1
"""What a row of `_cohorts_query` is: an active question of a cohort's pack, or a post of a cohort."""


@functools.cache
def _cohorts_query(dialect: str) -> CompoundSelect[Any]:
    """In one statement (parameters: packs, the packs of the user's cohorts; cohorts, their ids as posts' source
    refs; user, a users.id): the active questions of those packs (key: the pack), and each cohort's posts with the
    user's answer if any (key: the cohort), found by the answers' (post_id, user_id) key: the questions asked so far
    and the user's answers, not a read of every answer of the user."""
    curriculum = select(
        literal_column(str(_CURRICULUM), Integer).label("kind"),
        QuestionRow.pack_id.label("key"),
        QuestionRow.id.label("question"),
        null().cast(Answer.is_correct.type).label("correct"),
    ).where(one_of(QuestionRow.pack_id, dialect, "packs", String()), QuestionRow.active.is_(True))
    posted = (
        select(literal_column(str(_POSTED), Integer), Post.source_ref, Post.question_id, Answer.is_correct)
        .select_from(Post)
        .outerjoin(
            Answer, and_(Answer.post_id == Post.id, Answer.user_id == bindparam("user", type_=Answer.user_id.type))
        )
        .where(Post.source == PostSource.COHORT.value, one_of(Post.source_ref, dialect, "cohorts", String()))
    )
    return union_all(curriculum, posted)


async def _cohort_progress(
    conn: AsyncConnection, user_row: int, cohorts: tuple[MeCohort, ...]
) -> tuple[CohortProgress, ...]:
    """Each of the user's cohorts: curriculum asked so far, and the user's answers to the cohort's questions."""
    if not cohorts:
        return ()
    packs = sorted({pack for cohort in cohorts for pack in cohort.packs})
    params = {"packs": packs, "cohorts": [str(cohort.id) for cohort in cohorts], "user": user_row}
    questions_of: dict[str, set[int]] = defaultdict(set)
    posted: dict[str, set[int]] = defaultdict(set)
    answers: dict[str, list[bool]] = defaultdict(list)
    for kind, key, question, right in await conn.execute(_cohorts_query(conn.dialect.name), params):
        if kind == _CURRICULUM:
            questions_of[key].add(int(question))
            continue
        posted[key].add(int(question))
        if right is not None:
            answers[key].append(bool(right))
    progress = []
    for cohort in cohorts:
        # The curriculum: the active questions of its packs (each question is in one pack).
        curriculum = [question for pack in dict.fromkeys(cohort.packs) for question in questions_of[pack]]
        ref = str(cohort.id)
        progress.append(
            CohortProgress(
                name=cohort.name,
                posted=sum(1 for question in curriculum if question in posted[ref]),
                total=len(curriculum),
                answered=len(answers[ref]),
                correct=sum(answers[ref]),
            )
        )
    return tuple(progress)
