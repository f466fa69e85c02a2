"""The door of Slack HTTP mode: a request is verified on its raw bytes before anything parses it.

Bolt builds its request (parsing the whole form or JSON body) before its own middleware checks the signature, and
logs the body of every request whose signature is wrong. So anyone who can reach the endpoint could make the bot
parse, and write to its log, as much as they send. `SlackIntake` stands in front of Bolt on the aiohttp server:

1. a body whose Content-Length is over `MAX_BODY_BYTES` is refused with 413 before any of it is read (also on
   `Expect: 100-continue`, before the client sends it);
2. a missing or malformed `X-Slack-Request-Timestamp` (ASCII digits only) or `X-Slack-Signature` (`v0=` and 64 hex
   digits), or a timestamp more than five minutes away from now, is refused with 401, still before the body is read;
3. the body is read up to the cap (a chunked body without Content-Length too: one byte more than the cap and it is
   refused with 413) and within `BODY_TIMEOUT` seconds (408); a large body (over `LARGE_BODY_BYTES`) waits for one
   of `LARGE_BODY_LANES` lanes first, so a flood of them cannot starve the small bodies genuine requests have;
4. the signature, `v0=` + HMAC-SHA256(signing secret, `v0:{timestamp}:{raw body}`), is compared in constant time;
   a mismatch is refused with 401.

Only then is the request handed on (to Bolt). The one exception is Slack's unsigned `ssl_check`: a form of at most
`SSL_CHECK_MAX_BYTES` without either signature header is read, and if it is `ssl_check=1` it gets an empty 200
here, going no further (see `SSL_CHECK_MAX_BYTES`). A refused request whose body was not read to its end gets its answer
with `Connection: close` and the connection is closed, so the rest is never read. Refusals are logged as one short
line (method, path, reason, client address; never the body or a header's value), at most one line per
`LOG_INTERVAL` seconds, the next line telling how many were refused in between.

In place of Bolt's own verification (turned off in HTTP mode, as its documentation allows when a proxy in front
verifies), `bolt_guard` sits in the same place of Bolt's middleware chain: it lets through, at the cost of a lookup,
a request that came through this intake (a marker only the intake puts in the request's context), verifies in full
any other HTTP request, so the app stays safe if someone serves it another way, and lets Socket Mode envelopes pass
as Bolt's check does (they arrive over an authenticated WebSocket, not over HTTP).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import re
import time
import urllib.parse
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aiohttp import HttpVersion11, web
from aiohttp.http_exceptions import HttpProcessingError
from slack_bolt.middleware.async_middleware import AsyncMiddleware
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

from adapters.slack.platform import PLATFORM

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 1024 * 1024
"""The largest request body accepted: 1 MiB, well above anything Slack sends this app. It receives two kinds of
request: slash commands (a few hundred bytes of fields plus the typed text, which Slack keeps within its 40,000-
character message limit: at most ~360 KB even if every character were a percent-encoded 3-byte one) and clicks on
its own cards, whose `block_actions` payload carries the whole card message. A card is a 3,000-character section
(Block Kit's limit, which `blocks.py` keeps to), up to ten buttons and a 2,000-character context line: measured,
the largest card of the shipped packs makes a 3.3 KB click body, and a card filled to every limit 10 KB (44 KB in
non-Latin text, JSON-escaped and then percent-encoded). Even an arbitrary Slack message at its limits (50 blocks of
3,000 characters) makes a click body of ~160 KB of ASCII. Should the app ever open modals, their view_submission
payloads (up to 100 blocks and the inputs' values) would be the thing to re-measure. At the cap, 20 concurrent
bodies cost 20 MiB of memory and one HMAC each (~1 ms)."""

LARGE_BODY_BYTES = 64 * 1024
"""A body declared larger than this (or not declared: chunked) is read in one of `LARGE_BODY_LANES` lanes. What
this app gets is nearly always smaller: a click on the largest card any pack can make is 44 KB at most (see
`MAX_BODY_BYTES`), a typical click 3-10 KB, a slash command a few hundred bytes. A slash command with a very long
text (Slack allows ~360 KB) takes a lane too, and waits only while a flood holds both."""

LARGE_BODY_LANES = 2
"""How many large bodies are read and verified at once. A forged request with a fresh timestamp cannot be refused
before its body is read and hashed, so a flood of large ones would otherwise take the event loop from the genuine
clicks (bench/slack_flood.py: 20 x 1 MB forged in flight raised a click's ack p50 to 0.6 s); in lanes, they wait
their turn with their bodies unread (the sender is held back by TCP), while a small body never waits. The HMAC of
a large body runs in a thread (hashlib lets go of the GIL over large buffers)."""

MAX_SKEW_SECONDS = 300
"""Slack's rule: a request whose timestamp is more than five minutes from now is refused (a replay)."""

BODY_TIMEOUT = 10.0
"""Seconds the body of one request may take to arrive. Slack wants an ack within 3 s and sends the whole body at
once, so a body still arriving after this long is not from Slack (a connection held open by a slow sender)."""

SSL_CHECK_MAX_BYTES = 1024
"""Slack's `ssl_check` (sent to slash command URLs to check the certificate) is the one request it does not sign:
a tiny form, `ssl_check=1&token=...`. An unsigned form of at most this many bytes is read and, if it is one, gets
an empty 200 from the intake itself (as Bolt answers it); nothing else ever sees it."""

LOG_INTERVAL = 10.0
"""At most one log line about refused requests per this many seconds."""

CONTEXT_KEY = "quizbot_intake"
"""The key of the marker that `SlackIntake` puts in a verified request's Bolt context."""

_TIMESTAMP = re.compile(r"[0-9]{1,15}")  # ASCII digits only: int() would also take " 12", "１２", "1_000"
_SIGNATURE = re.compile(r"v0=[0-9a-f]{64}")  # Slack's version and a hex SHA-256; anything else is not a signature


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a request is not handed on, and its HTTP status."""

    status: int
    reason: str


TOO_LARGE = Refusal(413, "body too large")
TOO_SLOW = Refusal(408, "body too slow")
INCOMPLETE = Refusal(400, "body incomplete")
BAD_LENGTH = Refusal(400, "malformed Content-Length")
NO_TIMESTAMP = Refusal(401, "missing timestamp")
BAD_TIMESTAMP = Refusal(401, "malformed timestamp")
STALE = Refusal(401, "timestamp more than 5 minutes off")
NO_SIGNATURE = Refusal(401, "missing signature")
MALFORMED_SIGNATURE = Refusal(401, "malformed signature")
BAD_SIGNATURE = Refusal(401, "signature does not match")

_RESPONSE_TEXT = {400: "bad request", 401: "invalid request", 408: "request timeout", 413: "request too large"}


class SignatureCheck:
    """Slack's v0 request signature, checked on raw bytes: the headers first (cheap), then the body's HMAC."""

    def __init__(self, signing_secret: str, *, clock: Callable[[], float] = time.time) -> None:
        if not signing_secret:
            raise ValueError("a signing secret is needed to verify Slack requests")
        self._secret = signing_secret.encode("utf-8")
        self.clock = clock

    def check_headers(self, timestamp: str | None, signature: str | None) -> Refusal | None:
        """Whether the timestamp and signature headers are present, well-formed and recent; no body needed."""
        if timestamp is None:
            return NO_TIMESTAMP
        if not _TIMESTAMP.fullmatch(timestamp):
            return BAD_TIMESTAMP
        if abs(self.clock() - int(timestamp)) > MAX_SKEW_SECONDS:
            return STALE
        if signature is None:
            return NO_SIGNATURE
        if not _SIGNATURE.fullmatch(signature):
            return MALFORMED_SIGNATURE
        return None

    def signature(self, timestamp: str, body: bytes) -> str:
        """`v0=` + hex HMAC-SHA256 over `v0:{timestamp}:{body}`, computed without copying the body."""
        mac = hmac.new(self._secret, digestmod=hashlib.sha256)
        mac.update(b"v0:" + timestamp.encode("ascii") + b":")
        mac.update(body)
        return "v0=" + mac.hexdigest()

    def check(self, timestamp: str | None, signature: str | None, body: bytes) -> Refusal | None:
        """The whole check: headers, then the body's signature (compared in constant time)."""
        refusal = self.check_headers(timestamp, signature)
        if refusal is not None:
            return refusal
        assert timestamp is not None
        assert signature is not None
        if not hmac.compare_digest(self.signature(timestamp, body).encode("ascii"), signature.encode("ascii")):
            return BAD_SIGNATURE
        return None


class RefusalLog:
    """One short line per refused request, at most one line per `interval` seconds; the refusals in between are
    counted (by reason) and reported on the next line. Never the body, never a header's value."""

    def __init__(
        self,
        logger: logging.Logger = log,
        *,
        interval: float = LOG_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.interval = interval
        self.clock = clock
        self.reasons: Counter[str] = Counter()
        """Every refusal since start, logged or not, by reason."""
        self._quiet_until: float | None = None
        self._suppressed: Counter[str] = Counter()

    @property
    def refused(self) -> int:
        """How many requests were refused since start."""
        return self.reasons.total()

    def refuse(self, method: str, path: str, refusal: Refusal, remote: str | None) -> None:
        """Count a refusal; log it unless a line was written less than `interval` seconds ago."""
        self.reasons[refusal.reason] += 1
        now = self.clock()
        if self._quiet_until is not None and now < self._quiet_until:
            self._suppressed[refusal.reason] += 1
            return
        since = ""
        if self._suppressed:
            total = sum(self._suppressed.values())
            reasons = ", ".join(f"{count} {reason}" for reason, count in self._suppressed.most_common())
            since = f"; {total} more refused since the last such line ({reasons})"
        self.logger.warning(
            "refused a Slack request: %s %s from %s: %s (%s)%s",
            _printable(method, 16),
            _printable(path, 100),
            _printable(remote or "unknown", 64),
            refusal.reason,
            refusal.status,
            since,
            extra={"platform": PLATFORM},
        )
        self._suppressed.clear()
        self._quiet_until = now + self.interval


def _printable(text: str, limit: int) -> str:
    """At most `limit` characters, with anything that is not printable ASCII replaced: no forged log lines."""
    clipped = text[:limit]
    return "".join(ch if " " <= ch <= "~" else "?" for ch in clipped) + ("..." if len(text) > limit else "")


Handler = Callable[[web.Request, bytes], Awaitable[web.StreamResponse]]
"""What the intake hands a verified request to: the request and its raw body."""


class Lanes:
    """At most `size` holders at once, the others waiting their turn (asyncio.Semaphore, with counts to show)."""

    def __init__(self, size: int) -> None:
        self._free = asyncio.Semaphore(size)
        self.busy = 0
        self.waiting = 0

    @contextlib.asynccontextmanager
    async def held(self) -> AsyncIterator[None]:
        """Hold a lane for the length of the block."""
        self.waiting += 1
        try:
            await self._free.acquire()
        finally:
            self.waiting -= 1
        self.busy += 1
        try:
            yield
        finally:
            self.busy -= 1
            self._free.release()


class SlackIntake:
    """Verifies Slack's requests before anything parses them (see the module's docstring)."""

    def __init__(
        self,
        signing_secret: str,
        *,
        max_body: int = MAX_BODY_BYTES,
        body_timeout: float = BODY_TIMEOUT,
        clock: Callable[[], float] = time.time,
        refusals: RefusalLog | None = None,
    ) -> None:
        self.check = SignatureCheck(signing_secret, clock=clock)
        self.max_body = max_body
        self.body_timeout = body_timeout
        self.large_bodies = Lanes(LARGE_BODY_LANES)
        self.refusals = refusals or RefusalLog()
        self._marker = object()  # proof, in a Bolt request's context, that this intake verified it
        self.bolt_guard = IntakeVerified(self)

    # --- aiohttp --------------------------------------------------------------------------------------

    def guard(self, handler: Handler) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        """An aiohttp handler that verifies the request, then calls `handler(request, raw_body)`."""

        async def verified(request: web.Request) -> web.StreamResponse:
            refusal = self._check_before_body(request)
            if refusal is not None:
                if self._may_be_ssl_check(request) and await self._is_ssl_check(request):
                    return web.Response(status=200, text="")  # nothing else is done for it
                return await self._refuse(request, refusal)
            large = request.content_length is None or request.content_length > LARGE_BODY_BYTES
            try:  # the wait for a lane counts against the body's time: a flood cannot queue one for ever
                async with (
                    asyncio.timeout(self.body_timeout),
                    self.large_bodies.held() if large else contextlib.nullcontext(),
                ):
                    raw = await self._read_capped(request, self.max_body)
                    if raw is not None:
                        refusal = await self._verify(request, raw)
            except TimeoutError:
                return await self._refuse(request, TOO_SLOW)
            except (HttpProcessingError, ConnectionError):  # a broken chunked encoding, a dropped connection
                return await self._refuse(request, INCOMPLETE)
            if raw is None:
                return await self._refuse(request, TOO_LARGE)
            if refusal is not None:
                return await self._refuse(request, refusal)
            return await handler(request, raw)

        return verified

    async def _verify(self, request: web.Request, raw: bytes) -> Refusal | None:
        """The signature check on the raw body; a large body is hashed in a thread, off the event loop."""
        headers = request.headers
        timestamp, signature = headers.get("X-Slack-Request-Timestamp"), headers.get("X-Slack-Signature")
        if len(raw) > LARGE_BODY_BYTES:
            return await asyncio.to_thread(self.check.check, timestamp, signature, raw)
        return self.check.check(timestamp, signature, raw)

    async def expect(self, request: web.Request) -> web.StreamResponse | None:
        """aiohttp's `expect_handler`: with `Expect: 100-continue`, refuse before the client sends the body."""
        refusal = self._check_before_body(request)
        if refusal is not None and not self._may_be_ssl_check(request):
            return await self._refuse(request, refusal)
        if request.version != HttpVersion11:  # as aiohttp's own expect handler: HTTP/1.0 has no 100 Continue
            return None
        if request.headers.get("Expect", "").lower() != "100-continue":
            return await self._refuse(request, Refusal(417, "unknown Expect"))
        await request.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        request.writer.output_size = 0  # as aiohttp's own handler does: the 100 is not part of the response
        return None

    def _check_before_body(self, request: web.Request) -> Refusal | None:
        """What can be refused from the headers alone: a declared size over the cap, missing or bad headers."""
        try:
            declared = request.content_length
        except ValueError:  # aiohttp's parser already refuses these with 400; never let one through
            return BAD_LENGTH
        if declared is not None and declared > self.max_body:
            return TOO_LARGE
        return self.check.check_headers(
            request.headers.get("X-Slack-Request-Timestamp"), request.headers.get("X-Slack-Signature")
        )

    @staticmethod
    async def _read_capped(request: web.Request, cap: int) -> bytes | None:
        """The body, or None as soon as it is longer than `cap` (never more than one byte past it is read)."""
        chunks: list[bytes] = []
        received = 0
        while True:
            chunk = await request.content.read(min(65536, cap + 1 - received))
            if not chunk:
                return b"".join(chunks)
            received += len(chunk)
            if received > cap:
                return None
            chunks.append(chunk)

    @staticmethod
    def _may_be_ssl_check(request: web.Request) -> bool:
        """Whether this could be Slack's `ssl_check`: a tiny form without either signature header."""
        if "X-Slack-Signature" in request.headers or "X-Slack-Request-Timestamp" in request.headers:
            return False
        try:
            declared = request.content_length
        except ValueError:
            return False
        small = declared is None or declared <= SSL_CHECK_MAX_BYTES
        return small and request.content_type == "application/x-www-form-urlencoded"

    async def _is_ssl_check(self, request: web.Request) -> bool:
        """Whether the (tiny, unsigned) body is `ssl_check=1`; at most `SSL_CHECK_MAX_BYTES` of it are read."""
        try:
            async with asyncio.timeout(self.body_timeout):
                raw = await self._read_capped(request, SSL_CHECK_MAX_BYTES)
        except (TimeoutError, HttpProcessingError, ConnectionError):
            return False
        if raw is None:
            return False
        try:
            fields = urllib.parse.parse_qs(raw.decode("ascii"), max_num_fields=32, strict_parsing=True)
        except (UnicodeDecodeError, ValueError):
            return False
        return fields.get("ssl_check") == ["1"]

    async def _refuse(self, request: web.Request, refusal: Refusal) -> web.StreamResponse:
        self.refusals.refuse(request.method, request.path, refusal, request.remote)
        response = web.Response(status=refusal.status, text=_RESPONSE_TEXT.get(refusal.status, "refused"))
        if request.content.is_eof():
            return response  # the whole body is already in (and small): the connection can be reused
        # The rest of the body is still coming: answer, then close instead of reading (aiohttp would otherwise
        # read and discard it, for up to 10 s, to keep the connection alive).
        response.force_close()
        try:
            await response.prepare(request)
            await response.write_eof()
        except ConnectionError:  # the client is already gone: nothing to tell it, nothing to log
            pass
        request.protocol.force_close()
        return response

    # --- Bolt ------------------------------------------------------------------------------------------

    def verified_context(self) -> dict[str, Any]:
        """The context to build a Bolt request with, once this intake has verified it."""
        return {CONTEXT_KEY: self._marker}

    def verified(self, req: AsyncBoltRequest) -> bool:
        """Whether `req` was built by the intake's handler after verification (see `verified_context`)."""
        return req.context.get(CONTEXT_KEY) is self._marker


class IntakeVerified(AsyncMiddleware):
    """Bolt's signature check, cheap where the intake already verified (see the module's docstring)."""

    def __init__(self, intake: SlackIntake) -> None:
        self.intake = intake

    async def async_process(
        self, *, req: AsyncBoltRequest, resp: BoltResponse, next: Callable[[], Awaitable[BoltResponse]]
    ) -> BoltResponse | None:
        """Pass on what the intake verified and Socket Mode envelopes; verify anything else here."""
        if req.mode == "socket_mode" or self.intake.verified(req):
            return await next()
        refusal = self.intake.check.check(
            _first(req.headers, "x-slack-request-timestamp"),
            _first(req.headers, "x-slack-signature"),
            req.raw_body.encode("utf-8"),
        )
        if refusal is None:
            return await next()
        self.intake.refusals.refuse("POST", "(not through the intake)", refusal, None)
        return BoltResponse(status=401, body=_RESPONSE_TEXT[401])


def _first(headers: Mapping[str, Sequence[str]], name: str) -> str | None:
    values = headers.get(name)
    return values[0] if values else None
