"""A click counts only on a post of the clicker's own platform and workspace, and channel where the platform says.

Through the core on both databases, and through the real Bolt app (signed requests) against the loopback Slack
fake; the Discord client's guild boundary is tested in tests/test_discord_adapter.py.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select

from bot.commands import Scope, Window
from bot.db.models import Answer, User, Workspace
from bot.domain import AnswerOutcome, ChannelRef, UserRef
from bot.errors import PostedElsewhere
from bot.runtime import Runtime
from bot.wording.errors import POSTED_ELSEWHERE
from tests.conftest import make_user
from tests.fakes.slack_api import FakeSlack
from tests.scoring_helpers import correct_index, post
from tests.slack_harness import choice_action, running_adapter


async def _count(runtime: Runtime, what: object) -> int:
    async with runtime.db.transaction() as session:
        return int((await session.execute(select(func.count()).select_from(what))).scalar_one())  # type: ignore[arg-type]


async def test_a_click_from_another_workspace_platform_or_channel_is_refused_and_records_nothing(
    runtime: Runtime, channel: ChannelRef
) -> None:
    card = await post(runtime, channel)
    right = correct_index(runtime, card)
    users_before, workspaces_before = await _count(runtime, User), await _count(runtime, Workspace)
    strangers = [
        (make_user("mallory", "W2"), None),  # another workspace of the same platform
        (UserRef("other", "W1", "U-mallory", "mallory"), None),  # the same workspace id on another platform
        (make_user("mallory", "W2"), ChannelRef("fake", "W2", "C1")),  # W2's own channel C1 is not W1's C1
        (make_user("bob"), ChannelRef("fake", "W1", "C2")),  # the right workspace, clicked in another channel
        (make_user("bob"), ChannelRef("fake", "W2", "C1")),  # a channel of another workspace
    ]
    for user, where in strangers:
        with pytest.raises(PostedElsewhere) as refused:
            await runtime.app.answer(post_id=card.post_id, user=user, choice_index=right, channel=where)
        assert str(refused.value) == POSTED_ELSEWHERE
    assert await _count(runtime, Answer) == 0
    assert (await _count(runtime, User), await _count(runtime, Workspace)) == (users_before, workspaces_before)

    ok = await runtime.app.answer(post_id=card.post_id, user=make_user("bob"), choice_index=right, channel=channel)
    assert ok.outcome is AnswerOutcome.RECORDED
    board = await runtime.stats.leaderboard(
        ChannelRef("fake", "W2", "C1"), window=Window.ALL, scope=Scope.WORKSPACE, now=runtime.clock.now()
    )
    assert board.rows == ()


async def test_foreign_clicks_in_a_batch_do_not_disturb_the_others(runtime: Runtime, channel: ChannelRef) -> None:
    card = await post(runtime, channel)
    right = correct_index(runtime, card)
    clicks = [
        runtime.app.answer(post_id=card.post_id, user=make_user(f"u{i}", "W1" if i % 2 else "W2"), choice_index=right)
        for i in range(10)
    ]
    results = await asyncio.gather(*clicks, return_exceptions=True)
    assert [isinstance(r, PostedElsewhere) for r in results] == [i % 2 == 0 for i in range(10)]
    assert await _count(runtime, Answer) == 5


async def test_slack_refuses_a_signed_click_carrying_another_teams_post(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("now data-parallelism")  # in the fake's team, channel C0001
        card = await slack.posted_card()
        right = choice_action(runtime, card, correct=True)
        # A signed click from another team, and one from this team but another channel, carrying the post's id.
        assert (await slack.click(card, right, user_id="U0MALLORY", team_id="T0OTHER"))[0] == 200
        assert (await slack.click(card, right, user_id="U0BOB", channel_id="C0002"))[0] == 200
        replies = await slack.ephemerals(2)
        assert [r["user"] for r in replies] == ["U0MALLORY", "U0BOB"]
        for reply in replies:
            assert reply["text"] == POSTED_ELSEWHERE
        assert await _count(runtime, Answer) == 0
        async with runtime.db.transaction() as session:
            ids = set((await session.execute(select(User.external_id))).scalars())
        assert "U0MALLORY" not in ids and "U0BOB" not in ids

        # The same button clicked where it was posted, by its own team, counts.
        assert (await slack.click(card, right, user_id="U0BOB"))[0] == 200
        assert (await slack.ephemerals(3))[-1]["text"].startswith("Correct!")
        assert await _count(runtime, Answer) == 1
