"""Settings in chat through the real QuizApp with no database (tests/fakes/memory_uow.py): the workspace's settings
form opened and submitted through `QuizApp.submit_form` (a refused value back inside the form, nothing kept), a
change in chat read by the next command, and the history. tests/integration/test_settings.py runs the same on
SQLite and PostgreSQL, with every wired setting."""

from __future__ import annotations

import pytest

from bot.clock import ManualClock
from bot.domain import ChannelRef, UserRef
from bot.domain.forms import FormKind
from bot.domain.settings import SettingKey
from bot.service.facade import Context, Invocation, Reply
from tests.conftest import SEED_CONTENT, make_user
from tests.fakes.memory_uow import MemoryApp, bootstrap_test_app

ADMIN = make_user("Ada")
MEMBER = make_user("Bob")
CHANNEL = ChannelRef(platform="fake", workspace_id="W1", channel_id="C1")


@pytest.fixture
def core() -> MemoryApp:
    return bootstrap_test_app(clock=ManualClock(), content_dir=SEED_CONTENT)


async def run(core: MemoryApp, text: str, *, user: UserRef = ADMIN, admin: bool = True) -> Reply:
    return await core.app.handle_command(Invocation(CHANNEL, user, text, is_admin=admin))


async def test_the_workspace_form_keeps_nothing_until_every_value_is_allowed(core: MemoryApp) -> None:
    opened = await run(core, "settings workspace edit")
    assert opened.form is not None and opened.form.state == "workspace:1"
    assert opened.form.title == "Workspace settings 1/2"
    values = {field.key: field.value for field in opened.form.fields}
    assert set(values.values()) == {""}  # nothing set yet: every field inherits
    admin = Context(CHANNEL, ADMIN, is_admin=True)
    typed = {**values, "timezone": "Asia/Tokyo", "close-after": "forever"}
    refused = await core.app.submit_form(kind=FormKind.SETTINGS, state="workspace:1", values=typed, context=admin)
    assert not refused.ok and refused.form is not None and refused.form.state == "workspace:1"
    assert list(refused.form.errors) == ["close-after"]
    assert refused.form.errors["close-after"].startswith("`forever` is not allowed for `close-after`: say a duration")
    assert core.store.committed.workspace_settings == {}
    typed["close-after"] = "45m"
    saved = await core.app.submit_form(kind=FormKind.SETTINGS, state="workspace:1", values=typed, context=admin)
    assert saved.ok and saved.message.title == "Settings changed"
    assert sorted(core.store.committed.workspace_settings.values()) == ["2700", "Asia/Tokyo"]
    added = await run(core, "schedule add daily 09:00")
    assert "Asia/Tokyo" in added.message.text and "each question closes after 45 min" in added.message.text
    history = await run(core, "settings history", user=MEMBER, admin=False)
    assert [line.split(": ", 1)[1] for line in history.message.lines] == [
        "`close-after` for the workspace: not set → 45 min",
        "`timezone` for the workspace: not set → Asia/Tokyo",
    ]


async def test_a_member_may_look_but_not_change(core: MemoryApp) -> None:
    assert (await run(core, "settings channel", user=MEMBER, admin=False)).ok
    refused = await run(core, "settings channel speed-points off", user=MEMBER, admin=False)
    assert not refused.ok and refused.message.title.startswith("Only leads and admins can change this channel's")
    form = await core.app.submit_form(
        kind=FormKind.SETTINGS,
        state="channel:2",
        values={SettingKey.SPEED_POINTS.value: "off"},
        context=Context(CHANNEL, MEMBER),
    )
    assert not form.ok and core.store.committed.channel_settings == {}


async def test_a_form_value_for_no_field_of_the_page_is_shown_by_its_first_field(core: MemoryApp) -> None:
    admin = Context(CHANNEL, ADMIN, is_admin=True)
    values = {"reveal": "leads", "frob": "1"}
    refused = await core.app.submit_form(kind=FormKind.SETTINGS, state="channel:2", values=values, context=admin)
    assert refused.form is not None and list(refused.form.errors) == ["reveal"]
    assert refused.form.errors["reveal"].startswith("`frob` is not a setting.")
    assert core.store.committed.channel_settings == {}  # reveal was allowed, and still nothing was kept
