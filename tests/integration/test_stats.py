"""Leaderboards and personal stats through the read models and the command handler."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.clock import ManualClock
from bot.commands import Scope, Window
from bot.domain import ChannelRef
from bot.domain.ranking import rank_rows
from bot.domain.windows import window_start
from bot.runtime import Runtime
from bot.service.facade import Invocation
from tests.conftest import make_user


async def _answer(runtime: Runtime, channel: ChannelRef, answers: dict[str, bool]) -> None:
    card = (await runtime.quiz.post_question(channel)).card
    pack = next(p for p in runtime.catalog.packs if p.title == card.pack_title)
    correct = next(q for q in pack.questions if q.prompt == card.prompt).correct_index
    wrong = next(i for i in card.choice_ids if i != correct)
    for name, right in answers.items():
        user = make_user(name, channel.workspace_id)  # someone of the workspace the question was posted in
        await runtime.app.answer(post_id=card.post_id, user=user, choice_index=correct if right else wrong)
    await runtime.app.reveal(card.post_id)


async def test_leaderboard_ranks_by_points_then_correct(runtime: Runtime, channel: ChannelRef) -> None:
    await _answer(runtime, channel, {"alice": True, "bob": False, "carol": True})
    await _answer(runtime, channel, {"alice": True, "bob": True})
    board = await runtime.stats.leaderboard(channel, window=Window.ALL, scope=Scope.CHANNEL, now=runtime.clock.now())
    # bob and carol both have one correct answer worth 20 points; carol needed fewer answers.
    assert [(r.rank, r.name, r.points, r.correct, r.answered) for r in board.rows] == [
        (1, "alice", 40, 2, 2),
        (2, "carol", 20, 1, 1),
        (3, "bob", 20, 1, 2),
    ]


async def test_channel_and_workspace_scopes(runtime: Runtime, channel: ChannelRef) -> None:
    other = ChannelRef("fake", "W1", "C2")
    await _answer(runtime, channel, {"alice": True})
    await _answer(runtime, other, {"bob": True, "alice": True})
    here = await runtime.stats.leaderboard(channel, window=Window.ALL, scope=Scope.CHANNEL, now=runtime.clock.now())
    everywhere = await runtime.stats.leaderboard(
        channel, window=Window.ALL, scope=Scope.WORKSPACE, now=runtime.clock.now()
    )
    assert [r.name for r in here.rows] == ["alice"]
    assert [(r.name, r.correct) for r in everywhere.rows] == [("alice", 2), ("bob", 1)]


async def test_other_workspaces_never_leak_into_a_board(runtime: Runtime, channel: ChannelRef) -> None:
    await _answer(runtime, ChannelRef("fake", "W2", "C1"), {"mallory": True})
    board = await runtime.stats.leaderboard(channel, window=Window.ALL, scope=Scope.WORKSPACE, now=runtime.clock.now())
    assert board.rows == ()


async def test_week_window_excludes_last_week(runtime: Runtime, channel: ChannelRef, clock: ManualClock) -> None:
    clock.set(datetime(2026, 3, 6, 12, 0, tzinfo=UTC))  # a Friday
    await _answer(runtime, channel, {"old": True})
    clock.set(datetime(2026, 3, 10, 12, 0, tzinfo=UTC))  # the next Tuesday
    await _answer(runtime, channel, {"new": True})
    week = await runtime.stats.leaderboard(channel, window=Window.WEEK, scope=Scope.CHANNEL, now=clock.now())
    month = await runtime.stats.leaderboard(channel, window=Window.MONTH, scope=Scope.CHANNEL, now=clock.now())
    assert [r.name for r in week.rows] == ["new"]
    assert {r.name for r in month.rows} == {"old", "new"}


def test_window_start_uses_the_workspace_timezone() -> None:
    # 2026-03-09 02:00 UTC is still Sunday 2026-03-08 in New York: the week started Monday 2026-03-02 there.
    now = datetime(2026, 3, 9, 2, 0, tzinfo=UTC)
    assert window_start(Window.WEEK, now, "UTC") == datetime(2026, 3, 9, 0, 0, tzinfo=UTC)
    assert window_start(Window.WEEK, now, "America/New_York") == datetime(2026, 3, 2, 5, 0, tzinfo=UTC)
    # Month start across the DST change (US clocks went forward on 2026-03-08): March 1 is still EST.
    assert window_start(Window.MONTH, now, "America/New_York") == datetime(2026, 3, 1, 5, 0, tzinfo=UTC)
    assert window_start(Window.MONTH, datetime(2026, 3, 31, 23, 0, tzinfo=UTC), "Europe/Helsinki") == datetime(
        2026, 3, 31, 21, 0, tzinfo=UTC
    )
    assert window_start(Window.ALL, now, "UTC") is None


def test_ties_share_a_rank_and_sort_by_name() -> None:
    rows = rank_rows([("zed", 20, 1, 1), ("amy", 20, 1, 1), ("bo", 30, 2, 2), ("cy", 20, 1, 2)])
    assert [(r.rank, r.name) for r in rows] == [(1, "bo"), (2, "amy"), (2, "zed"), (4, "cy")]


async def test_me_reports_answers_accuracy_rank_and_missed_topics(runtime: Runtime, channel: ChannelRef) -> None:
    await _answer(runtime, channel, {"alice": True, "bob": False})
    await _answer(runtime, channel, {"alice": False, "bob": False})
    stats = await runtime.stats.user_stats(make_user("bob"), now=runtime.clock.now())
    assert (stats.answered, stats.correct, stats.points, stats.rank) == (2, 0, 0, 2)
    assert stats.missed_tags
    reply = await runtime.app.handle_command(Invocation(channel, make_user("alice"), "me"))
    assert "Answered: 2" in reply.message.text
    assert "accuracy: 50%" in reply.message.text
    assert "rank: 1" in reply.message.text


async def test_me_with_no_answers(runtime: Runtime, channel: ChannelRef) -> None:
    reply = await runtime.app.handle_command(Invocation(channel, make_user("newbie"), "me"))
    assert "no answers yet" in reply.message.title
