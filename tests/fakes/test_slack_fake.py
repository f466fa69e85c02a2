"""Self-tests for tests/fakes/slack_api.py, driving a real slack-bolt AsyncApp.

Run: python -m pytest --noconftest -p no:cacheprovider -o asyncio_mode=auto tests/fakes/test_slack_fake.py -q
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
import time

import aiohttp
import pytest
import pytest_asyncio
from slack_bolt.async_app import AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import AsyncRateLimitErrorRetryHandler
from slack_sdk.signature import SignatureVerifier
from slack_sdk.web.async_client import AsyncWebClient

from tests.fakes.slack_api import (
    SIGNING_SECRET,
    UNBOUND_RESPONSE_URL,
    WAIT,
    BoltHttpServer,
    FakeSlack,
    block_actions_body,
    block_actions_payload,
    poll_until,
    signed_headers,
    slash_command_body,
    slash_command_payload,
    validate_blocks,
)

HANG = 2 * WAIT
"""A whole test's bound: it fails a hang, and is not a speed check (10-20 s was short for a loaded machine)."""


def bounded(seconds: float):
    """Fail (instead of hang) if the test body takes longer than ``seconds``."""

    def deco(fn):
        @functools.wraps(fn)
        async def wrapper(*args, **kwargs):
            async with asyncio.timeout(seconds):
                return await fn(*args, **kwargs)

        return pytest.mark.asyncio(wrapper)

    return deco


@pytest.fixture(autouse=True)
def _no_proxy_env(monkeypatch):
    # slack_sdk clients read HTTP(S)_PROXY themselves; never let traffic leave loopback.
    for var in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)


@pytest_asyncio.fixture
async def fake():
    f = FakeSlack()
    await f.start()
    try:
        yield f
    finally:
        await asyncio.wait_for(f.stop(), WAIT)


QUESTION_BLOCKS = [
    {"type": "section", "block_id": "q", "text": {"type": "mrkdwn", "text": "*2 + 2 = ?*"}},
    {
        "type": "actions",
        "block_id": "answers",
        "elements": [
            {
                "type": "button",
                "action_id": "quiz:answer:0",
                "value": "3",
                "text": {"type": "plain_text", "text": "3"},
            },
            {
                "type": "button",
                "action_id": "quiz:answer:1",
                "value": "4",
                "text": {"type": "plain_text", "text": "4"},
            },
        ],
    },
]


def build_app(fake: FakeSlack, seen: dict) -> AsyncApp:
    app = AsyncApp(
        token=fake.bot_token,
        signing_secret=SIGNING_SECRET,
        client=AsyncWebClient(token=fake.bot_token, base_url=fake.api_url),
    )

    @app.command("/quiz")
    async def quiz(ack, command, client, respond):
        seen.setdefault("commands", []).append(command)
        await ack()
        await client.chat_postMessage(channel=command["channel_id"], text="2 + 2 = ?", blocks=QUESTION_BLOCKS)
        await respond("Quiz started!")

    @app.action(re.compile("quiz:answer:.*"))
    async def answer(ack, body, action, client):
        seen.setdefault("actions", []).append(body)
        await ack()
        await client.chat_postEphemeral(
            channel=body["channel"]["id"], user=body["user"]["id"], text=f"You answered {action['value']}"
        )

    return app


# ---------------------------------------------------------------------------
# HTTP mode with a real Bolt app
# ---------------------------------------------------------------------------


@bounded(HANG)
async def test_http_slash_command_posts_message(fake):
    seen: dict = {}
    app = build_app(fake, seen)
    async with BoltHttpServer(app, use_web_app=True) as server:  # app.web_app(path=...)
        body = fake.slash_command_body("start", channel_id="C0002", user_id="U0ALICE")
        headers = signed_headers(SIGNING_SECRET, body)
        async with aiohttp.ClientSession() as s:
            async with s.post(server.url, data=body, headers=headers) as resp:
                assert resp.status == 200
        [call] = await fake.wait_for_calls("chat.postMessage")
        assert call.ok and call.token == fake.bot_token
        assert call.args["channel"] == "C0002"
        assert call.args["blocks"][1]["elements"][1]["action_id"] == "quiz:answer:1"
        assert call.response["ts"] == "1700000000.000100"
        stored = fake.message("C0002", call.response["ts"])
        assert stored["blocks"][1]["elements"][1]["value"] == "4"
        # respond() went to the fake's response_url
        [resp_post] = await fake.wait_for_response()
        assert resp_post.body["text"] == "Quiz started!"
        assert fake.ephemeral[-1]["text"] == "Quiz started!" and fake.ephemeral[-1]["user"] == "U0ALICE"
        # Bolt called auth.test exactly once (first request)
        assert len(fake.calls_to("auth.test")) == 1
        assert seen["commands"][0]["text"] == "start"


@bounded(HANG)
async def test_http_block_actions_posts_ephemeral(fake):
    seen: dict = {}
    app = build_app(fake, seen)
    async with BoltHttpServer(app) as server:
        status, _ = await server.post(fake.slash_command_body("start", channel_id="C0002"))
        assert status == 200
        [post] = await fake.wait_for_calls("chat.postMessage")
        message = post.response["message"]

        # module-level builder with explicit fields, signed with signed_headers()
        body = block_actions_body(
            message=message,
            action_id="quiz:answer:1",
            value="4",
            block_id="answers",
            user_id="U0BOB",
            user_name="bob",
            team_id="T0001",
            channel_id="C0002",
            response_url=fake.new_response_url(channel_id="C0002", message_ts=message["ts"]),
        )
        status, _ = await server.post(body)
        assert status == 200
        [eph] = await fake.wait_for_calls("chat.postEphemeral")
        # Bolt's per-request client adds team_id to every call (AsyncWebClient(team_id=...))
        assert eph.ok and eph.args == {
            "channel": "C0002",
            "user": "U0BOB",
            "text": "You answered 4",
            "team_id": "T0001",
        }
        assert eph.response["message_ts"]
        assert seen["actions"][0]["actions"][0]["action_id"] == "quiz:answer:1"
        assert seen["actions"][0]["message"]["ts"] == message["ts"]

        # bound builder: looks up value/block_id/text from the stored message
        status, _ = await server.post(fake.block_actions_body(message, "quiz:answer:0", user_id="U0CAROL"))
        assert status == 200
        calls = await fake.wait_for_calls("chat.postEphemeral", 2)
        assert calls[1].args["user"] == "U0CAROL" and calls[1].args["text"] == "You answered 3"
        assert [e["user"] for e in fake.ephemeral if e["source"] == "chat.postEphemeral"] == [
            "U0BOB",
            "U0CAROL",
        ]


@bounded(HANG)
async def test_http_bad_or_stale_signature_rejected(fake):
    seen: dict = {}
    app = build_app(fake, seen)
    async with BoltHttpServer(app) as server:
        body = fake.slash_command_body("start")
        status, _ = await server.post(body, bad_signature=True)
        assert status == 401
        status, _ = await server.post(body, age=400)
        assert status == 401
        status, _ = await server.post(body, sign=False)
        assert status == 401
        # tampered body with a signature for the original
        headers = signed_headers(SIGNING_SECRET, body)
        status, _ = await server.post(body + "x", sign=False, headers=headers)
        assert status == 401
        await asyncio.sleep(0.2)
        assert "commands" not in seen
        assert fake.calls_to("chat.postMessage") == []
        # within the 300 s window still works
        status, _ = await server.post(body, age=200)
        assert status == 200
        await fake.wait_for_calls("chat.postMessage")


def test_signed_headers_match_slack_sdk_verifier():
    body = slash_command_body("hi")
    ts = int(time.time())
    h = signed_headers("s3cret", body, timestamp=ts)
    assert h["Content-Type"] == "application/x-www-form-urlencoded"
    assert h["X-Slack-Request-Timestamp"] == str(ts)
    verifier = SignatureVerifier("s3cret")
    assert h["X-Slack-Signature"] == verifier.generate_signature(timestamp=str(ts), body=body)
    assert verifier.is_valid_request(body, h)
    assert not verifier.is_valid_request(body, signed_headers("s3cret", body, age=400))
    assert not verifier.is_valid_request(body, signed_headers("s3cret", body, bad_signature=True))


# ---------------------------------------------------------------------------
# Socket Mode with a real Bolt app
# ---------------------------------------------------------------------------


@bounded(HANG)
async def test_socket_mode_round_trip(fake):
    seen: dict = {}
    app = build_app(fake, seen)
    handler = fake.socket_mode_handler(app)  # AsyncSocketModeHandler(app, app_token="xapp-1-test")
    try:
        await handler.connect_async()
        conn = await fake.wait_for_socket_client()
        [open_call] = fake.calls_to("apps.connections.open")
        assert open_call.token == fake.app_token and open_call.ok
        assert open_call.response["url"].startswith(f"ws://127.0.0.1:{fake.port}/link/")

        ack = await fake.send_slash_command("start", channel_id="C0001", user_id="U0ADMIN")
        assert set(ack) == {"envelope_id"}  # plain ack() -> no payload
        [post] = await fake.wait_for_calls("chat.postMessage")
        assert post.args["channel"] == "C0001"
        await fake.wait_for_response()

        ack = await fake.click(post.response["message"], "quiz:answer:1", user_id="U0BOB")
        assert "envelope_id" in ack
        [eph] = await fake.wait_for_calls("chat.postEphemeral")
        assert eph.args["text"] == "You answered 4"
        assert seen["actions"][0]["container"]["channel_id"] == "C0001"
        assert conn.received[-1] == ack
        assert [e["type"] for e in fake.envelopes_sent] == ["slash_commands", "interactive"]
    finally:
        await asyncio.wait_for(handler.close_async(), WAIT)
    await poll_until(lambda: not fake.open_socket_connections(), message="socket closed")


@bounded(HANG)
async def test_socket_mode_ack_payload_and_reconnect(fake):
    app = AsyncApp(signing_secret=SIGNING_SECRET, client=fake.web_client())

    @app.command("/quiz")
    async def quiz(ack):
        await ack(text="ephemeral via ack")

    handler = fake.socket_mode_handler(app)
    try:
        await handler.connect_async()
        await fake.wait_for_socket_client()
        ack = await fake.send_slash_command("help")
        assert ack["payload"] == {"text": "ephemeral via ack"}

        # Slack-initiated refresh: client fetches a new URL and reconnects
        await fake.disconnect_socket_clients()
        await fake.wait_for_socket_client(nth=2)
        assert len(fake.calls_to("apps.connections.open")) == 2
        ack = await fake.send_slash_command("again")
        assert ack["payload"]["text"] == "ephemeral via ack"
    finally:
        await asyncio.wait_for(handler.close_async(), WAIT)


@bounded(HANG)
async def test_send_envelope_times_out_without_client_ack(fake):
    url = (await fake.web_client(fake.app_token).apps_connections_open(app_token=fake.app_token))["url"]
    async with aiohttp.ClientSession() as s, s.ws_connect(url) as ws:
        hello = await ws.receive_json(timeout=WAIT)
        assert hello["type"] == "hello" and hello["connection_info"]["app_id"] == fake.app_id
        with pytest.raises(AssertionError, match="no ack"):
            await fake.send_envelope("events_api", {"event": {}}, timeout=0.3)
        env = await ws.receive_json(timeout=WAIT)
        assert env["type"] == "events_api" and env["accepts_response_payload"] is False
        # a late ack is still recorded
        await ws.send_json({"envelope_id": env["envelope_id"]})
        await poll_until(lambda: fake.socket_acks)
    async with aiohttp.ClientSession() as s, s.get(f"{fake.base_url}/link/?ticket=bogus") as resp:
        assert resp.status == 401


# ---------------------------------------------------------------------------
# Rate limits and failure injection
# ---------------------------------------------------------------------------


@bounded(HANG)
async def test_rate_limit_429_and_sdk_retry_handler(fake):
    fake.enable_rate_limits(per_channel_per_second=1)
    client = fake.web_client()
    await client.chat_postMessage(channel="C0001", text="one")
    with pytest.raises(SlackApiError) as ei:
        await client.chat_postMessage(channel="C0001", text="two")
    assert ei.value.response.status_code == 429
    assert ei.value.response["error"] == "ratelimited"
    assert ei.value.response.headers["Retry-After"] == "1"
    # other channels are independent
    await client.chat_postMessage(channel="C0002", text="other channel")

    retrying = fake.web_client()
    retrying.retry_handlers.append(AsyncRateLimitErrorRetryHandler(max_retry_count=2))
    fake.reset()
    await retrying.chat_postMessage(channel="C0001", text="three")  # sleeps Retry-After (+jitter) then succeeds
    calls = fake.calls_to("chat.postMessage")
    assert [c.status for c in calls] == [429, 200]
    assert calls[-1].ok


@bounded(HANG)
async def test_workspace_cap_with_controlled_clock(fake):
    now = [1000.0]
    fake.clock = lambda: now[0]
    fake.enable_rate_limits(per_channel_per_second=None, workspace_per_minute=3)
    client = fake.web_client()
    for ch in ("C0001", "C0002", "C0003"):
        await client.chat_postMessage(channel=ch, text="x")
    with pytest.raises(SlackApiError) as ei:
        await client.chat_postMessage(channel="C0001", text="x")
    assert ei.value.response.headers["Retry-After"] == "60"
    now[0] += 30
    with pytest.raises(SlackApiError) as ei:
        await client.chat_postMessage(channel="C0001", text="x")
    assert ei.value.response.headers["Retry-After"] == "30"
    now[0] += 30
    await client.chat_postMessage(channel="C0001", text="x")
    fake.disable_rate_limits()
    for _ in range(5):
        await client.chat_postMessage(channel="C0001", text="y")


@bounded(HANG)
async def test_injected_failures(fake):
    client = fake.web_client()
    fake.fail_next("chat.postMessage", "not_in_channel")
    with pytest.raises(SlackApiError) as ei:
        await client.chat_postMessage(channel="C0001", text="x")
    assert ei.value.response["error"] == "not_in_channel"
    await client.chat_postMessage(channel="C0001", text="x")  # one-shot

    fake.fail_next("chat.postMessage", status=500)
    with pytest.raises(SlackApiError) as ei:
        await client.chat_postMessage(channel="C0001", text="x")
    assert ei.value.response.status_code == 500

    fake.fail_next("chat.postMessage", status=429, retry_after=7)
    with pytest.raises(SlackApiError) as ei:
        await client.chat_postMessage(channel="C0001", text="x")
    assert ei.value.response.status_code == 429 and ei.value.response.headers["Retry-After"] == "7"

    fake.fail_next("chat.postMessage", "is_archived", times=2, match=lambda a: a.get("channel") == "C0002")
    await client.chat_postMessage(channel="C0001", text="unaffected")
    for _ in range(2):
        with pytest.raises(SlackApiError):
            await client.chat_postMessage(channel="C0002", text="x")
    await client.chat_postMessage(channel="C0002", text="x")
    assert [c.error for c in fake.calls_to("chat.postMessage", ok=False)] == [
        "not_in_channel",
        "internal_error",
        "ratelimited",
        "is_archived",
        "is_archived",
    ]


# ---------------------------------------------------------------------------
# Web API semantics
# ---------------------------------------------------------------------------


@bounded(HANG)
async def test_auth_and_unknown_methods(fake):
    async with aiohttp.ClientSession() as s:
        async with s.post(fake.api_url + "auth.test") as r:
            assert (await r.json()) == {"ok": False, "error": "not_authed"}
        async with s.post(fake.api_url + "auth.test", headers={"Authorization": "Bearer xoxb-nope"}) as r:
            assert (await r.json())["error"] == "invalid_auth"
        async with s.post(fake.api_url + "auth.test", data={"token": fake.bot_token}) as r:
            assert (await r.json())["user_id"] == fake.bot_user_id  # token in form body
        async with s.post(fake.api_url + "foo.bar", headers={"Authorization": f"Bearer {fake.bot_token}"}) as r:
            assert (await r.json())["error"] == "unknown_method"
    assert [c.method for c in fake.calls] == ["auth.test"] * 3 + ["foo.bar"]
    assert fake.calls[1].token == "xoxb-nope" and not fake.calls[1].ok
    with pytest.raises(SlackApiError) as ei:
        await fake.web_client(fake.app_token).auth_test()
    assert ei.value.response["error"] == "not_allowed_token_type"
    with pytest.raises(SlackApiError) as ei:
        await fake.web_client().apps_connections_open(app_token=fake.bot_token)
    assert ei.value.response["error"] == "not_allowed_token_type"


@bounded(HANG)
async def test_chat_methods_json_and_form(fake):
    client = fake.web_client()
    r1 = await client.chat_postMessage(channel="#quiz", text="q1", blocks=QUESTION_BLOCKS)
    r2 = await client.chat_postMessage(channel="C0002", text="q2")
    assert r1["channel"] == "C0002" and r1["ts"] == "1700000000.000100" and r2["ts"] == "1700000000.000200"
    assert r1["message"]["blocks"][0]["block_id"] == "q"

    # form-encoded (blocks as JSON string), token in the Authorization header
    async with (
        aiohttp.ClientSession() as s,
        s.post(
            fake.api_url + "chat.update",
            data={
                "channel": "C0002",
                "ts": r1["ts"],
                "text": "closed",
                "blocks": json.dumps([{"type": "section", "text": {"type": "mrkdwn", "text": "Closed"}}]),
            },
            headers={"Authorization": f"Bearer {fake.bot_token}"},
        ) as r,
    ):
        body = await r.json()
    assert body["ok"] and body["message"]["text"] == "closed"
    current = fake.message("C0002", r1["ts"])
    assert current["blocks"][0]["text"]["text"] == "Closed" and current["blocks"][0]["block_id"]
    assert "edited" in current

    errors = {}
    for name, coro in {
        "no_text": client.chat_postMessage(channel="C0001"),
        "channel_not_found": client.chat_postMessage(channel="C9999", text="x"),
        "not_in_channel": client.chat_postMessage(channel="C0NOBOT", text="x"),
        "is_archived": client.chat_postMessage(channel="C0ARCHIVED", text="x"),
        "message_not_found": client.chat_update(channel="C0002", ts="1.2", text="x"),
        "ephemeral_no_text": client.chat_postEphemeral(channel="C0001", user="U0BOB"),
        "user_not_found": client.chat_postEphemeral(channel="C0001", user="U0NOBODY", text="x"),
        "invalid_blocks": client.chat_postMessage(
            channel="C0001",
            text="x",
            blocks=[
                {
                    "type": "actions",
                    "elements": [
                        {"type": "button", "action_id": "a", "text": {"type": "plain_text", "text": "y" * 76}}
                    ],
                }
            ],
        ),
    }.items():
        with pytest.raises(SlackApiError) as ei:
            await coro
        errors[name] = ei.value.response["error"]
    assert errors == {**{k: k for k in errors}, "ephemeral_no_text": "no_text"}
    bad = fake.calls_to("chat.postMessage", ok=False)[-1]
    assert "must be less than 76 characters" in bad.response["errors"][0]

    fake.add_user("U0DAVE", "dave", join_channels=False)
    with pytest.raises(SlackApiError) as ei:
        await client.chat_postEphemeral(channel="C0001", user="U0DAVE", text="x")
    assert ei.value.response["error"] == "user_not_in_channel"

    # DM by user id, delete
    dm = await client.chat_postMessage(channel="U0ALICE", text="hi")
    assert dm["channel"].startswith("D")
    await client.chat_delete(channel="C0002", ts=r2["ts"])
    assert fake.message("C0002", r2["ts"]) is None
    with pytest.raises(SlackApiError):
        await client.chat_delete(channel="C0002", ts=r2["ts"])


@bounded(HANG)
async def test_directory_methods(fake):
    client = fake.web_client()
    admin = (await client.users_info(user="U0ADMIN"))["user"]
    assert admin["is_admin"] and admin["is_owner"] and admin["tz"] == "America/New_York"
    assert not (await client.users_info(user="U0ALICE"))["user"]["is_admin"]
    with pytest.raises(SlackApiError):
        await client.users_info(user="U404")
    ch = (await client.conversations_info(channel="C0002"))["channel"]
    assert ch["name"] == "quiz" and ch["is_member"] and "_members" not in ch
    team = (await client.team_info())["team"]
    assert team["id"] == "T0001" and team["domain"] == fake.team_domain
    auth = await client.auth_test()
    assert auth["team_id"] == "T0001" and auth["bot_id"] == fake.bot_id
    # GET methods with query params are recorded like POSTs
    assert fake.calls_to("users.info")[0].http_method == "GET"


@bounded(HANG)
async def test_response_url_replace_and_delete(fake):
    client = fake.web_client()
    posted = await client.chat_postMessage(channel="C0001", text="q", blocks=QUESTION_BLOCKS)
    url = fake.new_response_url(channel_id="C0001", message_ts=posted["ts"], user_id="U0ALICE")
    async with aiohttp.ClientSession() as s:
        async with s.post(url, json={"replace_original": True, "text": "answered"}) as r:
            assert r.status == 200
        assert fake.message("C0001", posted["ts"])["text"] == "answered"
        assert "blocks" not in fake.message("C0001", posted["ts"])
        async with s.post(url, json={"response_type": "in_channel", "text": "results"}) as r:
            assert r.status == 200
        assert fake.last_message("C0001")["text"] == "results"
        async with s.post(url, json={"delete_original": True}) as r:
            assert r.status == 200
        assert fake.message("C0001", posted["ts"]) is None
        statuses = []
        for _ in range(3):
            async with s.post(url, json={"text": "more"}) as r:
                statuses.append(r.status)
        assert statuses == [200, 200, 404]  # response_urls allow 5 uses
    assert [p.status for p in fake.responses] == [200] * 5 + [404]
    assert [e["text"] for e in fake.ephemeral] == ["more", "more"]


def test_module_level_builders():
    cmd = slash_command_payload("start now", channel_id="C0002", user_id="U0BOB", user_name="bob")
    assert cmd["command"] == "/quiz" and cmd["response_url"] == UNBOUND_RESPONSE_URL
    body = slash_command_body("a b&c")
    assert "text=a+b%26c" in body and "command=%2Fquiz" in body
    msg = {"type": "message", "ts": "1700000000.000100", "text": "q", "blocks": QUESTION_BLOCKS}
    p = block_actions_payload(message=msg, action_id="quiz:answer:0", channel_id="C0002")
    a = p["actions"][0]
    assert (a["value"], a["block_id"], a["type"], a["text"]["text"]) == ("3", "answers", "button", "3")
    assert p["container"] == {
        "type": "message",
        "message_ts": msg["ts"],
        "channel_id": "C0002",
        "is_ephemeral": False,
    }
    assert p["user"]["team_id"] == "T0001" and p["team"]["id"] == "T0001"
    with pytest.raises(ValueError):
        block_actions_payload(message=msg, action_id="nope")
    assert validate_blocks(QUESTION_BLOCKS) == []
    dup = [*QUESTION_BLOCKS, QUESTION_BLOCKS[1]]
    assert any("already exists" in e for e in validate_blocks(dup))


async def test_views_publish_validates_home_views_against_view_limits(fake):
    client = fake.web_client()
    section = {"type": "section", "text": {"type": "mrkdwn", "text": "x"}}
    published = await client.views_publish(user_id="U0ALICE", view={"type": "home", "blocks": [section] * 100})
    assert published["view"]["type"] == "home" and len(fake.published_views) == 1  # 100 blocks: a view's limit
    with pytest.raises(SlackApiError) as too_many:
        await client.views_publish(user_id="U0ALICE", view={"type": "home", "blocks": [section] * 101})
    assert too_many.value.response["error"] == "invalid_arguments"
    long_text = {"type": "section", "text": {"type": "mrkdwn", "text": "x" * 3001}}
    with pytest.raises(SlackApiError):
        await client.views_publish(user_id="U0ALICE", view={"type": "home", "blocks": [long_text]})
    with pytest.raises(SlackApiError):
        await client.views_publish(user_id="U0ALICE", view={"type": "modal", "blocks": [section]})
    with pytest.raises(SlackApiError) as unknown:
        await client.views_publish(user_id="U0NOBODY", view={"type": "home", "blocks": [section]})
    assert unknown.value.response["error"] == "user_not_found"
    assert len(fake.published_views) == 1
    assert validate_blocks([section] * 51) != [] and validate_blocks([section] * 51, max_blocks=100) == []


async def test_files_upload_v2_goes_through_the_external_upload_on_loopback(fake):
    client = fake.web_client()
    done = await client.files_upload_v2(
        channel="C0001",
        file_uploads=[
            {"file": b"\x89PNG one", "filename": "a.png", "title": "A", "alt_txt": "first"},
            {"file": b"\x89PNG two!", "filename": "b.png", "title": "B"},
        ],
    )
    assert done["ok"] and [f["name"] for f in done["files"]] == ["a.png", "b.png"]
    get_a, get_b = fake.calls_to("files.getUploadURLExternal")
    assert get_b.args["filename"] == "b.png"
    assert get_a.response["upload_url"].startswith(f"{fake.base_url}/upload/v1/")
    assert (get_a.args["length"], get_a.args["alt_txt"]) == ("8", "first")
    uploaded = fake.uploaded_files("C0001")
    assert [(f["data"], f["title"], f["alt_txt"]) for f in uploaded] == [
        (b"\x89PNG one", "A", "first"),
        (b"\x89PNG two!", "B", None),
    ]
    [shared] = [m for m in fake.messages_in("C0001") if m.get("files")]
    assert [f["name"] for f in shared["files"]] == ["a.png", "b.png"]

    fake.fail_next("files.getUploadURLExternal", "missing_scope", extra={"needed": "files:write"})
    with pytest.raises(SlackApiError) as refused:
        await client.files_upload_v2(channel="C0001", file=b"x", filename="c.png")
    assert refused.value.response["needed"] == "files:write"
    with pytest.raises(SlackApiError) as outside:
        await client.files_upload_v2(channel="C0NOBOT", file=b"x", filename="d.png")  # not a member there
    assert outside.value.response["error"] == "not_in_channel"
    assert len(fake.uploaded_files()) == 2  # the refused upload was never completed
