"""The onboarding lead's view of a cohort (on SQLite and PostgreSQL): per member, curriculum questions answered of
those posted to the cohort, right, points since the start apart from cohort progress, last active, and who is
behind or inactive; the same table in the cohort report; and `/quiz cohort remind`, which nudges who is behind."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.clock import ManualClock
from bot.domain import ChannelRef, QuestionCard
from bot.domain.attention import AttentionRules
from bot.domain.views import CohortView
from bot.report_html import render_html
from bot.runtime import Runtime
from bot.service.facade import Invocation, Reply
from tests.conftest import make_user
from tests.fakes.fake_platform import FakePlatform
from tests.integration.test_report import read
from tests.scoring_helpers import answer, post

MONDAY = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


async def run(runtime: Runtime, channel: ChannelRef, who: str, text: str, *, admin: bool = False) -> Reply:
    return await runtime.app.handle_command(Invocation(channel, make_user(who), text, is_admin=admin))


async def cohort_question(runtime: Runtime, channel: ChannelRef) -> QuestionCard:
    """The next curriculum question of spring."""
    posted = await runtime.app.cohorts.post_next_question(channel, cohort_id=1)
    assert posted is not None
    return posted.card


async def spring(runtime: Runtime, channel: ChannelRef, clock: ManualClock) -> list[QuestionCard]:
    """Cohort spring over four days: ann answers every question, ben only the first, cat none (but answers a
    question outside the cohort), eve never answers anything."""
    clock.set(MONDAY)
    await run(runtime, channel, "lead", "cohort create spring packs:data-parallelism")
    for name in ("ann", "ben", "cat", "eve"):
        await run(runtime, channel, name, "cohort join spring")
    cards = []
    for day in range(4):  # Monday to Thursday
        card = await cohort_question(runtime, channel)
        cards.append(card)
        await answer(runtime, card, "ann", right=day != 1)
        if day == 0:
            await answer(runtime, card, "ben", right=True)
        clock.advance(timedelta(days=1))
    for card in cards[:2]:
        await runtime.app.reveal(card.post_id)
    await answer(runtime, await post(runtime, channel), "cat", right=True)  # not a cohort question
    await answer(runtime, await post(runtime, channel), "ann", right=True)  # nor this one
    return cards


async def test_cohort_show_separates_cohort_progress_and_flags_who_is_behind_or_inactive(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await spring(runtime, channel, clock)
    clock.advance(timedelta(days=4))  # Tuesday the 13th: eve joined 8 days ago, ben last answered then too
    shown = await run(runtime, channel, "lead", "cohort show spring")
    lines = shown.message.lines
    members = [line for line in lines if " — " in line and "answered" in line]
    assert members == [
        "  ben — 1/4 answered · 1 right · 20 pts · last active 2026-01-05 · ⚠ behind, inactive",
        "  cat — 0/4 answered · 0 right · 20 pts (20 elsewhere) · last active 2026-01-09 · ⚠ behind",
        "  eve — 0/4 answered · 0 right · 0 pts · never answered · ⚠ behind, inactive",
        "  ann — 4/4 answered · 3 right · 80 pts (20 elsewhere) · last active 2026-01-09",
    ]
    assert "Behind: missed the cohort's last 3 questions. Inactive: no answer in 7 days." in lines
    assert "3 members behind: `/quiz cohort remind spring` sends each a private nudge." in lines


async def test_the_thresholds_are_settings(runtime: Runtime, channel: ChannelRef, clock: ManualClock) -> None:
    await spring(runtime, channel, clock)
    view = await _view(runtime, channel, behind_after=5, inactive_days=30)
    assert [m.name for m in view.members if m.needs_attention] == []
    view = await _view(runtime, channel, behind_after=2, inactive_days=1)
    assert {m.name: (m.behind, m.inactive) for m in view.members} == {
        "ann": (False, False),
        "ben": (True, True),
        "cat": (True, False),
        "eve": (True, True),
    }


async def _view(runtime: Runtime, channel: ChannelRef, *, behind_after: int, inactive_days: int) -> CohortView:
    cohorts = runtime.app.cohorts
    saved, cohorts.rules = cohorts.rules, AttentionRules(behind_after=behind_after, inactive_days=inactive_days)
    try:
        async with runtime.app.uow() as uow:
            return await cohorts.view(uow, await cohorts.find(uow, channel, "spring"))
    finally:
        cohorts.rules = saved


async def test_the_cohort_report_has_the_same_per_member_table(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    await spring(runtime, channel, clock)
    report = await runtime.app.reports.build(platform="fake", workspace="W1", cohort="spring")
    table = read(render_html(report)).tables["members"]
    assert table[0] == [
        "member",
        "cohort questions answered",
        "right",
        "last active",
        "points on cohort questions",
        "points elsewhere",
        "attention",
    ]
    assert table[1:] == [
        ["ann", "4/4", "3", "last active 2026-01-09", "60", "20", ""],
        ["ben", "1/4", "1", "last active 2026-01-05", "20", "0", "behind"],
        ["cat", "0/4", "0", "last active 2026-01-09", "0", "20", "behind"],
        ["eve", "0/4", "0", "never answered", "0", "0", "behind"],  # joined 4 days ago: not inactive yet
    ]
    text = (await run(runtime, channel, "lead", "report cohort spring")).message.text
    assert "  eve — 0/4 answered · 0 right · 0 pts · never answered · ⚠ behind" in text
    assert "  ann — 4/4 answered · 3 right · 80 pts (20 elsewhere) · last active 2026-01-09" in text


async def test_cohort_remind_nudges_each_member_who_is_behind_with_their_open_questions(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef, clock: ManualClock
) -> None:
    cards = await spring(runtime, channel, clock)  # the first two are closed, the last two still open
    platform.unreachable.add("U-eve")

    denied = await run(runtime, channel, "mallory", "cohort remind spring")
    assert not denied.ok
    assert denied.message.title == "Only leads, admins and the creator of cohort spring can remind its members."
    assert platform.of_kind("send_direct") == []

    reply = await run(runtime, channel, "lead", "cohort remind spring")
    assert reply.ok and reply.private
    assert reply.message.title == "Nudged 2 members of spring privately."
    assert reply.message.lines == ("Could not reach 1 member (they may not accept direct messages).",)
    nudges = {sent.user_id: sent.message for sent in platform.of_kind("send_direct")}
    assert set(nudges) == {"U-ben", "U-cat"}  # ann is not behind; eve cannot be reached
    ben = nudges["U-ben"]
    assert ben is not None
    assert ben.title == "You have 2 questions waiting in cohort spring."
    assert all(
        line.startswith("• " + " ".join(c.prompt.split())[:40]) for c, line in zip(cards[2:], ben.lines, strict=False)
    )
    assert len(ben.lines) == 3  # two questions, oldest first, and how to answer them
    assert ben.lines[-1] == "Answer them on their cards in the channel."

    await answer(runtime, cards[3], "cat", right=True)  # cat is no longer behind (answered the newest)
    platform.unreachable.clear()
    by_admin = await run(runtime, channel, "root", "cohort remind spring", admin=True)
    assert by_admin.message.title == "Nudged 2 members of spring privately."
    assert {s.user_id for s in platform.of_kind("send_direct")[2:]} == {"U-ben", "U-eve"}

    for card in cards[2:]:
        await runtime.app.reveal(card.post_id)
    nothing_open = await run(runtime, channel, "lead", "cohort remind spring")
    assert nothing_open.message.title == (
        "Nobody nudged: the 2 members of spring who are behind have no open question to answer."
    )


async def test_cohort_remind_with_nobody_behind_and_a_singular_nudge(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef, clock: ManualClock
) -> None:
    clock.set(MONDAY)
    await run(runtime, channel, "lead", "cohort create spring packs:data-parallelism")
    await run(runtime, channel, "ann", "cohort join spring")
    await cohort_question(runtime, channel)
    assert (await run(runtime, channel, "lead", "cohort remind spring")).message.title == (
        "Nobody in spring is behind: nobody to nudge."
    )
    await cohort_question(runtime, channel)
    await cohort_question(runtime, channel)
    reply = await run(runtime, channel, "lead", "cohort remind spring")
    assert reply.message.title == "Nudged 1 member of spring privately."
    [sent] = platform.of_kind("send_direct")
    assert sent.message is not None and sent.message.title == "You have 3 questions waiting in cohort spring."
