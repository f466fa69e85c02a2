"""The streak rules of docs/guide/leaderboards.md (Streaks; once the README's Scores and leaderboards), one test per clause, through the services on SQLite and PostgreSQL.

Question streak ("in a row"): only questions a schedule posted count; each counts once, when its outcome is settled
(the answer, or the close without one), in the order outcomes were settled; per channel. Day streak: days with an
answer to any question, in the workspace's timezone; review answers do not count.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.clock import ManualClock
from bot.commands import Scope, Window
from bot.domain import AnswerOutcome, ChannelRef, PostSource, QuestionCard
from bot.domain.streaks import Outcome, question_streak
from bot.runtime import Runtime
from bot.service.facade import Invocation, Reply
from tests.conftest import make_user
from tests.scoring_helpers import answer, post

HOUR = timedelta(hours=1)
C, W, M = Outcome.CORRECT, Outcome.WRONG, Outcome.MISSED


async def run(runtime: Runtime, channel: ChannelRef, who: str, text: str) -> Reply:
    """Type a /quiz command as a user (an admin, so cohort commands are allowed)."""
    return await runtime.app.handle_command(Invocation(channel, make_user(who), text, is_admin=True))


async def scheduled(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock, *, open_for: timedelta = HOUR
) -> QuestionCard:
    """A question as a schedule's fire posts it: PostSource.SCHEDULE, closing after `open_for`."""
    return await post(runtime, channel, source=PostSource.SCHEDULE, closes_at=clock.now() + open_for)


async def cohort_next(runtime: Runtime, channel: ChannelRef, cohort: str) -> QuestionCard:
    """`/quiz cohort next COHORT` typed by an admin; the card it posted."""
    assert (await run(runtime, channel, "lead", f"cohort next {cohort}")).ok
    return (await runtime.app.card(await runtime.app.current_post_id(channel))).card


async def streaks(runtime: Runtime, channel: ChannelRef, clock: ManualClock) -> dict[str, tuple[int, int]]:
    """(current, best) question streak of everyone on the channel's board, from `/quiz me`; checked against the
    current streak the channel board shows."""
    board = await runtime.stats.leaderboard(channel, window=Window.ALL, scope=Scope.CHANNEL, now=clock.now(), limit=50)
    found = {}
    for row in board.rows:
        stats = await runtime.stats.user_stats(make_user(row.name, channel.workspace_id), now=clock.now())
        assert stats.streak == row.streak, row.name  # the board's tail read agrees with the whole history
        found[row.name] = (stats.streak, stats.best_streak)
    return found


async def a_streak_of_two(runtime: Runtime, channel: ChannelRef, clock: ManualClock, *names: str) -> None:
    """Two scheduled questions that every one of `names` answered right, each closed by its time."""
    for _ in range(2):
        card = await scheduled(runtime, channel, clock)
        for name in names:
            await answer(runtime, card, name, right=True)
        clock.advance(HOUR)
        clock.advance(timedelta(hours=23))


# --- which posts count ---------------------------------------------------------------------------------------------


async def test_cohort_next_revealed_with_no_answers_breaks_nobodys_streak(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    """The issue's report: `cohort create x1`, `cohort next x1`, `reveal` with no answers reset everyone to 0."""
    await a_streak_of_two(runtime, channel, clock, "alice", "bob")
    assert (await run(runtime, channel, "alice", "cohort create x1")).ok
    assert (await run(runtime, channel, "alice", "cohort next x1")).ok
    assert (await run(runtime, channel, "alice", "reveal")).ok
    assert await streaks(runtime, channel, clock) == {"alice": (2, 2), "bob": (2, 2)}
    board = await run(runtime, channel, "bob", "leaderboard")
    assert "2 in a row" in board.message.text


async def test_posts_made_by_hand_neither_extend_nor_break_a_streak(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await a_streak_of_two(runtime, channel, clock, "alice", "bob", "carol")
    assert (await run(runtime, channel, "alice", "cohort create x1")).ok
    assert (await run(runtime, channel, "alice", "cohort join x1")).ok
    now_post = await post(runtime, channel)  # `/quiz now`
    await answer(runtime, now_post, "alice", right=True)  # does not extend
    await answer(runtime, now_post, "bob", right=False)  # does not break
    await runtime.app.reveal(now_post.post_id)  # carol missed it: does not break
    cohort_post = await cohort_next(runtime, channel, "x1")
    await answer(runtime, cohort_post, "alice", right=True)  # a member's right answer does not extend
    await answer(runtime, cohort_post, "bob", right=False)  # nor does a wrong one break
    await runtime.app.reveal(cohort_post.post_id)
    assert await streaks(runtime, channel, clock) == {"alice": (2, 2), "bob": (2, 2), "carol": (2, 2)}


async def test_a_cohorts_posts_never_affect_people_outside_it(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await a_streak_of_two(runtime, channel, clock, "member", "outsider")
    assert (await run(runtime, channel, "lead", "cohort create x1")).ok
    assert (await run(runtime, channel, "member", "cohort join x1")).ok
    for _ in range(3):  # three curriculum questions, closed unanswered by the outsider
        assert (await run(runtime, channel, "lead", "cohort next x1")).ok
        assert (await run(runtime, channel, "lead", "reveal")).ok
    assert await streaks(runtime, channel, clock) == {"member": (2, 2), "outsider": (2, 2)}


# --- what settles a question, and when --------------------------------------------------------------------------------


async def test_a_right_answer_extends_and_a_wrong_one_breaks_when_it_is_recorded(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await a_streak_of_two(runtime, channel, clock, "alice")
    card = await scheduled(runtime, channel, clock)
    await answer(runtime, card, "alice", right=True)
    assert await streaks(runtime, channel, clock) == {"alice": (3, 3)}  # counted before the question closes
    card = await scheduled(runtime, channel, clock, open_for=timedelta(days=2))
    await answer(runtime, card, "alice", right=False)
    assert await streaks(runtime, channel, clock) == {"alice": (0, 3)}  # broken at once, the question still open


async def test_a_question_that_closes_without_your_answer_breaks_it_at_the_close(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await a_streak_of_two(runtime, channel, clock, "alice", "bob", "carol")
    card = await scheduled(runtime, channel, clock)
    await answer(runtime, card, "carol", right=True)
    clock.advance(timedelta(minutes=59))
    # Still open and unanswered: neither counts nor breaks.
    assert await streaks(runtime, channel, clock) == {"alice": (2, 2), "bob": (2, 2), "carol": (3, 3)}
    clock.advance(timedelta(minutes=1))
    late = await answer(runtime, card, "bob", right=True)  # clicked at the close: too late
    assert late.outcome is AnswerOutcome.CLOSED
    # alice never answered (missed), bob clicked too late: both broken at the close time.
    assert await streaks(runtime, channel, clock) == {"alice": (0, 2), "bob": (0, 2), "carol": (3, 3)}


async def test_a_reveal_before_the_close_time_settles_the_question_then(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await a_streak_of_two(runtime, channel, clock, "alice")
    card = await scheduled(runtime, channel, clock)
    await runtime.app.reveal(card.post_id)  # `/quiz reveal` closes a scheduled question early
    assert await streaks(runtime, channel, clock) == {"alice": (0, 2)}


async def test_closing_an_older_question_later_never_rewrites_what_came_before(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    """Outcomes count in the order they were settled: a question left open for days that then closes unanswered
    breaks the streak at its close, and the streak (and best) shown before it stays what it was."""
    await a_streak_of_two(runtime, channel, clock, "alice")
    long_open = await scheduled(runtime, channel, clock, open_for=timedelta(days=3))
    for _ in range(2):
        clock.advance(timedelta(days=1))
        card = await scheduled(runtime, channel, clock)
        await answer(runtime, card, "alice", right=True)
    assert await streaks(runtime, channel, clock) == {"alice": (4, 4)}  # the long-open one is still pending
    clock.advance(timedelta(days=1))  # long_open closes unanswered now
    assert await streaks(runtime, channel, clock) == {"alice": (0, 4)}
    await runtime.app.reveal(long_open.post_id)  # revealing it afterwards changes nothing
    assert await streaks(runtime, channel, clock) == {"alice": (0, 4)}


async def test_closing_an_older_cohort_question_changes_no_streak(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await a_streak_of_two(runtime, channel, clock, "alice")
    assert (await run(runtime, channel, "alice", "cohort create x1")).ok
    assert (await run(runtime, channel, "alice", "cohort next x1")).ok  # open, no close time
    cohort_post = await runtime.app.current_post_id(channel)
    card = await scheduled(runtime, channel, clock)
    await answer(runtime, card, "alice", right=True)
    clock.advance(timedelta(days=2))
    await runtime.app.reveal(cohort_post)
    assert await streaks(runtime, channel, clock) == {"alice": (3, 3)}


async def test_question_streaks_are_kept_per_channel(runtime: Runtime, channel: ChannelRef, clock: ManualClock) -> None:
    other = ChannelRef("fake", "W1", "C2")
    await a_streak_of_two(runtime, channel, clock, "alice")
    card = await scheduled(runtime, other, clock)
    await answer(runtime, card, "alice", right=False)  # broken in C2 only
    assert await streaks(runtime, channel, clock) == {"alice": (2, 2)}
    board = await runtime.stats.leaderboard(other, window=Window.ALL, scope=Scope.CHANNEL, now=clock.now())
    assert [(row.name, row.streak) for row in board.rows] == [("alice", 0)]
    workspace = await runtime.stats.leaderboard(channel, window=Window.ALL, scope=Scope.WORKSPACE, now=clock.now())
    assert [(row.name, row.streak) for row in workspace.rows] == [("alice", 2)]  # the best channel's


def test_outcomes_are_taken_in_the_order_they_were_settled() -> None:
    from bot.domain.streaks import StreakPost, settled_outcomes

    t = datetime(2026, 1, 5, 9, 0).astimezone()
    posts = [
        StreakPost(1, t, closes_at=t + timedelta(days=3)),  # open for days, never answered: missed at day 3
        StreakPost(2, t + timedelta(days=1), closes_at=t + timedelta(days=1, hours=1)),  # right, on day 1
        StreakPost(3, t + timedelta(days=2), closes_at=t + timedelta(days=2, hours=1)),  # right, on day 2
        StreakPost(4, t + timedelta(days=4), closes_at=t + timedelta(days=5)),  # still open at day 4: pending
        StreakPost(5, t, closes_at=t + timedelta(hours=1), closed_at=t + timedelta(minutes=5)),  # revealed at 5 min
    ]
    answers = {2: (t + timedelta(days=1, minutes=1), True), 3: (t + timedelta(days=2, minutes=1), True)}
    at = t + timedelta(days=4)
    assert settled_outcomes(posts, answers, at) == [M, C, C, M]
    assert question_streak(settled_outcomes(posts, answers, at)).best == 2
    assert settled_outcomes(posts, answers, t + timedelta(days=2, hours=2)) == [M, C, C]  # post 1 not settled yet
    # Settled at the same instant (a test clock): posting order decides.
    same = [StreakPost(7, t, closed_at=t), StreakPost(6, t, closed_at=t), StreakPost(8, t)]
    assert settled_outcomes(same, {6: (t, True), 8: (t, False)}, t) == [C, M, W]


# --- day streaks ---------------------------------------------------------------------------------------------------


async def test_a_day_counts_with_an_answer_to_any_question_but_not_a_review_answer(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    first = await post(runtime, channel)  # `/quiz now`: counts for the day streak
    await answer(runtime, first, "alice", right=False)
    clock.advance(timedelta(days=1))
    assert (await run(runtime, channel, "lead", "cohort create x1")).ok
    await answer(runtime, await cohort_next(runtime, channel, "x1"), "alice", right=True)  # a cohort question too
    stats = await runtime.stats.user_stats(make_user("alice"), now=clock.now())
    assert (stats.day_streak, stats.best_day_streak) == (2, 2)
    clock.advance(timedelta(days=1))
    review = await run(runtime, channel, "alice", "review")  # the first miss is due again
    assert review.message.title.startswith("Review ·")
    assert (await run(runtime, channel, "alice", "review 1")).ok  # a review answer: not an answer to a post
    stats = await runtime.stats.user_stats(make_user("alice"), now=clock.now())
    assert (stats.day_streak, stats.best_day_streak) == (2, 2)  # still current (yesterday counts), not three
    clock.advance(timedelta(days=1))
    stats = await runtime.stats.user_stats(make_user("alice"), now=clock.now())
    assert (stats.day_streak, stats.best_day_streak) == (0, 2)  # a whole day without an answer broke it


async def test_boards_read_only_a_tail_and_agree_with_the_whole_history_when_questions_overlap(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    """Questions open for long, revealed early, answered late or never: the boards' tail read (questions ordered by
    when they finished) gives the same current streaks as the whole history, at every step."""
    import random

    from sqlalchemy import select

    from bot.db.models import UserScore
    from bot.service.stats import user_streaks

    for seed in range(4):
        rng = random.Random(seed)
        here = ChannelRef("fake", "W1", f"T{seed}")
        keen = {"ann": 0.5, "ben": 0.2, "cy": 0.1} if seed % 2 else {"ann": 0.15, "ben": 0.1}
        cards = []
        for _ in range(30):
            open_for = rng.choice([timedelta(minutes=30), HOUR, HOUR, timedelta(days=3), timedelta(days=6)])
            cards.append(await scheduled(runtime, here, clock, open_for=open_for))
            for name, keenness in keen.items():
                if rng.random() < keenness:  # the newest question, or now and then an older one still open
                    card = cards[-1] if rng.random() < 0.7 else rng.choice(cards)
                    await answer(runtime, card, name, right=rng.random() < 0.8)
            if rng.random() < 0.15:
                await runtime.app.reveal(rng.choice(cards).post_id)
            clock.advance(timedelta(hours=rng.choice([1, 5, 20, 30])))
            async with runtime.db.transaction() as session:
                users = sorted((await session.execute(select(UserScore.user_id))).scalars())
                full = await user_streaks(session, users, timezone="UTC", now=clock.now(), history=True)
                tail = await user_streaks(session, users, timezone="UTC", now=clock.now(), history=False)
            assert {u: q.current for u, (q, _) in tail.items()} == {u: q.current for u, (q, _) in full.items()}


async def test_boards_find_a_miss_that_finished_after_newer_questions(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    """The board reads a channel's newest questions by when they *finished*: a question posted long ago that closes
    unanswered after newer ones breaks the streak on the board as in `/quiz me`."""
    long_open = await scheduled(runtime, channel, clock, open_for=timedelta(days=6))
    for _ in range(2):  # missed
        clock.advance(timedelta(hours=12))
        await scheduled(runtime, channel, clock)
    for _ in range(3):  # right
        clock.advance(timedelta(hours=12))
        await answer(runtime, await scheduled(runtime, channel, clock), "alice", right=True)
    clock.advance(timedelta(hours=12))
    assert await streaks(runtime, channel, clock) == {"alice": (3, 3)}
    clock.advance(timedelta(days=4))
    assert clock.now() > long_open.closes_at  # type: ignore[operator]
    assert await streaks(runtime, channel, clock) == {"alice": (0, 3)}
