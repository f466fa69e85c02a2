"""Handlers through the real QuizApp with no database: `bootstrap_test_app` wires the in-memory unit of work
(tests/fakes/memory_uow.py) and the fake platform. The same scenarios run on SQLite and PostgreSQL in
tests/integration/ (test_grammar_replies, test_seasons, test_schedule_commands), which also check the rows; here
the committed rows are the memory store's."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.clock import ManualClock
from bot.commands import ImportPack, ShowHelp, help_lines
from bot.db.models import Schedule, Season
from bot.domain import ChannelRef, UserRef
from bot.errors import CommandError
from bot.service.facade import Context, Invocation, Reply
from tests.conftest import SEED_CONTENT, make_user
from tests.fakes.memory_uow import MemoryApp, bootstrap_test_app
from tests.scoring_helpers import confirm
from tests.upload_support import KAHOOT_ROWS, kahoot_workbook

ADMIN = make_user("Ada")
MEMBER = make_user("Bob")
CHANNEL = ChannelRef(platform="fake", workspace_id="W1", channel_id="C1")


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def core(clock: ManualClock) -> MemoryApp:
    return bootstrap_test_app(clock=clock, content_dir=SEED_CONTENT)


async def run(
    core: MemoryApp, text: str, *, user: UserRef = ADMIN, admin: bool = True, channel: ChannelRef = CHANNEL
) -> Reply:
    return await core.app.handle_command(Invocation(channel, user, text, is_admin=admin))


def seasons(core: MemoryApp) -> list[Season]:
    return list(core.store.committed.seasons)


def schedules(core: MemoryApp) -> list[Schedule]:
    return sorted(core.store.committed.schedules, key=lambda s: s.id)


# --- the unit of work itself ---------------------------------------------------------------------------------


async def test_the_memory_unit_of_work_keeps_nothing_unless_committed(core: MemoryApp) -> None:
    uow = core.app.uow()
    async with uow:
        await uow.places.user_id(ADMIN, datetime.now(UTC))
    assert core.store.committed.users == {}
    async with uow:
        await uow.places.user_id(ADMIN, datetime.now(UTC))
        await uow.commit()
    assert [name for _, name in core.store.committed.users.values()] == ["Ada"]


async def test_a_refused_command_commits_nothing(core: MemoryApp) -> None:
    refused = await run(core, "season start q1", user=MEMBER, admin=False)
    assert not refused.ok
    assert core.store.commits == 0


# --- help and the grammar (as tests/integration/test_grammar_replies.py) ----------------------------------------


@pytest.mark.parametrize(
    "text",
    ["leaderboard yearly", "leaderboard week month", "schedule add every 2 hours", "cohort jion x", "leaderbord"],
)
async def test_a_specific_mistake_gets_its_message_without_the_command_list(core: MemoryApp, text: str) -> None:
    reply = await run(core, text)
    assert not reply.ok
    assert reply.message.lines == ()
    assert "/quiz now [pack]" not in reply.message.text


async def test_a_command_nothing_is_near_still_gets_the_command_list(core: MemoryApp) -> None:
    reply = await run(core, "dance")
    assert reply.message.title.startswith("Unknown command `dance`.")
    assert list(reply.message.lines) == help_lines()


async def test_unknown_commands_and_help_topics_suggest_the_nearest(core: MemoryApp) -> None:
    reply = await run(core, "leaderbord week")
    assert (
        reply.message.title
        == "Unknown command `leaderbord`. Did you mean `leaderboard`? `/quiz help` lists the commands."
    )
    helped = await run(core, "help leaderbord")
    assert "There is no command `leaderbord`. Did you mean `leaderboard`?" in helped.message.title
    with pytest.raises(CommandError, match="Did you mean `schedule`"):  # a typed option from a stale client
        await core.app.execute(ShowHelp(topic="schedul"), Context(CHANNEL, ADMIN))


async def test_help_for_a_command_shows_its_full_syntax_and_an_example(core: MemoryApp) -> None:
    reply = await run(core, "help schedule")
    assert reply.ok and reply.message.title.startswith("/quiz schedule add <when>")
    text = reply.message.text
    for needle in (
        "weekdays 09:30",
        "30 9 * * 1-5",
        "`tz:Area/City`",
        "`close:DURATION`",
        "Example: `/quiz schedule add",
    ):
        assert needle in text, needle
    everything = await run(core, "help")
    assert "`/quiz help COMMAND` shows one command in full" in everything.message.text


# --- seasons (as tests/integration/test_seasons.py) -----------------------------------------------------------


async def test_only_admins_start_and_end_seasons_and_one_runs_at_a_time(core: MemoryApp) -> None:
    refused = await run(core, "season start q1", user=make_user("bob"), admin=False)
    assert not refused.ok and refused.message.title.startswith("Only leads and admins can start seasons")
    ada = make_user("ada")
    started = await run(core, "season start Q1 until:2026-03-31", user=ada)
    assert started.ok and not started.private
    assert started.message.title == "Season Q1 has started: it runs through 2026-03-31."
    again = await run(core, "season start q2", user=ada)
    assert not again.ok
    assert again.message.title == (
        "Season Q1 is running (since 2026-01-05); end it with `/quiz season end` before starting another."
    )
    assert not (await run(core, "season end", user=make_user("bob"), admin=False)).ok
    assert len(seasons(core)) == 1
    asked = await run(core, "season end", user=ada)
    ended = await confirm(core, asked, CHANNEL, "ada", admin=True)  # type: ignore[arg-type]
    assert ended.ok, ended.message.text
    taken = await run(core, "season start q1", user=ada)
    assert not taken.ok and taken.message.title == "There already was a season called q1 here; pick another name."
    past = await run(core, "season start q0 until:2026-01-04", user=ada)
    assert not past.ok
    assert past.message.title == (
        "`until:2026-01-04` is in the past (today is 2026-01-05); give the season's last day, today or later."
    )
    assert len(seasons(core)) == 1


async def test_season_list_shows_the_running_one_first(core: MemoryApp, clock: ManualClock) -> None:
    bob, ada = make_user("bob"), make_user("ada")
    assert (await run(core, "season list", user=bob, admin=False)).message.title == "No seasons yet."
    await run(core, "season start autumn", user=ada)
    await confirm(core, await run(core, "season end", user=ada), CHANNEL, "ada", admin=True)  # type: ignore[arg-type]
    clock.advance(timedelta(days=2))
    await run(core, "season start winter until:2026-02-28", user=ada)
    listing = await run(core, "seasons", user=bob, admin=False)
    assert listing.message.lines[:2] == (
        "winter — running since 2026-01-07, through 2026-02-28",
        "autumn — 2026-01-05 to 2026-01-05",
    )


# --- schedules (as tests/integration/test_schedule_commands.py) -----------------------------------------------


async def test_admin_adds_a_schedule_and_sees_the_rule_in_words_and_the_next_three_fires(
    core: MemoryApp, clock: ManualClock
) -> None:
    clock.set(datetime(2026, 1, 5, 9, 0, tzinfo=UTC))  # Monday 11:00 in Helsinki: today's 09:30 has passed
    reply = await run(core, "schedule add weekdays 09:30 data-parallelism tz:Europe/Helsinki close:2h")
    assert reply.ok, reply.message
    assert not reply.private  # the channel sees that it is now on a schedule
    assert reply.message.title == "Scheduled #1: a question every weekday (Mon–Fri) at 09:30, Europe/Helsinki time."
    assert reply.message.lines == (
        "Packs: data-parallelism; each question closes after 2 h.",
        "Next: Tue 6 Jan 2026 09:30 EET",
        "Then: Wed 7 Jan 2026 09:30 EET",
        "Then: Thu 8 Jan 2026 09:30 EET",
    )
    (schedule,) = schedules(core)
    assert (schedule.rule, schedule.timezone, schedule.pack_ids) == (
        "30 9 * * 1-5",
        "Europe/Helsinki",
        ["data-parallelism"],
    )
    assert schedule.close_after_seconds == 7200
    assert schedule.enabled
    assert (schedule.next_slot, schedule.next_fire_at) == ("2026-01-06T09:30", datetime(2026, 1, 6, 7, 30, tzinfo=UTC))


async def test_list_next_pause_resume_and_remove(core: MemoryApp, clock: ManualClock) -> None:
    clock.set(datetime(2026, 1, 5, 6, 0, tzinfo=UTC))
    await run(core, "schedule add weekdays 09:30 tz:Europe/Helsinki")
    await run(core, "schedule add daily 18:00 model-pipeline-parallelism tz:UTC")
    other = ChannelRef("fake", "W1", "C2")
    await run(core, "schedule add mon 12:00", channel=other)

    listing = await run(core, "schedule list", user=MEMBER, admin=False)
    assert listing.ok
    assert listing.private
    assert listing.message.title == "Schedules in this channel"
    assert listing.message.lines == (
        "#1 · every weekday (Mon–Fri) at 09:30 · Europe/Helsinki · packs: all · next: Mon 5 Jan 2026 09:30 EET",
        "#2 · every day at 18:00 · UTC · packs: model-pipeline-parallelism · next: Mon 5 Jan 2026 18:00 UTC",
    )
    everywhere = await run(core, "schedule list all", user=MEMBER, admin=False)
    assert len(everywhere.message.lines) == 3
    assert everywhere.message.lines[1] == (  # soonest first
        "#3 · channel C2 · every Monday at 12:00 · UTC · packs: all · next: Mon 5 Jan 2026 12:00 UTC"
    )

    upcoming = await run(core, "schedule next", user=MEMBER, admin=False)
    assert upcoming.message.title == "Next question here: Mon 5 Jan 2026 09:30 EET (in 1 h 30 min)."

    paused = await run(core, "schedule pause 1")
    assert paused.ok
    assert paused.message.title == "Paused schedule #1 (every weekday (Mon–Fri) at 09:30)."
    again = await run(core, "schedule pause 1")
    assert again.message.title == "Schedule #1 is already paused."
    listing = await run(core, "schedule list")
    assert listing.message.lines[-1].endswith("· paused (paused by Ada)")
    upcoming = await run(core, "schedule next")
    assert upcoming.message.title.startswith("Next question here: Mon 5 Jan 2026 18:00 UTC")

    clock.set(datetime(2026, 1, 7, 12, 0, tzinfo=UTC))  # resume on Wednesday afternoon: no catching up
    resumed = await run(core, "schedule resume 1")
    assert resumed.message.title == "Resumed schedule #1 (every weekday (Mon–Fri) at 09:30)."
    assert resumed.message.lines == ("Next: Thu 8 Jan 2026 09:30 EET",)
    assert schedules(core)[0].paused_reason is None

    asked = await run(core, "schedule remove 3")  # any channel of the workspace may manage it
    assert asked.ok and asked.confirm is not None
    assert [s.id for s in schedules(core)] == [1, 2, 3]  # nothing happens before the confirmation
    removed = await confirm(core, asked, CHANNEL, ADMIN, admin=True)  # type: ignore[arg-type]
    assert removed.ok
    assert removed.message.title == "Removed schedule #3 (every Monday at 12:00, UTC)."
    assert [s.id for s in schedules(core)] == [1, 2]


async def test_nothing_scheduled(core: MemoryApp) -> None:
    assert (await run(core, "schedule next")).message.title == "Nothing is scheduled in this channel."
    assert (await run(core, "schedule list")).message.title == "No schedules in this channel."


async def test_only_admins_change_schedules_and_nothing_changes_when_others_try(core: MemoryApp) -> None:
    await run(core, "schedule add daily 09:00")
    before = [(s.id, s.enabled, s.rule, s.next_fire_at) for s in schedules(core)]
    for text in ("schedule add daily 10:00", "schedule remove 1", "schedule pause 1", "schedule resume 1"):
        reply = await run(core, text, user=MEMBER, admin=False)
        assert not reply.ok
        assert reply.message.title.startswith("Only leads and admins can"), text
        assert "nothing was changed" in reply.message.title
    assert [(s.id, s.enabled, s.rule, s.next_fire_at) for s in schedules(core)] == before


async def test_schedules_of_another_workspace_are_not_reachable(core: MemoryApp) -> None:
    await run(core, "schedule add daily 09:00")
    elsewhere = ChannelRef("fake", "W2", "C9")
    for action in ("remove", "pause", "resume"):
        reply = await run(core, f"schedule {action} 1", user=make_user("Eve", "W2"), channel=elsewhere)
        assert not reply.ok
        assert reply.message.title == "There is no schedule #1 in this workspace; `/quiz schedule list all` shows them."
    assert (await run(core, "schedule list all", channel=elsewhere)).message.title == "No schedules in this workspace."
    assert len(schedules(core)) == 1


async def test_refused_adds_change_nothing(core: MemoryApp) -> None:
    await run(core, "schedule add daily 09:00 data-parallelism")
    duplicate = await run(core, "schedule add every day at 9:00 data-parallelism")
    assert not duplicate.ok
    assert duplicate.message.title.startswith("Schedule #1 already posts here every day at 09:00 (UTC)")
    unknown = await run(core, "schedule add daily 10:00 no-such-pack")
    assert not unknown.ok
    assert "no-such-pack" in unknown.message.title
    assert "data-parallelism" in unknown.message.title
    bad = await run(core, "schedule add daily 25:00")
    assert not bad.ok
    assert bad.message.title.startswith("`25:00` is not a time")
    assert len(schedules(core)) == 1


async def test_the_same_draft_only_upload_twice_queues_its_drafts_once(core: MemoryApp) -> None:
    context = Context(CHANNEL, ADMIN, is_admin=True)
    first = await core.app.execute(ImportPack("Team Runbooks.xlsx", kahoot_workbook()), context)
    assert first.ok, first.message
    again = await core.app.execute(ImportPack("Team Runbooks.xlsx", kahoot_workbook()), context)
    assert again.message.title == "pack team-runbooks: 0 questions added"
    assert f"{len(KAHOOT_ROWS)} drafts were already waiting in /quiz drafts: not queued again." in again.message.lines
    assert len(core.store.committed.drafts) == len(KAHOOT_ROWS)
