"""Enterprise Grid: a channel shared between workspaces of one organisation, through signed requests to the real
Bolt app. A click from another workspace of the post's organisation counts, on the post's boards; a click from
another organisation (Slack Connect) or from a workspace outside any organisation is refused, as before."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from sqlalchemy import select

from bot.db.models import Answer, User, Workspace
from bot.runtime import Runtime
from bot.wording.errors import POSTED_ELSEWHERE
from tests.fakes.slack_api import FakeSlack
from tests.slack_harness import RunningSlack, choice_action, running_adapter

ORG = "E0ORG"


def _grid_command(fake: FakeSlack, text: str, *, team_id: str, enterprise_id: str | None) -> str:
    payload = fake.slash_command_payload(text, team_id=team_id)
    if enterprise_id is not None:
        payload.update(enterprise_id=enterprise_id, enterprise_name="Example Org", is_enterprise_install="false")
    return urlencode(payload)


async def _grid_click(
    slack: RunningSlack,
    card: dict[str, Any],
    action_id: str,
    *,
    user_id: str,
    team_id: str,
    enterprise_id: str | None,
    channel_id: str = "C0001",
) -> str:
    """A signed click as Slack sends it from `team_id` of `enterprise_id`; returns what its ack stood for."""
    payload = slack.fake.block_actions_payload(card, action_id, user_id=user_id, team_id=team_id, channel_id=channel_id)
    if enterprise_id is not None:
        payload["team"]["enterprise_id"] = enterprise_id
        payload["team"]["enterprise_name"] = "Example Org"
        payload["enterprise"] = {"id": enterprise_id, "name": "Example Org"}
    status, _, headers = await slack.exchange(urlencode({"payload": json.dumps(payload)}))
    assert status == 200
    return headers["X-Quizbot-Answer"]


async def test_a_click_from_another_workspace_of_the_posts_organisation_counts_on_the_posts_boards(
    runtime: Runtime, fake: FakeSlack
) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.post(_grid_command(fake, "now data-parallelism", team_id="T0001", enterprise_id=ORG))
        card = await slack.posted_card()
        await slack.idle()
        right = choice_action(runtime, card, correct=True)

        acked = await _grid_click(slack, card, right, user_id="U0BOB", team_id="T0002", enterprise_id=ORG)
        assert acked == "recorded"
        [reply] = await slack.ephemerals(1)
        assert reply["user"] == "U0BOB" and reply["text"].startswith("Correct!")

        await slack.post(_grid_command(fake, "leaderboard", team_id="T0001", enterprise_id=ORG))
        [board] = await fake.wait_for_response()
        assert "1. bob — " in board.body["text"]
        await slack.idle()

    async with runtime.db.transaction() as session:
        rows = (
            await session.execute(
                select(Workspace.external_id, Workspace.enterprise_id, User.external_id)
                .select_from(Answer)
                .join(User, User.id == Answer.user_id)
                .join(Workspace, Workspace.id == Answer.workspace_id)
            )
        ).all()
    assert [tuple(row) for row in rows] == [("T0001", ORG, "U0BOB")]  # the post's workspace, as its boards read it


async def test_other_organisations_and_workspaces_outside_one_are_still_refused(
    runtime: Runtime, fake: FakeSlack
) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.post(_grid_command(fake, "now data-parallelism", team_id="T0001", enterprise_id=ORG))
        card = await slack.posted_card()
        await slack.idle()
        right = choice_action(runtime, card, correct=True)

        refusals = [
            # Slack Connect: a workspace of another organisation in the shared channel
            await _grid_click(slack, card, right, user_id="U0BOB", team_id="T0003", enterprise_id="E0OTHER"),
            # a workspace in no organisation
            await _grid_click(slack, card, right, user_id="U0CAROL", team_id="T0004", enterprise_id=None),
            # the right organisation, but the button carried into another channel
            await _grid_click(
                slack, card, right, user_id="U0CAROL", team_id="T0002", enterprise_id=ORG, channel_id="C0002"
            ),
        ]
        assert refusals == ["refused"] * 3
        replies = await slack.ephemerals(3)
        assert all(reply["text"] == POSTED_ELSEWHERE for reply in replies)
        await slack.idle()

    async with runtime.db.transaction() as session:
        assert (await session.execute(select(Answer.id))).all() == []


async def test_a_workspace_learns_its_organisation_from_a_later_command(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake) as slack:
        # a workspace first seen without its organisation (as every workspace is before migration 0010)
        await slack.post(_grid_command(fake, "now data-parallelism", team_id="T0001", enterprise_id=None))
        first = await slack.posted_card()
        await slack.idle()
        right = choice_action(runtime, first, correct=True)
        acked = await _grid_click(slack, first, right, user_id="U0BOB", team_id="T0002", enterprise_id=ORG)
        assert acked == "refused"
        await slack.ephemerals(1)

        # its next command names the organisation: from then on the organisation's clicks count, on old posts too
        await slack.post(_grid_command(fake, "now data-parallelism", team_id="T0001", enterprise_id=ORG))
        await slack.posted_card(2)
        await slack.idle()
        acked = await _grid_click(slack, first, right, user_id="U0BOB", team_id="T0002", enterprise_id=ORG)
        assert acked == "recorded"
        await slack.ephemerals(2)
        await slack.idle()
    async with runtime.db.transaction() as session:
        orgs = (await session.execute(select(Workspace.external_id, Workspace.enterprise_id))).all()
    assert [tuple(row) for row in orgs] == [("T0001", ORG)]
