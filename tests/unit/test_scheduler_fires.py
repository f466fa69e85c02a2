"""The fire key is written and read in one place, and a claim is built from its schedule in one place."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.db.models import Schedule
from bot.domain import ChannelRef
from bot.domain.schedules import FireKey, Slot
from bot.scheduling.fires import Claim


def test_a_fire_key_is_the_schedule_and_the_local_slot_and_reads_back() -> None:
    key = FireKey(schedule_id=12, slot_key="2026-01-05T09:00")
    assert str(key) == "12:2026-01-05T09:00"
    assert FireKey.parse(str(key)) == key


@pytest.mark.parametrize("text", ["", "12", "12:", ":2026-01-05T09:00", "x:2026-01-05T09:00", "-1:2026-01-05T09:00"])
def test_what_is_not_a_fire_key_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a fire key"):
        FireKey.parse(text)


def test_a_claim_takes_what_it_posts_from_its_schedule() -> None:
    schedule = Schedule(
        id=7,
        rule="0 9 * * 1-5",
        timezone="Europe/Helsinki",
        pack_ids=["data-parallelism"],
        close_after_seconds=7200,
    )
    slot = Slot(key="2026-01-05T09:00", due=datetime(2026, 1, 5, 7, 0, tzinfo=UTC))
    channel = ChannelRef("fake", "W1", "C1")
    claim = Claim.of(schedule, fire_id=3, attempts=2, slot=slot, channel=channel)
    assert (claim.fire_id, claim.attempts, claim.schedule_id) == (3, 2, 7)
    assert claim.key == FireKey(7, "2026-01-05T09:00")
    assert claim.source_ref == "7:2026-01-05T09:00"
    assert claim.pack_ids == ("data-parallelism",)
    assert claim.close_after == timedelta(hours=2)
    assert claim.zone == ZoneInfo("Europe/Helsinki")
    assert claim.rule.cron == "0 9 * * 1-5"
    schedule.close_after_seconds = None
    assert Claim.of(schedule, fire_id=3, attempts=1, slot=slot, channel=channel).close_after is None
