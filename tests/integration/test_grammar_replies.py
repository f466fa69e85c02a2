"""Issue 12, "the grammar helps instead of dumping", as a user meets it through QuizApp, on both databases."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from bot.commands import ShowHelp, help_lines
from bot.db.models import Cohort, Schedule
from bot.domain import ChannelRef, UserRef
from bot.errors import CommandError
from bot.runtime import Runtime
from bot.service.facade import Context, Invocation, Reply
from tests.conftest import make_user
from tests.fakes.fake_platform import FakePlatform

ADMIN = make_user("Ada")


async def run(runtime: Runtime, channel: ChannelRef, text: str, *, user: UserRef = ADMIN) -> Reply:
    return await runtime.app.handle_command(Invocation(channel, user, text, is_admin=True))


@pytest.mark.parametrize(
    "text",
    ["leaderboard yearly", "leaderboard week month", "schedule add every 2 hours", "cohort jion x", "leaderbord"],
)
async def test_a_specific_mistake_gets_its_message_without_the_command_list(
    runtime: Runtime, channel: ChannelRef, text: str
) -> None:
    reply = await run(runtime, channel, text)
    assert not reply.ok
    assert reply.message.lines == ()
    assert "/quiz now [pack]" not in reply.message.text


async def test_a_command_nothing_is_near_still_gets_the_command_list(runtime: Runtime, channel: ChannelRef) -> None:
    reply = await run(runtime, channel, "dance")
    assert reply.message.title.startswith("Unknown command `dance`.")
    assert list(reply.message.lines) == help_lines()


async def test_unknown_commands_and_help_topics_suggest_the_nearest(runtime: Runtime, channel: ChannelRef) -> None:
    reply = await run(runtime, channel, "leaderbord week")
    assert (
        reply.message.title
        == "Unknown command `leaderbord`. Did you mean `leaderboard`? `/quiz help` lists the commands."
    )
    helped = await run(runtime, channel, "help leaderbord")
    assert "There is no command `leaderbord`. Did you mean `leaderboard`?" in helped.message.title
    with pytest.raises(CommandError, match="Did you mean `schedule`"):  # a typed option from a stale client
        await runtime.app.execute(ShowHelp(topic="schedul"), Context(channel, ADMIN))


async def test_help_for_a_command_shows_its_full_syntax_and_an_example(runtime: Runtime, channel: ChannelRef) -> None:
    reply = await run(runtime, channel, "help schedule")
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
    everything = await run(runtime, channel, "help")
    assert "`/quiz help COMMAND` shows one command in full" in everything.message.text


async def test_packs_match_in_any_case_and_by_unique_prefix(
    runtime: Runtime, channel: ChannelRef, platform: FakePlatform
) -> None:
    posted = await run(runtime, channel, "now MODEL")
    assert posted.ok, posted.message.text
    [card] = [sent.card for sent in platform.of_kind("post_card")]
    assert card is not None and card.pack_title == "Model and Pipeline Parallelism Quiz"
    added = await run(runtime, channel, "schedule add daily 09:00 Data-Parallelism data")
    assert added.ok, added.message.text
    created = await run(runtime, channel, "cohort create spring packs:DATA,model-pipe")
    assert created.ok, created.message.text
    async with runtime.db.transaction() as session:
        assert (await session.execute(select(Schedule.pack_ids))).scalar_one() == ["data-parallelism"]
        assert (await session.execute(select(Cohort.packs))).scalar_one() == [
            "data-parallelism",
            "model-pipeline-parallelism",
        ]


async def test_a_missed_pack_suggests_the_nearest(runtime: Runtime, channel: ChannelRef) -> None:
    reply = await run(runtime, channel, "now data-paralelism")
    assert reply.message.title.startswith(
        "There is no pack called `data-paralelism`. Did you mean `data-parallelism`? Packs: "
    )
    scheduled = await run(runtime, channel, "schedule add daily 09:00 modle-pipeline-parallelism")
    assert "Did you mean `model-pipeline-parallelism`?" in scheduled.message.title


async def test_a_5000_character_argument_is_not_echoed_whole(runtime: Runtime, channel: ChannelRef) -> None:
    long = "x" * 5000
    for text in (f"now {long}", f"cohort show {long}", f"leaderboard {long}", f"schedule add daily 09:00 {long}"):
        reply = await run(runtime, channel, text)
        assert not reply.ok
        assert "x" * 41 not in reply.message.text and "…" in reply.message.text, text
        assert len(reply.message.text) < 600, text
