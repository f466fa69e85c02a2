"""The onboarding lead's view on Discord, through the real discord.py client against the fake: a cohort card says
so, `/quiz cohort show` lists who is behind, `/quiz cohort remind` sends each of them a DM (one who refuses DMs is
counted, not an error)."""

from __future__ import annotations

from adapters.discord.adapter import DiscordAdapter
from bot.runtime import Runtime
from tests.discord_support import card_messages, serving, slash, text_of
from tests.fakes.discord_api import FakeDiscord


async def test_cohort_show_and_remind_by_direct_message(runtime: Runtime, fake: FakeDiscord) -> None:
    fake.add_user("alice", user_id=1001)
    fake.add_user("ben", user_id=1002)
    fake.add_user("cara", user_id=1003)
    async with serving(DiscordAdapter(runtime), fake):
        lead = {"user_id": 1001, "user_name": "alice"}
        await slash(fake, "create", {"name": "spring", "packs": "data-parallelism"}, group="cohort", **lead)
        for user_id, name in ((1002, "ben"), (1003, "cara")):
            joined = await slash(fake, "join", {"name": "spring"}, group="cohort", user_id=user_id, user_name=name)
            assert "You joined cohort spring." in text_of(joined)
        for _ in range(3):
            await slash(fake, "next", {"name": "spring"}, group="cohort", **lead)
        cards = card_messages(fake)
        assert len(cards) == 3
        assert cards[-1]["embeds"][-1]["description"].endswith("-# Cohort spring · open until revealed")

        shown = text_of(await slash(fake, "show", {"name": "spring"}, group="cohort", **lead))
        assert "ben — 0/3 answered · 0 right · 0 pts · never answered · ⚠ behind" in shown

        refused = await slash(fake, "remind", {"name": "spring"}, group="cohort", user_id=1002, user_name="ben")
        assert "Only leads, admins and the creator" in text_of(refused)
        fake.clear_records()
        fake.fail_next("POST", "/channels/{id}/messages", "cannot_dm")  # the first member refuses DMs
        reminded = await slash(fake, "remind", {"name": "spring"}, group="cohort", **lead)
        assert reminded.ephemeral
        assert "Nudged 1 member of spring privately." in text_of(reminded)
        assert "Could not reach 1 member (they may not accept direct messages)." in text_of(reminded)
        opened = [r.json["recipient_id"] for r in fake.requests_to("POST", "/users/@me/channels")]
        assert sorted(str(r) for r in opened) == ["1002", "1003"]
        [dm] = [r for r in fake.requests_to("POST", "/channels/{id}/messages") if r.status == 200]
        assert dm.json["embeds"][0]["title"] == "You have 3 questions waiting in cohort spring."
        assert dm.json["allowed_mentions"] == {"parse": []}
