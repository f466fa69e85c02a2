"""The settings form on Discord (the real discord.py client, the loopback fake, gateway INTERACTION_CREATEs): the
`edit` of `/quiz settings channel` answers with a modal of the channel's settings; a value that is not allowed is
answered privately with its problem and nothing is stored; a good one is stored, with no restart."""

from __future__ import annotations

from adapters.discord.adapter import DiscordAdapter
from bot.runtime import Runtime
from tests.discord_support import serving, slash, text_of
from tests.fakes.discord_api import FakeDiscord

MANAGE_SERVER = 1 << 5
FIRST_PAGE = ["timezone", "now-posters", "now-cooldown", "now-limit", "close-after"]


async def test_the_settings_modal_refuses_a_bad_value_and_stores_a_good_one(
    runtime: Runtime, fake: FakeDiscord
) -> None:
    managers = fake.add_role("managers", permissions=MANAGE_SERVER)
    ada = {"user_id": 1001, "user_name": "ada", "roles": [managers["id"]]}
    submitter = {"user_id": 1001, "user_name": "ada", "permissions": MANAGE_SERVER}
    async with serving(DiscordAdapter(runtime), fake):
        opened = await slash(fake, "channel", {"key": "edit"}, group="settings", **ada)
        assert opened.type == 9, opened
        assert [row["components"][0]["custom_id"] for row in opened.data["components"]] == FIRST_PAGE

        def typed(values: dict[str, str]) -> dict[str, str]:
            return {key: values.get(key, "") for key in FIRST_PAGE}

        bad = typed({"now-cooldown": "10m", "now-limit": "lots"})
        refused = await fake.send_interaction(fake.modal_submit_interaction(opened.data["custom_id"], bad, **submitter))
        assert refused is not None and refused.ephemeral and "lots" in text_of(refused)
        shown = await slash(fake, "channel", group="settings", **ada)
        assert "10 min" not in text_of(shown)  # nothing of the refused form was stored

        good = typed({"now-cooldown": "10m"})
        saved = await fake.send_interaction(fake.modal_submit_interaction(opened.data["custom_id"], good, **submitter))
        assert saved is not None and saved.ephemeral
        after = await slash(fake, "channel", group="settings", **ada)
        assert "now-cooldown" in text_of(after) and "10 min" in text_of(after), text_of(after)
