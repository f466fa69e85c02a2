"""The private reply to a correct answer: the points it earned and the new rank on the channel's board."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest

from bot.clock import ManualClock
from bot.commands import Scope, Window
from bot.domain import AnswerOutcome, ChannelRef, ranking
from bot.runtime import Runtime
from bot.wording import use_translator
from bot.wording.answers import answer_message
from tests.fakes.slack_api import FakeSlack
from tests.scoring_helpers import answer, post
from tests.slack_harness import choice_action, running_adapter


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    yield
    use_translator(None)


async def _board_ranks(runtime: Runtime, channel: ChannelRef) -> dict[str, int]:
    board = await runtime.stats.leaderboard(
        channel, window=Window.ALL, scope=Scope.CHANNEL, now=runtime.clock.now(), limit=50
    )
    return {row.name: row.rank for row in board.rows}


async def test_a_correct_answer_says_its_points_and_the_new_rank_on_the_channel_board(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    first = await post(runtime, channel)
    alice = await answer(runtime, first, "alice", right=True)
    assert (alice.points, alice.rank) == (20, 1)
    clock.advance(timedelta(minutes=30))
    bob = await answer(runtime, first, "bob", right=True)
    dan = await answer(runtime, first, "dan", right=True)
    carol = await answer(runtime, first, "carol", right=False)
    again = await answer(runtime, first, "alice", right=True)
    assert (bob.points, bob.rank) == (15, 2)
    assert (dan.points, dan.rank) == (15, 2)  # tied with bob: the board shows them both at 2
    assert (carol.points, carol.rank) == (None, None)  # a wrong answer earns nothing to report
    assert again.outcome is AnswerOutcome.ALREADY_ANSWERED
    assert (again.points, again.rank) == (None, None)
    assert await _board_ranks(runtime, channel) == {"alice": 1, "bob": 2, "dan": 2, "carol": 4}

    message = answer_message(bob)
    assert message.title == f"Correct! “{bob.correct_choice}”"  # the first line is unchanged
    assert message.lines == (
        bob.explanation,
        "15 points for this answer; you are now #2 on this channel's leaderboard.",
    )
    assert answer_message(carol).lines == (carol.explanation,)
    assert answer_message(again).lines == (again.explanation,)

    second = await post(runtime, channel)
    bob_again = await answer(runtime, second, "bob", right=True)
    assert (bob_again.points, bob_again.rank) == (20, 1)  # 35 points now, ahead of alice's 20
    assert (await _board_ranks(runtime, channel))["bob"] == 1


async def test_below_the_boards_top_places_the_verdict_says_so_instead_of_a_rank(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The place is read down to RANKED_TOP places and no further (a pass over a hundred thousand members' board
    for every batch of clicks otherwise): within them it is exact, ties at the last place included; below, the
    verdict says the clicker is outside them."""
    monkeypatch.setattr(ranking, "RANKED_TOP", 2)
    first = await post(runtime, channel)
    alice = await answer(runtime, first, "alice", right=True)
    clock.advance(timedelta(minutes=30))
    bob = await answer(runtime, first, "bob", right=True)
    dan = await answer(runtime, first, "dan", right=True)  # tied with bob at the last place kept: both are #2
    clock.advance(timedelta(minutes=20))
    erin = await answer(runtime, first, "erin", right=True)  # fourth, with fewer points
    assert [(r.points, r.rank) for r in (alice, bob, dan)] == [(20, 1), (15, 2), (15, 2)]
    assert (erin.points, erin.rank) == (12, None)
    assert await _board_ranks(runtime, channel) == {"alice": 1, "bob": 2, "dan": 2, "erin": 4}
    assert answer_message(erin).lines == (
        erin.explanation,
        "12 points for this answer; you are outside the top 2 of this channel's leaderboard.",
    )


async def test_the_rank_is_the_channels_not_the_workspaces(runtime: Runtime, channel: ChannelRef) -> None:
    elsewhere = ChannelRef("fake", "W1", "C2")
    busy = await post(runtime, elsewhere)
    await answer(runtime, busy, "zed", right=True)
    await answer(runtime, await post(runtime, elsewhere), "zed", right=True)
    result = await answer(runtime, await post(runtime, channel), "alice", right=True)
    assert result.rank == 1  # zed's 40 points are in another channel


def test_the_standing_line_goes_through_the_translation_hook() -> None:
    from bot.domain import AnswerResult

    words = {"{points} for this answer; you are now #{rank} on this channel's leaderboard.": "{points}, sija {rank}."}
    use_translator(lambda template: words.get(template, template))
    result = AnswerResult(AnswerOutcome.RECORDED, 1, "a", True, "a", "Because.", points=18, rank=3)
    assert answer_message(result).lines[-1] == "18 points, sija 3."


async def test_slack_shows_the_points_and_rank_in_the_private_reply(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("now data-parallelism")
        card = await slack.posted_card()
        await slack.click(card, choice_action(runtime, card, correct=True), user_id="U0ALICE")
        [reply] = await slack.ephemerals(1)
    lines = reply["text"].split("\n")
    assert lines[0].startswith("Correct! “")
    assert "20 points for this answer; you are now #1 on this channel's leaderboard." in reply["text"]
