"""Forms and page buttons through the real slack-bolt app and the loopback fake Slack (signed HTTP requests): a
reply's form opens a modal with views.open (checked as Slack checks it), a refused submission is answered inside the
modal (`response_action: errors`), a good one closes it and its reply is posted privately; page buttons carry their
value to `QuizCore.act`, an Edit opens its form from the click; forged forms and buttons get one private line.

The form and the buttons are the test's own (tests/forms_support.py), registered for each test only."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest

from adapters.slack.home import page_blocks
from bot.runtime import Runtime
from tests.fakes.slack_api import (
    FakeSlack,
    poll_until,
    validate_blocks,
    validate_modal,
    view_block_actions_payload,
)
from tests.forms_support import DRAFTS_PAGE, NoteBook, form_routes
from tests.held_commits import metric
from tests.slack_harness import RunningSlack, running_adapter


@pytest.fixture
def book(runtime: Runtime) -> Iterator[NoteBook]:
    with form_routes(runtime) as notes:
        yield notes


async def opened_form(slack: RunningSlack, count: int) -> dict[str, Any]:
    """The `count`-th modal views.open accepted, checked as Slack checks a modal."""
    await slack.fake.wait_for_calls("views.open", count, ok=True)
    view = slack.fake.opened_views[count - 1]
    assert validate_modal(view) == []
    return view


async def submit(slack: RunningSlack, view: dict[str, Any], values: dict[str, str | None], **kw: Any) -> Any:
    status, text = await slack.post(slack.fake.view_submission_body(view, values, **kw))
    assert status == 200
    return json.loads(text) if text else None


def elements(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [element for block in blocks if block["type"] == "actions" for element in block["elements"]]


async def test_a_form_opens_as_a_modal_and_its_problems_come_back_inside_it(
    runtime: Runtime, fake: FakeSlack, book: NoteBook
) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("help", user_id="U0ALICE")
        view = await opened_form(slack, 1)
        assert view["callback_id"] == "quiz:form:settings"
        assert view["title"]["text"] == "Write a team note" and view["submit"]["text"] == "Save"
        assert json.loads(view["private_metadata"]) == {"state": "channel", "channel": "C0001"}
        name, body, tags = (block for block in view["blocks"] if block["type"] == "input")
        assert [name["block_id"], body["block_id"], tags["block_id"]] == ["name", "body", "tags"]
        assert name["element"]["max_length"] == 40 and name["element"]["placeholder"]["text"] == "3 to 40 characters"
        assert body["element"]["multiline"] is True and not body["optional"]
        assert tags["optional"] and tags["element"]["initial_value"] == "general"
        assert fake.ephemeral == []  # the modal is the answer: no message

        refused = await submit(slack, view, {"name": "ab", "body": None, "tags": "general"})
        assert refused == {
            "response_action": "errors",
            "errors": {"name": "A name needs at least 3 characters.", "body": "Write some text."},
        }
        assert book.saved == []

        done = await submit(slack, view, {"name": "Runbooks", "body": "Page one.\nPage two.", "tags": None})
        assert done == {"response_action": "clear"}
        [said] = await slack.ephemerals(1)
        assert said["channel"] == "C0001" and said["user"] == "U0ALICE" and said["source"] == "chat.postEphemeral"
        assert said["text"] == "Saved the note Runbooks."
        assert book.saved == [("channel", {"name": "Runbooks", "body": "Page one.\nPage two.", "tags": ""}, "alice")]


async def test_forged_and_stale_submissions_get_one_line(runtime: Runtime, fake: FakeSlack, book: NoteBook) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("help")
        view = await opened_form(slack, 1)
        for forged in ("quiz:form:launch", "someone-elses-modal"):
            closed = await submit(slack, view, {"name": "Runbooks", "body": "x"}, callback_id=forged)
            assert closed == {"response_action": "clear"}
        bad_metadata = await submit(slack, view, {"name": "Runbooks", "body": "x"}, private_metadata="{not json")
        assert bad_metadata == {"response_action": "clear"}
        await slack.idle()
        said = await slack.ephemerals(3)
        assert [s["text"] for s in said] == [
            "That form is not one I know (it may come from an older version). Run the command again."
        ] * 3
        assert book.saved == []


async def test_a_form_slack_cannot_open_is_said_in_words(runtime: Runtime, fake: FakeSlack, book: NoteBook) -> None:
    async with running_adapter(runtime, fake) as slack:
        fake.fail_next("views.open", "expired_trigger_id")
        await slack.command("help")
        [said] = await slack.ephemerals(1)
        assert said["text"] == "Fill in the note form.\nThe form could not be opened in time; run the command again."
        assert fake.opened_views == []


async def test_page_buttons_carry_their_value_to_the_core(runtime: Runtime, fake: FakeSlack, book: NoteBook) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("help packs", user_id="U0BOB")
        [page] = await slack.ephemerals(1)
        assert validate_blocks(page["blocks"]) == []
        buttons = elements(page["blocks"])
        assert [(b["action_id"], b.get("value")) for b in buttons[:3]] == [
            ("quiz:act:approve-draft:7", "7"),
            ("quiz:act:edit-draft:7", "7"),
            ("quiz:act:reject-draft:7", "7"),
        ]
        rows = [block for block in page["blocks"] if block["type"] == "actions"]
        assert len(rows) == 2  # a row per draft
        message = {"ts": page["message_ts"], "blocks": page["blocks"]}

        async def click(action_id: str, value: str | None) -> None:
            kw = {"value": value} if value is not None else {}
            status, _ = await slack.click(
                message, action_id, user_id="U0BOB", channel_id="C0001", is_ephemeral=True, **kw
            )
            assert status == 200
            await slack.idle()

        await click("quiz:act:approve-draft:8", "8")
        assert book.clicks == [("approve-draft", "8", "bob")]
        said = await slack.ephemerals(2)
        assert said[-1]["text"] == "Done: approve-draft #8." and said[-1]["user"] == "U0BOB"

        await click("quiz:act:edit-draft:7", "7")  # the click's trigger_id opens the draft's form
        view = await opened_form(slack, 1)
        assert view["callback_id"] == "quiz:form:edit-draft"
        assert json.loads(view["private_metadata"]) == {"state": "7", "channel": "C0001"}
        assert [b["element"].get("initial_value") for b in view["blocks"]] == ["draft 7", None, "general"]
        done = await submit(slack, view, {"name": "draft 7", "body": "Fixed.", "tags": "general"}, user_id="U0BOB")
        assert done == {"response_action": "clear"}
        assert book.saved[-1] == ("7", {"name": "draft 7", "body": "Fixed.", "tags": "general"}, "bob")

        before = len(fake.ephemeral)
        await click("quiz:act:launch-rockets:1", "1")  # forged: a kind this bot does not know
        await click("quiz:act:start-review", "x")  # not a page button's kind
        said = await slack.ephemerals(before + 2)
        assert [s["text"] for s in said[before:]] == [said[before]["text"]] * 2
        assert said[before]["text"].startswith("That button is not one I know")
        assert [c[0] for c in book.clicks] == ["approve-draft", "edit-draft"]


async def test_a_submission_slower_than_the_ack_deadline_closes_the_modal_and_answers_after(
    runtime: Runtime, fake: FakeSlack, book: NoteBook, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_adapter(runtime, fake, slack_ack_deadline=0.2) as slack:
        await slack.command("help")
        view = await opened_form(slack, 1)
        gate = asyncio.Event()
        submit_form = runtime.app.submit_form

        async def held(**kw: Any) -> Any:
            await gate.wait()
            return await submit_form(**kw)

        monkeypatch.setattr(runtime.app, "submit_form", held)
        closed = await submit(slack, view, {"name": "ab", "body": ""})
        assert closed == {"response_action": "clear"}  # acked at the deadline, before the core answered
        assert metric(runtime, "quizbot_late_acks_total", "slack") == 1
        gate.set()
        [said] = await slack.ephemerals(1)
        assert said["text"].startswith("Please fix 2 fields in Write a team note:")
        assert "Name: A name needs at least 3 characters." in said["text"]
        await poll_until(lambda: slack.adapter.listeners.in_flight == 0, message="idle")


async def test_in_socket_mode_the_submission_is_answered_in_its_ack(
    runtime: Runtime, fake: FakeSlack, book: NoteBook
) -> None:
    async with running_adapter(runtime, fake, mode="socket") as slack:
        await fake.send_slash_command("help")
        view = await opened_form(slack, 1)
        values: dict[str, str | None] = {"name": "ab", "body": "Text."}
        refused = await fake.send_envelope("interactive", fake.view_submission_payload(view, values))
        assert refused["payload"] == {
            "response_action": "errors",
            "errors": {"name": "A name needs at least 3 characters."},
        }
        done = await fake.send_envelope("interactive", fake.view_submission_payload(view, {**values, "name": "Abc"}))
        assert done["payload"] == {"response_action": "clear"}
        [said] = await slack.ephemerals(1)
        assert said["text"] == "Saved the note Abc."


async def test_a_page_button_in_the_home_tab_is_answered_by_direct_message(
    runtime: Runtime, fake: FakeSlack, book: NoteBook
) -> None:
    async with running_adapter(runtime, fake) as slack:
        view = {"id": "VHOMEU0BOB", "type": "home", "blocks": page_blocks(DRAFTS_PAGE, max_blocks=100)}
        payload = view_block_actions_payload(view, "quiz:act:reject-draft:8", user_id="U0BOB", user_name="bob")
        assert "channel" not in payload and payload["actions"][0]["value"] == "8"
        status, _ = await slack.post(urlencode({"payload": json.dumps(payload)}))
        assert status == 200
        await slack.idle()
        assert book.clicks == [("reject-draft", "8", "bob")]
        [told] = [c.args for c in fake.calls_to("chat.postMessage", ok=True)]
        assert told["channel"] == "U0BOB" and told["text"] == "Done: reject-draft #8."
        assert fake.ephemeral == []
