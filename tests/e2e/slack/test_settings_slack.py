"""Settings in chat through the real slack-bolt app against the loopback fake Slack: a member may look but not
change; an admin's channel cooldown set with `/quiz settings` refuses a member's next `/quiz now` at once (no
restart), keeps `/quiz now` for leads, and the history says who changed what."""

from __future__ import annotations

from bot.runtime import Runtime
from tests.fakes.slack_api import FakeSlack
from tests.slack_harness import running_adapter


async def test_a_cooldown_set_in_slack_refuses_the_next_now_with_no_restart(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("settings channel now-cooldown 10m", user_id="U0BOB")
        refused = (await slack.ephemerals(1))[-1]
        assert refused["user"] == "U0BOB"
        assert refused["text"].startswith("Only leads and admins can change this channel's settings")

        await slack.command("settings channel now-cooldown 10m", user_id="U0ADMIN")
        assert "`now-cooldown` for this channel: not set → 10 min" in (await slack.ephemerals(2))[-1]["text"]

        await slack.command("now", user_id="U0BOB")
        await slack.posted_card(1)
        await slack.command("now", user_id="U0CAROL")
        soon = (await slack.ephemerals(3))[-1]
        assert soon["user"] == "U0CAROL"
        assert soon["text"].startswith("You can post the next question here in 10 min"), soon["text"]

        await slack.command("settings channel now-posters leads", user_id="U0ADMIN")
        await slack.ephemerals(4)
        await slack.command("settings channel now-cooldown default", user_id="U0ADMIN")
        await slack.ephemerals(5)
        await slack.command("now", user_id="U0CAROL")
        leads_only = (await slack.ephemerals(6))[-1]["text"]
        assert leads_only == (
            "Only leads and admins can post a question on demand in this channel (setting `now-posters`)."
        )

        await slack.command("settings history", user_id="U0CAROL")
        history = (await slack.ephemerals(7))[-1]["text"]
        assert history.count("`now-cooldown` for #C0001") == 2 and "`now-posters` for #C0001" in history
