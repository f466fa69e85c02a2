"""Acknowledge after commit and bounded intake, through the real slack-bolt app of the Slack adapter (HTTP mode
and Socket Mode) against the loopback fake Slack: a click's ack goes out only once its answer is committed; past
the deadline it is acked, counted and answered when recorded; over the cap it is told the bot is busy and
nothing is recorded."""

from __future__ import annotations

import asyncio

from sqlalchemy import select

from bot.db.models import Answer, User
from bot.runtime import Runtime
from tests.fakes.slack_api import FakeSlack, poll_until
from tests.held_commits import held_commits, metric
from tests.slack_harness import RunningSlack, choice_action, running_adapter

HOLD = 1.0
"""How long a held click is watched for an early ack (shorter than the deadlines the tests set)."""
PATIENT = 60.0
"""The ack deadline of the tests whose click must be acked as committed: after a HOLD the released commit may take
what a loaded machine takes (the settings' largest, 2.8 s, leaves it 1.8 s; the fake has no 3 s window)."""


def _patient(slack: RunningSlack) -> None:
    slack.adapter.listeners.ack_deadline = PATIENT


async def _answerers(runtime: Runtime) -> list[str]:
    async with runtime.db.transaction() as session:
        rows = await session.execute(select(User.external_id).join(Answer, Answer.user_id == User.id))
        return sorted(row[0] for row in rows)


def _metric(runtime: Runtime, name: str) -> float:
    return metric(runtime, name, "slack")


async def test_a_click_is_acked_only_once_its_answer_is_committed(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake, slack_ack_deadline=2.8) as slack:
        _patient(slack)
        await slack.command("now")
        card = await slack.posted_card()
        with held_commits(runtime) as release:
            body = fake.block_actions_body(card, choice_action(runtime, card, correct=True), user_id="U0BOB")
            click = asyncio.create_task(slack.exchange(body))
            done, _ = await asyncio.wait({click}, timeout=HOLD)
            assert not done  # no ack while the answer is not committed
            assert await _answerers(runtime) == []
            release.set()
            status, text, headers = await click
        # When the ack arrives, the row is already there.
        assert await _answerers(runtime) == ["U0BOB"]
        assert (status, text) == (200, "")
        assert headers["X-Quizbot-Answer"] == "recorded"
        [reply] = await slack.ephemerals(1)
        assert reply["user"] == "U0BOB" and reply["text"].startswith("Correct!")
        assert _metric(runtime, "quizbot_late_acks_total") == 0

        # A second click of the same person is acked as what it is, after the batch that answered it.
        status, _, headers = await slack.exchange(
            fake.block_actions_body(card, choice_action(runtime, card, correct=False), user_id="U0BOB")
        )
        assert (status, headers["X-Quizbot-Answer"]) == (200, "already_answered")
        assert (await slack.ephemerals(2))[-1]["text"].startswith("You already answered")


async def test_past_the_deadline_a_click_is_acked_counted_and_answered_once_recorded(
    runtime: Runtime, fake: FakeSlack
) -> None:
    async with running_adapter(runtime, fake, slack_ack_deadline=0.2) as slack:
        await slack.command("now")
        card = await slack.posted_card()
        with held_commits(runtime) as release:
            body = fake.block_actions_body(card, choice_action(runtime, card, correct=True), user_id="U0CAROL")
            status, _, headers = await slack.exchange(body)
            assert (status, headers["X-Quizbot-Answer"]) == (200, "late")  # acked before the commit
            assert fake.ephemeral == [] and await _answerers(runtime) == []
            assert _metric(runtime, "quizbot_late_acks_total") == 1
            release.set()
            [reply] = await slack.ephemerals(1)  # answered once recorded
        assert reply["user"] == "U0CAROL" and reply["text"].startswith("Correct!")
        assert await _answerers(runtime) == ["U0CAROL"]
        metrics = runtime.metrics.render().decode()
        assert 'quizbot_late_acks_total{platform="slack"} 1.0' in metrics


async def test_over_the_pending_cap_a_click_is_told_busy_and_nothing_is_recorded(
    runtime: Runtime, fake: FakeSlack
) -> None:
    runtime.app.max_pending_clicks = 1
    async with running_adapter(runtime, fake, slack_ack_deadline=2.8) as slack:
        _patient(slack)
        await slack.command("now")
        card = await slack.posted_card()
        right = choice_action(runtime, card, correct=True)
        with held_commits(runtime) as release:
            first = asyncio.create_task(slack.exchange(fake.block_actions_body(card, right, user_id="U0ALICE")))
            await poll_until(lambda: runtime.app._inflight == 1, message="the first click to be pending")
            status, _, headers = await slack.exchange(fake.block_actions_body(card, right, user_id="U0BOB"))
            assert (status, headers["X-Quizbot-Answer"]) == (200, "busy")  # answered at once, while one is held
            [busy] = await slack.ephemerals(1)
            assert busy["user"] == "U0BOB"
            assert busy["text"] == (
                "The quiz bot is busy right now and did not record that click. Please click again in a moment."
            )
            release.set()
            status, _, headers = await first
        assert (status, headers["X-Quizbot-Answer"]) == (200, "recorded")
        assert await _answerers(runtime) == ["U0ALICE"]  # nothing recorded for the refused click
        assert _metric(runtime, "quizbot_busy_refusals_total") == 1
        # Below the cap again: the same person's click again is recorded.
        status, _, headers = await slack.exchange(fake.block_actions_body(card, right, user_id="U0BOB"))
        assert (status, headers["X-Quizbot-Answer"]) == (200, "recorded")
        assert await _answerers(runtime) == ["U0ALICE", "U0BOB"]


async def test_socket_mode_acks_a_click_only_once_its_answer_is_committed(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake, mode="socket", slack_ack_deadline=2.8) as slack:
        _patient(slack)
        await fake.wait_for_socket_client()
        await fake.send_slash_command("now")
        card = await slack.posted_card()
        with held_commits(runtime) as release:
            click = asyncio.create_task(fake.click(card, choice_action(runtime, card, correct=False), user_id="U0BOB"))
            done, _ = await asyncio.wait({click}, timeout=HOLD)
            assert not done  # the envelope is not acked while the answer is not committed
            assert await _answerers(runtime) == []
            release.set()
            ack = await click
        assert await _answerers(runtime) == ["U0BOB"]  # committed before the ack came over the websocket
        assert set(ack) == {"envelope_id"}
        [reply] = await slack.ephemerals(1)
        assert reply["user"] == "U0BOB" and reply["text"].startswith("Not quite.")
