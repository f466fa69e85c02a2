"""The Slack adapter in HTTP mode: signed requests to its own endpoint, the real slack-bolt app, a fake Web API."""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlencode

import aiohttp
import pytest
from sqlalchemy import func, select

from bot.db import Database
from bot.db.models import Answer, Post, User, Workspace
from bot.runtime import Runtime
from tests.fakes.slack_api import SIGNING_SECRET, FakeSlack, signed_headers, validate_blocks
from tests.slack_harness import (
    answer_buttons,
    choice_action,
    post_id_of,
    running_adapter,
)


async def _answers(runtime: Runtime) -> list[tuple[str, int, bool]]:
    async with runtime.db.transaction() as session:
        rows = await session.execute(
            select(User.external_id, Answer.choice_index, Answer.is_correct)
            .join(User, User.id == Answer.user_id)
            .order_by(Answer.id)
        )
        return [(row[0], row[1], row[2]) for row in rows]


async def _post_count(runtime: Runtime) -> int:
    async with runtime.db.transaction() as session:
        return int((await session.execute(select(func.count(Post.id)))).scalar_one())


async def test_a_whole_round_post_click_explain_count_reveal_leaderboard(runtime: Runtime, fake: FakeSlack) -> None:
    runtime.cards.interval = 3600  # count edits wait for flush(): the coalescing is then exact, not timed
    async with running_adapter(runtime, fake) as slack:
        status, text = await slack.command("now data-parallelism")
        assert (status, text) == (200, "")
        card = await slack.posted_card()
        assert validate_blocks(card["blocks"]) == []
        assert card["text"].startswith("Quiz: ")
        assert len(answer_buttons(card)) == 4
        assert "Data Parallelism Quiz · question" in card["blocks"][-1]["elements"][0]["text"]
        assert card["blocks"][-1]["elements"][1]["text"] == "On demand · open until revealed"
        post_id = post_id_of(card)

        right, wrong = choice_action(runtime, card, correct=True), choice_action(runtime, card, correct=False)
        clicks = [("U0ALICE", right), ("U0BOB", wrong), ("U0CAROL", right), ("U0BOB", right)]
        for n, (user, action_id) in enumerate(clicks, start=1):
            assert (await slack.click(card, action_id, user_id=user))[0] == 200
            await slack.ephemerals(n)  # one private reply per click, before the next click
        replies = [(e["user"], e["text"].split("\n")[0]) for e in fake.ephemeral]
        assert [e["source"] for e in fake.ephemeral] == ["chat.postEphemeral"] * 4
        assert replies[0][0] == "U0ALICE" and replies[0][1].startswith("Correct!")
        assert replies[1][0] == "U0BOB" and replies[1][1].startswith("Not quite.")
        assert replies[2][0] == "U0CAROL" and replies[2][1].startswith("Correct!")
        assert replies[3][0] == "U0BOB" and replies[3][1].startswith("You already answered")
        # The explanation comes with the verdict.
        question_explanation = fake.ephemeral[0]["blocks"][1]["text"]["text"]
        assert len(question_explanation) > 100

        # Three answers, one card edit: the burst is coalesced.
        assert fake.calls_to("chat.update") == []
        await runtime.cards.flush()
        [update] = fake.calls_to("chat.update")
        assert update.ok and update.args["ts"] == card["ts"]
        assert "3 answers" in fake.message("C0001", card["ts"])["blocks"][-1]["elements"][0]["text"]
        assert answer_buttons(fake.message("C0001", card["ts"]))  # still open: buttons stay

        answers = await _answers(runtime)
        assert [(user, correct) for user, _, correct in answers] == [
            ("U0ALICE", True),
            ("U0BOB", False),
            ("U0CAROL", True),
        ]

        # Reveal: the card is edited to the answer, the distribution and who got it right; no buttons.
        assert (await slack.command("reveal", user_id="U0ADMIN"))[0] == 200
        await fake.wait_for_calls("chat.update", 2)
        revealed = fake.message("C0001", card["ts"])
        assert answer_buttons(revealed) == []
        body = "\n".join(b["text"]["text"] for b in revealed["blocks"] if b["type"] == "section")
        assert "Got it right: alice, carol" in body
        assert "— 2 (67%)" in body and "— 1 (33%)" in body
        assert "closed" in revealed["blocks"][-1]["elements"][0]["text"]
        assert validate_blocks(revealed["blocks"]) == []

        # A click on the closed card (an old client) is told so.
        assert (await slack.click(card, right, user_id="U0ADMIN", value=right))[0] == 200
        late = (await slack.ephemerals(5))[-1]
        assert late["user"] == "U0ADMIN" and "closed" in late["text"]

        # Leaderboard: an ephemeral reply through the command's response_url.
        assert (await slack.command("leaderboard", user_id="U0BOB"))[0] == 200
        board = (await slack.ephemerals(6))[-1]
        assert board["source"] == "response_url" and board["user"] == "U0BOB"
        lines = board["text"].splitlines()
        assert lines[0] == "Leaderboard (channel, all time)"
        # The manual clock does not move, so alice and carol are equally fast and share the first rank.
        assert sorted(lines[1:3]) == [
            "1. alice — 20 pts · 1/1 correct (100%) · 1-day streak",
            "1. carol — 20 pts · 1/1 correct (100%) · 1-day streak",
        ]
        assert lines[3] == "3. bob — 0 pts · 0/1 correct (0%) · 1-day streak"
    assert post_id > 0


async def test_forged_unsigned_stale_and_tampered_requests_get_401_and_record_nothing(
    runtime: Runtime, fake: FakeSlack
) -> None:
    async with running_adapter(runtime, fake) as slack:
        body = fake.slash_command_body("now")
        assert (await slack.post(body, bad_signature=True))[0] == 401
        assert (await slack.post(body, sign=False))[0] == 401
        assert (await slack.post(body, age=400))[0] == 401  # more than 5 minutes old: a replay
        headers = signed_headers(SIGNING_SECRET, body)
        assert (await slack.post(body.replace("now", "packs"), sign=False, headers=headers))[0] == 401
        # Unparseable and unsigned: still 401, not a 500 from the parser.
        assert (await slack.post("payload=%7Bnot-json", sign=False))[0] == 401
        assert await _post_count(runtime) == 0
        assert fake.calls_to("chat.postMessage") == [] and fake.responses == []
        # The same request, properly signed within the 5-minute window, works.
        assert (await slack.post(body, age=200))[0] == 200
        await slack.posted_card()
        assert await _post_count(runtime) == 1


async def test_slack_retries_never_double_a_post_or_an_answer(runtime: Runtime, fake: FakeSlack) -> None:
    retry = {"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"}
    async with running_adapter(runtime, fake) as slack:
        body = fake.slash_command_body("now")
        assert (await slack.post(body))[0] == 200
        card = await slack.posted_card()
        # The retry is acked by the middleware before any listener runs, so nothing can follow it.
        assert (await slack.post(body, headers=retry))[0] == 200
        assert (await slack.post(body, headers={**retry, "X-Slack-Retry-Num": "2"}))[0] == 200
        assert await _post_count(runtime) == 1
        assert len(fake.calls_to("chat.postMessage")) == 1

        click = fake.block_actions_body(card, choice_action(runtime, card, correct=True), user_id="U0BOB")
        assert (await slack.post(click))[0] == 200
        await slack.ephemerals(1)
        assert (await slack.post(click, headers=retry))[0] == 200
        assert len(await _answers(runtime)) == 1
        assert len(fake.ephemeral) == 1  # no "you already answered" for a retry the user never made


async def test_unknown_post_bad_button_and_invalid_choice_get_polite_private_replies(
    runtime: Runtime, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("now")
        card = await slack.posted_card()
        post_id = post_id_of(card)
        cases = [
            (f"quiz:answer:{post_id + 1000}:0", "That question no longer exists"),
            ("quiz:answer:abc:1", "not a quiz answer I understand"),
            ("quiz:answer", "not a quiz answer I understand"),
            (f"quiz:answer:{post_id}:9", "does not match a choice"),
        ]
        for n, (action_id, expected) in enumerate(cases, start=1):
            status, text = await slack.click(card, action_id, value=action_id, user_id="U0CAROL")
            assert (status, text) == (200, "")
            reply = (await slack.ephemerals(n))[-1]
            assert reply["user"] == "U0CAROL" and expected in reply["text"], reply
        # Someone else's button (not ours) is acked and logged, nothing more.
        assert (await slack.click(card, "other:thing", value="x"))[0] == 200
        assert await _answers(runtime) == []
    assert "bad action_id 'quiz:answer:abc:1'" in caplog.text
    assert "answer refused" in caplog.text


async def test_malformed_payloads_get_a_log_line_and_a_polite_reply_never_a_500(
    runtime: Runtime, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("now")
        card = await slack.posted_card()
        action_id = choice_action(runtime, card, correct=True)

        def click_body(**changes: object) -> str:
            payload = fake.block_actions_payload(card, action_id)
            payload.update(changes)
            return urlencode({"payload": json.dumps(payload)})

        # Signed but unparseable: 400, with a log line.
        assert await slack.post("payload=%7Bnot-json") == (400, "malformed request")
        assert await slack.post("[1, 2]", headers={"Content-Type": "application/json"}) == (400, "malformed request")
        # A click without a user, and one without actions: acked; the first is told why through its response_url.
        url = fake.new_response_url(channel_id="C0001", user_id="U0ALICE")
        assert await slack.post(click_body(user=None, response_url=url)) == (200, "")
        await fake.wait_for_response()
        assert "incomplete request" in fake.responses[-1].body["text"]
        assert (await slack.post(click_body(actions=[])))[0] == 200
        assert (await slack.post(click_body(actions=[{"value": "x"}])))[0] == 200
        assert (await slack.post(click_body(channel=None, container={})))[0] == 200
        # A slash command without a channel: the ack itself says so, privately.
        status, text = await slack.post(fake.slash_command_body("now", channel_id=""))
        assert status == 200 and "incomplete request" in text
        assert await _answers(runtime) == []
        assert await _post_count(runtime) == 1
        # And the bot still works.
        # Each malformed click was told, through its response_url, before its ack.
        assert [e["text"] for e in fake.ephemeral] == [fake.ephemeral[0]["text"]] * 4
        assert (await slack.click(card, action_id))[0] == 200
        assert "Correct!" in (await slack.ephemerals(5))[-1]["text"]
    assert "malformed signed request from Slack" in caplog.text
    assert "ignored a malformed button click from Slack: missing user.id" in caplog.text
    assert "missing actions[0].action_id" in caplog.text
    assert "ignored a malformed slash command from Slack: missing channel_id" in caplog.text
    assert "Traceback" not in caplog.text


async def test_database_down_click_gets_try_again_and_the_bot_keeps_running(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("now")
        card = await slack.posted_card()
        await slack.idle()  # the post's message ref is stored after the card is posted
        right = choice_action(runtime, card, correct=True)
        good_engine = runtime.db.engine
        down = Database.from_url("postgresql+asyncpg://postgres@127.0.0.1:1/quizbot")  # nothing listens on port 1
        runtime.db.engine, runtime.db.sessions = down.engine, down.sessions
        try:
            assert (await slack.click(card, right))[0] == 200
            reply = (await slack.ephemerals(1))[-1]
            assert reply["text"] == "Could not record your answer, please try again."
            assert (await slack.command("leaderboard"))[0] == 200
            reply = (await slack.ephemerals(2))[-1]
            assert "Could not reach the quiz database" in reply["text"]
        finally:
            await down.dispose()
            restored = Database(good_engine)
            runtime.db.engine, runtime.db.sessions = restored.engine, restored.sessions
        assert (await slack.click(card, right))[0] == 200
        assert (await slack.ephemerals(3))[-1]["text"].startswith("Correct!")
        assert len(await _answers(runtime)) == 1


async def test_clicks_are_acked_before_the_core_answers_once_the_ack_deadline_passes(
    runtime: Runtime, fake: FakeSlack
) -> None:
    """Slack's 3-second window: past QUIZBOT_SLACK_ACK_DEADLINE the ack no longer waits for the database."""
    release = asyncio.Event()
    real_answer = runtime.app.answer

    async def slow_answer(**kwargs: Any) -> Any:
        await release.wait()
        return await real_answer(**kwargs)

    async with running_adapter(runtime, fake, slack_ack_deadline=0.2) as slack:
        await slack.command("now")
        card = await slack.posted_card()
        runtime.app.answer = slow_answer  # type: ignore[method-assign]
        assert (await slack.click(card, choice_action(runtime, card, correct=True)))[0] == 200
        assert fake.ephemeral == [] and await _answers(runtime) == []  # acked while the answer is still pending
        release.set()
        assert "Correct!" in (await slack.ephemerals(1))[0]["text"]


async def test_workspaces_are_kept_apart_by_team_id(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("now", team_id="T0001")
        first = await slack.posted_card(1)
        await slack.command("now", team_id="T0002")
        second = await slack.posted_card(2)
        assert post_id_of(first) != post_id_of(second)
        await slack.click(second, choice_action(runtime, second, correct=True), team_id="T0002")
        await slack.ephemerals(1)
        await slack.command("leaderboard", team_id="T0001")
        assert "No answers yet" in (await slack.ephemerals(2))[-1]["text"]
        await slack.command("leaderboard workspace", team_id="T0002")
        assert "1. alice — 20 pts" in (await slack.ephemerals(3))[-1]["text"]
    async with runtime.db.transaction() as session:
        teams = (await session.execute(select(Workspace.platform, Workspace.external_id))).all()
    assert sorted(teams) == [("slack", "T0001"), ("slack", "T0002")]


async def test_help_packs_and_unknown_subcommands_answer_privately(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("dance <!channel>")
        reply = (await slack.ephemerals(1))[-1]
        assert reply["source"] == "response_url" and reply["user"] == "U0ALICE"
        assert "Unknown command" in reply["text"] and "/quiz now [pack]" in reply["text"]
        assert "<!channel>" not in json.dumps(reply["blocks"])  # echoed input is escaped
        await slack.command("packs")
        assert "data-parallelism — Data Parallelism Quiz" in (await slack.ephemerals(2))[-1]["text"]
        await slack.command("")
        assert "quizbot commands" in (await slack.ephemerals(3))[-1]["text"]
        await slack.command("me", user_id="U0BOB")
        assert "bob: no answers yet." in (await slack.ephemerals(4))[-1]["text"]
    assert fake.calls_to("chat.postMessage") == []


async def test_a_channel_the_bot_cannot_post_in_gets_a_hint_and_leaves_no_post(
    runtime: Runtime, fake: FakeSlack
) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("now", channel_id="C0NOBOT")
        reply = (await slack.ephemerals(1))[-1]
        assert "invite me with `/invite @quizbot`" in reply["text"] and "not_in_channel" in reply["text"]
        assert await _post_count(runtime) == 0


async def test_card_edits_wait_out_rate_limits(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("now")
        card = await slack.posted_card()
        fake.fail_next("chat.update", status=429, retry_after=0)
        await slack.click(card, choice_action(runtime, card, correct=False))
        await fake.wait_for_calls("chat.update", 2)
        assert [c.status for c in fake.calls_to("chat.update")] == [429, 200]
        assert "1 answer" in fake.message("C0001", card["ts"])["blocks"][-1]["elements"][0]["text"]


async def test_health_check_and_graceful_stop(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake) as slack:
        async with aiohttp.ClientSession() as session:
            async with session.get(slack.url.replace("/slack/events", "/healthz")) as r:
                assert r.status == 200
                assert (await r.json())["database"] == "ok"
            async with session.get(slack.url.replace("/slack/events", "/metrics")) as r:
                assert r.status == 200
                assert "quizbot_posts_total" in await r.text()
        assert runtime.platforms.get("slack") is slack.adapter.platform
    # After the stop the port is closed.
    with pytest.raises(aiohttp.ClientConnectionError):
        await slack.command("packs")


async def test_when_slack_refuses_an_ephemeral_the_click_is_answered_through_its_response_url(
    runtime: Runtime, fake: FakeSlack
) -> None:
    fake.add_user("U0DAVE", "dave", join_channels=False)  # e.g. a guest Slack does not count as a member
    async with running_adapter(runtime, fake) as slack:
        await slack.command("now")
        card = await slack.posted_card()
        await slack.click(card, choice_action(runtime, card, correct=True), user_id="U0DAVE")
        [reply] = await slack.ephemerals(1)
        assert reply["source"] == "response_url" and reply["user"] == "U0DAVE"
        assert reply["text"].startswith("Correct!")
        assert [c.error for c in fake.calls_to("chat.postEphemeral")] == ["user_not_in_channel"]
    assert [(user, correct) for user, _, correct in await _answers(runtime)] == [("U0DAVE", True)]


async def test_a_rate_limited_ephemeral_is_not_waited_out_the_clicks_answer_through_their_response_urls(
    runtime: Runtime, fake: FakeSlack
) -> None:
    """A daily question's burst can pass chat.postEphemeral's per-workspace limit (Tier 4). The verdict then goes
    through the click's response_url at once, not after Slack's Retry-After (an hour here, so waiting it out
    would hang the test), and the workspace's next verdicts do not call the limited method again."""
    fake.add_user("U0ERIN", "erin")
    fake.add_user("U0FRED", "fred")
    async with running_adapter(runtime, fake) as slack:
        await slack.command("now")
        card = await slack.posted_card()
        fake.fail_next("chat.postEphemeral", status=429, retry_after=3600)
        await slack.click(card, choice_action(runtime, card, correct=True), user_id="U0ERIN")
        [first] = await slack.ephemerals(1)
        await slack.click(card, choice_action(runtime, card, correct=False), user_id="U0FRED")
        [_, second] = await slack.ephemerals(2)
        assert (first["source"], first["user"]) == ("response_url", "U0ERIN")
        assert first["text"].startswith("Correct!")
        assert (second["source"], second["user"]) == ("response_url", "U0FRED")
        assert [c.status for c in fake.calls_to("chat.postEphemeral")] == [429]
    assert sorted((user, correct) for user, _, correct in await _answers(runtime)) == [
        ("U0ERIN", True),
        ("U0FRED", False),
    ]


async def test_replies_through_response_urls_reuse_one_kept_alive_connection(runtime: Runtime, fake: FakeSlack) -> None:
    """Bolt's respond() opens a new connection (a TLS handshake with Slack) for every reply; the adapter sends its
    replies through the Web API client's pool instead, so a run of command replies arrives over one connection."""
    async with running_adapter(runtime, fake) as slack:
        for sent in range(1, 4):
            await slack.command("packs")
            await fake.wait_for_response(sent)  # one at a time: concurrent replies may rightly open more
    replies = fake.responses[:3]
    assert all(r.status == 200 for r in replies)
    assert len({r.peer for r in replies}) == 1, [r.peer for r in replies]
