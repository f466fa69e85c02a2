"""Forms and page buttons through the real discord.py client and the loopback fake Discord (gateway
INTERACTION_CREATE): a reply's form is answered with a modal (checked as Discord checks one), a refused submission
with its problems and a "Fix it" button that opens the modal again with what was typed, a good one with its reply;
page buttons carry their kind and value to `QuizCore.act` (an Edit answers with its form); a form kept for "Fix it"
is forgotten by a restart, and a forged modal gets one line.

The form and the buttons are the test's own (tests/forms_support.py), registered for each test only."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from adapters.discord.adapter import DiscordAdapter
from bot.runtime import Runtime
from tests.discord_support import click, custom_ids, serving, slash, text_of
from tests.fakes.discord_api import FakeDiscord, InteractionCallback
from tests.forms_support import NoteBook, form_routes

ALICE = {"user_id": 1001, "user_name": "alice"}
BOB = {"user_id": 1002, "user_name": "bob"}


@pytest.fixture
def book(runtime: Runtime) -> Iterator[NoteBook]:
    with form_routes(runtime) as notes:
        yield notes


def inputs(modal: InteractionCallback) -> list[dict[str, Any]]:
    """The text inputs of a modal response, in order."""
    assert modal.type == 9
    return [row["components"][0] for row in modal.data["components"]]


async def submit(
    fake: FakeDiscord, custom_id: str, values: dict[str, str], who: dict[str, Any]
) -> tuple[InteractionCallback, dict[str, Any]]:
    """Submit a modal; the bot's answer and the message it made (where "Fix it" is clicked)."""
    data = fake.modal_submit_interaction(custom_id, values, **who)
    answered = await fake.send_interaction(data)
    assert answered is not None
    return answered, fake.original_response(data["id"]) or {}


async def test_a_form_is_a_modal_and_fix_it_opens_it_again_with_what_was_typed(
    runtime: Runtime, fake: FakeDiscord, book: NoteBook
) -> None:
    first = DiscordAdapter(runtime)
    async with serving(first, fake):
        opened = await slash(fake, "help", **ALICE)
        assert opened.data["custom_id"] == "quiz:f:settings:channel"
        assert opened.data["title"] == "Write a team note"
        name, body, tags = inputs(opened)
        assert (name["custom_id"], name["label"], name["style"], name["max_length"]) == ("name", "Name", 1, 40)
        assert name["placeholder"] == "3 to 40 characters" and name["required"] is True
        assert body["style"] == 2 and tags["value"] == "general" and tags["required"] is False

        typed = {"name": "ab", "body": "", "tags": "general, ops"}
        refused, message = await submit(fake, opened.data["custom_id"], typed, ALICE)
        assert refused.type == 4 and refused.ephemeral
        assert text_of(refused).splitlines() == [
            "Please fix 2 fields in Write a team note:",
            "Name: A name needs at least 3 characters.",
            "Text: Write some text.",
        ]
        [fix] = custom_ids(message)
        assert fix.startswith("quiz:fix:") and message["components"][0]["components"][0]["label"] == "Fix it"
        assert book.saved == []

        other = await click(fake, message, fix, **BOB)
        assert other.type == 4 and other.ephemeral
        assert text_of(other) == "That form is someone else's; run the command yourself to get your own."

        again = await click(fake, message, fix, **ALICE)
        name, body, tags = inputs(again)
        assert again.data["custom_id"] == "quiz:f:settings:channel"
        assert (name["label"], name["value"]) == ("⚠ Name", "ab")
        assert body["label"] == "⚠ Text" and "value" not in body
        assert (tags["label"], tags["value"]) == ("Tags", "general, ops")

        saved, _ = await submit(
            fake, again.data["custom_id"], {**typed, "name": "Runbooks", "body": "One.\nTwo."}, ALICE
        )
        assert saved.type == 4 and saved.ephemeral and text_of(saved) == "Saved the note Runbooks."
        assert book.saved == [("channel", {"name": "Runbooks", "body": "One.\nTwo.", "tags": "general, ops"}, "alice")]

    second = DiscordAdapter(runtime)  # what was typed is kept in memory only: a restart forgets it
    async with serving(second, fake):
        late = await click(fake, message, fix, **ALICE)
        assert late.type == 4 and late.ephemeral
        assert text_of(late) == (
            "That form has expired (what was typed is kept for 30 minutes, and not across a restart of the bot). "
            "Run the command again."
        )
        # A modal opened before the restart is still submitted: its custom_id carries the kind and state.
        saved, _ = await submit(fake, "quiz:f:settings:channel", {"name": "Later", "body": "x"}, ALICE)
        assert text_of(saved) == "Saved the note Later."
        for forged in ("quiz:f:launch:x", "someone-elses-modal"):
            refused, _ = await submit(fake, forged, {"name": "Runbooks", "body": "x"}, ALICE)
            assert refused.type == 4 and refused.ephemeral
            assert text_of(refused).startswith("That form is not one I know")
        assert len(book.saved) == 2


async def test_page_buttons_carry_their_value_and_an_edit_opens_its_form(
    runtime: Runtime, fake: FakeDiscord, book: NoteBook
) -> None:
    async with serving(DiscordAdapter(runtime), fake):
        page = await slash(fake, "help", {"command": "packs"}, **BOB)
        rows = [[button["custom_id"] for button in row["components"]] for row in page.components]
        assert rows == [
            ["quiz:act:approve-draft:7", "quiz:act:edit-draft:7", "quiz:act:reject-draft:7"],
            ["quiz:act:approve-draft:8", "quiz:act:edit-draft:8", "quiz:act:reject-draft:8"],
        ]
        assert [b["label"] for b in page.components[0]["components"]] == ["Approve #7", "Edit #7", "Reject #7"]
        message = fake.original_response(page.interaction_id) or {}

        done = await click(fake, message, "quiz:act:approve-draft:8", **BOB)
        assert done.type == 4 and done.ephemeral and text_of(done) == "Done: approve-draft #8."
        assert book.clicks == [("approve-draft", "8", "bob")]

        edit = await click(fake, message, "quiz:act:edit-draft:7", **BOB)
        name, _, _ = inputs(edit)
        assert edit.data["custom_id"] == "quiz:f:edit-draft:7" and name["value"] == "draft 7"
        saved, _ = await submit(fake, "quiz:f:edit-draft:7", {"name": "draft 7", "body": "Fixed."}, BOB)
        assert text_of(saved) == "Saved the note draft 7."
        assert book.saved[-1][0] == "7"


async def test_a_form_after_a_deferral_comes_as_a_button_that_opens_it(
    runtime: Runtime, fake: FakeDiscord, book: NoteBook
) -> None:
    async with serving(DiscordAdapter(runtime, defer_after=0.0), fake):  # every answer is deferred first
        data = fake.slash_command_interaction("quiz", subcommand="help", **ALICE)
        deferred = await fake.send_interaction(data)
        assert deferred is not None and deferred.type == 5  # a deferred answer can no longer be a modal
        message = await fake.wait_for(
            lambda: (m := fake.original_response(data["id"])) and m.get("components") and m, what="the form's button"
        )
        assert "Fill in the note form." in str(message["embeds"])
        [opener] = custom_ids(message)
        assert message["components"][0]["components"][0]["label"] == "Open the form"
        opened = await click(fake, message, opener, **ALICE)
        assert opened.type == 9 and opened.data["custom_id"] == "quiz:f:settings:channel"
