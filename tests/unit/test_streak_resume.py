"""Streaks folded in two parts, up to a checkpoint and then on from it, equal the streaks folded over the whole
history (bot/domain/streaks.py; `/quiz me` resumes from a checkpoint, bot/service/streak_stats.py).

The question streak is checked on random worlds of one channel: scheduled questions that open, close (and may be
revealed early), answered or not, right or wrong, before they finish; a checkpoint taken at an instant T at or before
the moment it is taken (`now1`) from what was visible then, resumed later (`now2`) with what was settled from T on.
The day streak on random answer times in several timezones, split at any instant.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.domain.streaks import (
    DayRun,
    Outcome,
    Streak,
    StreakPost,
    day_streak,
    day_streak_of,
    fold_days,
    question_streak,
    settled_events,
    settled_outcomes,
)

T0 = datetime(2026, 3, 1, tzinfo=UTC)
MINUTE = timedelta(minutes=1)
C, W, M = Outcome.CORRECT, Outcome.WRONG, Outcome.MISSED


@dataclass(frozen=True)
class WorldPost:
    """A scheduled question as it will have been: when it opens, closes, is revealed (None: never), and the user's
    answer (its time and whether it is right; None: no answer)."""

    post_id: int
    opened_at: datetime
    closes_at: datetime
    revealed_at: datetime | None
    answer: tuple[datetime, bool] | None

    def finish(self) -> datetime:
        return min(self.closes_at, self.revealed_at) if self.revealed_at is not None else self.closes_at


@st.composite
def worlds(draw: st.DrawFn) -> list[WorldPost]:
    posts = []
    for post_id in range(1, draw(st.integers(0, 25)) + 1):
        opened = T0 + draw(st.integers(0, 600)) * MINUTE  # several open at once, ties included
        closes = opened + draw(st.integers(1, 120)) * MINUTE
        revealed = draw(st.one_of(st.none(), st.integers(0, 150).map(lambda m, o=opened: o + m * MINUTE)))
        post = WorldPost(post_id, opened, closes, revealed, None)
        finish = post.finish()
        if finish > opened and draw(st.booleans()):  # a click is refused at or after the finish
            at = opened + draw(st.integers(0, int((finish - opened) / MINUTE) - 1)) * MINUTE
            post = WorldPost(post_id, opened, closes, revealed, (at, draw(st.booleans())))
        posts.append(post)
    return posts


def seen_at(world: list[WorldPost], now: datetime) -> tuple[list[StreakPost], dict[int, tuple[datetime, bool]]]:
    """What the database holds at `now`: the posts opened by then (a reveal only once it happened), the answers
    recorded by then."""
    posts = [
        StreakPost(
            p.post_id, p.opened_at, p.closes_at, p.revealed_at if p.revealed_at and p.revealed_at <= now else None
        )
        for p in world
        if p.opened_at <= now
    ]
    answers = {p.post_id: p.answer for p in world if p.answer is not None and p.answer[0] <= now and p.opened_at <= now}
    return posts, answers


def resumed(world: list[WorldPost], settled_to: datetime, now1: datetime, now2: datetime) -> Streak:
    """The checkpoint taken at `now1` up to `settled_to`, then resumed at `now2` with what was settled since."""
    posts, answers = seen_at(world, now1)
    before = [e.outcome for e in settled_events(posts, answers, now1) if e.at < settled_to]
    checkpoint = question_streak(before)
    posts, answers = seen_at(world, now2)
    after = [e.outcome for e in settled_events(posts, answers, now2, since=settled_to)]
    return question_streak(after, start=checkpoint)


@settings(max_examples=400, deadline=None)
@given(worlds(), st.integers(0, 800), st.integers(0, 800), st.integers(0, 800))
def test_a_question_streak_resumed_from_a_checkpoint_equals_the_whole_history(
    world: list[WorldPost], a: int, b: int, c: int
) -> None:
    settled_to, now1, now2 = (T0 + m * MINUTE for m in sorted((a, b, c)))
    posts, answers = seen_at(world, now2)
    whole = question_streak(settled_outcomes(posts, answers, now2))
    assert resumed(world, settled_to, now1, now2) == whole


@settings(max_examples=200, deadline=None)
@given(worlds(), st.lists(st.integers(0, 800), min_size=1, max_size=5))
def test_a_checkpoint_moved_on_several_times_still_equals_the_whole_history(
    world: list[WorldPost], moments: list[int]
) -> None:
    """Each call resumes from the last checkpoint and takes the next one at its own instant (as `/quiz me` does)."""
    times = sorted(T0 + m * MINUTE for m in moments)
    streak, settled_to = Streak(), None
    for now in times:  # a checkpoint taken at each moment, up to that moment
        posts, answers = seen_at(world, now)
        events = settled_events(posts, answers, now, since=settled_to)
        streak = question_streak((e.outcome for e in events if e.at < now), start=streak)
        settled_to = now
    later = times[-1] + 1000 * MINUTE
    posts, answers = seen_at(world, later)
    rest = question_streak((e.outcome for e in settled_events(posts, answers, later, since=settled_to)), start=streak)
    assert rest == question_streak(settled_outcomes(posts, answers, later))


@given(st.lists(st.sampled_from([C, W, M]), max_size=30), st.lists(st.sampled_from([C, W, M]), max_size=30))
def test_question_streak_of_two_parts_is_that_of_both(first: list[Outcome], then: list[Outcome]) -> None:
    assert question_streak(then, start=question_streak(first)) == question_streak(first + then)


def test_a_resumed_question_streak_keeps_its_run_and_best() -> None:
    assert question_streak([C], start=Streak(current=2, best=5)) == Streak(current=3, best=5)
    assert question_streak([C, C, C, C], start=Streak(current=2, best=5)) == Streak(current=6, best=6)
    assert question_streak([M], start=Streak(current=2, best=5)) == Streak(current=0, best=5)


def test_settled_events_since_leave_out_what_was_settled_before() -> None:
    posts = [
        StreakPost(1, T0, T0 + 10 * MINUTE),
        StreakPost(2, T0, T0 + 10 * MINUTE),
        StreakPost(3, T0 + MINUTE, T0 + 30 * MINUTE),
    ]
    answers = {1: (T0 + 2 * MINUTE, True), 3: (T0 + 20 * MINUTE, False)}
    now = T0 + 60 * MINUTE
    assert [e.outcome for e in settled_events(posts, answers, now)] == [C, M, W]
    assert [(e.post_id, e.outcome) for e in settled_events(posts, answers, now, since=T0 + 10 * MINUTE)] == [
        (2, M),  # missed at its close, which is the checkpoint's instant: after it
        (3, W),
    ]


ZONES = ["UTC", "Europe/Helsinki", "America/New_York", "Pacific/Kiritimati", "Pacific/Pago_Pago"]


def local(at: datetime, zone: str) -> date:
    return at.astimezone(ZoneInfo(zone)).date()


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.integers(0, 60 * 24 * 40), max_size=40),
    st.integers(0, 60 * 24 * 40),
    st.integers(0, 60 * 24 * 45),
    st.sampled_from(ZONES),
)
def test_a_day_streak_resumed_from_a_checkpoint_equals_the_whole_history(
    minutes: list[int], split: int, today_minute: int, zone: str
) -> None:
    """Through DST changes too (2026-03-08 in New York, 2026-03-29 in Helsinki fall in the range)."""
    start = datetime(2026, 2, 20, tzinfo=UTC)
    answers = [start + m * MINUTE for m in minutes]
    settled_to = start + split * MINUTE
    checkpoint = fold_days(local(at, zone) for at in answers if at < settled_to)
    resumed_days = fold_days((local(at, zone) for at in answers if at >= settled_to), checkpoint)
    today = local(max([start + today_minute * MINUTE, *answers]), zone)
    whole = [local(at, zone) for at in answers]
    assert resumed_days == fold_days(whole)
    assert day_streak_of(resumed_days, today) == day_streak(whole, today)


def test_a_day_already_in_the_checkpoint_counts_once() -> None:
    monday = date(2026, 3, 2)
    checkpoint = fold_days([monday - timedelta(days=1), monday])
    assert checkpoint == DayRun(run=2, best=2, last=monday)
    more = fold_days([monday, monday + timedelta(days=1)], checkpoint)  # Monday again, after the checkpoint
    assert more == DayRun(run=3, best=3, last=monday + timedelta(days=1))
    assert day_streak_of(more, monday + timedelta(days=3)) == Streak(current=0, best=3)
    assert day_streak_of(more, monday + timedelta(days=2)) == Streak(current=3, best=3)
