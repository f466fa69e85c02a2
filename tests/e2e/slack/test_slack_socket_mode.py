"""The Slack adapter in Socket Mode: Bolt's AsyncSocketModeHandler against the fake's apps.connections.open + websocket."""

from __future__ import annotations

from sqlalchemy import func, select

from bot.db.models import Answer, Post
from bot.runtime import Runtime
from tests.fakes.slack_api import FakeSlack, poll_until
from tests.slack_harness import answer_buttons, choice_action, running_adapter


async def _count(runtime: Runtime, model: type[Post] | type[Answer]) -> int:
    async with runtime.db.transaction() as session:
        return int((await session.execute(select(func.count(model.id)))).scalar_one())


async def test_a_slash_command_and_a_click_over_socket_mode(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake, mode="socket") as slack:
        connection = await fake.wait_for_socket_client()
        [open_call] = fake.calls_to("apps.connections.open")
        assert open_call.token == fake.app_token
        assert slack.adapter.http_port is None  # no HTTP server in Socket Mode

        ack = await fake.send_slash_command("now data-parallelism", user_id="U0ALICE")
        assert set(ack) == {"envelope_id"}  # a bare ack: the card is the answer
        card = await slack.posted_card()
        await slack.idle()

        ack = await fake.click(card, choice_action(runtime, card, correct=False), user_id="U0BOB")
        assert set(ack) == {"envelope_id"}
        [reply] = await slack.ephemerals(1)
        assert reply["user"] == "U0BOB" and reply["text"].startswith("Not quite.")
        assert await _count(runtime, Answer) == 1

        # Slack redelivers an envelope it thinks was lost: acked, not run again.
        ack = await fake.send_envelope(
            "slash_commands", fake.slash_command_payload("now"), retry_attempt=1, retry_reason="timeout"
        )
        assert "envelope_id" in ack
        await slack.idle()
        assert await _count(runtime, Post) == 1

        # A malformed envelope is acked and logged; the connection stays up and keeps working.
        ack = await fake.send_envelope("interactive", {"type": "block_actions", "actions": []})
        assert "envelope_id" in ack
        # One that even Bolt cannot read (it raises building the request) is acked by our handler.
        ack = await fake.send_envelope("interactive", {"type": "block_actions", "channel": 5})
        assert "envelope_id" in ack

        await fake.send_slash_command("reveal", user_id="U0ADMIN")
        await poll_until(lambda: not answer_buttons(fake.message("C0001", card["ts"])), message="the reveal")
        assert "Nobody got it right" in str(fake.message("C0001", card["ts"])["blocks"])
        await fake.send_slash_command("leaderboard")
        board = (await slack.ephemerals(2))[-1]
        assert board["source"] == "response_url" and "1. bob — 0 pts" in board["text"]
        assert not connection.closed
    await poll_until(lambda: not fake.open_socket_connections(), message="the socket to close on stop")


async def test_socket_mode_survives_slack_asking_it_to_reconnect(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake, mode="socket") as slack:
        await fake.wait_for_socket_client()
        await fake.disconnect_socket_clients()  # Slack does this every few hours
        await fake.wait_for_socket_client(nth=2)
        await fake.send_slash_command("packs")
        reply = (await slack.ephemerals(1))[-1]
        assert "data-parallelism" in reply["text"]
        assert len(fake.calls_to("apps.connections.open")) == 2
