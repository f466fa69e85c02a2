"""A cohort delivered by direct message, through the real slack-bolt app and the loopback fake Slack: the member's
timezone from users.info, the DM opened with conversations.open, the card posted there at 09:00 in each member's
own timezone, a signed click from the member recorded and one from anyone else refused."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select

from bot.clock import ManualClock
from bot.db.models import Answer, User
from bot.runtime import Runtime
from tests.fakes.slack_api import FakeSlack
from tests.slack_harness import choice_action, running_adapter

SUNDAY = datetime(2026, 1, 4, 6, 0, tzinfo=UTC)


async def answers(runtime: Runtime) -> list[str]:
    async with runtime.db.transaction() as session:
        rows = await session.execute(select(User.external_id).join(Answer, Answer.user_id == User.id))
        return [str(row[0]) for row in rows]


async def test_each_member_gets_the_cohort_question_in_a_dm_at_their_0900_and_only_their_click_counts(
    runtime: Runtime, fake: FakeSlack, clock: ManualClock
) -> None:
    clock.set(SUNDAY)
    async with running_adapter(runtime, fake) as slack:
        for user, text in (
            ("U0ALICE", "cohort create hires packs:data-parallelism deliver:dm"),
            ("U0BOB", "cohort join hires"),  # Asia/Tokyo in their profile
            ("U0CAROL", "cohort join hires"),  # America/Los_Angeles
            ("U0ALICE", "schedule add weekdays 09:00 tz:UTC cohort:hires"),
        ):
            await slack.command(text, user_id=user)
            await slack.idle()
        replies = [message["text"] for message in await slack.ephemerals(3)]
        assert "Curriculum delivered privately" in replies[0]

        clock.set(datetime(2026, 1, 5, 0, 0, 5, tzinfo=UTC))  # Monday 09:00 in Tokyo, Sunday 16:00 in LA
        report = await runtime.ticker.tick()
        assert len(report.delivered) == 1
        (opened,) = fake.calls_to("conversations.open", ok=True)
        assert opened.args["users"] == "U0BOB"
        assert {call.args["user"] for call in fake.calls_to("users.info", ok=True)} >= {"U0BOB", "U0CAROL"}
        (posted,) = [c for c in fake.calls_to("chat.postMessage", ok=True) if c.args["channel"] == "D0BOB"]
        card = fake.message(posted.response["channel"], posted.response["ts"])
        assert card is not None

        clock.set(datetime(2026, 1, 5, 17, 0, 5, tzinfo=UTC))  # Monday 09:00 in Los Angeles
        assert len((await runtime.ticker.tick()).delivered) == 1
        assert [c.args["channel"] for c in fake.calls_to("chat.postMessage", ok=True)] == ["D0BOB", "D0CAROL"]

        status, _ = await slack.click(
            card, choice_action(runtime, card, correct=True), user_id="U0ALICE", channel_id="D0BOB"
        )
        assert status == 200
        refused = (await slack.ephemerals(4))[-1]
        assert refused["user"] == "U0ALICE"
        assert refused["text"].startswith("That question was sent privately to another member of the cohort")
        assert await answers(runtime) == []

        status, _ = await slack.click(
            card, choice_action(runtime, card, correct=True), user_id="U0BOB", channel_id="D0BOB"
        )
        assert status == 200
        verdict = (await slack.ephemerals(5))[-1]
        assert verdict["user"] == "U0BOB" and verdict["text"].startswith("Correct")
        await slack.idle()
        assert await answers(runtime) == ["U0BOB"]

        await slack.command("cohort show hires", user_id="U0ALICE")
        shown = (await slack.ephemerals(6))[-1]["text"]
        assert "Delivery: delivered privately" in shown
        assert "bob — 1/1 answered · 1 right" in shown
        await slack.command("schedule list", user_id="U0CAROL")
        listing = (await slack.ephemerals(7))[-1]["text"]
        assert "cohort hires's curriculum, privately to each member" in listing
