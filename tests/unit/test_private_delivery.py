"""Cohort schedules and private delivery without a database: the grammar, the member's timezone, the wording."""

from __future__ import annotations

from datetime import date
from zoneinfo import ZoneInfo

import pytest

from bot.commands import AddCohortSchedule, AddSchedule, CreateCohort, SetCohort, parse_command
from bot.domain import ChannelRef, Delivery
from bot.domain.views import CohortView, ScheduleView
from bot.errors import CommandError
from bot.ports import direct_delivery_of
from bot.schedule_rules import parse_rule
from bot.scheduling.delivery import member_zone
from bot.wording import cohorts as cohort_words
from bot.wording import schedules as schedule_words
from tests.fakes.fake_platform import DirectFakePlatform, FakePlatform


def test_a_schedule_naming_a_cohort_is_a_cohort_schedule() -> None:
    assert parse_command("schedule add weekdays 09:00 cohort:Hires tz:Europe/Helsinki close:2h") == (
        AddCohortSchedule(
            rule=parse_rule("weekdays 09:00"),
            name="Hires",
            timezone="Europe/Helsinki",
            close_after=parse_command("schedule add daily 09:00 close:2h").close_after,  # type: ignore[union-attr]
        )
    )
    assert isinstance(parse_command("schedule add daily 09:00 data-parallelism"), AddSchedule)


def test_cohort_create_and_set_take_a_delivery() -> None:
    assert parse_command("cohort create hires start:2026-03-02 deliver:dm") == CreateCohort(
        name="hires", start=date(2026, 3, 2), delivery=Delivery.DM
    )
    assert parse_command("cohort create hires").delivery is None  # type: ignore[union-attr]  # the `cohort-private` setting decides
    assert parse_command("cohort set hires deliver:channel") == SetCohort("hires", Delivery.CHANNEL)
    assert parse_command("cohort set hires delivery:DM") == SetCohort("hires", Delivery.DM)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("schedule add daily 09:00 cohort:hires data-parallelism", "leave the packs out"),
        ("schedule add daily 09:00 cohort:-x", "is not a cohort name"),
        ("schedule add daily 09:00 colour:blue", "`cohort:NAME`"),
        ("cohort create hires deliver:pigeon", "`deliver:pigeon` is not a delivery"),
        ("cohort set hires", "Usage: `/quiz cohort set NAME deliver:dm`"),
        ("cohort set hires dm", "Usage: `/quiz cohort set NAME deliver:dm`"),
        ("cohort set hires deliver:", "is not a delivery"),
    ],
)
def test_delivery_grammar_errors_say_what_to_type(text: str, message: str) -> None:
    with pytest.raises(CommandError, match=message.replace("(", r"\(").replace("`", "`")):
        parse_command(text)


def test_a_member_without_a_usable_profile_timezone_gets_the_schedules() -> None:
    schedule = ZoneInfo("Europe/Helsinki")
    assert member_zone("America/New_York", schedule) == ZoneInfo("America/New_York")
    assert member_zone(None, schedule) is schedule  # not asked yet, or the platform has none
    assert member_zone("", schedule) is schedule  # asked: the profile has none
    assert member_zone("Mars/Olympus_Mons", schedule) is schedule


def test_private_delivery_is_an_optional_capability_of_a_platform() -> None:
    assert direct_delivery_of(DirectFakePlatform()) is not None
    assert direct_delivery_of(FakePlatform()) is None
    assert direct_delivery_of(None) is None


def test_the_schedule_listing_and_cohort_show_say_how_a_cohort_is_delivered() -> None:
    view = ScheduleView(
        id=3,
        channel=ChannelRef("fake", "W1", "C1"),
        rule=parse_rule("weekdays 09:00"),
        timezone="UTC",
        pack_ids=(),
        close_after=None,
        enabled=True,
        paused_reason=None,
        next_slot=None,
        created_by="lead",
        cohort="hires",
        delivery=Delivery.DM,
    )
    assert "cohort hires's curriculum, privately to each member at this time in their own timezone" in (
        schedule_words.summary(view)
    )
    assert "packs:" not in schedule_words.summary(view)
    added = schedule_words.added(view, [])
    assert added.lines[0].startswith("Delivers cohort hires's curriculum, privately")
    cohort = CohortView(
        name="hires", start_date=date(2026, 1, 5), created_by="lead", curriculum=(), members=(), delivery=Delivery.DM
    )
    assert "Delivery: delivered privately: each member gets the next question as a direct message" in (
        cohort_words.show_message(cohort).text
    )
    channel_cohort = CohortView(name="x", start_date=date(2026, 1, 5), created_by=None, curriculum=(), members=())
    assert (
        "Delivery: delivered in the channel of each of its schedules." in cohort_words.show_message(channel_cohort).text
    )
