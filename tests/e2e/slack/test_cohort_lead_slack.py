"""The onboarding lead's view on Slack, through the real slack-bolt app against the fake Web API: the card says it
is a cohort question, `/quiz cohort show` lists who is behind, `/quiz cohort remind` DMs each of them."""

from __future__ import annotations

from bot.runtime import Runtime
from tests.fakes.slack_api import FakeSlack, validate_blocks
from tests.slack_harness import running_adapter


async def test_cohort_remind_sends_each_member_who_is_behind_a_direct_message(
    runtime: Runtime, fake: FakeSlack
) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("cohort create spring packs:data-parallelism")
        await slack.ephemerals(1)  # Bolt works after the ack: wait for each reply before the next command
        for n, user in enumerate(("U0BOB", "U0CAROL"), start=2):
            await slack.command("cohort join spring", user_id=user)
            assert "You joined cohort spring." in (await slack.ephemerals(n))[-1]["text"]
        for n in range(1, 4):
            await slack.command("cohort next spring")
            card = await slack.posted_card(n)
        assert card["blocks"][-1]["elements"][1]["text"] == "Cohort spring · open until revealed"
        await slack.idle()  # the third post is recorded as published once chat.postMessage has answered, not before

        await slack.command("cohort show spring")
        shown = (await slack.ephemerals(4))[-1]["text"]
        assert "bob — 0/3 answered · 0 right · 0 pts · never answered · ⚠ behind" in shown

        await slack.command("cohort remind spring", user_id="U0BOB")  # not the lead, not an admin
        assert "Only leads, admins and the creator" in (await slack.ephemerals(5))[-1]["text"]
        await slack.command("cohort remind spring")
        reply = (await slack.ephemerals(6))[-1]
        assert reply["user"] == "U0ALICE"
        assert reply["text"].startswith("Nudged 2 members of spring privately.")
    dms = {call.args["channel"]: call for call in fake.calls_to("chat.postMessage", ok=True)[3:]}
    assert set(dms) == {"U0BOB", "U0CAROL"}  # addressed to the user: the app's own conversation with them
    for user in ("U0BOB", "U0CAROL"):
        [message] = fake.messages_in("D" + user.removeprefix("U"))
        assert message["text"].startswith("You have 3 questions waiting in cohort spring.")
        assert validate_blocks(message["blocks"]) == []
    assert not any(m["text"].startswith("You have") for m in fake.messages_in("C0001"))  # nothing in the channel
