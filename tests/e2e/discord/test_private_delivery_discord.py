"""A cohort delivered by direct message, through the real discord.py client and the loopback fake Discord: the DM
opened with POST /users/@me/channels, the card posted there at the schedule's time (Discord profiles have no
timezone), a click in the DM (which arrives without a guild) counted for the member, anyone else's refused."""

from __future__ import annotations

from datetime import UTC, datetime

from adapters.discord.adapter import DiscordAdapter
from bot.clock import ManualClock
from bot.runtime import Runtime
from tests.discord_support import answer_rows, card_messages, click, custom_ids, serving, slash, text_of
from tests.fakes.discord_api import FakeDiscord

SUNDAY = datetime(2026, 1, 4, 6, 0, tzinfo=UTC)


async def test_a_dm_cohort_gets_its_question_in_a_direct_message_and_only_the_member_click_counts(
    runtime: Runtime, fake: FakeDiscord, clock: ManualClock
) -> None:
    clock.set(SUNDAY)
    fake.add_user("lead", user_id=3001)
    fake.add_user("bob", user_id=3002)
    fake.add_user("eve", user_id=3003)
    async with serving(DiscordAdapter(runtime), fake):
        created = await slash(
            fake,
            "create",
            {"name": "hires", "packs": "data-parallelism", "deliver": "dm"},
            group="cohort",
            user_id=3001,
        )
        assert "delivered privately" in text_of(created), text_of(created)
        joined = await slash(fake, "join", {"name": "hires"}, group="cohort", user_id=3002)
        assert "You joined cohort hires." in text_of(joined)
        added = await slash(
            fake,
            "add",
            {"when": "weekdays 09:00", "tz": "Europe/Helsinki", "cohort": "hires"},
            group="schedule",
            user_id=3001,
        )
        assert "privately to each member" in text_of(added), text_of(added)

        clock.set(datetime(2026, 1, 5, 7, 0, 5, tzinfo=UTC))  # Monday 09:00 in Helsinki, the schedule's timezone
        report = await runtime.ticker.tick()
        assert len(report.delivered) == 1
        (opened,) = fake.requests_to("POST", "/users/@me/channels")
        assert opened.status == 200 and str(opened.json["recipient_id"]) == "3002"
        dm_channel = str(opened.response["id"])
        (card,) = [m for m in fake.channel_messages(dm_channel) if m["embeds"]]
        assert card_messages(fake) == []  # nothing in the server channel

        refused = await click(fake, card, custom_ids(card)[0], user_id=3003, user_name="eve")
        assert refused.ephemeral
        assert text_of(refused).startswith("That question was sent privately to another member of the cohort")
        assert await answer_rows(runtime) == []

        answered = await click(fake, card, custom_ids(card)[0], user_id=3002, user_name="bob")
        assert answered.ephemeral and "not recorded" not in text_of(answered), text_of(answered)
        (row,) = await answer_rows(runtime)
        assert row[1] == "3002"

        shown = await slash(fake, "show", {"name": "hires"}, group="cohort", user_id=3001)
        assert "bob — 1/1 answered" in text_of(shown), text_of(shown)
