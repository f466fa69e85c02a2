"""Cohort schedules and private delivery, through the unit of work on SQLite and PostgreSQL with a controlled clock.

A cohort schedule posts the cohort's curriculum in order (cohort posts: progress and boards count them, streaks do
not); a cohort delivered by direct message gets each fire member by member, at the schedule's time in each member's
own timezone, exactly once across replicas and crashes; only the recipient's click on a private post counts.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

from bot.clock import ManualClock
from bot.config import Settings
from bot.db.models import MemberFire, Post, PostRecipient, Schedule, ScheduleFire, User
from bot.domain import AnswerOutcome, ChannelRef, PostSource, UserRef
from bot.errors import NotYourQuestion, PostedElsewhere
from bot.runtime import Runtime, build_runtime
from bot.scheduling.fanout import FanOut
from bot.scheduling.leases import Leases, channel_fires
from bot.scheduling.ticker import Ticker
from bot.service.facade import Invocation, Reply
from tests.conftest import make_user
from tests.fakes.fake_platform import DirectFakePlatform, FakePlatform
from tests.fakes.rate_limited import VirtualTime

LEASE = timedelta(minutes=5)
SUNDAY = datetime(2026, 1, 4, 6, 0, tzinfo=UTC)  # January: Helsinki is UTC+2, New York UTC-5
LEAD, ANN, BOB, EVE = make_user("lead"), make_user("ann"), make_user("bob"), make_user("eve")
CURRICULUM = [
    "dp-gpu-holds",
    "dp-sync-collective",
    "dp-memory-limit",
]


def make_ticker(runtime: Runtime, clock: ManualClock, *, replica: str = "A") -> Ticker:
    time = VirtualTime(clock)
    return Ticker(
        uow=runtime.uow,
        post_question=runtime.quiz.post_question,
        post_cohort=runtime.app.cohorts.post_next_question,
        send_privately=runtime.app.cohorts.send_next_privately,
        reveal_post=runtime.app.reveal,
        platforms=runtime.platforms,
        clock=clock,
        fanout=FanOut(monotonic=time.monotonic, sleep=time.sleep),
        lease=LEASE,
        replica=replica,
    )


async def run(runtime: Runtime, channel: ChannelRef, who: UserRef, text: str, *, admin: bool = False) -> Reply:
    return await runtime.app.handle_command(Invocation(channel, who, text, is_admin=admin))


async def rows(runtime: Runtime, model: type[Any]) -> list[Any]:
    async with runtime.db.transaction() as session:
        return list((await session.execute(select(model))).scalars())


async def prompts_of(runtime: Runtime, keys: list[str]) -> list[str]:
    from bot.db.models import QuestionRow

    async with runtime.db.transaction() as session:
        found = {
            row.key: row.prompt
            for row in (await session.execute(select(QuestionRow).where(QuestionRow.pack_id == "data-parallelism")))
            .scalars()
            .all()
        }
    return [found[key] for key in keys]


@pytest.fixture
def direct(runtime: Runtime) -> DirectFakePlatform:
    fake = DirectFakePlatform(timezones={ANN.user_id: "Europe/Helsinki", BOB.user_id: "America/New_York"})
    runtime.platforms.register(fake)  # replaces the plain fake platform of the same name
    return fake


async def dm_cohort(runtime: Runtime, channel: ChannelRef, clock: ManualClock, *members: UserRef) -> None:
    clock.set(SUNDAY)
    created = await run(runtime, channel, LEAD, "cohort create hires packs:data-parallelism deliver:dm")
    assert created.ok, created.message
    for member in members:
        assert (await run(runtime, channel, member, "cohort join hires")).ok
    added = await run(runtime, channel, LEAD, "schedule add daily 09:00 tz:UTC cohort:hires")
    assert added.ok, added.message


# --- cohort schedules in a channel -------------------------------------------------------------------------------


async def test_a_cohort_schedule_posts_the_curriculum_in_order_as_cohort_posts(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef, clock: ManualClock
) -> None:
    clock.set(SUNDAY)
    assert (await run(runtime, channel, LEAD, "cohort create hires packs:data-parallelism")).ok
    added = await run(runtime, channel, LEAD, "schedule add daily 09:00 tz:UTC cohort:hires")
    assert added.ok and "cohort hires's curriculum, in this channel" in added.message.text
    ticker = make_ticker(runtime, clock)
    for day in range(3):
        clock.set(datetime(2026, 1, 5 + day, 9, 0, 1, tzinfo=UTC))
        report = await ticker.tick()
        assert len(report.posted) == 1
    posted = [sent.card.prompt for sent in platform.of_kind("post_card") if sent.card is not None]
    assert posted == await prompts_of(runtime, CURRICULUM)
    posts = sorted(await rows(runtime, Post), key=lambda p: p.id)
    (cohort_id,) = {p.source_ref for p in posts}
    assert {p.source for p in posts} == {PostSource.COHORT.value}
    assert [p.fire_key for p in posts] == [
        f"{posts[0].fire_key.split(':')[0]}:2026-01-0{5 + day}T09:00" for day in range(3)
    ]
    shown = await run(runtime, channel, LEAD, "cohort show hires")
    assert "Curriculum: 3 of 8 questions asked" in shown.message.text
    assert "Delivery: delivered in the channel of each of its schedules." in shown.message.text
    listing = await run(runtime, channel, LEAD, "schedule list")
    assert "cohort hires's curriculum, in this channel" in listing.message.text
    assert cohort_id is not None


async def test_a_finished_curriculum_pauses_its_cohort_schedule_with_the_reason(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef, clock: ManualClock
) -> None:
    clock.set(SUNDAY)
    assert (await run(runtime, channel, LEAD, "cohort create hires packs:data-parallelism")).ok
    assert (await run(runtime, channel, LEAD, "schedule add daily 09:00 tz:UTC cohort:hires")).ok
    ticker = make_ticker(runtime, clock)
    for day in range(9):
        clock.set(datetime(2026, 1, 5, 9, 0, 1, tzinfo=UTC) + timedelta(days=day))
        await ticker.tick()
    assert len(platform.of_kind("post_card")) == 8
    (schedule,) = await rows(runtime, Schedule)
    assert not schedule.enabled
    assert schedule.paused_reason == "the cohort's curriculum has been delivered in full"


async def test_only_admins_and_the_cohort_creator_put_a_cohort_on_a_schedule(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    clock.set(SUNDAY)
    assert (await run(runtime, channel, LEAD, "cohort create hires")).ok
    refused = await run(runtime, channel, EVE, "schedule add daily 09:00 cohort:hires")
    assert not refused.ok
    assert refused.message.text == "Only leads, admins and the creator of cohort hires can add schedules."
    assert not (await run(runtime, channel, LEAD, "schedule add daily 09:00")).ok  # a pack schedule: admins only
    assert (await run(runtime, channel, EVE, "schedule add daily 10:00 cohort:hires", admin=True)).ok
    again = await run(runtime, channel, LEAD, "schedule add daily 10:00 cohort:hires")
    assert not again.ok and "already delivers cohort hires" in again.message.text
    assert not (await run(runtime, channel, LEAD, "schedule add daily 11:00 cohort:nobody")).ok


class CrashAfterPostLeases(Leases):
    """A replica that dies right after the platform accepted the post, before recording it."""

    async def finish(self, *args: Any, **kwargs: Any) -> None:
        raise asyncio.CancelledError


async def test_a_cohort_post_of_a_crashed_replica_is_adopted_by_its_fire_key_not_posted_again(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef, clock: ManualClock
) -> None:
    clock.set(SUNDAY)
    assert (await run(runtime, channel, LEAD, "cohort create hires packs:data-parallelism")).ok
    assert (await run(runtime, channel, LEAD, "schedule add daily 09:00 tz:UTC cohort:hires")).ok
    clock.set(datetime(2026, 1, 5, 9, 0, 2, tzinfo=UTC))
    crashing = make_ticker(runtime, clock, replica="A")
    crashing.poster.leases = CrashAfterPostLeases(
        jobs=crashing.jobs, store=channel_fires, clock=clock, replica="A", lease=LEASE
    )
    await crashing.tick()
    assert len(platform.of_kind("post_card")) == 1
    (fire,) = [f for f in await rows(runtime, ScheduleFire) if f.status != "skipped"]  # Sunday's was missed
    assert fire.status == "claimed"
    clock.set(fire.claimed_at + LEASE + timedelta(seconds=1))
    report = await make_ticker(runtime, clock, replica="B").tick()
    assert report.recovered == 1
    assert len(platform.of_kind("post_card")) == 1  # not posted twice
    (fire,) = [f for f in await rows(runtime, ScheduleFire) if f.status != "skipped"]
    (post,) = await rows(runtime, Post)
    assert (fire.status, fire.post_id, post.source) == ("posted", post.id, PostSource.COHORT.value)


class DiesInItsPlatformCall(FakePlatform):
    """The platform takes the next card, and the process dies before it hears so (its message id unrecorded)."""

    dying = False

    async def post_card(self, channel: ChannelRef, card: Any) -> str:
        reference = await super().post_card(channel, card)
        if self.dying:
            self.dying = False
            raise asyncio.CancelledError
        return reference


async def test_the_last_curriculum_question_cut_short_by_a_crash_is_published_again_not_taken_as_done(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    platform = DiesInItsPlatformCall()
    runtime.platforms.register(platform)
    clock.set(SUNDAY)
    assert (await run(runtime, channel, LEAD, "cohort create hires packs:data-parallelism")).ok
    assert (await run(runtime, channel, LEAD, "schedule add daily 09:00 tz:UTC cohort:hires")).ok
    ticker = make_ticker(runtime, clock, replica="A")
    for day in range(7):  # seven of the curriculum's eight questions
        clock.set(datetime(2026, 1, 5, 9, 0, 1, tzinfo=UTC) + timedelta(days=day))
        await ticker.tick()
    platform.dying = True
    clock.set(datetime(2026, 1, 12, 9, 0, 1, tzinfo=UTC))
    await make_ticker(runtime, clock, replica="A").tick()  # the eighth: taken by the platform, then the crash
    (fire,) = [f for f in await rows(runtime, ScheduleFire) if f.status == "claimed"]
    clock.set(fire.claimed_at + LEASE + timedelta(seconds=1))
    report = await make_ticker(runtime, clock, replica="B").tick()
    assert report.recovered == 1 and len(report.posted) == 1, report
    first, again = [sent.card for sent in platform.of_kind("post_card")][-2:]
    assert first is not None and again is not None
    assert again.post_id == first.post_id  # the same post, which the platform can tell (nonce, metadata)
    (fire,) = [f for f in await rows(runtime, ScheduleFire) if f.id == fire.id]
    assert (fire.status, fire.post_id) == ("posted", first.post_id)
    (schedule,) = await rows(runtime, Schedule)
    assert schedule.enabled  # not taken for a finished curriculum


# --- private delivery --------------------------------------------------------------------------------------------


async def test_each_member_gets_the_next_question_privately_at_0900_in_their_own_timezone(
    runtime: Runtime, direct: DirectFakePlatform, channel: ChannelRef, clock: ManualClock
) -> None:
    await dm_cohort(runtime, channel, clock, ANN, BOB)
    ticker = make_ticker(runtime, clock)
    clock.set(datetime(2026, 1, 5, 6, 59, tzinfo=UTC))  # 08:59 in Helsinki
    assert (await ticker.tick()).delivered == []
    clock.set(datetime(2026, 1, 5, 7, 0, 5, tzinfo=UTC))  # 09:00 in Helsinki, 02:00 in New York
    assert len((await ticker.tick()).delivered) == 1
    assert [c.prompt for c in direct.direct_cards(ANN.user_id)] == await prompts_of(runtime, CURRICULUM[:1])
    assert direct.direct_cards(BOB.user_id) == []
    clock.set(datetime(2026, 1, 5, 9, 0, 5, tzinfo=UTC))  # 09:00 UTC, the schedule's own time: nobody
    assert (await ticker.tick()).delivered == []
    clock.set(datetime(2026, 1, 5, 14, 0, 5, tzinfo=UTC))  # 09:00 in New York
    assert len((await ticker.tick()).delivered) == 1
    assert [c.prompt for c in direct.direct_cards(BOB.user_id)] == await prompts_of(runtime, CURRICULUM[:1])
    clock.set(datetime(2026, 1, 6, 7, 0, 5, tzinfo=UTC))  # the next morning in Helsinki: Ann's second question
    await ticker.tick()
    assert [c.prompt for c in direct.direct_cards(ANN.user_id)] == await prompts_of(runtime, CURRICULUM[:2])
    assert not [s for s in direct.of_kind("post_card") if s.channel == channel]  # nothing in the channel
    fires = await rows(runtime, MemberFire)
    assert sorted((f.slot_key, f.status) for f in fires) == [
        ("2026-01-05T09:00", "posted"),
        ("2026-01-05T09:00", "posted"),
        ("2026-01-06T09:00", "posted"),
    ]
    users = {u.external_id: u.timezone for u in await rows(runtime, User)}
    assert (users[ANN.user_id], users[BOB.user_id]) == ("Europe/Helsinki", "America/New_York")
    assert direct.asked_timezone.count(ANN.user_id) == 1  # asked once, then cached
    posts = await rows(runtime, Post)
    assert {p.source for p in posts} == {PostSource.COHORT.value}
    assert len(await rows(runtime, PostRecipient)) == 3
    shown = await run(runtime, channel, LEAD, "cohort show hires")
    assert "Delivery: delivered privately" in shown.message.text
    listing = await run(runtime, channel, LEAD, "schedule list")
    assert "privately to each member at this time in their own timezone" in listing.message.text


async def test_a_member_without_a_profile_timezone_gets_it_at_the_schedules_time(
    runtime: Runtime, direct: DirectFakePlatform, channel: ChannelRef, clock: ManualClock
) -> None:
    await dm_cohort(runtime, channel, clock, EVE)  # no timezone in Eve's profile
    ticker = make_ticker(runtime, clock)
    clock.set(datetime(2026, 1, 5, 7, 0, 5, tzinfo=UTC))
    assert (await ticker.tick()).delivered == []
    clock.set(datetime(2026, 1, 5, 9, 0, 5, tzinfo=UTC))
    assert len((await ticker.tick()).delivered) == 1
    assert len(direct.direct_cards(EVE.user_id)) == 1


async def test_only_the_recipients_click_on_a_private_question_counts_and_the_cohort_counts_it(
    runtime: Runtime, direct: DirectFakePlatform, channel: ChannelRef, clock: ManualClock
) -> None:
    await dm_cohort(runtime, channel, clock, ANN, BOB)
    clock.set(datetime(2026, 1, 5, 7, 0, 5, tzinfo=UTC))
    await make_ticker(runtime, clock).tick()
    (card,) = direct.direct_cards(ANN.user_id)
    in_the_dm = ChannelRef("fake", "W1", f"D-{ANN.user_id}")
    with pytest.raises(NotYourQuestion):
        await runtime.app.answer(post_id=card.post_id, user=BOB, choice_index=card.choice_ids[0], channel=in_the_dm)
    with pytest.raises(PostedElsewhere):  # the recipient, but clicking from another channel
        await runtime.app.answer(post_id=card.post_id, user=ANN, choice_index=card.choice_ids[0], channel=channel)
    result = await runtime.app.answer(
        post_id=card.post_id, user=ANN, choice_index=card.choice_ids[0], channel=in_the_dm
    )
    assert result.outcome is AnswerOutcome.RECORDED
    # A click from the DM that arrives without the post's workspace (as Discord's do) is the recipient's too.
    guildless = UserRef("fake", f"dm-{ANN.user_id}", ANN.user_id, "ann")
    again = await runtime.app.answer(
        post_id=card.post_id,
        user=guildless,
        choice_index=card.choice_ids[1],
        channel=ChannelRef("fake", f"dm-{ANN.user_id}", f"D-{ANN.user_id}"),
    )
    assert again.outcome is AnswerOutcome.ALREADY_ANSWERED
    shown = await run(runtime, channel, LEAD, "cohort show hires")
    assert "ann — 1/1 answered" in shown.message.text
    assert "bob — 0/0 answered" in shown.message.text  # nothing was sent to bob yet (his 09:00 is later)


async def test_cohort_set_switches_delivery_for_the_creator_only(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    clock.set(SUNDAY)
    assert (await run(runtime, channel, LEAD, "cohort create hires")).ok
    refused = await run(runtime, channel, EVE, "cohort set hires deliver:dm")
    assert not refused.ok and "creator of cohort hires" in refused.message.text
    changed = await run(runtime, channel, LEAD, "cohort set hires deliver:dm")
    assert changed.message.title.startswith("Cohort hires is now delivered privately")
    same = await run(runtime, channel, LEAD, "cohort set HIRES deliver:dm")
    assert same.message.title.startswith("Cohort hires is already delivered privately")
    assert (await run(runtime, channel, EVE, "cohort set hires deliver:channel", admin=True)).ok


async def test_a_platform_that_cannot_message_privately_fails_the_members_slot_and_says_why(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef, clock: ManualClock
) -> None:
    await dm_cohort(runtime, channel, clock, EVE)
    clock.set(datetime(2026, 1, 5, 9, 0, 5, tzinfo=UTC))
    report = await make_ticker(runtime, clock).tick()
    assert report.failed and platform.of_kind("post_card") == []
    (fire,) = await rows(runtime, MemberFire)
    assert (fire.status, fire.detail) == ("failed", "fake cannot send direct messages here")


async def test_a_member_whose_dms_are_closed_fails_alone(
    runtime: Runtime, direct: DirectFakePlatform, channel: ChannelRef, clock: ManualClock
) -> None:
    direct.closed.add(EVE.user_id)
    direct.timezones.clear()
    await dm_cohort(runtime, channel, clock, EVE, ANN)
    clock.set(datetime(2026, 1, 5, 9, 0, 5, tzinfo=UTC))
    await make_ticker(runtime, clock).tick()
    assert len(direct.direct_cards(ANN.user_id)) == 1
    statuses = {f.user_id: f.status for f in await rows(runtime, MemberFire)}
    assert sorted(statuses.values()) == ["failed", "posted"]
    (schedule,) = await rows(runtime, Schedule)
    assert schedule.enabled


# --- exactly once across replicas and crashes --------------------------------------------------------------------


@pytest.fixture
async def replicas(settings: Settings, clock: ManualClock) -> AsyncIterator[tuple[Runtime, Runtime]]:
    first = await build_runtime(settings, clock=clock, rng=random.Random(1), migrate=False)
    second = await build_runtime(settings, clock=clock, rng=random.Random(2), migrate=False)
    try:
        yield first, second
    finally:
        await first.aclose()
        await second.aclose()


async def test_two_replicas_ticking_at_once_send_each_member_their_slot_exactly_once(
    replicas: tuple[Runtime, Runtime], channel: ChannelRef, clock: ManualClock
) -> None:
    first, second = replicas
    fakes = [DirectFakePlatform(), DirectFakePlatform()]
    first.platforms.register(fakes[0])
    second.platforms.register(fakes[1])
    members = [make_user(f"m{n}") for n in range(12)]
    await dm_cohort(first, channel, clock, *members)
    a, b = make_ticker(first, clock, replica="A"), make_ticker(second, clock, replica="B")
    for day in range(2):
        clock.set(datetime(2026, 1, 5 + day, 9, 0, 5, tzinfo=UTC))
        await asyncio.gather(a.tick(), b.tick(), a.tick(), b.tick())
    for member in members:
        cards = sorted((card for fake in fakes for card in fake.direct_cards(member.user_id)), key=lambda c: c.post_id)
        sent = [card.prompt for card in cards]
        assert sent == await prompts_of(first, CURRICULUM[:2]), member.user_id
    fires = await rows(first, MemberFire)
    assert len(fires) == 2 * len(members)
    assert {f.status for f in fires} == {"posted"}
    assert {f.claimed_by for f in fires} <= {"A", "B"}


async def test_a_private_delivery_cut_short_by_a_crash_is_sent_once_after_the_lease(
    runtime: Runtime, direct: DirectFakePlatform, channel: ChannelRef, clock: ManualClock
) -> None:
    await dm_cohort(runtime, channel, clock, EVE)
    clock.set(datetime(2026, 1, 5, 9, 0, 5, tzinfo=UTC))
    direct.fail_next_post = asyncio.CancelledError()  # replica A dies inside the platform call
    crashing = make_ticker(runtime, clock, replica="A")
    await crashing.tick()
    (fire,) = await rows(runtime, MemberFire)
    assert (fire.status, fire.claimed_by) == ("claimed", "A")
    b = make_ticker(runtime, clock, replica="B")
    assert (await b.tick()).delivered == []  # the lease has not expired: A might still be sending
    clock.set(fire.claimed_at + LEASE + timedelta(seconds=1))
    report = await b.tick()
    assert report.recovered == 1 and len(report.delivered) == 1
    assert (await b.tick()).delivered == []
    assert len(direct.direct_cards(EVE.user_id)) == 1
    (fire,) = await rows(runtime, MemberFire)
    (post,) = await rows(runtime, Post)
    assert (fire.status, fire.claimed_by, fire.attempts, fire.post_id) == ("posted", "B", 2, post.id)


async def test_a_private_question_sent_before_a_crash_is_adopted_not_sent_again(
    runtime: Runtime, direct: DirectFakePlatform, channel: ChannelRef, clock: ManualClock
) -> None:
    await dm_cohort(runtime, channel, clock, EVE)
    clock.set(datetime(2026, 1, 5, 9, 0, 5, tzinfo=UTC))
    crashing = make_ticker(runtime, clock, replica="A")

    async def crash(*args: Any, **kwargs: Any) -> None:
        raise asyncio.CancelledError  # dies right after the platform accepted the DM, before recording it

    crashing.delivery.leases.finish = crash  # type: ignore[method-assign]
    await crashing.tick()
    assert len(direct.direct_cards(EVE.user_id)) == 1
    (fire,) = await rows(runtime, MemberFire)
    assert fire.status == "claimed"
    clock.set(fire.claimed_at + LEASE + timedelta(seconds=1))
    report = await make_ticker(runtime, clock, replica="B").tick()
    assert report.recovered == 1 and report.delivered == []
    assert len(direct.direct_cards(EVE.user_id)) == 1  # not sent twice
    (fire,) = await rows(runtime, MemberFire)
    (post,) = await rows(runtime, Post)
    assert (fire.status, fire.post_id) == ("posted", post.id)


async def test_a_cohort_schedules_posts_never_touch_streaks_only_channel_schedule_posts_do(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef, clock: ManualClock
) -> None:
    clock.set(SUNDAY)
    assert (await run(runtime, channel, LEAD, "cohort create hires packs:data-parallelism")).ok
    assert (await run(runtime, channel, ANN, "cohort join hires")).ok
    assert (await run(runtime, channel, LEAD, "schedule add daily 09:00 tz:UTC cohort:hires")).ok
    ticker = make_ticker(runtime, clock)
    clock.set(datetime(2026, 1, 5, 9, 0, 1, tzinfo=UTC))
    await ticker.tick()
    (sent,) = platform.of_kind("post_card")
    assert sent.card is not None
    async with runtime.db.transaction() as session:
        from bot.db.models import QuestionVersion

        version = (
            await session.execute(
                select(QuestionVersion).where(QuestionVersion.prompt == sent.card.prompt)  # the version it showed
            )
        ).scalar_one()
    result = await runtime.app.answer(post_id=sent.card.post_id, user=ANN, choice_index=version.correct_index)
    assert result.outcome is AnswerOutcome.RECORDED and result.correct
    me = await run(runtime, channel, ANN, "me")
    # A right answer to a cohort post extends nothing.
    assert "Streaks: 0 scheduled questions right in a row (best 0)" in me.message.text
    shown = await run(runtime, channel, LEAD, "cohort show hires")
    assert "ann — 1/1 answered · 1 right" in shown.message.text
