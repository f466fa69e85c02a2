"""Settings in chat through the real discord.py client against the loopback fake Discord: `/quiz settings channel`
with its key and value options (a member is refused, a Manage Server admin is not), and the channel's cooldown then
refuses a member's second `/quiz now` with no restart."""

from __future__ import annotations

from adapters.discord.adapter import DiscordAdapter
from bot.runtime import Runtime
from tests.discord_support import card_messages, serving, slash, text_of
from tests.fakes.discord_api import FakeDiscord

MANAGE_SERVER = 1 << 5


async def test_a_cooldown_set_from_discord_refuses_the_next_now(runtime: Runtime, fake: FakeDiscord) -> None:
    managers = fake.add_role("managers", permissions=MANAGE_SERVER)
    fake.add_user("ada", user_id=1001, roles=[managers["id"]])
    fake.add_user("ben", user_id=1002)
    fake.add_user("cara", user_id=1003)
    ada = {"user_id": 1001, "user_name": "ada", "roles": [managers["id"]]}
    async with serving(DiscordAdapter(runtime), fake):
        options = {"key": "now-cooldown", "value": "10m"}
        refused = await slash(fake, "channel", options, group="settings", user_id=1002)
        assert refused.ephemeral and text_of(refused).startswith("Only leads and admins can change this channel's")
        changed = await slash(fake, "channel", options, group="settings", **ada)
        assert "`now-cooldown` for this channel: not set → 10 min" in text_of(changed), text_of(changed)
        bad = await slash(fake, "channel", {"key": "now-limit", "value": "lots"}, group="settings", **ada)
        assert text_of(bad).startswith("`lots` is not allowed for `now-limit`"), text_of(bad)

        await slash(fake, "now", user_id=1002)
        assert len(card_messages(fake)) == 1
        soon = await slash(fake, "now", user_id=1003)
        assert soon.ephemeral and text_of(soon).startswith("You can post the next question here in 10 min")
        assert len(card_messages(fake)) == 1

        shown = await slash(fake, "show", group="settings", user_id=1003)
        assert "`now-cooldown` 10 min (set for this channel)" in text_of(shown), text_of(shown)
