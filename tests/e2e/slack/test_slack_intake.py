"""The Slack HTTP intake: signatures and timestamps are checked on the raw bytes before anything parses a body,
over-large bodies are refused before they are read, and refusals leave a short, rate-limited log.

Everything goes through the real adapter (the real Bolt app behind the intake) against the loopback fake Slack,
with requests signed as Slack signs them; the raw-socket cases send exactly the bytes a test means.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import aiohttp
import pytest
from slack_bolt.request.async_request import AsyncBoltRequest
from sqlalchemy import func, select

from adapters.slack.intake import (
    BAD_SIGNATURE,
    BODY_TIMEOUT,
    LARGE_BODY_BYTES,
    LARGE_BODY_LANES,
    MAX_BODY_BYTES,
    STALE,
    RefusalLog,
    SignatureCheck,
)
from bot.db.models import Answer, Post
from bot.runtime import Runtime
from tests.fakes.slack_api import SIGNING_SECRET, WAIT, FakeSlack, poll_until, sign, signed_headers
from tests.slack_harness import RunningSlack, choice_action, running_adapter

FORM = "application/x-www-form-urlencoded"
MARKER = "BODY-TEXT-THAT-MUST-NEVER-BE-LOGGED"


async def _count(runtime: Runtime, model: type[Answer] | type[Post]) -> int:
    async with runtime.db.transaction() as session:
        return int((await session.execute(select(func.count(model.id)))).scalar_one())


async def _nothing_recorded(runtime: Runtime, fake: FakeSlack) -> None:
    assert await _count(runtime, Post) == 0
    assert await _count(runtime, Answer) == 0
    assert fake.calls_to("chat.postMessage") == []
    assert fake.calls_to("chat.postEphemeral") == []
    assert fake.responses == []


def _headers(body: str, *, timestamp: str | None = None, secret: str = SIGNING_SECRET) -> dict[str, str]:
    """Slack's headers, signed over exactly the given timestamp string (which may be malformed)."""
    ts = str(int(time.time())) if timestamp is None else timestamp
    return {"Content-Type": FORM, "X-Slack-Request-Timestamp": ts, "X-Slack-Signature": sign(secret, ts, body)}


async def _raw(port: int, head: str, body_parts: Sequence[bytes] = (), *, timeout: float = WAIT) -> tuple[int, bytes]:
    """Send a request's head and body parts over a plain socket; the status and whatever the server sent."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(head.replace("\n", "\r\n").encode() + b"\r\n")
        await writer.drain()
        for part in body_parts:
            writer.write(part)
            await writer.drain()
        received = await asyncio.wait_for(reader.read(65536), timeout)
        status = int(received.split(b" ", 2)[1])
        return status, received
    finally:
        writer.close()


async def _closed_by_server(port: int, head: str, *, timeout: float = 3 * BODY_TIMEOUT) -> bytes:
    """Send only a request's head; everything the server sends until it closes the connection.

    A server that waited for the body would answer 408 after BODY_TIMEOUT: an answer other than that 408 came
    without the body being read, however slow the machine (the timeout only stops a hang)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(head.replace("\n", "\r\n").encode() + b"\r\n")
        await writer.drain()
        return await asyncio.wait_for(reader.read(), timeout)  # read() returns at EOF: the server closed
    finally:
        writer.close()


def _head(path: str, headers: dict[str, str]) -> str:
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1"] + [f"{k}: {v}" for k, v in headers.items()]
    return "\n".join(lines) + "\n"


@pytest.fixture
async def slack(runtime: Runtime, fake: FakeSlack) -> AsyncIterator[RunningSlack]:
    """The adapter in HTTP mode against the fake."""
    async with running_adapter(runtime, fake) as running:
        yield running


@pytest.fixture
def port(slack: RunningSlack) -> int:
    """The adapter's HTTP port."""
    assert slack.adapter.http_port is not None
    return slack.adapter.http_port


# --- what gets 401 -----------------------------------------------------------------------------------


async def test_forged_missing_and_stale_signatures_get_401_and_record_nothing(
    runtime: Runtime, fake: FakeSlack, slack: RunningSlack
) -> None:
    body = fake.slash_command_body("now")
    assert slack.adapter.intake is not None
    # The intake's clock is held at the instant the headers are signed, so the one-second margins below do not
    # depend on how long the cases take to send (under load, a second passed and "from the future" got through).
    now = int(time.time())
    slack.adapter.intake.check.clock = lambda: float(now)
    good = _headers(body, timestamp=str(now))
    cases: dict[str, dict[str, str]] = {
        "forged": _headers(body, secret="not-the-secret"),
        "no headers": {"Content-Type": FORM},
        "no signature": {"Content-Type": FORM, "X-Slack-Request-Timestamp": good["X-Slack-Request-Timestamp"]},
        "no timestamp": {"Content-Type": FORM, "X-Slack-Signature": good["X-Slack-Signature"]},
        "stale": signed_headers(SIGNING_SECRET, body, timestamp=now - 301),
        "from the future": signed_headers(SIGNING_SECRET, body, timestamp=now + 301),
        "upper-case hex": {**good, "X-Slack-Signature": good["X-Slack-Signature"].upper().replace("V0=", "v0=")},
        "another version": {**good, "X-Slack-Signature": good["X-Slack-Signature"].replace("v0=", "v1=")},
        "truncated signature": {**good, "X-Slack-Signature": good["X-Slack-Signature"][:-1]},
        "empty signature": {**good, "X-Slack-Signature": ""},
    }
    for name, headers in cases.items():
        assert await slack.post(body, sign=False, headers=headers) == (401, "invalid request"), name
    assert slack.adapter.intake.refusals.reasons == {
        "signature does not match": 1,
        "missing timestamp": 2,
        "missing signature": 1,
        "timestamp more than 5 minutes off": 2,
        "malformed signature": 4,
    }
    # A body changed after signing.
    assert (await slack.post(body.replace("now", "reveal"), sign=False, headers=good))[0] == 401
    await slack.idle()
    await _nothing_recorded(runtime, fake)
    # The same body, properly signed, works.
    assert (await slack.post(body, sign=False, headers=good))[0] == 200
    await slack.posted_card()


MALFORMED_TIMESTAMPS = [
    "abc",
    "1e9",
    " 123",
    "",
    "+1700000000",
    "-1",
    "0x10",
    "12 34",
    "1_700_000_000",
    "9" * 40,
    "1.5",
]


async def test_malformed_timestamps_get_401_never_500(runtime: Runtime, fake: FakeSlack, slack: RunningSlack) -> None:
    body = fake.slash_command_body("now")
    for timestamp in MALFORMED_TIMESTAMPS:
        # Signed over that very timestamp string: only its format is wrong.
        headers = _headers(body, timestamp=timestamp)
        assert await slack.post(body, sign=False, headers=headers) == (401, "invalid request"), timestamp
    # Whitespace around a current timestamp: HTTP strips it, so the signature (over the padded string) is wrong.
    padded = f" {int(time.time())}"
    assert (await slack.post(body, sign=False, headers=_headers(body, timestamp=padded)))[0] == 401
    assert slack.adapter.intake is not None
    assert slack.adapter.intake.refusals.reasons == {
        "malformed timestamp": len(MALFORMED_TIMESTAMPS) - 1,
        "timestamp more than 5 minutes off": 1,  # " 123" arrives as "123" (HTTP strips the blanks): 1970
        "signature does not match": 1,
    }
    await _nothing_recorded(runtime, fake)


async def test_an_unsigned_body_is_refused_before_it_is_read(slack: RunningSlack, port: int) -> None:
    # A 1 MB unsigned body, of which only the head is sent: the 401 comes without waiting for the body (which
    # would end in a 408, see _closed_by_server), and the connection is closed instead of reading the megabyte.
    head = _head("/slack/events", {"Content-Type": FORM, "Content-Length": "1000000"})
    received = await _closed_by_server(port, head)
    assert received.startswith(b"HTTP/1.1 401 ")
    assert b"Connection: close" in received


# --- what gets 413 -----------------------------------------------------------------------------------


async def test_a_declared_size_over_the_cap_gets_413_without_the_body_being_read(
    runtime: Runtime, fake: FakeSlack, slack: RunningSlack, port: int
) -> None:
    body = fake.slash_command_body("now")
    for size in (MAX_BODY_BYTES + 1, 50 * 1024 * 1024):
        head = _head("/slack/events", {**_headers(body), "Content-Length": str(size)})
        received = await _closed_by_server(port, head)  # no byte of the body is ever sent
        assert received.startswith(b"HTTP/1.1 413 "), received[:100]
        assert b"request too large" in received
    # With Expect: 100-continue the client is told before it sends anything (and never gets a 100 Continue).
    head = _head("/slack/events", {**_headers(body), "Content-Length": "5000000", "Expect": "100-continue"})
    received = await _closed_by_server(port, head)
    assert received.startswith(b"HTTP/1.1 413 ")
    assert b"100 Continue" not in received
    await _nothing_recorded(runtime, fake)


async def test_a_chunked_body_over_the_cap_gets_413(runtime: Runtime, fake: FakeSlack, port: int) -> None:
    # No Content-Length: the body is counted as it arrives, and refused at the first byte past the cap.
    headers = {**_headers("ignored"), "Transfer-Encoding": "chunked"}
    piece = b"x" * 65536
    chunks = [b"%x\r\n%s\r\n" % (len(piece), piece)] * (MAX_BODY_BYTES // len(piece))
    chunks.append(b"1\r\nx\r\n")  # one byte past the cap; the body's end (0-length chunk) is never sent
    status, received = await _raw(port, _head("/slack/events", headers), chunks)
    assert status == 413
    assert b"Connection: close" in received
    await _nothing_recorded(runtime, fake)


async def test_a_body_at_the_cap_is_read_and_verified(fake: FakeSlack, slack: RunningSlack) -> None:
    body = fake.slash_command_body("packs")
    padded = body + "&padding=" + "x" * (MAX_BODY_BYTES - len(body) - len("&padding="))
    assert len(padded.encode()) == MAX_BODY_BYTES
    assert (await slack.post(padded, sign=False, headers=_headers(padded, secret="wrong")))[0] == 401
    assert (await slack.post(padded))[0] == 200
    assert "data-parallelism" in (await slack.ephemerals(1))[0]["text"]


async def test_a_body_that_stops_arriving_gets_408(runtime: Runtime, fake: FakeSlack, slack: RunningSlack) -> None:
    assert slack.adapter.intake is not None
    slack.adapter.intake.body_timeout = 0.3
    body = fake.slash_command_body("now")
    head = _head("/slack/events", {**_headers(body), "Content-Length": str(len(body))})
    assert slack.adapter.http_port is not None
    status, _ = await _raw(slack.adapter.http_port, head, [body[:10].encode()])
    assert status == 408
    await _nothing_recorded(runtime, fake)


async def test_large_bodies_wait_for_a_lane_while_a_genuine_click_goes_straight_through(
    runtime: Runtime, fake: FakeSlack, slack: RunningSlack, port: int
) -> None:
    intake = slack.adapter.intake
    assert intake is not None
    big = "f=" + "x" * (2 * LARGE_BODY_BYTES)
    head = _head("/slack/events", {**_headers(big, secret="wrong"), "Content-Length": str(len(big))})
    stalled = []
    try:
        # Large forged bodies that stop arriving after their first bytes: two hold the lanes, the third waits.
        for _ in range(LARGE_BODY_LANES + 1):
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(head.replace("\n", "\r\n").encode() + b"\r\n" + big[:100].encode())
            await writer.drain()
            stalled.append(writer)
        # Waits for the three to arrive (a bound for a hang, not 5 s: a loaded machine may take longer).
        await poll_until(
            lambda: (intake.large_bodies.busy, intake.large_bodies.waiting) == (LARGE_BODY_LANES, 1),
            message="two large bodies in the lanes and one waiting",
        )
        assert await slack.command("now") == (200, "")
        card = await slack.posted_card()
        click = fake.block_actions_body(card, choice_action(runtime, card, correct=True), user_id="U0BOB")
        assert (await slack.post(click))[0] == 200
        assert (await slack.ephemerals(1))[0]["text"].startswith("Correct!")
        assert intake.large_bodies.waiting == 1  # the small ones never queued behind the large
    finally:
        for writer in stalled:
            writer.close()
    assert await _count(runtime, Answer) == 1


# --- what still works --------------------------------------------------------------------------------


async def test_genuine_commands_and_clicks_work_alongside_refused_requests(
    runtime: Runtime, fake: FakeSlack, slack: RunningSlack
) -> None:
    assert await slack.command("now") == (200, "")
    card = await slack.posted_card()
    right = choice_action(runtime, card, correct=True)
    click = fake.block_actions_body(card, right, user_id="U0BOB")
    assert (await slack.post(click, sign=False))[0] == 401
    assert (await slack.post(click, bad_signature=True))[0] == 401
    assert (await slack.post(click))[0] == 200
    assert (await slack.ephemerals(1))[0]["text"].startswith("Correct!")
    # Chunked (no Content-Length) and Expect: 100-continue, both as a client may send them.
    second = fake.block_actions_body(card, right, user_id="U0CAROL")
    hdrs = {"Content-Type": FORM, **signed_headers(SIGNING_SECRET, second)}

    async def chunks() -> AsyncIterator[bytes]:
        data = second.encode()
        for start in range(0, len(data), 100):
            yield data[start : start + 100]

    async with aiohttp.ClientSession() as session:
        async with session.post(slack.url, data=chunks(), headers=hdrs) as response:
            assert response.status == 200
        third = fake.block_actions_body(card, right, user_id="U0ALICE")
        hdrs = {"Content-Type": FORM, **signed_headers(SIGNING_SECRET, third)}
        async with session.post(slack.url, data=third.encode(), headers=hdrs, expect100=True) as response:
            assert response.status == 200
    await slack.ephemerals(3)
    assert await _count(runtime, Answer) == 3


async def test_slacks_unsigned_ssl_check_gets_an_empty_200_and_nothing_else(
    runtime: Runtime, fake: FakeSlack, slack: RunningSlack, caplog: pytest.LogCaptureFixture
) -> None:
    """Slack sends `ssl_check=1` without signature headers (as Bolt does, it gets 200); nothing else runs."""
    caplog.set_level(logging.INFO)
    assert await slack.post("ssl_check=1&token=legacy-token", sign=False) == (200, "")
    # Dressed up as a command, it is still only an ssl_check: nothing is run.
    disguised = "ssl_check=1&" + fake.slash_command_body("now")
    assert len(disguised) < 1024
    assert await slack.post(disguised, sign=False) == (200, "")
    # Anything else unsigned is refused: another value, a signed-looking one, a big one, JSON.
    assert (await slack.post("ssl_check=0&token=x", sign=False))[0] == 401
    assert (await slack.post("ssl_check=1&ssl_check=1", sign=False))[0] == 401
    half_signed = {"X-Slack-Signature": "v0=" + "0" * 64}
    assert (await slack.post("ssl_check=1&token=x", sign=False, headers=half_signed))[0] == 401
    assert (await slack.post("ssl_check=1&pad=" + "x" * 2000, sign=False))[0] == 401
    assert (await slack.post("ssl_check=1", sign=False, headers={"Content-Type": "application/json"}))[0] == 401
    await slack.idle()
    await _nothing_recorded(runtime, fake)
    assert slack.adapter.intake is not None
    assert slack.adapter.intake.refusals.refused == 5
    assert "ssl_check" not in caplog.text


async def test_a_request_that_bypasses_the_intake_is_still_verified_by_bolt(
    fake: FakeSlack, slack: RunningSlack
) -> None:
    """Bolt's own check is replaced by the intake's; an HTTP request built any other way is verified in full."""
    body = fake.slash_command_body("packs")
    unsigned = AsyncBoltRequest(body=body, headers={"content-type": FORM})
    response = await slack.adapter.app.async_dispatch(unsigned)
    assert response.status == 401
    signed = AsyncBoltRequest(
        body=body, headers={k.lower(): v for k, v in signed_headers(SIGNING_SECRET, body).items()}
    )
    assert (await slack.adapter.app.async_dispatch(signed)).status == 200


async def test_ops_routes_are_unchanged(slack: RunningSlack) -> None:
    async with aiohttp.ClientSession() as session:
        async with session.get(slack.url.replace("/slack/events", "/healthz")) as response:
            assert response.status == 200
        async with session.get(slack.url.replace("/slack/events", "/metrics")) as response:
            assert response.status == 200
        async with session.get(slack.url) as response:
            assert response.status == 405


# --- the log -----------------------------------------------------------------------------------------


async def test_a_hundred_bad_requests_leave_a_short_log_without_their_bodies(
    runtime: Runtime, fake: FakeSlack, slack: RunningSlack, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)  # the level `quizbot run` logs at by default
    assert slack.adapter.intake is not None
    # The refusal log's clock is held: all hundred come within one interval, however long a loaded machine takes
    # to send them (at 10 s an interval, a slow run straddled two or three of them and logged a line for each).
    slack.adapter.intake.refusals.clock = lambda: 1000.0
    body = fake.slash_command_body(MARKER) + "&junk=" + MARKER * 100
    forged = _headers(body, secret="forged")
    variants: list[dict[str, Any]] = [
        {"sign": False},
        {"sign": False, "headers": forged},
        {"sign": False, "headers": _headers(body, timestamp="abc")},
        {"age": 400},
    ]
    statuses = set()
    for n in range(100):
        status, text = await slack.post(body, **variants[n % len(variants)])
        statuses.add(status)
        assert MARKER not in text
    assert statuses == {401}
    await _nothing_recorded(runtime, fake)
    refusals = [r for r in caplog.records if "refused a Slack request" in r.getMessage()]
    assert len(refusals) == 1  # one line per 10 seconds: the other 99 are counted, not logged
    assert refusals[0].getMessage().startswith("refused a Slack request: POST /slack/events from 127.0.0.1: ")
    assert MARKER not in caplog.text
    assert forged["X-Slack-Signature"] not in caplog.text
    assert "Invalid request signature" not in caplog.text  # Bolt's own line, which carried the body
    assert len(caplog.text) < 2000
    assert slack.adapter.intake.refusals.refused == 100


def test_refusals_are_logged_at_most_once_per_interval_with_a_count_of_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [1000.0]
    refusals = RefusalLog(logging.getLogger("test.intake"), interval=10, clock=lambda: now[0])
    with caplog.at_level(logging.INFO, logger="test.intake"):
        refusals.refuse("POST", "/slack/events", BAD_SIGNATURE, "10.0.0.1")
        for _ in range(7):
            now[0] += 1
            refusals.refuse("POST", "/slack/events", BAD_SIGNATURE, "10.0.0.2")
        refusals.refuse("POST", "/slack/events", STALE, "10.0.0.3")
        now[0] += 5  # 13 s after the first line
        refusals.refuse("POST", "/slack/events\n2026 forged line", STALE, "10.0.0.4")
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "refused a Slack request: POST /slack/events from 10.0.0.1: signature does not match (401)",
        "refused a Slack request: POST /slack/events?2026 forged line from 10.0.0.4: timestamp more than 5 minutes "
        "off (401); 8 more refused since the last such line (7 signature does not match, "
        "1 timestamp more than 5 minutes off)",
    ]
    assert refusals.refused == 10


def test_signature_check_on_raw_bytes() -> None:
    now = 1_700_000_000
    check = SignatureCheck(SIGNING_SECRET, clock=lambda: now)
    body = b"payload=%7B%22a%22%3A1%7D"
    ts = str(now)
    signature = sign(SIGNING_SECRET, ts, body)
    assert check.check(ts, signature, body) is None
    assert check.check(ts, signature, body + b" ") == BAD_SIGNATURE
    assert check.check(str(now - 301), sign(SIGNING_SECRET, str(now - 301), body), body) == STALE
    assert check.check(str(now - 300), sign(SIGNING_SECRET, str(now - 300), body), body) is None
    # Bodies that are not UTF-8 are signed and checked as bytes (whoever parses them later may refuse them).
    binary = b"\xff\xfe" + body
    mac = check.signature(ts, binary)
    assert check.check(ts, mac, binary) is None
    with pytest.raises(ValueError, match="signing secret"):
        SignatureCheck("")
