"""`/quiz me` resumes from a per-user checkpoint (me_checkpoints, bot/service/streak_stats.py) and shows the very
numbers the user's whole history gives: question streaks (current, best), day streaks, missed topics, review,
after more answers, after a question closes unanswered, after the workspace's timezone changes, after a post that
missed its publication is published late, and after forget-user; on SQLite and PostgreSQL.

The reference is computed apart, from the whole history: `user_streaks(..., history=True)` and every wrong answer's
question tags (the statement `/quiz me` ran before checkpoints).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import func, insert, select, update

from bot.clock import ManualClock
from bot.db.models import Answer, Channel, MeCheckpoint, Post, QuestionRow, User
from bot.domain import ChannelRef, PostSource, QuestionCard, UserRef, UserStats
from bot.domain.streaks import Checkpoint, DayRun, Streak
from bot.runtime import Runtime
from bot.service.facade import Invocation
from bot.service.repositories.lookups import workspace_row
from bot.service.review import review_summary
from bot.service.streak_stats import ADVANCE_EVERY, SETTLE_MARGIN, user_streaks
from tests.conftest import make_user
from tests.integration.test_data_ops import _cli, cli_env  # noqa: F401  (the CLI's environment, a fixture)
from tests.scoring_helpers import answer, post, read_only_statements, set_timezone

HOUR = timedelta(hours=1)
DAY = timedelta(days=1)
OTHER = ChannelRef("fake", "W1", "C2")


async def scheduled(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock, open_for: timedelta = HOUR
) -> QuestionCard:
    return await post(runtime, channel, source=PostSource.SCHEDULE, closes_at=clock.now() + open_for)


async def whole_history(
    runtime: Runtime, who: UserRef, now: datetime
) -> tuple[int, int, int, int, tuple[tuple[str, int], ...], tuple[int, int, int]]:
    """(streak, best streak, day streak, best day streak, missed topics, review counts) from the user's whole
    history, and the review counts as the review repository counts them."""
    async with runtime.db.transaction() as session:
        workspace = await workspace_row(session, who.platform, who.workspace_id)
        assert workspace is not None
        user_row = (
            await session.execute(
                select(User.id).where(User.workspace_id == workspace[0], User.external_id == who.user_id)
            )
        ).scalar_one()
        question, day = (await user_streaks(session, [user_row], timezone=workspace[1], now=now, history=True))[
            user_row
        ]
        missed = (
            await session.execute(
                select(QuestionRow.tags)
                .join(Post, Post.question_id == QuestionRow.id)
                .join(Answer, Answer.post_id == Post.id)
                .where(Answer.user_id == user_row, Answer.is_correct.is_(False))
            )
        ).scalars()
        tags = Counter(tag for row in missed for tag in (row or []))
    top = tuple(sorted(tags.items(), key=lambda item: (-item[1], item[0]))[:3])
    async with runtime.uow() as uow:
        review = await review_summary(uow, user_row, now)
    return question.current, question.best, day.current, day.best, top, (review.due, review.learning, review.mastered)


async def me(runtime: Runtime, who: str | UserRef) -> UserStats:
    """`/quiz me`'s numbers, checked against the whole history's."""
    user = make_user(who) if isinstance(who, str) else who
    now = runtime.clock.now()
    stats = await runtime.stats.user_stats(user, now=now)
    review = (stats.review_due, stats.review_learning, stats.review_mastered)
    shown = (stats.streak, stats.best_streak, stats.day_streak, stats.best_day_streak, stats.missed_tags, review)
    assert shown == await whole_history(runtime, user, now), user.user_id
    return stats


async def stored(runtime: Runtime, who: str) -> MeCheckpoint | None:
    async with runtime.db.transaction() as session:
        query = select(MeCheckpoint).join(User, User.id == MeCheckpoint.user_id).where(User.external_id == f"U-{who}")
        return (await session.execute(query)).scalar()


async def a_week(runtime: Runtime, channel: ChannelRef, clock: ManualClock) -> None:
    """A week of scheduled questions in two channels: alice right, wrong, or silent; bob right every other day."""
    for day in range(7):
        for where in (channel, OTHER):
            card = await scheduled(runtime, where, clock)
            clock.advance(60)
            if day % 3 != 2:
                await answer(runtime, card, "alice", right=day % 4 != 3)
            if day % 2 == 0 or where == OTHER:
                await answer(runtime, card, "bob", right=True)
            clock.advance(HOUR)  # it closes
        clock.advance(DAY - 2 * HOUR - timedelta(seconds=120))


async def test_me_resumed_from_its_checkpoint_shows_what_the_whole_history_shows(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await a_week(runtime, channel, clock)
    first = await me(runtime, "alice")
    checkpoint = await stored(runtime, "alice")
    assert checkpoint is not None and checkpoint.settled_to == clock.now() - SETTLE_MARGIN
    assert first.best_streak > 0 and first.best_day_streak > 0 and first.missed_tags and first.review_due > 0

    await a_week(runtime, channel, clock)  # more answers
    again = await me(runtime, "alice")
    moved = await stored(runtime, "alice")
    assert moved is not None and moved.settled_to == clock.now() - SETTLE_MARGIN > checkpoint.settled_to
    assert again.answered > first.answered
    await me(runtime, "bob")

    card = await scheduled(runtime, channel, clock)  # answered right, still open
    await answer(runtime, card, "alice", right=True)
    await me(runtime, "alice")
    clock.advance(30 * 60)
    await me(runtime, "alice")  # within the hour: the checkpoint stays, the tail is read


async def test_a_question_that_closes_unanswered_breaks_the_resumed_streak(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    for _ in range(3):
        card = await scheduled(runtime, channel, clock)
        await answer(runtime, card, "alice", right=True)
        clock.advance(DAY)
    assert (await me(runtime, "alice")).streak == 3
    card = await scheduled(runtime, channel, clock, open_for=3 * HOUR)
    clock.advance(2 * HOUR)
    assert (await me(runtime, "alice")).streak == 3  # still open: it may still be answered
    clock.advance(2 * HOUR)  # closed by its time, not revealed yet
    assert (await me(runtime, "alice")).streak == 0
    await runtime.app.reveal(card.post_id)
    clock.advance(DAY)
    stats = await me(runtime, "alice")
    assert (stats.streak, stats.best_streak) == (0, 3)


async def test_a_timezone_change_recomputes_the_day_streak_in_the_new_one(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    """Answers at 23:30 on Monday and 00:30 on Wednesday (UTC): two days apart in UTC, Tuesday and Wednesday (in a row)
    in Helsinki. The checkpoint taken in UTC must not be used once the workspace is in Helsinki."""
    clock.set(datetime(2026, 1, 5, 23, 30, tzinfo=UTC))
    card = await scheduled(runtime, channel, clock)
    await answer(runtime, card, "alice", right=True)
    clock.set(datetime(2026, 1, 7, 0, 30, tzinfo=UTC))
    card = await scheduled(runtime, channel, clock)
    await answer(runtime, card, "alice", right=True)
    clock.advance(3 * HOUR)
    in_utc = await me(runtime, "alice")
    checkpoint = await stored(runtime, "alice")
    assert checkpoint is not None and checkpoint.timezone == "UTC" and checkpoint.settled_to > card.opened_at
    await set_timezone(runtime, channel, "Europe/Helsinki")
    in_helsinki = await me(runtime, "alice")
    moved = await stored(runtime, "alice")
    assert moved is not None and moved.timezone == "Europe/Helsinki"
    assert (in_utc.day_streak, in_utc.best_day_streak) == (1, 1)
    assert (in_helsinki.day_streak, in_helsinki.best_day_streak) == (2, 2)
    await set_timezone(runtime, channel, "UTC")
    assert (await me(runtime, "alice")).best_day_streak == 1


async def test_a_post_published_late_counts_as_the_whole_history_counts_it(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    """A scheduled post whose publication was cut short (no message reference) and published after it closed: a
    miss that settled at its close, in the past. The checkpoint stays before the post's open time until then."""
    for _ in range(2):
        card = await scheduled(runtime, channel, clock)
        await answer(runtime, card, "alice", right=True)
        clock.advance(DAY)
    async with runtime.db.transaction() as session:
        channel_row = (
            await session.execute(select(Channel.id).where(Channel.external_id == channel.channel_id))
        ).scalar_one()
        question = (await session.execute(select(func.min(QuestionRow.id)))).scalar_one()
        unsent = (
            await session.execute(
                insert(Post)
                .values(
                    channel_id=channel_row,
                    question_id=question,
                    message_ref=None,
                    choice_order=[0, 1, 2, 3],
                    source=PostSource.SCHEDULE.value,
                    opened_at=clock.now(),
                    closes_at=clock.now() + HOUR,
                )
                .returning(Post.id)
            )
        ).scalar_one()
    opened = clock.now()
    clock.advance(3 * DAY)
    assert (await me(runtime, "alice")).streak == 2  # not on the platform: it counts for nothing yet
    checkpoint = await stored(runtime, "alice")
    assert checkpoint is not None and checkpoint.settled_to <= opened
    async with runtime.db.transaction() as session:
        await session.execute(update(Post).where(Post.id == unsent).values(message_ref="late"))
    clock.advance(DAY)
    assert (await me(runtime, "alice")).streak == 0  # a miss, settled at its close three days ago


async def test_two_at_once_keep_the_checkpoint_that_settled_further(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await a_week(runtime, channel, clock)
    now = clock.now()
    results = await asyncio.gather(
        runtime.stats.user_stats(make_user("alice"), now=now),
        runtime.stats.user_stats(make_user("alice"), now=now - 2 * HOUR),
        runtime.stats.user_stats(make_user("alice"), now=now),
    )
    assert results[0] == results[2]
    checkpoint = await stored(runtime, "alice")
    assert checkpoint is not None and checkpoint.settled_to == now - SETTLE_MARGIN
    async with runtime.uow() as uow:  # an older checkpoint does not replace a newer one
        user_row = checkpoint.user_id
        older = Checkpoint(now - DAY, "UTC", {}, DayRun(), {})
        assert not await uow.checkpoints.advance(user_row, older)
        assert await uow.checkpoints.advance(user_row, dataclasses.replace(older, timezone="Europe/Helsinki"))
        await uow.commit()
    async with runtime.uow() as uow:
        found = await uow.checkpoints.get(user_row)
    assert found == Checkpoint(now - DAY, "Europe/Helsinki", {}, DayRun(), {})
    await me(runtime, "alice")  # taken in another timezone: not used, and replaced


async def test_quiz_me_and_the_home_tab_commit_the_checkpoint(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await a_week(runtime, channel, clock)
    reply = await runtime.app.handle_command(Invocation(channel, make_user("alice"), "me"))
    assert reply.ok
    checkpoint = await stored(runtime, "alice")
    assert checkpoint is not None and checkpoint.settled_to == clock.now() - SETTLE_MARGIN
    clock.advance(ADVANCE_EVERY)  # far enough for a call to move it on itself
    await runtime.app.home(make_user("alice"))
    moved = await stored(runtime, "alice")
    assert moved is not None and moved.settled_to == clock.now() - SETTLE_MARGIN
    assert moved.channels and Streak() not in moved.channels.values()


async def test_forget_user_takes_the_checkpoint_with_the_user(
    runtime: Runtime,
    channel: ChannelRef,
    clock: ManualClock,
    cli_env: Path,  # noqa: F811
) -> None:
    await a_week(runtime, channel, clock)
    await me(runtime, "alice")
    await me(runtime, "bob")
    assert await stored(runtime, "bob") is not None
    assert await _cli("forget-user", "fake", "U-bob", "--yes") == 0
    assert await stored(runtime, "bob") is None
    async with runtime.db.transaction() as session:
        assert (await session.execute(select(func.count()).select_from(MeCheckpoint))).scalar_one() == 1
    assert (await runtime.stats.user_stats(make_user("bob"), now=clock.now())).answered == 0
    await me(runtime, "alice")


async def test_someone_who_never_answered_gets_no_checkpoint(runtime: Runtime, channel: ChannelRef) -> None:
    assert (await runtime.app.handle_command(Invocation(channel, make_user("carol"), "me"))).ok
    async with runtime.db.transaction() as session:
        assert (await session.execute(select(func.count()).select_from(MeCheckpoint))).scalar_one() == 0


async def test_a_call_a_day_after_the_last_reads_the_day_and_writes_nothing(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    """The background step moves a day-old checkpoint on (bot/scheduling/checkpoints.py); a call does it itself only
    once it is ADVANCE_EVERY behind, so a daily `/quiz me` is a read-only transaction. What it shows is still what
    the whole history shows."""
    await a_week(runtime, channel, clock)
    await me(runtime, "alice")
    first = await stored(runtime, "alice")
    assert first is not None

    card = await scheduled(runtime, channel, clock)  # a day of answers since, then the call
    await answer(runtime, card, "alice", right=False)
    clock.advance(DAY)
    with read_only_statements(runtime) as sent:
        await me(runtime, "alice")
    assert any("answers_since" in statement for statement in sent)
    assert not [s for s in sent if "me_checkpoints" in s and s.lstrip().upper().startswith("INSERT")], sent
    kept = await stored(runtime, "alice")
    assert kept is not None and kept.settled_to == first.settled_to

    clock.advance(ADVANCE_EVERY - DAY)  # now far enough behind: the call moves it on
    await me(runtime, "alice")
    moved = await stored(runtime, "alice")
    assert moved is not None and moved.settled_to == clock.now() - SETTLE_MARGIN
