"""Roles through the real discord.py client against the loopback fake Discord: a member granted lead from Discord's
member picker adds a schedule at once, a server role granted lead counts for its members, and a member's early
`/quiz reveal` of a scheduled question is refused while a lead's is not."""

from __future__ import annotations

from datetime import UTC, datetime

from adapters.discord.adapter import DiscordAdapter
from bot.clock import ManualClock
from bot.runtime import Runtime
from tests.discord_support import card_messages, serving, slash, text_of
from tests.fakes.discord_api import FakeDiscord

MANAGE_SERVER = 1 << 5
MENTIONABLE = 9


async def test_leads_granted_from_discord_schedule_and_a_members_early_reveal_is_refused(
    runtime: Runtime, fake: FakeDiscord, clock: ManualClock
) -> None:
    clock.set(datetime(2026, 1, 5, 8, 0, tzinfo=UTC))
    managers = fake.add_role("managers", permissions=MANAGE_SERVER)
    quizmasters = fake.add_role("quizmasters")
    fake.add_user("ada", user_id=1001, roles=[managers["id"]])
    ben = fake.add_user("ben", user_id=1002)
    fake.add_user("cara", user_id=1003, roles=[quizmasters["id"]])
    fake.add_user("dan", user_id=1004)
    ada = {"user_id": 1001, "user_name": "ada", "roles": [managers["id"]]}
    async with serving(DiscordAdapter(runtime), fake):
        refused = await slash(fake, "add", {"when": "daily 09:00", "tz": "UTC"}, group="schedule", user_id=1002)
        assert refused.ephemeral and text_of(refused).startswith("Only leads and admins can add schedules")

        granted = await slash(
            fake,
            "grant",
            {"user": {"type": MENTIONABLE, "value": "1002"}, "role": "lead"},
            group="role",
            resolved={"users": {"1002": ben}},
            **ada,
        )
        assert granted.ephemeral and text_of(granted).startswith("ben is now lead here."), text_of(granted)
        added = await slash(fake, "add", {"when": "daily 09:00", "tz": "UTC"}, group="schedule", user_id=1002)
        assert "Scheduled #1: a question every day at 09:00, UTC time." in text_of(added), text_of(added)

        role = await slash(
            fake,
            "grant",
            {"user": {"type": MENTIONABLE, "value": quizmasters["id"]}, "role": "lead"},
            group="role",
            resolved={"roles": {quizmasters["id"]: quizmasters}},
            **ada,
        )
        assert text_of(role).startswith("everyone with the server role quizmasters is now lead here."), text_of(role)
        started = await slash(fake, "start", {"name": "q1"}, group="season", user_id=1003, roles=[quizmasters["id"]])
        assert "Season q1 has started" in text_of(started), text_of(started)

        clock.set(datetime(2026, 1, 5, 9, 0, 5, tzinfo=UTC))
        await runtime.ticker.tick()
        assert len(card_messages(fake)) == 1
        early = await slash(fake, "reveal", user_id=1004)
        assert early.ephemeral
        assert text_of(early) == "Only leads and admins can reveal a scheduled question early; its schedule reveals it."
        revealed = await slash(fake, "reveal", user_id=1003, roles=[quizmasters["id"]])
        assert text_of(revealed).startswith("Revealed:"), text_of(revealed)

        listed = await slash(fake, "list", group="role", **ada)
        assert "lead: ben (granted by ada)" in text_of(listed)
        assert "lead: everyone with the server role quizmasters (granted by ada)" in text_of(listed)
