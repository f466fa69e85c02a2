"""A board's day streaks: it reads RECENT_DAYS of answers, and the whole history only for a user whose run is that
long; either way the current day streak it shows is the one the whole history gives."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from bot.clock import ManualClock
from bot.db.models import User
from bot.domain import ChannelRef
from bot.domain.windows import Scope, Window
from bot.runtime import Runtime
from bot.service.streak_stats import RECENT_DAYS, user_streaks
from tests.scoring_helpers import answer, post


async def test_a_day_streak_longer_than_the_boards_recent_days_is_counted_whole(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    days = RECENT_DAYS + 5
    for day in range(days):
        card = await post(runtime, channel)
        await answer(runtime, card, "keen", right=day % 3 != 0)
        if day >= days - 4:  # a run of four days to end with
            await answer(runtime, card, "late", right=True)
        if day == 10:  # one answer long ago: not part of the current run
            await answer(runtime, card, "once", right=True)
        clock.advance(timedelta(days=1))
    board = await runtime.stats.leaderboard(channel, window=Window.ALL, scope=Scope.CHANNEL, now=clock.now())
    shown = {row.name: row.day_streak for row in board.rows}
    assert shown == {"keen": days, "late": 4, "once": 0}
    async with runtime.db.transaction() as session:
        users = dict((await session.execute(select(User.display_name, User.id))).all())
        whole = await user_streaks(session, list(users.values()), timezone="UTC", now=clock.now(), history=True)
    assert {name: whole[users[name]][1].current for name in shown} == shown
