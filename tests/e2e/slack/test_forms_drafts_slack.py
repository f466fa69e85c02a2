"""Issue 23 end to end on Slack (the real Bolt app, the loopback fake, signed HTTP requests): a member writes a
question in the `/quiz write` modal (refused once inside the modal, then saved as a draft), a lead approves it with
the Approve button of `/quiz drafts`, the author hears so by direct message, and `/quiz now PACK` posts it."""

from __future__ import annotations

import json
from typing import Any

from bot.runtime import Runtime
from tests.fakes.slack_api import FakeSlack, poll_until, validate_blocks, validate_modal
from tests.slack_harness import running_adapter

GOOD = {
    "prompt": "Which collective leaves every rank with the sum of all ranks' gradients?",
    "choices": "*all-reduce\nbroadcast\nscatter",
    "explanation": "All-reduce sums the tensors and gives every rank the result. Broadcast only copies one rank's data.",
    "references": "https://pytorch.org/docs/stable/distributed.html",
    "details": "tags: ddp, nccl; difficulty: easy",
}


async def test_a_question_written_in_the_modal_is_approved_with_a_button_and_posted(
    runtime: Runtime, fake: FakeSlack
) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("write runbooks", user_id="U0ALICE")
        await fake.wait_for_calls("views.open", 1, ok=True)
        [view] = fake.opened_views
        assert validate_modal(view) == []
        assert [b["block_id"] for b in view["blocks"]] == list(GOOD)

        async def submit(values: dict[str, str]) -> Any:
            status, text = await slack.post(fake.view_submission_body(view, dict(values), user_id="U0ALICE"))
            assert status == 200
            return json.loads(text)

        refused = await submit({**GOOD, "choices": "all-reduce\nbroadcast"})
        assert refused["response_action"] == "errors" and list(refused["errors"]) == ["choices"]
        assert await submit(GOOD) == {"response_action": "clear"}
        [saved] = await slack.ephemerals(1)
        assert saved["user"] == "U0ALICE" and saved["text"].startswith("Draft 1 saved for review by a lead.")

        await slack.command("drafts", user_id="U0ADMIN")
        [_, queue] = await slack.ephemerals(2)
        assert validate_blocks(queue["blocks"]) == []
        approve = next(
            element
            for block in queue["blocks"]
            if block["type"] == "actions"
            for element in block["elements"]
            if element["action_id"].startswith("quiz:act:approve-draft:")
        )
        assert approve["value"] == "1"
        message = {"ts": queue["message_ts"], "blocks": queue["blocks"]}
        status, _ = await slack.click(
            message, approve["action_id"], user_id="U0ADMIN", channel_id="C0001", is_ephemeral=True
        )
        assert status == 200
        await slack.idle()
        [*_, approved] = await slack.ephemerals(3)
        assert approved["user"] == "U0ADMIN" and "approved" in approved["text"].lower()
        told = [c.args for c in fake.calls_to("chat.postMessage", ok=True) if c.args.get("channel") == "U0ALICE"]
        assert told and "approved" in told[-1]["text"]

        await slack.command("now runbooks", user_id="U0BOB")
        card = await slack.posted_card(len(fake.calls_to("chat.postMessage", ok=True)) + 1)
        assert GOOD["prompt"] in card["blocks"][0]["text"]["text"]
        await poll_until(lambda: slack.adapter.listeners.in_flight == 0, message="idle")
