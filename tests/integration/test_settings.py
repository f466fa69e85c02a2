"""Settings in chat (`/quiz settings`, issue 23 item 3) through the core on SQLite and PostgreSQL: who may change
what, the history, channel > workspace > environment, each setting changing what the bot does with no restart, and
the settings form submitted through `QuizApp.submit_form`."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlalchemy import text as sql

from bot.clock import ManualClock
from bot.config import Settings
from bot.db.models import Cohort, Post
from bot.domain import ChannelRef, PostSource
from bot.domain.forms import FormKind
from bot.domain.settings import SettingKey
from bot.ops.doctor import diagnose
from bot.runtime import Runtime, build_runtime
from bot.service.facade import Context, Invocation, Reply
from bot.wording import use_translator
from tests.conftest import PATIENT_DATABASE, SEED_CONTENT, make_user
from tests.fakes.fake_platform import FakePlatform
from tests.integration.test_wording_coverage import shout, untranslated
from tests.scoring_helpers import answer, post

OTHER = ChannelRef("fake", "W1", "C2")


@pytest.fixture
def settings(database_url: str) -> Settings:
    """The test bot with an environment default cooldown of one minute and a default timezone."""
    return Settings(  # type: ignore[call-arg]
        database_url=database_url,
        content_dir=SEED_CONTENT,
        card_update_interval=0.0,
        now_cooldown_seconds=60,
        timezone="America/New_York",
        _env_file=None,
        **PATIENT_DATABASE,
    )


async def run(runtime: Runtime, channel: ChannelRef, who: str, text: str, *, admin: bool = False) -> Reply:
    return await runtime.app.handle_command(Invocation(channel, make_user(who), text, is_admin=admin))


async def lead(runtime: Runtime, channel: ChannelRef, who: str = "lee") -> None:
    assert (await run(runtime, channel, "ada", f"role grant U-{who} lead", admin=True)).ok


def line_of(reply: Reply, key: str) -> str:
    return next(line for line in reply.message.lines if line.startswith(f"`{key}`"))


async def test_the_effective_settings_say_where_each_value_comes_from(runtime: Runtime, channel: ChannelRef) -> None:
    shown = await run(runtime, channel, "bob", "settings")
    assert shown.ok and shown.message.title == "Settings here"
    assert line_of(shown, "now-cooldown") == "`now-cooldown` 1 min (default)"  # QUIZBOT_NOW_COOLDOWN_SECONDS
    assert line_of(shown, "timezone") == "`timezone` America/New_York (default)"  # QUIZBOT_TIMEZONE
    assert line_of(shown, "reveal") == "`reveal` leads (default)"
    await lead(runtime, channel)
    assert (await run(runtime, channel, "ada", "settings workspace now-cooldown 5m", admin=True)).ok
    assert line_of(await run(runtime, channel, "bob", "settings"), "now-cooldown") == (
        "`now-cooldown` 5 min (set for the workspace)"
    )
    changed = await run(runtime, channel, "lee", "settings channel now-cooldown 90s")
    assert changed.ok
    assert changed.message.lines == ("`now-cooldown` for this channel: not set → 1 min 30 s",)
    assert line_of(await run(runtime, channel, "bob", "settings"), "now-cooldown") == (
        "`now-cooldown` 1 min 30 s (set for this channel)"
    )
    # another channel of the workspace inherits the workspace's value
    assert line_of(await run(runtime, OTHER, "bob", "settings"), "now-cooldown") == (
        "`now-cooldown` 5 min (set for the workspace)"
    )
    own = await run(runtime, channel, "bob", "settings channel")
    assert line_of(own, "now-cooldown") == "`now-cooldown` 1 min 30 s"
    assert line_of(own, "now-limit") == "`now-limit` not set: inherits no limit (default)"
    cleared = await run(runtime, channel, "lee", "settings channel now-cooldown default")
    assert cleared.message.lines == ("`now-cooldown` for this channel: 1 min 30 s → not set (inherited again)",)
    assert "(set for the workspace)" in line_of(await run(runtime, channel, "bob", "settings"), "now-cooldown")
    assert (await run(runtime, channel, "ada", "settings workspace now-cooldown default", admin=True)).ok
    assert line_of(await run(runtime, channel, "bob", "settings"), "now-cooldown") == "`now-cooldown` 1 min (default)"


async def test_members_may_look_but_only_leads_change_a_channel_and_admins_the_workspace(
    runtime: Runtime, channel: ChannelRef
) -> None:
    refused = await run(runtime, channel, "bob", "settings channel now-limit 2")
    assert not refused.ok and refused.private
    assert refused.message.title.startswith("Only leads and admins can change this channel's settings")
    await lead(runtime, channel)
    workspace = await run(runtime, channel, "lee", "settings workspace now-limit 2")
    assert not workspace.ok
    assert workspace.message.title.startswith("Only workspace admins can change the workspace's settings")
    form = await run(runtime, channel, "lee", "settings workspace edit")
    assert not form.ok and form.form is None
    assert (await run(runtime, channel, "lee", "settings channel now-limit 2")).ok
    assert (await run(runtime, channel, "bob", "settings history")).message.lines == (
        f"{runtime.clock.now():%Y-%m-%d %H:%M} UTC lee: `now-limit` for #C1: not set → 2",
    )


async def test_a_refused_key_or_value_is_one_line_and_nothing_is_kept(runtime: Runtime, channel: ChannelRef) -> None:
    await lead(runtime, channel)
    typo = await run(runtime, channel, "lee", "settings channel now-cooldwn 2m")
    assert not typo.ok and typo.message.lines == ()
    assert typo.message.title.startswith("`now-cooldwn` is not a setting. Did you mean `now-cooldown`?")
    assert "`speed-points`" in typo.message.title
    for text, problem in [
        ("settings channel now-cooldown 3d", "`3d` is not allowed for `now-cooldown`: say a duration up to 24 h"),
        ("settings channel timezone Mars/Base", "`Mars/Base` is not allowed for `timezone`: say an IANA timezone"),
        ("settings channel close-after 10s", "`10s` is not allowed for `close-after`: say a duration from 1 min"),
        ("settings channel now-posters admins", "`admins` is not allowed for `now-posters`: say `anyone` or `leads`"),
        ("settings channel language english!", "`english!` is not allowed for `language`: say a language tag"),
        ("settings channel speed-points maybe", "`maybe` is not allowed for `speed-points`: say `on` or `off`"),
    ]:
        reply = await run(runtime, channel, "lee", text)
        assert not reply.ok and reply.message.title.startswith(problem), text
        assert "\n" not in reply.message.text
    assert (await run(runtime, channel, "lee", "settings history")).message.title == (
        "No setting has been changed here yet."
    )


async def test_a_cooldown_set_in_chat_refuses_the_next_now_with_no_restart(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    assert (await run(runtime, channel, "bob", "now")).ok
    clock.advance(timedelta(minutes=2))  # past the environment's minute
    assert (await run(runtime, channel, "bob", "now")).ok
    await lead(runtime, channel)
    assert (await run(runtime, channel, "lee", "settings channel now-cooldown 10m")).ok
    clock.advance(timedelta(minutes=2))
    soon = await run(runtime, channel, "cy", "now")
    assert not soon.ok
    assert soon.message.title == "You can post the next question here in 8 min (leads and admins can post now)."
    assert (await run(runtime, OTHER, "cy", "now")).ok  # the channel's own setting, not the workspace's
    assert (await run(runtime, channel, "lee", "settings channel now-limit 2")).ok
    clock.advance(timedelta(minutes=10))
    full = await run(runtime, channel, "cy", "now")
    assert full.message.title.startswith("This channel already has 2 open questions")


async def test_now_for_leads_only_refuses_members_in_one_line(runtime: Runtime, channel: ChannelRef) -> None:
    await lead(runtime, channel)
    assert (await run(runtime, channel, "lee", "settings channel now-posters leads")).ok
    refused = await run(runtime, channel, "bob", "now")
    assert not refused.ok and refused.private
    assert refused.message.title == (
        "Only leads and admins can post a question on demand in this channel (setting `now-posters`)."
    )
    assert (await run(runtime, channel, "lee", "now")).ok
    assert (await run(runtime, OTHER, "bob", "now")).ok


async def test_close_after_closes_questions_of_now_and_new_schedules(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await lead(runtime, channel)
    assert (await run(runtime, channel, "lee", "settings channel close-after 30m")).ok
    assert (await run(runtime, channel, "bob", "now")).ok
    async with runtime.app.uow() as uow:
        closes = (await uow.session.execute(select(Post.closes_at))).scalar_one()
    assert closes == clock.now() + timedelta(minutes=30)
    added = await run(runtime, channel, "lee", "schedule add daily 09:00")
    assert added.ok and "each question closes after 30 min" in added.message.text
    explicit = await run(runtime, channel, "lee", "schedule add daily 10:00 close:2h")
    assert "each question closes after 2 h" in explicit.message.text


async def test_new_schedules_take_the_timezone_setting(runtime: Runtime, channel: ChannelRef) -> None:
    assert (await run(runtime, channel, "ada", "settings workspace timezone europe/helsinki", admin=True)).ok
    added = await run(runtime, channel, "ada", "schedule add daily 09:00", admin=True)
    assert "Europe/Helsinki" in added.message.text
    typed = await run(runtime, channel, "ada", "schedule add daily 09:30 tz:UTC", admin=True)
    assert "Europe/Helsinki" not in typed.message.text and "UTC" in typed.message.text


async def test_reveal_policy(runtime: Runtime, channel: ChannelRef) -> None:
    await lead(runtime, channel)
    await post(runtime, channel, source=PostSource.SCHEDULE)
    assert (await run(runtime, channel, "lee", "settings channel reveal schedule")).ok
    waits = await run(runtime, channel, "lee", "reveal")
    assert not waits.ok
    assert waits.message.title.startswith("This question is revealed by its schedule only (setting `reveal`")
    member = await run(runtime, channel, "bob", "reveal")
    assert not member.ok and "by its schedule only" in member.message.title
    assert (await run(runtime, channel, "lee", "settings channel reveal anyone")).ok
    assert (await run(runtime, channel, "bob", "reveal")).ok  # anyone may, now
    assert (await run(runtime, channel, "lee", "settings channel reveal leads")).ok
    await post(runtime, channel, source=PostSource.SCHEDULE)
    assert not (await run(runtime, channel, "bob", "reveal")).ok
    assert (await run(runtime, channel, "lee", "reveal")).ok


async def test_speed_points_off_scores_a_flat_ten(runtime: Runtime, channel: ChannelRef, clock: ManualClock) -> None:
    fast = await post(runtime, channel, closes_at=clock.now() + timedelta(hours=1))
    assert (await answer(runtime, fast, "bob", right=True)).points == 20
    await lead(runtime, channel)
    assert (await run(runtime, channel, "lee", "settings channel speed-points off")).ok
    flat = await post(runtime, channel, closes_at=clock.now() + timedelta(hours=1))
    assert (await answer(runtime, flat, "cy", right=True)).points == 10
    assert (await run(runtime, channel, "ada", "settings workspace speed-points off", admin=True)).ok
    assert (await run(runtime, channel, "lee", "settings channel speed-points on")).ok  # the channel wins
    again = await post(runtime, channel, closes_at=clock.now() + timedelta(hours=1))
    assert (await answer(runtime, again, "dee", right=True)).points == 20


async def test_cohorts_default_to_private_delivery_when_set(runtime: Runtime, channel: ChannelRef) -> None:
    assert (await run(runtime, channel, "ada", "settings workspace cohort-private on", admin=True)).ok
    assert (await run(runtime, channel, "bob", "cohort create hires")).ok
    assert (await run(runtime, channel, "bob", "cohort create chatty deliver:channel")).ok
    async with runtime.app.uow() as uow:
        rows = {row.name: row.delivery for row in await uow.session.execute(select(Cohort.name, Cohort.delivery))}
    assert rows == {"hires": "dm", "chatty": "channel"}


async def test_the_settings_form_opens_prefilled_and_refused_values_come_back_inside_it(
    runtime: Runtime, channel: ChannelRef
) -> None:
    await lead(runtime, channel)
    assert (await run(runtime, channel, "lee", "settings channel now-cooldown 2m")).ok
    opened = await run(runtime, channel, "lee", "settings channel edit")
    assert opened.ok and opened.form is not None
    form = opened.form
    assert (form.kind, form.state, form.title) == (FormKind.SETTINGS, "channel:1", "Channel settings 1/2")
    assert [field.key for field in form.fields] == [
        "timezone",
        "now-posters",
        "now-cooldown",
        "now-limit",
        "close-after",
    ]
    values = {field.key: field.value for field in form.fields}
    assert values["now-cooldown"] == "2m" and values["timezone"] == ""
    assert form.fields[0].hint == "empty: inherits America/New_York (default)"
    context = Context(channel, make_user("lee"))
    typed = {**values, "now-limit": "lots", "timezone": "Europe/Oslo"}
    refused = await runtime.app.submit_form(kind=FormKind.SETTINGS, state=form.state, values=typed, context=context)
    assert not refused.ok and refused.form is not None
    assert dict(refused.form.errors) == {
        "now-limit": "`lots` is not allowed for `now-limit`: say a number from 0 (no limit) to 1000."
    }
    assert {field.key: field.value for field in refused.form.fields}["timezone"] == "Europe/Oslo"  # as typed
    assert "Europe/Oslo" not in line_of(await run(runtime, channel, "bob", "settings"), "timezone")  # nothing kept
    typed["now-limit"], typed["now-cooldown"] = "3", ""
    saved = await runtime.app.submit_form(kind=FormKind.SETTINGS, state=form.state, values=typed, context=context)
    assert saved.ok and saved.form is None
    assert saved.message.lines == (
        "`timezone` for this channel: not set → Europe/Oslo",
        "`now-cooldown` for this channel: 2 min → not set (inherited again)",
        "`now-limit` for this channel: not set → 3",
        "The other settings: `/quiz settings channel edit 2`",
    )
    second = await run(runtime, channel, "lee", "settings channel edit 2")
    assert second.form is not None and second.form.state == "channel:2"
    assert [field.key for field in second.form.fields] == ["reveal", "speed-points", "cohort-private", "language"]
    member = await runtime.app.submit_form(
        kind=FormKind.SETTINGS, state="channel:2", values={"language": "de"}, context=Context(channel, make_user("bob"))
    )
    assert not member.ok and member.message.title.startswith("Only leads and admins can change this channel's")
    by_lead = await runtime.app.submit_form(
        kind=FormKind.SETTINGS, state="workspace:2", values={"language": "de"}, context=context
    )
    assert not by_lead.ok and by_lead.message.title.startswith("Only workspace admins")
    for state in ("channel:²", "channel:" + "1" * 5000):  # a forged page: page 1's, as for any page out of range
        forged = await runtime.app.submit_form(
            kind=FormKind.SETTINGS, state=state, values={"now-limit": "x"}, context=context
        )
        assert not forged.ok and forged.form is not None and forged.form.state == "channel:1"
    history = await run(runtime, channel, "bob", "settings history")
    assert len(history.message.lines) == 4 and all(" lee: " in line for line in history.message.lines)


async def test_doctor_shows_each_default_and_who_overrides_it(
    runtime: Runtime, channel: ChannelRef, settings: Settings
) -> None:
    await lead(runtime, channel)
    assert (await run(runtime, channel, "ada", "settings workspace now-cooldown 5m", admin=True)).ok
    assert (await run(runtime, channel, "lee", "settings channel now-cooldown 90s")).ok
    assert (await run(runtime, OTHER, "lee", "settings channel now-cooldown 2m")).ok
    assert (await run(runtime, channel, "lee", "settings channel reveal schedule")).ok
    findings = {f.detail.partition(":")[0]: f for f in await diagnose(settings) if f.subject == "chat settings"}
    assert list(findings) == [key.value for key in SettingKey]
    assert findings["now-cooldown"].detail == (
        "now-cooldown: default 1 min (QUIZBOT_NOW_COOLDOWN_SECONDS); set by 1 workspace and 2 channels"
    )
    assert findings["timezone"].detail == (
        "timezone: default America/New_York (QUIZBOT_TIMEZONE); set by 0 workspaces and 0 channels"
    )
    assert (
        findings["reveal"].detail == "reveal: default leads (QUIZBOT_REVEAL_POLICY); set by 0 workspaces and 1 channel"
    )
    assert all(f.level == "ok" for f in findings.values())
    one = {
        f.detail.partition(":")[0]: f.detail
        for f in await diagnose(settings, workspace=("fake", "W1"))
        if f.subject == "chat settings"
    }
    assert one["now-cooldown"] == (
        "now-cooldown: 5 min (set for the workspace); channels that set their own: C1 1 min 30 s, C2 2 min"
    )
    assert one["now-limit"] == "now-limit: no limit (default, QUIZBOT_NOW_OPEN_LIMIT)"
    assert one["reveal"] == "reveal: leads (default, QUIZBOT_REVEAL_POLICY); channels that set their own: C1 schedule"
    [unknown] = [f for f in await diagnose(settings, workspace=("fake", "W9")) if f.subject == "chat settings"]
    assert unknown.level == "warn" and unknown.detail.startswith("no workspace W9 on fake in the database")


async def test_the_settings_words_go_through_the_translation_hook(runtime: Runtime, channel: ChannelRef) -> None:
    use_translator(shout)
    try:
        replies = [
            await run(runtime, channel, "ada", "settings channel reveal schedule", admin=True),
            await run(runtime, channel, "ada", "settings workspace now-limit 3", admin=True),
            await run(runtime, channel, "ada", "settings channel reveal default", admin=True),
            await run(runtime, channel, "bob", "settings"),
            await run(runtime, channel, "bob", "settings channel"),
            await run(runtime, channel, "bob", "settings workspace"),
            await run(runtime, channel, "bob", "settings history"),
            await run(runtime, channel, "bob", "settings channel now-limit 2"),
            await run(runtime, channel, "ada", "settings channel frob 2", admin=True),
            await run(runtime, channel, "ada", "settings channel now-limit lots", admin=True),
            await run(runtime, channel, "ada", "settings channel edit", admin=True),
        ]
    finally:
        use_translator(None)
    keys = {f"`{key.value}`" for key in SettingKey}
    values = keys | {"schedule", "leads", "anyone", "on", "off", "en", "America/New_York", "ada", "#C1", "`frob`"}
    values |= {"`lots`", "UTC", "channel", f"{runtime.clock.now():%Y-%m-%d %H:%M}", "/quiz settings channel edit"}
    assert [reply.ok for reply in replies] == [True] * 7 + [False] * 3 + [True]
    for reply in replies:
        assert untranslated(reply, values) == [], reply.message.text


async def test_the_environment_default_applies_until_a_channel_sets_its_own(
    settings: Settings, clock: ManualClock, channel: ChannelRef
) -> None:
    leads_only = settings.model_copy(update={"now_posters": "leads", "speed_points": "off"})
    runtime = await build_runtime(leads_only, clock=clock, rng=random.Random(7), migrate=False)
    runtime.platforms.register(FakePlatform())
    try:
        refused = await run(runtime, channel, "bob", "now")
        assert refused.message.title.startswith("Only leads and admins can post a question on demand")
        assert line_of(await run(runtime, channel, "bob", "settings"), "speed-points") == "`speed-points` off (default)"
        assert (await run(runtime, channel, "ada", "settings channel now-posters anyone", admin=True)).ok
        assert (await run(runtime, channel, "bob", "now")).ok
    finally:
        await runtime.aclose()


async def _lock_waiters(runtime: Runtime) -> int:
    """How many PostgreSQL sessions of this database wait for a lock (the gate the race test holds)."""
    async with runtime.db.engine.connect() as connection:
        query = sql(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return int((await connection.execute(query)).scalar_one())


async def test_two_first_settings_of_one_key_at_once_both_land_one_after_the_other(
    runtime: Runtime, channel: ChannelRef
) -> None:
    """Two leads set a key no one had set, at the same moment: the second waits for the first and changes its value
    (it used to fail on PostgreSQL with a storage error, its INSERT conflicting with the first's); the history keeps
    both, the second's "before" being the first's value."""
    now = datetime.now(UTC)
    async with runtime.app.uow() as uow:
        workspace = await uow.places.workspace_id(channel.platform, channel.workspace_id, now)
        await uow.commit()

    async def second() -> str | None:
        async with runtime.app.uow() as uow:
            before = await uow.settings.change(workspace, None, SettingKey.NOW_LIMIT, "5", by="bob", now=now)
            await uow.commit()
            return before

    async with runtime.app.uow() as uow:
        assert await uow.settings.change(workspace, None, SettingKey.NOW_LIMIT, "3", by="ann", now=now) is None
        racing = asyncio.create_task(second())
        if runtime.db.engine.dialect.name == "postgresql":
            # Hold the gate: the first commits only once the second waits on its uncommitted row.
            while await _lock_waiters(runtime) == 0:
                assert not racing.done(), racing.result()
                await asyncio.sleep(0.01)
        await uow.commit()
    assert await racing == "3"
    async with runtime.app.uow() as uow:
        history = await uow.settings.history(workspace)
    assert [(change.old, change.new) for change in history[:2]] == [("3", "5"), (None, "3")]
