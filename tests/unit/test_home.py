"""The personal home without a database: its page (bot/wording/home.py), its Slack blocks and Discord embed within
each platform's limits, and the Slack publisher's coalescing and rate limit (with a fake client and core)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from adapters.discord import limits as discord_limits
from adapters.discord.embeds import page_embed
from adapters.slack.home import REVIEW_ACTION, HomePublisher, home_view, page_blocks
from bot.domain import ChannelRef, UserRef, UserStats
from bot.domain.views import ChannelStanding, CohortProgress, HomeView, NextQuestion, TagResult
from bot.ports import Action, ActionKind, Line, Message, Page, Section
from bot.wording.home import home_page
from tests.fakes.slack_api import validate_blocks

NOW = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)


def view(*, channels: int = 2, due: int = 1, answered: int = 5, name: str = "ann") -> HomeView:
    stats = UserStats(
        name=name,
        answered=answered,
        correct=min(answered, 3),
        points=60,
        rank=2,
        streak=2,
        best_streak=4,
        day_streak=1,
        best_day_streak=3,
        review_due=due,
        review_learning=2,
        review_mastered=1,
        cohorts=("Q1",),
    )
    return HomeView(
        stats=stats,
        channels=tuple(
            ChannelStanding(
                channel=ChannelRef("slack", "T1", f"C{i:04d}"),
                points=60 - i,
                rank=i + 1,
                players=9,
                correct=3,
                answered=5,
            )
            for i in range(channels)
        ),
        weakest=(TagResult("allreduce", answered=4, correct=1), TagResult("zero <!here>", answered=2, correct=1)),
        cohorts=(CohortProgress(name="Q1", posted=3, total=8, answered=2, correct=1),),
        next_question=NextQuestion(ChannelRef("slack", "T1", "C0000"), NOW + timedelta(hours=1, minutes=30), "UTC"),
        now=NOW,
    )


def test_the_page_has_every_part_and_a_review_button_when_something_is_due() -> None:
    page = home_page(view())
    assert page.title == "Your quiz record, ann"
    assert [s.title for s in page.sections] == [
        "Your record",
        "Streaks",
        "Your channels",
        "Weakest topics",
        "Review",
        "Your cohorts",
        "Next question",
    ]
    streaks = [line.text for line in page.sections[1].lines]
    assert streaks == [
        "Right in a row: 2 scheduled questions now · best 4",
        "Days in a row with an answer: 1 day now · best 3",
    ]
    channels = page.sections[2].lines
    assert channels[0] == Line("60 points · rank 1 of 9 · 3 of 5 right", ChannelRef("slack", "T1", "C0000"))
    assert [line.text for line in page.sections[3].lines] == [
        "allreduce: 25% right of 4 answers",
        "zero <!here>: 50% right of 2 answers",
    ]
    assert page.sections[4].lines[0].text == "1 question due now · 2 learning · 1 mastered"
    assert page.sections[6].lines[0] == Line(
        "Tue 1 Dec 2026 09:30 UTC (in 1 h 30 min)", ChannelRef("slack", "T1", "C0000")
    )
    assert [(a.kind, a.label) for a in page.actions] == [(ActionKind.START_REVIEW, "Start a review")]
    assert "  #C0000: 60 points · rank 1 of 9 · 3 of 5 right" in page.message.lines


def test_the_text_names_the_weakest_topics_once() -> None:
    # `/quiz me` in the terminal printed "Most missed topics" (the record's line) and then "Weakest topics" (the
    # page's section), two lists of nearly the same thing.
    missed = replace(view(), stats=replace(view().stats, missed_tags=(("allreduce", 3),)))
    text = home_page(missed).message.lines
    assert "Weakest topics" in text
    assert not any(line.startswith("Most missed topics") for line in text)
    alone = replace(missed, weakest=())  # no weakest-topics section: the record keeps its line
    assert "Most missed topics: allreduce (3)" in home_page(alone).message.lines


def test_nothing_due_means_no_button_and_no_answers_means_no_streaks() -> None:
    assert home_page(view(due=0)).actions == ()
    empty = home_page(view(answered=0, channels=0))
    assert empty.title == "ann: no answers yet."
    assert [s.title for s in empty.sections][:2] == ["Your record", "Weakest topics"]


def test_slack_blocks_of_the_home_stay_within_block_kit_limits_and_escape_content() -> None:
    page = home_page(view(channels=10))
    blocks = home_view(page)["blocks"]
    assert isinstance(blocks, list)
    assert validate_blocks(blocks, max_blocks=100) == []
    assert blocks[0]["type"] == "header" and blocks[0]["text"]["text"] == "Your quiz record, ann"
    text = str(blocks)
    assert "<#C0009>  51 points" in text  # a channel link Slack shows by name
    assert "<!here>" not in text and "&lt;!here&gt;" in text  # a tag cannot notify anyone
    [actions] = [b for b in blocks if b["type"] == "actions"]
    assert actions["elements"][0]["action_id"] == REVIEW_ACTION


def test_a_page_with_more_sections_than_blocks_keeps_its_button() -> None:
    sections = tuple(Section(f"part {i}", (Line("x" * 2900),)) for i in range(150))
    page = Page("title", sections, Message("title"), (Action(ActionKind.START_REVIEW, "Start a review"),))
    for limit in (50, 100):
        blocks = page_blocks(page, max_blocks=limit)
        assert len(blocks) == limit and blocks[-1]["type"] == "actions"
        assert validate_blocks(blocks, max_blocks=limit) == []


def test_the_discord_embed_of_the_home_is_within_limits() -> None:
    embed = page_embed(home_page(view(channels=10))).to_dict()
    assert embed["title"] == "Your quiz record, ann"
    assert embed["description"].startswith("Answered: 5")
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert fields["Your channels"].startswith("<#C0000>  60 points")
    assert fields["Weakest topics"].startswith("allreduce: 25% right of 4 answers\n")
    assert len(embed["fields"]) <= discord_limits.FIELDS
    assert all(len(f["value"]) <= discord_limits.FIELD_VALUE for f in embed["fields"])


# --- the Slack publisher -------------------------------------------------------------------------------------


class FakeClient:
    """Records views.publish calls (the real one is exercised against the fake Slack in tests/e2e/slack)."""

    def __init__(self) -> None:
        self.published: list[tuple[str, Any]] = []

    async def views_publish(self, *, user_id: str, view: Any) -> None:
        self.published.append((user_id, view))


class FakeCore:
    """Builds a page per call; `gate` holds a build until released, to send requests while one is being read."""

    def __init__(self) -> None:
        self.built = 0
        self.gate: asyncio.Event | None = None

    async def home(self, user: UserRef) -> Page:
        self.built += 1
        if self.gate is not None:
            await self.gate.wait()
        return home_page(view(name=user.display_name or "ann"))


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


@pytest.fixture
def now() -> list[float]:
    return [1000.0]


async def test_requests_are_coalesced_and_rate_limited_per_person(now: list[float]) -> None:
    client, core = FakeClient(), FakeCore()
    publisher = HomePublisher(client, core, min_interval=10, clock=lambda: now[0])  # type: ignore[arg-type]
    ann, bob = UserRef("slack", "T1", "U1", "ann"), UserRef("slack", "T1", "U2", "bob")
    publisher.answered(ann)  # never opened: nothing to refresh
    await settle()
    assert client.published == []

    publisher.opened(ann)
    publisher.opened(ann)
    publisher.answered(ann)
    await settle()
    assert [user for user, _ in client.published] == ["U1"]  # three requests, one publish

    publisher.answered(ann)
    publisher.answered(ann)
    publisher.opened(bob)  # another person is not held back by ann's limit
    await settle()
    assert [user for user, _ in client.published] == ["U1", "U2"]
    assert publisher.pending() == 1  # ann's rebuild waits for her 10 s
    await publisher.close()
    assert publisher.pending() == 0


async def test_a_request_while_the_page_is_being_read_publishes_once_more(now: list[float]) -> None:
    client, core = FakeClient(), FakeCore()
    publisher = HomePublisher(client, core, min_interval=10, clock=lambda: now[0])  # type: ignore[arg-type]
    ann = UserRef("slack", "T1", "U1", "ann")
    core.gate = asyncio.Event()
    publisher.opened(ann)
    await settle()
    assert core.built == 1  # reading the page
    publisher.answered(ann)  # the page being read may miss this answer
    publisher.answered(ann)
    now[0] += 10  # by the time it is published, the rate limit allows another
    core.gate.set()
    await settle()
    assert core.built == 2 and len(client.published) == 2
    assert publisher.pending() == 0
