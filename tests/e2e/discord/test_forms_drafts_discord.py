"""Issue 23 end to end on Discord (the real discord.py client, the loopback fake, gateway INTERACTION_CREATEs): a
member writes a question in the `/quiz write` modal, is refused once (the problems, and "Fix it" reopening the
modal with what was typed), submits it as a draft; a lead approves it with the Approve button of `/quiz drafts
list`, and `/quiz now PACK` posts it."""

from __future__ import annotations

from adapters.discord.adapter import DiscordAdapter
from bot.runtime import Runtime
from tests.discord_support import card_messages, click, custom_ids, embed_text, serving, slash, text_of
from tests.fakes.discord_api import FakeDiscord

MANAGE_SERVER = 1 << 5
ANN = {"user_id": 2001, "user_name": "ann"}
GOOD = {
    "prompt": "Which collective leaves every rank with the sum of all ranks' gradients?",
    "choices": "*all-reduce\nbroadcast\nscatter",
    "explanation": "All-reduce sums the tensors and gives every rank the result. Broadcast only copies one rank's data.",
    "references": "https://pytorch.org/docs/stable/distributed.html",
    "details": "tags: ddp, nccl; difficulty: easy",
}


async def test_a_question_written_in_the_modal_is_approved_with_a_button_and_posted(
    runtime: Runtime, fake: FakeDiscord
) -> None:
    managers = fake.add_role("managers", permissions=MANAGE_SERVER)
    lead = {"user_id": 2002, "user_name": "lee", "roles": [managers["id"]]}
    async with serving(DiscordAdapter(runtime), fake):
        opened = await slash(fake, "write", {"pack": "runbooks"}, **ANN)
        assert opened.type == 9 and opened.data["custom_id"] == "quiz:f:write:runbooks"
        assert [row["components"][0]["custom_id"] for row in opened.data["components"]] == list(GOOD)

        bad = {**GOOD, "choices": "all-reduce\nbroadcast"}
        data = fake.modal_submit_interaction(opened.data["custom_id"], bad, **ANN)
        refused = await fake.send_interaction(data)
        assert refused is not None and refused.type == 4 and refused.ephemeral
        assert "Mark the correct choice" in text_of(refused)
        message = fake.original_response(data["id"]) or {}
        [fix] = custom_ids(message)
        again = await click(fake, message, fix, **ANN)
        typed = {
            row["components"][0]["custom_id"]: row["components"][0].get("value") for row in again.data["components"]
        }
        assert typed == bad  # everything as typed, to fix the choices

        saved = await fake.send_interaction(fake.modal_submit_interaction(again.data["custom_id"], GOOD, **ANN))
        assert saved is not None and text_of(saved).startswith("Draft 1 saved for review by a lead.")

        queue = await slash(fake, "list", group="drafts", **lead)
        assert "quiz:act:approve-draft:1" in [c["custom_id"] for row in queue.components for c in row["components"]]
        page = fake.original_response(queue.interaction_id) or {}
        approved = await click(fake, page, "quiz:act:approve-draft:1", **lead)
        assert approved.ephemeral and "approved" in text_of(approved).lower()

        await slash(fake, "now", {"pack": "runbooks"}, user_name="bob")
        cards = await fake.wait_for(lambda: card_messages(fake), what="the card")
        assert GOOD["prompt"] in embed_text(cards[-1])
