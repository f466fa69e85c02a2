"""What a question card says about itself, as posted through the real use cases (on SQLite and PostgreSQL):
where it came from (scheduled, cohort, on demand) and when it closes, in the schedule's, channel's or workspace's
timezone; and a channel's first post does not read like its last question."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.clock import ManualClock
from bot.domain import ChannelRef, PostSource
from bot.runtime import Runtime
from bot.service.facade import Invocation
from bot.wording.cards import card_about, card_footer
from tests.conftest import make_user
from tests.fakes.fake_platform import FakePlatform
from tests.scoring_helpers import set_timezone

MONDAY_0830 = datetime(2026, 1, 5, 6, 30, tzinfo=UTC)  # 08:30 in Helsinki


async def test_a_scheduled_card_says_so_and_closes_at_the_schedules_local_time(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef, clock: ManualClock
) -> None:
    clock.set(MONDAY_0830)
    added = await runtime.app.handle_command(
        Invocation(channel, make_user("ada"), "schedule add weekdays 09:30 tz:Europe/Helsinki close:2h", is_admin=True)
    )
    assert added.ok, added.message
    clock.set(datetime(2026, 1, 5, 7, 30, 5, tzinfo=UTC))
    await runtime.ticker.tick()
    [sent] = platform.of_kind("post_card")
    assert sent.card is not None
    assert sent.card.source is PostSource.SCHEDULE
    assert card_about(sent.card) == "Scheduled · open 2 h, closes at 11:30 EET"


async def test_a_cohort_card_names_its_cohort_and_an_on_demand_card_speaks_the_workspaces_time(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef, clock: ManualClock
) -> None:
    clock.set(MONDAY_0830)
    await set_timezone(runtime, channel, "Europe/Helsinki")
    lead = make_user("lead")
    await runtime.app.handle_command(Invocation(channel, lead, "cohort create spring-26 packs:data-parallelism"))
    assert (await runtime.app.handle_command(Invocation(channel, lead, "cohort next spring-26"))).ok
    await runtime.app.handle_command(Invocation(channel, lead, "now"))
    cohort_card, on_demand = (s.card for s in platform.of_kind("post_card"))
    assert cohort_card is not None and on_demand is not None
    assert card_about(cohort_card) == "Cohort spring-26 · open until revealed"
    assert card_about(on_demand) == "On demand · open until revealed"
    assert on_demand.timezone == "Europe/Helsinki"
    revealed = await runtime.app.reveal(cohort_card.post_id)
    assert card_about(revealed) == "Cohort spring-26"


async def test_the_first_post_of_a_packs_last_question_does_not_read_like_the_last_one(
    runtime: Runtime, channel: ChannelRef
) -> None:
    pack = runtime.catalog.get("data-parallelism")
    last = pack.questions[-1]
    posted = await runtime.quiz.post_question(channel, question=(pack.id, last.key))
    footer = card_footer(posted.card)
    assert "8 of 8" not in footer
    assert footer == "Data Parallelism Quiz · question 8 · 8 questions in the pack · 0 answers"
