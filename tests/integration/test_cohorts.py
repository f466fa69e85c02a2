"""Cohorts: membership and permissions, the curriculum walk, cohort boards and cohort vs cohort."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import select

from bot.clock import ManualClock
from bot.commands import AddToCohort, CreateCohort, RemoveFromCohort, Scope, Window, parse_command, user_ids
from bot.db.models import Cohort, Post
from bot.domain import ChannelRef, PostSource
from bot.errors import CommandError
from bot.runtime import Runtime
from bot.service.facade import Invocation, Reply
from tests.conftest import make_user
from tests.fakes.fake_platform import FakePlatform
from tests.scoring_helpers import answer, confirm, post, set_timezone


async def run(runtime: Runtime, channel: ChannelRef, who: str, text: str, *, admin: bool = False) -> Reply:
    """Type a /quiz command as a user."""
    return await runtime.app.handle_command(Invocation(channel, make_user(who), text, is_admin=admin))


# --- grammar -----------------------------------------------------------------------------------------------------


def test_cohort_grammar() -> None:
    assert parse_command(
        "cohort create Spring-26 start:2026-03-02 packs:data-parallelism,model-pipeline-parallelism"
    ) == (CreateCohort("Spring-26", date(2026, 3, 2), ("data-parallelism", "model-pipeline-parallelism")))
    assert parse_command("cohort add spring <@U123> <@U456|ann> @bob,carol") == AddToCohort(
        "spring", ("U123", "U456", "bob", "carol")
    )
    assert parse_command("cohort remove spring <@!81234> <@81235>") == RemoveFromCohort("spring", ("81234", "81235"))
    assert user_ids(["<@U1>", "U1", "@U1"]) == ("U1",)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("cohort create", "Name the cohort"),
        ("cohort create spring start:2026-02-30", "is not a date"),
        ("cohort create spring colour:blue", "is not a cohort option"),
        ("cohort create sp ring!", "is not a cohort option"),
        ("cohort create -x", "is not a cohort name"),
        ("cohort create Zoë", "use 1 to 40 letters a-z or A-Z"),  # not "letters": other scripts' are refused
        ("cohort add spring", "Usage: `/quiz cohort add NAME @user...`"),
        ("cohort join", "takes one cohort name"),
        ("cohort frob spring", "is not a cohort command"),
        ("leaderboard cohort", "Which cohort?"),
        ("cohort add spring <@>", "is not a user"),
    ],
)
def test_cohort_grammar_errors(text: str, message: str) -> None:
    with pytest.raises(CommandError, match=message):
        parse_command(text)


# --- membership and permissions ----------------------------------------------------------------------------------


async def test_create_join_leave_list_and_show(runtime: Runtime, channel: ChannelRef) -> None:
    created = await run(runtime, channel, "lead", "cohort create Spring packs:data-parallelism start:2026-01-05")
    assert created.ok and created.private
    assert "Created cohort Spring, starting 2026-01-05" in created.message.text
    assert (await run(runtime, channel, "ann", "cohort join spring")).message.title == "You joined cohort spring."
    assert "already in" in (await run(runtime, channel, "ann", "cohort join SPRING")).message.title
    await run(runtime, channel, "ben", "cohort join spring")
    assert (await run(runtime, channel, "ben", "cohort leave spring")).message.title == "You left cohort spring."
    assert "not in" in (await run(runtime, channel, "ben", "cohort leave spring")).message.title

    listing = await run(runtime, channel, "ann", "cohorts")
    assert "Spring — from 2026-01-05 · 1 member · 0/8 questions asked" in listing.message.text
    shown = await run(runtime, channel, "ann", "cohort show spring")
    assert "created by lead" in shown.message.text
    assert "Data Parallelism Quiz (data-parallelism): 0/8" in shown.message.text
    assert "ann — 0/0 answered" in shown.message.text

    again = await run(runtime, channel, "ann", "cohort create SPRING")
    assert not again.ok and "already exists" in again.message.title
    unknown = await run(runtime, channel, "ann", "cohort show autumn")
    assert not unknown.ok and "No cohort named `autumn`. Cohorts here: Spring." in unknown.message.title
    bad_pack = await run(runtime, channel, "ann", "cohort create autumn packs:nope")
    assert not bad_pack.ok and "no pack called `nope`" in bad_pack.message.title


async def test_only_admins_and_the_creator_manage_members(runtime: Runtime, channel: ChannelRef) -> None:
    await run(runtime, channel, "lead", "cohort create spring")
    denied = await run(runtime, channel, "mallory", "cohort add spring <@U-bob>")
    assert not denied.ok and "Only leads, admins and the creator" in denied.message.title
    assert not (await run(runtime, channel, "mallory", "cohort next spring")).ok
    assert not (await run(runtime, channel, "mallory", "cohort delete spring")).ok

    by_creator = await run(runtime, channel, "lead", "cohort add spring <@U-bob> U-carol")
    assert by_creator.message.title == "Added U-bob, U-carol to cohort spring."
    by_admin = await run(runtime, channel, "root", "cohort add spring @U-bob U-dave", admin=True)
    assert by_admin.message.title == "Added U-dave to cohort spring."
    assert "Already members: U-bob." in by_admin.message.text

    assert not (await run(runtime, channel, "mallory", "cohort remove spring U-bob")).ok
    removed = await run(runtime, channel, "root", "cohort remove spring <@U-bob> U-zed", admin=True)
    assert removed.message.title == "Removed U-bob from cohort spring."
    assert "Not members: U-zed." in removed.message.text

    # Someone added before they ever spoke gets their name once they act.
    await answer(runtime, await post(runtime, channel), "carol", right=True)
    shown = await run(runtime, channel, "carol", "cohort show spring")
    assert "carol —" in shown.message.text
    asked = await run(runtime, channel, "lead", "cohort delete spring")
    assert asked.ok
    assert (await confirm(runtime, asked, channel, "lead")).ok
    assert "No cohorts yet" in (await run(runtime, channel, "lead", "cohort list")).message.title


async def test_cohorts_belong_to_their_workspace(runtime: Runtime, channel: ChannelRef) -> None:
    await run(runtime, channel, "lead", "cohort create spring")
    elsewhere = ChannelRef("fake", "W2", "C1")
    reply = await runtime.app.handle_command(
        Invocation(elsewhere, make_user("x", "W2"), "cohort join spring", is_admin=True)
    )
    assert not reply.ok and "There are no cohorts here yet" in reply.message.title


# --- curriculum --------------------------------------------------------------------------------------------------


async def test_the_curriculum_is_walked_in_order(runtime: Runtime, platform: FakePlatform, channel: ChannelRef) -> None:
    await run(runtime, channel, "lead", "cohort create spring packs:model-pipeline-parallelism,data-parallelism")
    expected = [
        q.prompt
        for pack in ("model-pipeline-parallelism", "data-parallelism")
        for q in runtime.catalog.get(pack).questions
    ]
    reply = await run(runtime, channel, "lead", "cohort next spring")
    assert reply.ok and reply.quiet
    async with runtime.db.transaction() as session:
        cohort_id = (await session.execute(select(Cohort.id))).scalar_one()
    posted = [platform.of_kind("post_card")[0].card]
    for _ in range(len(expected) - 1):
        result = await runtime.app.cohorts.post_next_question(channel, cohort_id=cohort_id)
        assert result is not None
        posted.append(result.card)
    assert [card.prompt for card in posted if card is not None] == expected
    assert await runtime.app.cohorts.post_next_question(channel, cohort_id=cohort_id) is None
    finished = await run(runtime, channel, "lead", "cohort next spring")
    assert "every question of its curriculum" in finished.message.title
    async with runtime.db.transaction() as session:
        posts = (await session.execute(select(Post))).scalars().all()
    assert {(p.source, p.source_ref) for p in posts} == {(PostSource.COHORT.value, str(cohort_id))}
    shown = await run(runtime, channel, "lead", "cohort show spring")
    assert "Curriculum: 16 of 16 questions asked" in shown.message.text


async def test_progress_counts_cohort_questions_answered(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef
) -> None:
    await run(runtime, channel, "lead", "cohort create spring packs:data-parallelism")
    await run(runtime, channel, "ann", "cohort join spring")
    await run(runtime, channel, "lead", "cohort next spring")
    await run(runtime, channel, "lead", "cohort next spring")
    cards = [s.card for s in platform.of_kind("post_card") if s.card is not None]
    await answer(runtime, cards[0], "ann", right=True)
    await answer(runtime, cards[1], "ann", right=False)
    await answer(runtime, await post(runtime, channel), "ann", right=True)  # not a cohort question
    shown = await run(runtime, channel, "lead", "cohort show spring")
    assert "ann — 2/2 answered · 1 right · 40 pts" in shown.message.text


# --- boards ------------------------------------------------------------------------------------------------------


async def test_cohort_board_counts_members_from_the_start(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await set_timezone(runtime, channel, "Europe/Helsinki")
    clock.set(datetime(2026, 1, 4, 21, 0, tzinfo=UTC))  # Sunday 23:00 in Helsinki: before the start
    early = await post(runtime, channel)
    await answer(runtime, early, "ann", right=True)
    await answer(runtime, early, "outsider", right=True)
    await run(runtime, channel, "lead", "cohort create spring start:2026-01-05")
    clock.set(datetime(2026, 1, 4, 22, 30, tzinfo=UTC))  # Monday 00:30 in Helsinki: from the start on
    await run(runtime, channel, "ann", "cohort join spring")
    await run(runtime, channel, "ben", "cohort join spring")
    card = await post(runtime, channel)
    await answer(runtime, card, "ann", right=True)
    await answer(runtime, card, "ben", right=False)
    await answer(runtime, card, "outsider", right=True)

    board = await runtime.stats.leaderboard(
        channel, window=Window.ALL, scope=Scope.COHORT, cohort="Spring", now=clock.now()
    )
    assert board.scope == "cohort spring from 2026-01-05"
    assert [(r.rank, r.name, r.answered) for r in board.rows] == [(1, "ann", 1), (2, "ben", 1)]
    week = await runtime.stats.leaderboard(
        channel, window=Window.WEEK, scope=Scope.COHORT, cohort="spring", now=clock.now()
    )
    assert week.rows == board.rows  # the rollup and the windowed sum agree

    # Joining late still counts everything since the start; leaving removes the member from the board.
    await run(runtime, channel, "cy", "cohort join spring")  # no answers yet: not on the board
    await answer(runtime, card, "dee", right=True)
    await run(runtime, channel, "dee", "cohort join spring")
    board = await runtime.stats.leaderboard(
        channel, window=Window.ALL, scope=Scope.COHORT, cohort="spring", now=clock.now()
    )
    assert [r.name for r in board.rows] == ["ann", "dee", "ben"]
    await run(runtime, channel, "dee", "cohort leave spring")
    reply = await run(runtime, channel, "ann", "leaderboard cohort spring")
    assert "dee" not in reply.message.text
    assert "Leaderboard (cohort spring from 2026-01-05, all time)" in reply.message.title


async def test_cohort_vs_cohort_is_points_per_active_member(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await run(runtime, channel, "lead", "cohort create big")
    await run(runtime, channel, "lead", "cohort create small")
    await run(runtime, channel, "lead", "cohort create idle")
    big = [f"b{i}" for i in range(6)]
    for name in big:
        await run(runtime, channel, name, "cohort join big")
    await run(runtime, channel, "s0", "cohort join small")
    await run(runtime, channel, "s1", "cohort join small")
    await run(runtime, channel, "lurker", "cohort join small")  # never answers: not counted against small
    card = await post(runtime, channel)
    for name in big[:5]:
        await answer(runtime, card, name, right=name in big[:2])
    await answer(runtime, card, "s0", right=True)
    await answer(runtime, card, "s1", right=True)

    board = await runtime.stats.cohort_board(channel, window=Window.ALL, now=clock.now())
    assert [(r.rank, r.name, r.members, r.active, r.points) for r in board.rows] == [
        (1, "small", 3, 2, 40),
        (2, "big", 6, 5, 40),
    ]
    week = await runtime.stats.cohort_board(channel, window=Window.WEEK, now=clock.now())
    assert week.rows == board.rows
    reply = await run(runtime, channel, "lead", "leaderboard cohorts week")
    assert "1. small — 20.0 pts per active member · 2/3 active · 40 pts · accuracy 100%" in reply.message.text
    assert "2. big — 8.0 pts per active member · 5/6 active" in reply.message.text
    assert "idle" not in reply.message.text


async def test_a_cohort_that_has_not_started_has_an_empty_board(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    start = (clock.now() + timedelta(days=7)).date().isoformat()
    await run(runtime, channel, "lead", f"cohort create later start:{start}")
    await run(runtime, channel, "ann", "cohort join later")
    await answer(runtime, await post(runtime, channel), "ann", right=True)
    reply = await run(runtime, channel, "ann", "leaderboard week cohort later")
    assert "No answers yet" in reply.message.text
    assert "Cohorts: later" in (await run(runtime, channel, "ann", "me")).message.text
