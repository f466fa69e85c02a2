"""Each adapter's way of showing a form, at the limits (bot/domain/forms.py): a form filled to every bound is a
modal Slack and Discord accept (checked by the loopback fakes' validators), a problem lands on its field, what a
Discord "Fix it" keeps expires, and the terminal asks field by field."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from adapters.console.forms import FormSession
from adapters.discord.forms import FormStore, form_modal, read_submission
from adapters.slack.forms import field_errors, modal_view
from adapters.slack.forms import read_submission as read_slack_submission
from bot.domain.forms import MAX_FIELDS, MAX_LABEL, MAX_STATE, MAX_TITLE, MAX_VALUE, Form, FormField, FormKind
from tests.fakes.discord_api import FakeDiscordError, _validate_modal_payload
from tests.fakes.slack_api import validate_modal

WIDE = "ж" * MAX_VALUE


def full_form(errors: dict[str, str]) -> Form:
    fields = tuple(
        FormField(f"field{i}", "L" * MAX_LABEL, WIDE, "h" * 300, multiline=i % 2 == 0, max_length=MAX_VALUE)
        for i in range(MAX_FIELDS)
    )
    return Form(FormKind.WRITE_QUESTION, "T" * 60, "S" * 60, fields, state="s" * MAX_STATE, errors=errors)


def test_a_form_at_every_bound_is_a_modal_slack_accepts() -> None:
    view = modal_view(full_form(errors={"field1": "x" * 5000}), "C0001")
    assert validate_modal(view) == []
    assert len(view["title"]["text"]) == MAX_TITLE
    inputs = [block for block in view["blocks"] if block["type"] == "input"]
    assert all(len(block["element"]["initial_value"]) == 3000 for block in inputs)  # Slack's input holds 3000


def test_a_form_at_every_bound_is_a_modal_discord_accepts() -> None:
    async def build() -> dict[str, Any]:
        return form_modal(full_form(errors={"field0": "too short"})).to_dict()  # a modal is built in a loop

    payload = asyncio.run(build())
    _validate_modal_payload(payload)  # raises FakeDiscordError as Discord would answer 400
    labels = [row["components"][0]["label"] for row in payload["components"]]
    assert labels[0].startswith("⚠ ") and len(labels[0]) == 45


def test_the_discord_fake_refuses_a_modal_over_its_limits() -> None:
    with pytest.raises(FakeDiscordError):
        _validate_modal_payload({"title": "x" * 46, "custom_id": "c", "components": []})


def test_a_problem_lands_on_its_field_or_the_first() -> None:
    form = Form(
        FormKind.SETTINGS,
        "Settings",
        "Save",
        (FormField("a", "A"), FormField("b", "B")),
        errors={"b": "Bad b.", "nowhere": "Bad overall.", "a": "Bad a."},
    )
    assert field_errors(form) == {"b": "Bad b.", "a": "Bad overall. Bad a."}


def test_slack_reads_only_its_own_submissions() -> None:
    view = modal_view(Form(FormKind.SETTINGS, "S", "Save", (FormField("a", "A"),), state="channel"), "C1")
    view["state"] = {"values": {"a": {"a": {"type": "plain_text_input", "value": None}}}}
    read = read_slack_submission(view)
    assert read is not None and (read.kind, read.state, read.channel_id, read.values) == (
        FormKind.SETTINGS,
        "channel",
        "C1",
        {"a": ""},
    )
    assert read_slack_submission({**view, "callback_id": "quiz:form:nope"}) is None
    assert read_slack_submission({**view, "private_metadata": "[1]"}) is None


def test_discord_reads_inputs_in_rows_or_labels() -> None:
    data = {
        "custom_id": "quiz:f:edit-draft:12",
        "components": [
            {"type": 1, "components": [{"type": 4, "custom_id": "a", "value": "one"}]},
            {"type": 18, "component": {"type": 4, "custom_id": "b", "value": "two"}},
        ],
    }
    read = read_submission(data)
    assert read is not None and (read.kind, read.state, read.values) == (
        FormKind.EDIT_DRAFT,
        "12",
        {"a": "one", "b": "two"},
    )
    assert read_submission({**data, "custom_id": "quiz:f:launch:1"}) is None


def test_what_fix_it_keeps_expires_and_is_bounded() -> None:
    now = [0.0]
    store = FormStore(minutes=30, size=2, clock=lambda: now[0])
    form = Form(FormKind.SETTINGS, "S", "Save", (FormField("a", "A"),))
    first = store.keep(form, "u1")
    assert store.get(first) is not None and store.get("unknown-token") is None
    now[0] = 30 * 60
    assert store.get(first) is None  # expired
    second, third = store.keep(form, "u1"), store.keep(form, "u2")
    fourth = store.keep(form, "u3")  # the oldest is forgotten first
    assert store.get(second) is None and store.get(third) is not None and store.get(fourth) is not None
    assert len(store) == 2


def test_the_terminal_asks_each_field_and_keeps_values() -> None:
    form = Form(
        FormKind.SETTINGS,
        "S",
        "Save",
        (FormField("name", "Name", "old", max_length=5), FormField("body", "Body", multiline=True)),
    )
    session = FormSession.start(form)
    assert session.prompt() == "Name [old]: "
    assert session.feed("toolong") == "Name takes at most 5 characters; type it shorter."
    assert session.feed("") is None and session.values["name"] == "old"  # Enter keeps the value
    assert session.feed("") == "Body is required; type something, or /cancel."
    assert session.feed("  first") is None and session.prompt() == "... "
    assert session.feed("") is None and session.done
    assert session.values == {"name": "old", "body": "  first"}
    again = FormSession.start(form.with_values(session.values, {"body": "More."}))
    assert [f.key for f in again.ask] == ["body"] and again.values["name"] == "old"
