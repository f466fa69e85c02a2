"""Confirmations and seasons through the real slack-bolt app and the loopback fake Slack: a destructive command's
question with Confirm and Cancel buttons (signed block_actions), only its asker confirms, once, before it expires;
a season ended on Slack posts its final board into the channel."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import select

from bot.clock import ManualClock
from bot.db.models import Cohort, Schedule, Season
from bot.runtime import Runtime
from tests.fakes.slack_api import FakeSlack, validate_blocks
from tests.slack_harness import RunningSlack, choice_action, running_adapter


def buttons(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [element for block in blocks if block["type"] == "actions" for element in block["elements"]]


async def count(runtime: Runtime, model: type[Any]) -> int:
    async with runtime.db.transaction() as session:
        return len((await session.execute(select(model))).all())


async def ask(slack: RunningSlack, text: str, *, user_id: str = "U0ADMIN") -> tuple[dict[str, Any], str, str]:
    """Type a destructive command; the private question, and its Confirm and Cancel action ids."""
    before = len(slack.fake.ephemeral)
    await slack.command(text, user_id=user_id)
    question = (await slack.ephemerals(before + 1))[-1]
    assert question["user"] == user_id and question["source"] == "response_url"
    assert validate_blocks(question["blocks"]) == []
    confirm, cancel = buttons(question["blocks"])
    assert confirm["style"] == "danger" and cancel["text"]["text"] == "Cancel"
    message = {"ts": question["message_ts"], "blocks": question["blocks"]}
    return message, confirm["action_id"], cancel["action_id"]


async def click(slack: RunningSlack, message: dict[str, Any], action_id: str, user_id: str) -> None:
    clicked = await slack.click(
        message, action_id, value=action_id, user_id=user_id, channel_id="C0001", is_ephemeral=True
    )
    assert clicked == (200, "")
    await slack.idle()


async def test_schedule_remove_asks_and_only_the_asker_confirms_once(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("schedule add daily 09:00", user_id="U0ADMIN")
        await slack.idle()
        message, confirm, _ = await ask(slack, "schedule remove 1")
        assert message["blocks"][0]["text"]["text"].startswith("*Remove schedule #1 (every day at 09:00")
        assert "Only you can confirm, within 2 minutes." in str(message["blocks"])
        assert confirm.startswith("quiz:confirm:yes:")
        assert await count(runtime, Schedule) == 1

        replies = len(fake.ephemeral)
        await click(slack, message, confirm, "U0BOB")  # someone else: told privately, nothing changes
        other = (await slack.ephemerals(replies + 1))[-1]
        assert other["user"] == "U0BOB" and other["source"] == "chat.postEphemeral"
        assert other["text"] == "Only admin can confirm this; nothing was changed."
        assert await count(runtime, Schedule) == 1

        await click(slack, message, confirm, "U0ADMIN")
        assert await count(runtime, Schedule) == 0
        replaced = [r.body for r in fake.responses if r.body.get("replace_original")]
        assert len(replaced) == 1 and replaced[0]["text"].startswith("Removed schedule #1")
        assert "actions" not in [block["type"] for block in replaced[0]["blocks"]]  # the buttons are gone
        posts = fake.calls_to("chat.postMessage", ok=True)
        assert posts[-1].args["text"].startswith("Removed schedule #1")  # the channel sees what was done

        replies = len(fake.ephemeral)
        await click(slack, message, confirm, "U0ADMIN")  # a second click
        assert (await slack.ephemerals(replies + 1))[-1]["text"] == "This was already confirmed; it is done."
        forged = confirm[: -len("x")] + ("x" if confirm[-1] != "x" else "y")
        await click(slack, message, forged, "U0ADMIN")
        assert (await slack.ephemerals(replies + 2))[-1]["text"].startswith("I don't know this confirmation")


async def test_an_expired_confirmation_and_a_cancel_change_nothing(
    runtime: Runtime, fake: FakeSlack, clock: ManualClock
) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("cohort create spring", user_id="U0ALICE")
        await slack.idle()
        message, confirm, cancel = await ask(slack, "cohort delete spring", user_id="U0ALICE")
        clock.advance(timedelta(minutes=3))
        replies = len(fake.ephemeral)
        await click(slack, message, confirm, "U0ALICE")
        expired = (await slack.ephemerals(replies + 1))[-1]["text"]
        assert expired == "This confirmation expired (they last 2 minutes); nothing was changed. Run the command again."
        assert await count(runtime, Cohort) == 1

        message, confirm, cancel = await ask(slack, "cohort delete spring", user_id="U0ALICE")
        await click(slack, message, cancel, "U0ALICE")
        assert [r.body["text"] for r in fake.responses if r.body.get("replace_original")] == [
            "Cancelled: nothing was changed."
        ]
        assert await count(runtime, Cohort) == 1


async def test_a_season_ended_on_slack_posts_its_final_board(
    runtime: Runtime, fake: FakeSlack, clock: ManualClock
) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("season start winter", user_id="U0ADMIN")
        await slack.command("now data-parallelism", user_id="U0ALICE")
        card = await slack.posted_card()
        await slack.click(card, choice_action(runtime, card, correct=True), user_id="U0BOB")
        await slack.idle()
        clock.advance(timedelta(minutes=1))
        refused = len(fake.ephemeral)
        await slack.command("season end", user_id="U0BOB")
        assert "Only leads and admins can end seasons" in (await slack.ephemerals(refused + 1))[-1]["text"]

        message, confirm, _ = await ask(slack, "season end")
        assert message["blocks"][0]["text"]["text"].startswith("*End season winter")
        await click(slack, message, confirm, "U0ADMIN")
        board = fake.calls_to("chat.postMessage", ok=True)[-1].args
        assert board["channel"] == "C0001"
        assert board["text"].startswith("Season winter is over. This channel's top three:\n1st: bob — ")
        assert validate_blocks(board["blocks"]) == []
        async with runtime.db.transaction() as session:
            assert (await session.execute(select(Season.ended_at))).scalar() is not None
