"""Forms and page buttons reach the core as commands (bot/commands/forms.py): a submission or a click runs the
command it stands for through the dispatcher, with the command's permission; one with no command is refused in
one line, and a form is a bounded thing an adapter can always show."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.clock import ManualClock
from bot.commands import ListFlags, PostNow, ShowHelp
from bot.commands.forms import ACTION_COMMANDS, FORM_COMMANDS
from bot.domain import ChannelRef
from bot.domain.forms import MAX_FIELDS, Form, FormField, FormKind
from bot.ports import ActionKind
from bot.service.facade import Context
from tests.conftest import SEED_CONTENT, make_user
from tests.fakes.memory_uow import MemoryApp, bootstrap_test_app

CHANNEL = ChannelRef(platform="fake", workspace_id="W1", channel_id="C1")
MEMBER = Context(channel=CHANNEL, user=make_user("Bob"))


@pytest.fixture
def core() -> MemoryApp:
    return bootstrap_test_app(clock=ManualClock(), content_dir=SEED_CONTENT)


@pytest.fixture
def registries() -> Iterator[None]:
    forms, actions = dict(FORM_COMMANDS), dict(ACTION_COMMANDS)
    yield
    FORM_COMMANDS.clear()
    FORM_COMMANDS.update(forms)
    ACTION_COMMANDS.clear()
    ACTION_COMMANDS.update(actions)


async def test_a_form_with_no_command_is_refused_in_one_line(core: MemoryApp, registries: None) -> None:
    FORM_COMMANDS.pop(FormKind.SETTINGS, None)
    reply = await core.app.submit_form(kind=FormKind.SETTINGS, state="", values={}, context=MEMBER)
    assert not reply.ok
    assert "\n" not in reply.message.title


async def test_a_submitted_form_runs_its_command(core: MemoryApp, registries: None) -> None:
    FORM_COMMANDS[FormKind.SETTINGS] = lambda state, values: ShowHelp(topic=values["topic"] or None)
    reply = await core.app.submit_form(kind=FormKind.SETTINGS, state="", values={"topic": "now"}, context=MEMBER)
    assert reply.ok
    assert "now" in reply.message.text


async def test_a_click_runs_its_command_with_its_permission(core: MemoryApp, registries: None) -> None:
    ACTION_COMMANDS.pop(ActionKind.APPROVE_DRAFT, None)
    refused = await core.app.act(action=ActionKind.APPROVE_DRAFT, value="1", context=MEMBER)
    assert not refused.ok
    ACTION_COMMANDS[ActionKind.APPROVE_DRAFT] = lambda value: PostNow(pack=value)
    reply = await core.app.act(action=ActionKind.APPROVE_DRAFT, value="no-such-pack", context=MEMBER)
    assert not reply.ok  # the command ran: the unknown pack is named
    assert "no-such-pack" in reply.message.text
    ACTION_COMMANDS[ActionKind.REJECT_DRAFT] = lambda value: ListFlags()
    denied = await core.app.act(action=ActionKind.REJECT_DRAFT, value="", context=MEMBER)
    assert not denied.ok
    assert "lead" in denied.message.text.lower()


def test_a_form_holds_what_every_adapter_can_show() -> None:
    field = FormField("prompt", "Question")
    with pytest.raises(ValueError):
        Form(FormKind.WRITE_QUESTION, "Write", "Submit", (field,) * (MAX_FIELDS + 1))
    with pytest.raises(ValueError):
        Form(FormKind.WRITE_QUESTION, "Write", "Submit", ())
    form = Form(FormKind.WRITE_QUESTION, "Write", "Submit", (field,), state="pack")
    again = form.with_values({"prompt": "What?"}, {"prompt": "Too short."})
    assert again.fields[0].value == "What?"
    assert again.errors == {"prompt": "Too short."}
    assert again.state == "pack"
