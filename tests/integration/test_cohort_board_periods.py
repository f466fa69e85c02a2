"""Cohort vs cohort in a week or a month reads the period's rollup rows (`period_scores`) for the cohorts that had
started by the period's start, and sums the answers of the others: always the same board as summing every
cohort's answers (`Stats(rollups=False)`), across the local period's start, for a cohort that started during the
period, and after a timezone change (rows keyed at another start: then every cohort's answers are summed)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from bot.clock import ManualClock
from bot.domain import ChannelRef
from bot.domain.windows import Window
from bot.runtime import Runtime
from bot.service.facade import Invocation
from bot.service.stats import Stats
from tests.conftest import make_user
from tests.scoring_helpers import answer, post, read_only_statements, set_timezone


async def _run(runtime: Runtime, channel: ChannelRef, who: str, text: str) -> None:
    reply = await runtime.app.handle_command(Invocation(channel, make_user(who), text, is_admin=True))
    assert reply.ok, reply


async def _assert_same_as_summed(runtime: Runtime, channel: ChannelRef) -> None:
    summed = Stats(runtime.uow, rollups=False)
    now = runtime.clock.now()
    for window in (Window.WEEK, Window.MONTH):
        board = await runtime.stats.cohort_board(channel, window=window, now=now)
        assert board == await summed.cohort_board(channel, window=window, now=now), (window, now)


async def test_cohort_vs_cohort_in_a_period_is_the_sum_of_the_members_answers(
    runtime: Runtime, clock: ManualClock
) -> None:
    here = ChannelRef("fake", "W1", "C1")
    await set_timezone(runtime, here, "Europe/Helsinki")
    rng = random.Random(26)
    # Thursday 28 May 2026; the week and the month start on Monday 1 June, 00:00 in Helsinki (21:00 UTC on Sunday)
    clock.set(datetime(2026, 5, 28, 9, 0, tzinfo=UTC))
    await _run(runtime, here, "lead", "cohort create early start:2026-05-25")
    names = [f"user{n}" for n in range(8)]
    for name in names[:4]:
        await _run(runtime, here, name, "cohort join early")
    checked = 0
    for step in range(12):
        if step == 7:  # Wednesday 3 June: a cohort that starts during the week and the month
            await _run(runtime, here, "lead", "cohort create late start:2026-06-03")
            for name in names[3:]:
                await _run(runtime, here, name, "cohort join late")
        card = await post(runtime, here)
        for name in rng.sample(names, 5):
            await answer(runtime, card, name, right=rng.random() < 0.6)
        if step in (3, 4, 6, 9, 11):
            await _assert_same_as_summed(runtime, here)
            checked += 1
        clock.advance(timedelta(hours=20))
    assert checked == 5
    with read_only_statements(runtime) as sent:
        board = await runtime.stats.cohort_board(here, window=Window.WEEK, now=clock.now())
    assert {row.name for row in board.rows} == {"early", "late"}
    assert any("period_scores" in statement for statement in sent), sent  # the rollup rows, not every answer

    # The rollup rows were keyed in Helsinki; the week now starts ten hours earlier in Auckland's timezone.
    await set_timezone(runtime, here, "Pacific/Auckland")
    await _assert_same_as_summed(runtime, here)  # no row keyed at the new start yet: the rows keyed elsewhere tell
    card = await post(runtime, here)
    await answer(runtime, card, "user0", right=True)
    await _assert_same_as_summed(runtime, here)


async def test_cohort_vs_cohort_plans_no_sum_for_cohorts_started_later_when_there_is_none(
    runtime: Runtime, clock: ManualClock
) -> None:
    """A week's, a month's or a season's statement sums the answers of the cohorts started after its start only
    when the workspace has one: the branch was in every such statement, and its planned cost kept PostgreSQL on
    custom plans (planned at each call) at 10M answers. Once a later cohort exists, the board reads its lookups
    again and sums that cohort's answers."""
    here = ChannelRef("fake", "W1", "C1")
    clock.set(datetime(2026, 5, 28, 9, 0, tzinfo=UTC))
    await _run(runtime, here, "lead", "cohort create early start:2026-05-25")
    await _run(runtime, here, "user0", "cohort join early")
    clock.set(datetime(2026, 6, 2, 9, 0, tzinfo=UTC))  # the week and the month started on Monday 1 June
    await _run(runtime, here, "lead", "season start summer")
    card = await post(runtime, here)
    await answer(runtime, card, "user0", right=True)
    windows = (Window.WEEK, Window.MONTH, Window.SEASON)
    later = "cohorts.starts_at >"  # the condition of the branch of the cohorts started after the window's start
    for _ in range(2):  # a first call (lookups on their own) and a warm one (lookups beside the board)
        with read_only_statements(runtime) as sent:
            for window in windows:
                await runtime.stats.cohort_board(here, window=window, now=clock.now())
        assert sent and not any(later in statement for statement in sent), sent
    summed = Stats(runtime.uow, rollups=False)
    # The week's and the month's rows were keyed in UTC; in Auckland's timezone they start 12 hours earlier, and no
    # row is keyed there yet: the board reads empty and says it was keyed elsewhere, so it sums the answers.
    await set_timezone(runtime, here, "Pacific/Auckland")
    for window in windows:
        board = await runtime.stats.cohort_board(here, window=window, now=clock.now())
        assert [row.name for row in board.rows] == ["early"], window
        assert board == await summed.cohort_board(here, window=window, now=clock.now()), window
    clock.advance(timedelta(days=1))
    await _run(runtime, here, "lead", "cohort create late start:2026-06-03")
    await _run(runtime, here, "user1", "cohort join late")
    card = await post(runtime, here)
    await answer(runtime, card, "user1", right=True)
    for window in windows:
        with read_only_statements(runtime) as sent:
            board = await runtime.stats.cohort_board(here, window=window, now=clock.now())
        assert any(later in statement for statement in sent), (window, sent)
        assert {row.name for row in board.rows} == {"early", "late"}, window
        assert board == await summed.cohort_board(here, window=window, now=clock.now()), window
