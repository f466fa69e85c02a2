"""Roles in chat, through the real slack-bolt app against the loopback fake Slack: a lead granted with
`/quiz role grant` adds a schedule at once (no restart), and a member's early `/quiz reveal` of a scheduled question
is refused, so everyone's streak stays."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.clock import ManualClock
from bot.runtime import Runtime
from tests.fakes.slack_api import FakeSlack
from tests.slack_harness import choice_action, running_adapter

MONDAY = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)


async def test_a_lead_granted_in_chat_adds_a_schedule_with_no_restart(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("schedule add weekdays 09:00 data-parallelism", user_id="U0BOB")
        refused = (await slack.ephemerals(1))[-1]
        assert refused["user"] == "U0BOB"
        assert refused["text"].startswith("Only leads and admins can add schedules; nothing was changed.")
        assert "Ask an admin of this workspace for the lead role." in refused["text"]

        await slack.command("role grant <@U0BOB|bob> lead", user_id="U0BOB")  # a member may not grant
        assert "Only workspace admins can grant roles" in (await slack.ephemerals(2))[-1]["text"]
        await slack.command("role grant <@U0BOB|bob> lead", user_id="U0ADMIN")
        assert (await slack.ephemerals(3))[-1]["text"].startswith("bob is now lead here.")

        await slack.command("schedule add weekdays 09:00 data-parallelism", user_id="U0BOB")
        await slack.idle()
        [added] = fake.messages_in("C0001")  # the channel sees the new schedule
        assert added["text"].startswith("Scheduled #1: a question every weekday (Mon–Fri) at 09:00"), added["text"]

        await slack.command("role list", user_id="U0ADMIN")
        listed = (await slack.ephemerals(4))[-1]["text"]
        assert "lead: bob (granted by" in listed
        await slack.command("role revoke <@U0BOB|bob> lead", user_id="U0ADMIN")
        assert (await slack.ephemerals(5))[-1]["text"].startswith("bob is no longer lead here.")
        await slack.command("schedule pause 1", user_id="U0BOB")
        assert "Only leads and admins can pause and resume schedules" in (await slack.ephemerals(6))[-1]["text"]


async def test_a_members_early_reveal_of_a_scheduled_question_is_refused_and_streaks_stay(
    runtime: Runtime, fake: FakeSlack, clock: ManualClock
) -> None:
    clock.set(MONDAY)
    async with running_adapter(runtime, fake) as slack:
        await slack.command("schedule add daily 09:00 data-parallelism tz:UTC", user_id="U0ADMIN")
        await slack.idle()
        clock.set(datetime(2026, 1, 5, 9, 0, 5, tzinfo=UTC))
        await runtime.ticker.tick()
        first = await slack.posted_card(1)
        await slack.click(first, choice_action(runtime, first, correct=True), user_id="U0BOB")
        await slack.ephemerals(1)

        clock.set(datetime(2026, 1, 6, 9, 0, 5, tzinfo=UTC))  # the first closes on schedule, the second is posted
        await runtime.ticker.tick()
        second = await slack.posted_card(2)
        await slack.command("reveal", user_id="U0CAROL")  # a member, a minute after it was posted
        refused = (await slack.ephemerals(2))[-1]
        assert refused["user"] == "U0CAROL"
        assert refused["text"] == (
            "Only leads and admins can reveal a scheduled question early; its schedule reveals it."
        )

        await slack.click(second, choice_action(runtime, second, correct=True), user_id="U0BOB")
        assert "Correct!" in (await slack.ephemerals(3))[-1]["text"]  # still open: Bob's answer counts
        clock.set(datetime(2026, 1, 7, 9, 0, 5, tzinfo=UTC))
        await runtime.ticker.tick()
        await slack.command("me", user_id="U0BOB")
        me = (await slack.ephemerals(4))[-1]
        assert "Right in a row: 2 scheduled questions now" in str(me), me
