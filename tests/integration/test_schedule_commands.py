"""`/quiz schedule ...` through QuizApp, the way adapters call it: grammar, replies, admin checks, on both databases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update

from bot.clock import ManualClock
from bot.commands import (
    AddSchedule,
    ListSchedules,
    NextSchedule,
    PauseSchedule,
    RemoveSchedule,
    ResumeSchedule,
    help_lines,
    parse_command,
)
from bot.db.models import Schedule, Workspace
from bot.domain import ChannelRef, UserRef
from bot.errors import CommandError
from bot.runtime import Runtime
from bot.schedule_rules import parse_rule
from bot.service.facade import Invocation, Reply
from tests.conftest import make_user
from tests.scoring_helpers import confirm

ADMIN = make_user("Ada")
MEMBER = make_user("Bob")


async def run(runtime: Runtime, channel: ChannelRef, text: str, *, user: UserRef = ADMIN, admin: bool = True) -> Reply:
    return await runtime.app.handle_command(Invocation(channel, user, text, is_admin=admin))


async def schedules(runtime: Runtime) -> list[Schedule]:
    async with runtime.db.transaction() as session:
        return list((await session.execute(select(Schedule).order_by(Schedule.id))).scalars())


# --- grammar --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("schedule add daily 09:00", AddSchedule(rule=parse_rule("daily 09:00"))),
        (
            "schedule add weekdays 09:30 data-parallelism tz:europe/helsinki close:2h",
            AddSchedule(
                rule=parse_rule("weekdays 09:30"),
                packs=("data-parallelism",),
                timezone="Europe/Helsinki",
                close_after=timedelta(hours=2),
            ),
        ),
        (
            "schedule add mon,wed,fri 14:00 a b a timezone=UTC",
            AddSchedule(rule=parse_rule("mon,wed,fri 14:00"), packs=("a", "b"), timezone="UTC"),
        ),
        ('schedule add "30 9 * * 1-5" all', AddSchedule(rule=parse_rule("30 9 * * 1-5"))),
        (
            "schedule add 30 9 * * 1-5 close:45m",
            AddSchedule(rule=parse_rule("30 9 * * 1-5"), close_after=timedelta(minutes=45)),
        ),
        ("schedule list", ListSchedules()),
        ("schedules ls all", ListSchedules(everywhere=True)),
        ("schedule remove 3", RemoveSchedule(3)),
        ("schedule rm #3", RemoveSchedule(3)),
        ("schedule pause 4", PauseSchedule(4)),
        ("schedule resume 4", ResumeSchedule(4)),
        ("schedule next", NextSchedule()),
    ],
)
def test_schedule_commands_parse(text: str, expected: object) -> None:
    assert parse_command(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("schedule", "needs an action"),
        ("schedule dance", "`dance` is not a schedule action"),
        ("schedule add", "Say when"),
        ("schedule add hourly 09:00", "`hourly` is not a day rule"),
        ("schedule add daily 09:00 tz:Europe/Helsinky", "Did you mean `Europe/Helsinki`"),
        ("schedule add daily 09:00 Europe/Helsinki", "looks like a timezone; write it as `tz:Europe/Helsinki`"),
        ("schedule add daily 09:00 tz:", "Give the timezone after `tz:`"),
        ("schedule add daily 09:00 close:90", "Add a unit"),
        ("schedule add daily 09:00 close:30s", "too short"),
        ("schedule add daily 09:00 close:8d", "too long"),
        ("schedule add daily 09:00 colour:red", "Unknown option `colour:`"),
        ("schedule remove", "takes one schedule id"),
        ("schedule pause x", "`x` is not a schedule id"),
        ("schedule list everything", "takes nothing, or `all`"),
        ("schedule next 1", "takes no arguments"),
    ],
)
def test_schedule_command_errors_say_what_to_type(text: str, message: str) -> None:
    with pytest.raises(CommandError, match=message):
        parse_command(text)


def test_help_lists_the_schedule_command() -> None:
    (line,) = help_lines("schedule")
    assert line.startswith("/quiz schedule add <when>")
    assert any(line.startswith("/quiz schedule") for line in help_lines())


# --- use cases ------------------------------------------------------------------------------------------


async def test_admin_adds_a_schedule_and_sees_the_rule_in_words_and_the_next_three_fires(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    clock.set(datetime(2026, 1, 5, 9, 0, tzinfo=UTC))  # Monday 11:00 in Helsinki: today's 09:30 has passed
    reply = await run(runtime, channel, "schedule add weekdays 09:30 data-parallelism tz:Europe/Helsinki close:2h")
    assert reply.ok, reply.message
    assert not reply.private  # the channel sees that it is now on a schedule
    assert reply.message.title == "Scheduled #1: a question every weekday (Mon–Fri) at 09:30, Europe/Helsinki time."
    assert reply.message.lines == (
        "Packs: data-parallelism; each question closes after 2 h.",
        "Next: Tue 6 Jan 2026 09:30 EET",
        "Then: Wed 7 Jan 2026 09:30 EET",
        "Then: Thu 8 Jan 2026 09:30 EET",
    )
    (schedule,) = await schedules(runtime)
    assert (schedule.rule, schedule.timezone, schedule.pack_ids) == (
        "30 9 * * 1-5",
        "Europe/Helsinki",
        ["data-parallelism"],
    )
    assert schedule.close_after_seconds == 7200
    assert schedule.enabled
    assert (schedule.next_slot, schedule.next_fire_at) == ("2026-01-06T09:30", datetime(2026, 1, 6, 7, 30, tzinfo=UTC))


async def test_the_default_timezone_is_the_workspaces_and_the_default_close_is_the_next_fire(
    runtime: Runtime, channel: ChannelRef
) -> None:
    await run(runtime, channel, "now")  # creates the workspace with the settings' timezone
    async with runtime.db.transaction() as session:
        await session.execute(update(Workspace).values(timezone="America/New_York"))
    reply = await run(runtime, channel, "schedule add daily 08:00")
    assert reply.ok, reply.message
    assert "America/New_York time" in reply.message.title
    assert "Packs: all; each question closes when the next one is due (at most 24 h)." in reply.message.lines
    assert "EST" in reply.message.lines[1]
    (schedule,) = await schedules(runtime)
    assert schedule.timezone == "America/New_York"
    assert schedule.close_after_seconds is None


async def test_list_next_pause_resume_and_remove(runtime: Runtime, channel: ChannelRef, clock: ManualClock) -> None:
    clock.set(datetime(2026, 1, 5, 6, 0, tzinfo=UTC))
    await run(runtime, channel, "schedule add weekdays 09:30 tz:Europe/Helsinki")
    await run(runtime, channel, "schedule add daily 18:00 model-pipeline-parallelism tz:UTC")
    other = ChannelRef("fake", "W1", "C2")
    await run(runtime, other, "schedule add mon 12:00")

    listing = await run(runtime, channel, "schedule list", user=MEMBER, admin=False)
    assert listing.ok
    assert listing.private
    assert listing.message.title == "Schedules in this channel"
    assert listing.message.lines == (
        "#1 · every weekday (Mon–Fri) at 09:30 · Europe/Helsinki · packs: all · next: Mon 5 Jan 2026 09:30 EET",
        "#2 · every day at 18:00 · UTC · packs: model-pipeline-parallelism · next: Mon 5 Jan 2026 18:00 UTC",
    )
    everywhere = await run(runtime, channel, "schedule list all", user=MEMBER, admin=False)
    assert len(everywhere.message.lines) == 3
    assert everywhere.message.lines[1] == (  # soonest first
        "#3 · channel C2 · every Monday at 12:00 · UTC · packs: all · next: Mon 5 Jan 2026 12:00 UTC"
    )

    upcoming = await run(runtime, channel, "schedule next", user=MEMBER, admin=False)
    assert upcoming.message.title == "Next question here: Mon 5 Jan 2026 09:30 EET (in 1 h 30 min)."

    paused = await run(runtime, channel, "schedule pause 1")
    assert paused.ok
    assert paused.message.title == "Paused schedule #1 (every weekday (Mon–Fri) at 09:30)."
    again = await run(runtime, channel, "schedule pause 1")
    assert again.message.title == "Schedule #1 is already paused."
    listing = await run(runtime, channel, "schedule list")
    assert listing.message.lines[-1].endswith("· paused (paused by Ada)")
    upcoming = await run(runtime, channel, "schedule next")
    assert upcoming.message.title.startswith("Next question here: Mon 5 Jan 2026 18:00 UTC")

    clock.set(datetime(2026, 1, 7, 12, 0, tzinfo=UTC))  # resume on Wednesday afternoon: no catching up
    resumed = await run(runtime, channel, "schedule resume 1")
    assert resumed.message.title == "Resumed schedule #1 (every weekday (Mon–Fri) at 09:30)."
    assert resumed.message.lines == ("Next: Thu 8 Jan 2026 09:30 EET",)
    assert (await schedules(runtime))[0].paused_reason is None

    asked = await run(runtime, channel, "schedule remove 3")  # any channel of the workspace may manage it
    assert asked.ok and asked.confirm is not None
    assert [s.id for s in await schedules(runtime)] == [1, 2, 3]  # nothing happens before the confirmation
    removed = await confirm(runtime, asked, channel, ADMIN, admin=True)
    assert removed.ok
    assert removed.message.title == "Removed schedule #3 (every Monday at 12:00, UTC)."
    assert [s.id for s in await schedules(runtime)] == [1, 2]


async def test_nothing_scheduled(runtime: Runtime, channel: ChannelRef) -> None:
    assert (await run(runtime, channel, "schedule next")).message.title == "Nothing is scheduled in this channel."
    assert (await run(runtime, channel, "schedule list")).message.title == "No schedules in this channel."


async def test_only_admins_change_schedules_and_nothing_changes_when_others_try(
    runtime: Runtime, channel: ChannelRef
) -> None:
    await run(runtime, channel, "schedule add daily 09:00")
    before = [(s.id, s.enabled, s.rule, s.next_fire_at) for s in await schedules(runtime)]
    for text in ("schedule add daily 10:00", "schedule remove 1", "schedule pause 1", "schedule resume 1"):
        reply = await run(runtime, channel, text, user=MEMBER, admin=False)
        assert not reply.ok
        assert reply.message.title.startswith("Only leads and admins can"), text
        assert "nothing was changed" in reply.message.title
    assert [(s.id, s.enabled, s.rule, s.next_fire_at) for s in await schedules(runtime)] == before


async def test_schedules_of_another_workspace_are_not_reachable(runtime: Runtime, channel: ChannelRef) -> None:
    await run(runtime, channel, "schedule add daily 09:00")
    elsewhere = ChannelRef("fake", "W2", "C9")
    for action in ("remove", "pause", "resume"):
        reply = await run(runtime, elsewhere, f"schedule {action} 1", user=make_user("Eve", "W2"))
        assert not reply.ok
        assert reply.message.title == "There is no schedule #1 in this workspace; `/quiz schedule list all` shows them."
    assert (await run(runtime, elsewhere, "schedule list all")).message.title == "No schedules in this workspace."
    assert len(await schedules(runtime)) == 1


async def test_refused_adds_change_nothing(runtime: Runtime, channel: ChannelRef) -> None:
    await run(runtime, channel, "schedule add daily 09:00 data-parallelism")
    duplicate = await run(runtime, channel, "schedule add every day at 9:00 data-parallelism")
    assert not duplicate.ok
    assert duplicate.message.title.startswith("Schedule #1 already posts here every day at 09:00 (UTC)")
    unknown = await run(runtime, channel, "schedule add daily 10:00 no-such-pack")
    assert not unknown.ok
    assert "no-such-pack" in unknown.message.title
    assert "data-parallelism" in unknown.message.title
    bad = await run(runtime, channel, "schedule add daily 25:00")
    assert not bad.ok
    assert bad.message.title.startswith("`25:00` is not a time")
    assert len(await schedules(runtime)) == 1


def test_the_grace_window_setting_takes_seconds_or_a_duration() -> None:
    from bot.config import load_settings
    from bot.errors import ConfigError

    assert load_settings(_env_file=None).schedule_grace == timedelta(hours=1)
    assert load_settings(_env_file=None, schedule_grace="90m").schedule_grace == timedelta(minutes=90)
    assert load_settings(_env_file=None, schedule_grace="600").schedule_grace == timedelta(minutes=10)
    with pytest.raises(ConfigError, match="QUIZBOT_SCHEDULE_GRACE: soon is not a duration"):
        load_settings(_env_file=None, schedule_grace="soon")
    with pytest.raises(ConfigError, match="QUIZBOT_SCHEDULE_TICK_SECONDS"):
        load_settings(_env_file=None, schedule_tick_seconds=0)
