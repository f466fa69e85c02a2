"""A loopback fake of the Discord REST API and gateway for end-to-end tests.

The real, unmodified discord.py client logs into this fake: point discord.py at it with
:meth:`FakeDiscord.patch_discord` (or use ``async with FakeDiscord() as fake`` which starts the
server *and* patches discord.py), then start a client with :meth:`FakeDiscord.run_client`.

Everything listens on 127.0.0.1 only; :func:`loopback_only` additionally blocks (and records) any
socket connection or DNS lookup for a non-loopback address while it is active.

Quick tour::

    async with FakeDiscord() as fake:
        client = discord.Client(intents=discord.Intents.default())
        async with fake.run_client(client):
            channel = client.get_channel(fake.channel_id)
            await channel.send("hi")
            assert fake.requests_to("POST", "/channels/{id}/messages")
            data = fake.slash_command_interaction("quiz", subcommand="now", options={"pack": "x"})
            callback = await fake.send_interaction(data)
            assert callback.type == 4
        fake.assert_no_unknown_routes()

Facts about discord.py 2.7.1 this fake relies on (checked against its source):

* JSON responses need ``Content-Type: application/json`` *exactly* (``http.json_or_text``).
* A 429 without a ``Via`` header is treated as a Cloudflare ban and raised immediately as
  ``HTTPException``; real Discord sends ``Via: 1.1 google``, and so does this fake.
* 500/502/504 are retried after ``1 + 2 * try`` seconds (so an injected 500 costs ~1 s).
* The interaction callback is sent with ``?with_response=1`` and the body *must* be JSON with an
  ``interaction`` key (a 204 breaks ``InteractionCallbackResponse``).
* Any non-initial IDENTIFY (second shard, re-identify after INVALID_SESSION) waits 5 s in
  ``Client.before_identify_hook``; :meth:`FakeDiscord.run_client` replaces it with a no-op.
* ``on_ready`` fires ``guild_ready_timeout`` seconds (default 2 s) after the last GUILD_CREATE;
  :meth:`FakeDiscord.run_client` lowers it.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import hashlib
import ipaddress
import json
import re
import secrets
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import formatdate
from typing import Any, TypeVar

from aiohttp import BodyPartReader, WSMsgType, web

_T = TypeVar("_T")

__all__ = [
    "ERRORS",
    "FakeDiscord",
    "GatewayConnection",
    "InteractionCallback",
    "NetworkGuard",
    "RecordedRequest",
    "loopback_only",
    "patch_discord",
]

DISCORD_EPOCH_MS = 1420070400000
WAIT = 30.0
"""How long (seconds) the fake's helpers wait by default for what a test expects (a callback, a connection, a
message): a bound that fails a hang, not a speed check; the bot's answer took more than the 5 s this was on a
machine loaded by other work. A test about a wait passes its own."""
API_PREFIX = "/api/v10"

# Gateway intent bits (https://discord.com/developers/docs/events/gateway#gateway-intents).
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15

# Message flags.
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_COMPONENTS_V2 = 1 << 15

# Permission bits used for the default roles.
_P = {
    "create_instant_invite": 1 << 0,
    "kick_members": 1 << 1,
    "administrator": 1 << 3,
    "manage_channels": 1 << 4,
    "add_reactions": 1 << 6,
    "view_channel": 1 << 10,
    "send_messages": 1 << 11,
    "manage_messages": 1 << 13,
    "embed_links": 1 << 14,
    "attach_files": 1 << 15,
    "read_message_history": 1 << 16,
    "mention_everyone": 1 << 17,
    "use_external_emojis": 1 << 18,
    "connect": 1 << 20,
    "speak": 1 << 21,
    "change_nickname": 1 << 26,
    "use_application_commands": 1 << 31,
    "manage_threads": 1 << 34,
    "create_public_threads": 1 << 35,
    "create_private_threads": 1 << 36,
    "send_messages_in_threads": 1 << 38,
}
EVERYONE_PERMISSIONS = sum(
    _P[name]
    for name in (
        "create_instant_invite",
        "add_reactions",
        "view_channel",
        "send_messages",
        "embed_links",
        "attach_files",
        "read_message_history",
        "use_external_emojis",
        "connect",
        "speak",
        "change_nickname",
        "use_application_commands",
        "create_public_threads",
        "create_private_threads",
        "send_messages_in_threads",
    )
)
BOT_PERMISSIONS = EVERYONE_PERMISSIONS | _P["manage_messages"] | _P["manage_threads"] | _P["mention_everyone"]
ALL_PERMISSIONS = (1 << 53) - 1

# Discord-shaped error presets: name -> (status, code, message).
ERRORS: dict[str, tuple[int, int, str]] = {
    "unknown_route": (404, 0, "Unknown route"),
    "unauthorized": (401, 0, "401: Unauthorized"),
    "unknown_application": (404, 10002, "Unknown Application"),
    "unknown_channel": (404, 10003, "Unknown Channel"),
    "unknown_guild": (404, 10004, "Unknown Guild"),
    "unknown_member": (404, 10007, "Unknown Member"),
    "unknown_message": (404, 10008, "Unknown Message"),
    "unknown_user": (404, 10013, "Unknown User"),
    "unknown_webhook": (404, 10015, "Unknown Webhook"),
    "unknown_command": (404, 10063, "Unknown application command"),
    "unknown_interaction": (404, 10062, "Unknown interaction"),
    "missing_access": (403, 50001, "Missing Access"),
    "cannot_edit_other": (403, 50005, "Cannot edit a message authored by another user"),
    "cannot_send_empty": (400, 50006, "Cannot send an empty message"),
    "cannot_dm": (403, 50007, "Cannot send messages to this user"),
    "missing_permissions": (403, 50013, "Missing Permissions"),
    "invalid_form_body": (400, 50035, "Invalid Form Body"),
    "already_acknowledged": (400, 40060, "Interaction has already been acknowledged."),
    "server_error": (500, 0, "500: Internal Server Error"),
    "bad_gateway": (502, 0, "502: Bad Gateway"),
    "rate_limited": (429, 0, "You are being rate limited."),
}


class FakeDiscordError(Exception):
    """Raised by handlers to answer with a Discord-shaped JSON error."""

    def __init__(self, status: int, code: int, message: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    @classmethod
    def preset(cls, name: str, errors: dict[str, Any] | None = None) -> FakeDiscordError:
        status, code, message = ERRORS[name]
        return cls(status, code, message, errors)

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors
        return body


def _now_iso() -> str:
    return datetime.now(UTC).isoformat()


def _sf(value: Any) -> str:
    return str(int(value))


# --------------------------------------------------------------------------------------------
# Network guard
# --------------------------------------------------------------------------------------------


def _is_loopback_host(host: Any) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    host = str(host).strip("[]")
    if host in ("", "localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


class NetworkGuard:
    """Blocks and records socket connections / DNS lookups for non-loopback addresses."""

    def __init__(self) -> None:
        self.violations: list[str] = []
        self._saved: tuple[Any, ...] | None = None

    def _check(self, what: str, address: Any) -> None:
        host = address[0] if isinstance(address, tuple) and address else None
        if isinstance(address, str | bytes):  # AF_UNIX path
            return
        if not _is_loopback_host(host):
            self.violations.append(f"{what} {address!r}")
            raise ConnectionRefusedError(f"loopback_only: blocked {what} to {address!r}")

    def install(self) -> None:
        guard = self
        orig_connect = socket.socket.connect
        orig_connect_ex = socket.socket.connect_ex
        orig_getaddrinfo = socket.getaddrinfo
        self._saved = (orig_connect, orig_connect_ex, orig_getaddrinfo)

        def connect(sock: socket.socket, address: Any) -> None:
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                guard._check("connect", address)
            return orig_connect(sock, address)

        def connect_ex(sock: socket.socket, address: Any) -> int:
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                guard._check("connect_ex", address)
            return orig_connect_ex(sock, address)

        def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
            if not _is_loopback_host(host):
                guard.violations.append(f"getaddrinfo {host!r}")
                raise socket.gaierror(socket.EAI_NONAME, f"loopback_only: blocked DNS lookup of {host!r}")
            return orig_getaddrinfo(host, *args, **kwargs)

        socket.socket.connect = connect  # type: ignore[method-assign,assignment]
        socket.socket.connect_ex = connect_ex  # type: ignore[method-assign,assignment]
        socket.getaddrinfo = getaddrinfo

    def uninstall(self) -> None:
        if self._saved is None:
            return
        orig_connect, orig_connect_ex, orig_getaddrinfo = self._saved
        socket.socket.connect = orig_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = orig_connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = orig_getaddrinfo
        self._saved = None


@contextlib.contextmanager
def loopback_only() -> Iterator[NetworkGuard]:
    """Context manager: while active, connecting to / resolving anything but loopback fails.

    Yields the :class:`NetworkGuard`; inspect ``guard.violations`` to assert nothing tried.
    Nested use is fine (each level restores what it replaced).
    """
    guard = NetworkGuard()
    guard.install()
    try:
        yield guard
    finally:
        guard.uninstall()


@contextlib.contextmanager
def patch_discord(api_base: str, gateway_url: str, cdn_base: str | None = None) -> Iterator[None]:
    """Point discord.py's globals at a fake; restores the previous values on exit.

    Sets ``discord.http.Route.BASE`` (REST, also used by webhooks/interaction followups),
    ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`` (plain ``Client``; ``AutoShardedClient``
    with ``shard_count=None`` asks ``GET /gateway/bot`` instead) and ``discord.asset.Asset.BASE``
    (CDN, so avatar downloads also stay on loopback).  Must be active before routes are built,
    i.e. before the client logs in.
    """
    import yarl
    from discord.asset import Asset
    from discord.gateway import DiscordWebSocket
    from discord.http import Route

    saved = (Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY, Asset.BASE)
    Route.BASE = api_base
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)
    if cdn_base is not None:
        Asset.BASE = cdn_base
    try:
        yield
    finally:
        Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY, Asset.BASE = saved


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------


@dataclass
class RecordedRequest:
    """One REST request the fake received (recorded even when it was answered with an error)."""

    method: str
    path: str  # without the /api/v10 prefix, decoded, e.g. "/channels/123/messages"
    query: dict[str, str]
    headers: dict[str, str]
    json: Any = None  # parsed JSON body, or payload_json of a multipart body
    payload_json: Any = None  # payload_json part of a multipart body (also mirrored in .json)
    files: list[dict[str, Any]] = field(default_factory=list)  # {"name","filename","content_type","data"}
    route: str | None = None  # matched route template, e.g. "/channels/{channel_id}/messages"
    params: dict[str, str] = field(default_factory=dict)
    status: int | None = None
    response: Any = None
    error_code: int | None = None
    injected: bool = False  # answered by fail_next()
    rate_limited: bool = False  # answered 429 by the rate limiter
    at: float = field(default_factory=time.monotonic)

    @property
    def is_multipart(self) -> bool:
        return self.payload_json is not None or bool(self.files)

    def __repr__(self) -> str:
        return f"<RecordedRequest {self.method} {self.path} -> {self.status}>"


@dataclass
class InteractionCallback:
    """A ``POST /interactions/{id}/{token}/callback`` that the fake accepted."""

    interaction_id: str
    token: str
    type: int
    data: dict[str, Any]
    interaction: dict[str, Any]  # the INTERACTION_CREATE payload it answers
    request: RecordedRequest
    message: dict[str, Any] | None = None  # message created/updated by the callback, if any

    @property
    def flags(self) -> int:
        return int(self.data.get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def content(self) -> str | None:
        return self.data.get("content")

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return list(self.data.get("embeds") or [])

    @property
    def components(self) -> list[dict[str, Any]]:
        return list(self.data.get("components") or [])


@dataclass
class _InteractionState:
    payload: dict[str, Any]
    token: str
    acked: bool = False
    expired: bool = False
    response_type: int | None = None
    original_message_id: str | None = None
    followup_ids: list[str] = field(default_factory=list)


@dataclass
class GatewayConnection:
    """One websocket connection to the fake gateway."""

    id: int
    ws: web.WebSocketResponse
    query: dict[str, str]
    shard_id: int = 0
    shard_count: int = 1
    sharded: bool = False
    identify: dict[str, Any] | None = None
    resume: dict[str, Any] | None = None
    intents: int | None = None
    session_id: str | None = None
    seq: int = 0
    ready: bool = False
    closed: bool = False
    close_code: int | None = None
    heartbeats: int = 0
    received: list[dict[str, Any]] = field(default_factory=list)
    sent: list[dict[str, Any]] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def live(self) -> bool:
        return self.ready and not self.closed and not self.ws.closed

    def has_intent(self, bit: int) -> bool:
        return self.intents is None or bool(self.intents & bit)

    async def send(self, payload: dict[str, Any]) -> None:
        async with self.lock:
            if self.ws.closed:
                raise ConnectionResetError(f"gateway connection {self.id} is closed")
            if payload.get("op") == 0:
                self.seq += 1
                payload["s"] = self.seq
            self.sent.append(payload)
            await self.ws.send_str(json.dumps(payload))

    def __repr__(self) -> str:
        state = "closed" if self.closed else ("ready" if self.ready else "connecting")
        return f"<GatewayConnection #{self.id} shard={self.shard_id}/{self.shard_count} {state}>"


# --------------------------------------------------------------------------------------------
# Route matching helpers
# --------------------------------------------------------------------------------------------

_PARAM_RE = re.compile(r"\{([^{}/]*)\}")


def _template_regex(template: str) -> re.Pattern[str]:
    parts: list[str] = []
    pos = 0
    for m in _PARAM_RE.finditer(template):
        parts.append(re.escape(template[pos : m.start()]))
        name = m.group(1)
        parts.append(f"(?P<{name}>[^/]+)" if name.isidentifier() else "[^/]+")
        pos = m.end()
    parts.append(re.escape(template[pos:]))
    return re.compile("^" + "".join(parts) + "/?$")


def _normalize_template(template: str) -> str:
    return _PARAM_RE.sub("{}", template.rstrip("/") or "/")


class _Matcher:
    """Matches a method + a path given as a template ('/channels/{id}/messages'), a concrete
    path, or a compiled regex (``re.search`` on the path)."""

    def __init__(self, method: str | None, route: str | re.Pattern[str]) -> None:
        self.method = None if method in (None, "*") else method.upper()
        self.route = route
        self.regex = route if isinstance(route, re.Pattern) else _template_regex(route)
        self.is_regex = isinstance(route, re.Pattern)

    def matches(self, method: str, path: str) -> bool:
        if self.method is not None and self.method != method.upper():
            return False
        if self.is_regex:
            return self.regex.search(path) is not None
        return self.regex.match(path) is not None


def _major_parameter(path: str) -> str:
    parts = [p for p in path.split("/") if p]
    if len(parts) >= 2 and parts[0] in ("channels", "guilds"):
        return f"{parts[0]}:{parts[1]}"
    if len(parts) >= 3 and parts[0] in ("webhooks", "interactions"):
        return f"{parts[0]}:{parts[1]}:{parts[2]}"
    return ""


@dataclass
class _Failure:
    matcher: _Matcher
    status: int
    code: int
    message: str
    retry_after: float
    is_global: bool
    via: bool
    times: int
    headers: dict[str, str]
    hits: int = 0


@dataclass
class _BucketRule:
    matcher: _Matcher
    limit: int
    per: float
    scope: str
    bucket: str


@dataclass
class _Window:
    count: int = 0
    reset_at: float = 0.0


# --------------------------------------------------------------------------------------------
# Validation (a small subset of Discord's real limits)
# --------------------------------------------------------------------------------------------


def _form_error(errors: dict[str, Any], path: list[str | int], code: str, message: str) -> None:
    node = errors
    for key in path:
        node = node.setdefault(str(key), {})
    node.setdefault("_errors", []).append({"code": code, "message": message})


def _walk_components(components: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for comp in components or []:
        yield comp
        yield from _walk_components(comp.get("components") or [])
        for key in ("component", "accessory"):
            child = comp.get(key)
            if isinstance(child, dict):
                yield from _walk_components([child])


def _validate_modal_payload(data: dict[str, Any]) -> None:
    """A modal response (callback type 9), checked as Discord checks it: a title of 1-45 characters, a custom_id of
    1-100, 1-5 action rows of one text input each (or labels holding one); a text input's custom_id 1-100, label
    1-45, style 1 (short) or 2 (paragraph), min_length 0-4000, max_length 1-4000, value at most max_length and 4000,
    placeholder at most 100 (https://discord.com/developers/docs/components/reference#text-input)."""
    errors: dict[str, Any] = {}
    title = data.get("title")
    if not isinstance(title, str) or not 1 <= len(title) <= 45:
        _form_error(errors, ["data", "title"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 45 in length.")
    custom_id = data.get("custom_id")
    if not isinstance(custom_id, str) or not 1 <= len(custom_id) <= 100:
        _form_error(errors, ["data", "custom_id"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
    rows = data.get("components")
    if not isinstance(rows, list) or not 1 <= len(rows) <= 5:
        _form_error(errors, ["data", "components"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length.")
        rows = []
    ids: set[str] = set()
    for i, row in enumerate(rows):
        inner = (
            row.get("components") if row.get("type") == 1 else [row.get("component")] if row.get("type") == 18 else None
        )
        if not isinstance(inner, list) or len(inner) != 1 or not isinstance(inner[0], dict):
            _form_error(errors, ["data", "components", i], "COMPONENT_LAYOUT_WIDTH_EXCEEDED", "One input per row.")
            continue
        text_input, path = inner[0], ["data", "components", i, "components", 0]
        if text_input.get("type") != 4:
            _form_error(errors, path, "COMPONENT_TYPE_INVALID", "A modal holds text inputs.")
            continue
        input_id = text_input.get("custom_id")
        if not isinstance(input_id, str) or not 1 <= len(input_id) <= 100 or input_id in ids:
            _form_error(errors, [*path, "custom_id"], "COMPONENT_CUSTOM_ID_INVALID", "1-100 characters, unique.")
        else:
            ids.add(input_id)
        label = text_input.get("label", row.get("label"))
        if not isinstance(label, str) or not 1 <= len(label) <= 45:
            _form_error(errors, [*path, "label"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 45 in length.")
        if row.get("type") == 1 and text_input.get("style") not in (1, 2):
            _form_error(errors, [*path, "style"], "BASE_TYPE_CHOICES", "Value must be one of (1, 2).")
        max_length = text_input.get("max_length", 4000)
        if not isinstance(max_length, int) or not 1 <= max_length <= 4000:
            _form_error(errors, [*path, "max_length"], "INT_TYPE_RANGE", "Must be between 1 and 4000.")
            max_length = 4000
        min_length = text_input.get("min_length", 0)
        if not isinstance(min_length, int) or not 0 <= min_length <= 4000:
            _form_error(errors, [*path, "min_length"], "INT_TYPE_RANGE", "Must be between 0 and 4000.")
        value = text_input.get("value")
        if value is not None and (not isinstance(value, str) or len(value) > max_length):
            _form_error(errors, [*path, "value"], "BASE_TYPE_MAX_LENGTH", f"Must be {max_length} or fewer in length.")
        placeholder = text_input.get("placeholder")
        if placeholder is not None and (not isinstance(placeholder, str) or len(placeholder) > 100):
            _form_error(errors, [*path, "placeholder"], "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
    if errors:
        raise FakeDiscordError.preset("invalid_form_body", errors)


def _validate_message_payload(payload: dict[str, Any], *, require_body: bool, has_files: bool) -> None:
    errors: dict[str, Any] = {}
    content = payload.get("content")
    embeds = payload.get("embeds") or []
    components = payload.get("components") or []
    flags = int(payload.get("flags") or 0)
    if content is not None and len(str(content)) > 2000:
        _form_error(errors, ["content"], "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length.")
    if len(embeds) > 10:
        _form_error(errors, ["embeds"], "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
    total_embed_chars = 0
    for i, embed in enumerate(embeds):
        limits = {"title": 256, "description": 4096}
        for key, limit in limits.items():
            value = embed.get(key) or ""
            total_embed_chars += len(value)
            if len(value) > limit:
                _form_error(errors, ["embeds", i, key], "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")
        fields = embed.get("fields") or []
        if len(fields) > 25:
            _form_error(errors, ["embeds", i, "fields"], "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        for j, fld in enumerate(fields):
            for key, limit in (("name", 256), ("value", 1024)):
                value = str(fld.get(key) or "")
                total_embed_chars += len(value)
                if not value:
                    _form_error(
                        errors,
                        ["embeds", i, "fields", j, key],
                        "BASE_TYPE_REQUIRED",
                        "This field is required",
                    )
                elif len(value) > limit:
                    _form_error(
                        errors,
                        ["embeds", i, "fields", j, key],
                        "BASE_TYPE_MAX_LENGTH",
                        f"Must be {limit} or fewer in length.",
                    )
        footer = (embed.get("footer") or {}).get("text") or ""
        author = (embed.get("author") or {}).get("name") or ""
        total_embed_chars += len(footer) + len(author)
        if len(footer) > 2048:
            _form_error(
                errors,
                ["embeds", i, "footer", "text"],
                "BASE_TYPE_MAX_LENGTH",
                "Must be 2048 or fewer in length.",
            )
        if len(author) > 256:
            _form_error(
                errors,
                ["embeds", i, "author", "name"],
                "BASE_TYPE_MAX_LENGTH",
                "Must be 256 or fewer in length.",
            )
    if total_embed_chars > 6000:
        _form_error(errors, ["embeds"], "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000")
    if not flags & FLAG_COMPONENTS_V2:
        if len(components) > 5:
            _form_error(errors, ["components"], "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
        for i, row in enumerate(components):
            if row.get("type") != 1:
                _form_error(errors, ["components", i], "UNION_TYPE_CHOICES", "Value of field must be an action row")
                continue
            children = row.get("components") or []
            if not children or len(children) > 5:
                _form_error(
                    errors,
                    ["components", i, "components"],
                    "BASE_TYPE_BAD_LENGTH",
                    "Must be between 1 and 5 in length.",
                )
    seen: set[str] = set()
    for comp in _walk_components(components):
        custom_id = comp.get("custom_id")
        if comp.get("type") == 2 and comp.get("style") != 5 and comp.get("style") != 6 and not custom_id:
            _form_error(errors, ["components"], "BUTTON_COMPONENT_CUSTOM_ID_REQUIRED", "A custom id is required")
        if custom_id is not None:
            if len(custom_id) > 100:
                _form_error(
                    errors,
                    ["components"],
                    "BASE_TYPE_MAX_LENGTH",
                    "custom_id must be 100 or fewer in length.",
                )
            if custom_id in seen:
                _form_error(
                    errors,
                    ["components"],
                    "COMPONENT_CUSTOM_ID_DUPLICATED",
                    "Component custom id cannot be duplicated",
                )
            seen.add(custom_id)
        label = comp.get("label")
        if comp.get("type") == 2 and label is not None and len(label) > 80:
            _form_error(errors, ["components"], "BASE_TYPE_MAX_LENGTH", "label must be 80 or fewer in length.")
        if comp.get("type") == 3 and len(comp.get("options") or []) > 25:
            _form_error(errors, ["components"], "BASE_TYPE_MAX_LENGTH", "options must be 25 or fewer in length.")
    if errors:
        raise FakeDiscordError.preset("invalid_form_body", errors)
    if require_body and not (
        content or embeds or components or has_files or payload.get("poll") or payload.get("sticker_ids")
    ):
        raise FakeDiscordError.preset("cannot_send_empty")


# --------------------------------------------------------------------------------------------
# The fake
# --------------------------------------------------------------------------------------------


@dataclass
class _Ctx:
    request: web.Request
    record: RecordedRequest
    params: dict[str, str]

    @property
    def body(self) -> Any:
        return self.record.json

    @property
    def query(self) -> dict[str, str]:
        return self.record.query


Handler = Callable[[_Ctx], Any]


class FakeDiscord:
    """Loopback fake of Discord's REST API (``/api/v10``) and gateway (``/gw``).

    Parameters are the initial world: one guild with a category and one text channel, an owner
    user and the bot user.  Add more with :meth:`add_guild`, :meth:`add_text_channel`,
    :meth:`add_user` and :meth:`add_role`.
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        token: str | None = None,
        bot_name: str = "QuizBot",
        bot_user_id: int | None = None,
        application_id: int | None = None,
        application_flags: int = 0,
        guild_id: int | None = None,
        guild_name: str = "Quiz Guild",
        channel_id: int | None = None,
        channel_name: str = "quiz",
        owner_id: int | None = None,
        owner_name: str = "owner",
        bot_permissions: int = BOT_PERMISSIONS,
        everyone_permissions: int = EVERYONE_PERMISSIONS,
        heartbeat_interval_ms: int = 41250,
        resume_mode: str = "invalidate",
        echo_message_events: bool = True,
        validate_payloads: bool = True,
        guard_network: bool = True,
    ) -> None:
        if not _is_loopback_host(host):
            raise ValueError("FakeDiscord only listens on loopback")
        if resume_mode not in ("invalidate", "accept"):
            raise ValueError("resume_mode must be 'invalidate' or 'accept'")
        self.host = host
        self._port = port
        self.token = token  # None: accept any token; else REST/gateway demand exactly this token
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.resume_mode = resume_mode
        self.echo_message_events = echo_message_events
        self.validate_payloads = validate_payloads
        self.guard_network = guard_network
        self.ack_heartbeats = True
        self.clock_skew = 0.0
        """Seconds the fake's clock is ahead of this host's (behind when negative): its `Date` headers say so."""
        self.nonce_window = 300.0
        """Seconds a message nonce sent with `enforce_nonce` is remembered (Discord: "the past few minutes")."""
        self._nonces: dict[tuple[str, str], tuple[str, float]] = {}  # (author, nonce) -> (message id, when)
        self.after_create: Callable[[dict[str, Any]], Awaitable[None]] | None = None
        """Awaited once a channel message is created and before Discord's answer goes out: a test holds the answer
        here (for instance, to kill the bot after Discord took its post and before it hears so)."""

        self._last_snowflake = 0
        self.bot_user_id = _sf(bot_user_id or self.next_id())
        self.application_id = _sf(application_id or self.next_id())
        self.application_flags = application_flags
        self.bot_user: dict[str, Any] = {
            "id": self.bot_user_id,
            "username": bot_name,
            "discriminator": "0",
            "global_name": None,
            "avatar": None,
            "bot": True,
            "flags": 0,
            "public_flags": 0,
            "verified": True,
            "mfa_enabled": False,
            "locale": "en-US",
            "email": None,
        }
        self.users: dict[str, dict[str, Any]] = {self.bot_user_id: self.bot_user}
        self.guilds: dict[str, dict[str, Any]] = {}
        self.channels: dict[str, dict[str, Any]] = {}
        self.messages: dict[str, dict[str, Any]] = {}
        self.deleted_messages: dict[str, dict[str, Any]] = {}
        self.attachments: dict[str, bytes] = {}
        self.attachment_downloads: list[str] = []  # the paths of attachments fetched from the CDN, in order
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[str, list[dict[str, Any]]] = {}
        self.interactions: dict[str, _InteractionState] = {}
        self._interaction_by_token: dict[str, str] = {}

        self.requests: list[RecordedRequest] = []
        self.unknown_requests: list[RecordedRequest] = []
        self.interaction_callbacks: list[InteractionCallback] = []
        self.connections: list[GatewayConnection] = []
        self.identifies: list[dict[str, Any]] = []
        self.resumes: list[dict[str, Any]] = []
        self.presence_updates: list[dict[str, Any]] = []
        self.member_requests: list[dict[str, Any]] = []
        self.gateway_errors: list[str] = []

        self._failures: list[_Failure] = []
        self._bucket_rules: list[_BucketRule] = []
        self._windows: dict[tuple[str, str], _Window] = {}
        self._global_limit: tuple[int, float] | None = None
        self._global_window = _Window()
        self._sessions: dict[str, GatewayConnection] = {}

        self._routes: list[tuple[str, re.Pattern[str], str, Handler]] = []
        self._register_routes()

        self._runner: web.AppRunner | None = None
        self._site: web.TCPSite | None = None
        self._exit_stack: contextlib.ExitStack | None = None
        self.network_guard: NetworkGuard | None = None

        owner = self.add_user(owner_name, user_id=owner_id, guild_id=None)
        self.owner_id = owner["id"]
        guild = self.add_guild(
            guild_id=guild_id,
            name=guild_name,
            channel_name=channel_name,
            channel_id=channel_id,
            owner_id=self.owner_id,
            bot_permissions=bot_permissions,
            everyone_permissions=everyone_permissions,
        )
        self.guild_id: str = guild["id"]
        self.channel_id: str = guild["_text_channel_id"]

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> FakeDiscord:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.on_response_prepare.append(self._stamp_date)
        app.router.add_route("GET", "/gw", self._gateway_handler)
        app.router.add_route("GET", "/gw/", self._gateway_handler)
        app.router.add_route("*", API_PREFIX + "/{tail:.*}", self._api_handler)
        app.router.add_route("GET", "/attachments/{tail:.*}", self._attachment_handler)
        app.router.add_route("*", "/{tail:.*}", self._fallback_handler)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        self._site = web.TCPSite(self._runner, self.host, self._port)
        await self._site.start()
        server = self._site._server
        assert server is not None
        sockets = getattr(server, "sockets", None) or []
        self._port = sockets[0].getsockname()[1]
        return self

    async def _stamp_date(self, _request: web.Request, response: web.StreamResponse) -> None:
        """Every response carries the fake's own time in `Date`, as Discord's do (skewed by `clock_skew`)."""
        response.headers["Date"] = formatdate(time.time() + self.clock_skew, usegmt=True)

    async def stop(self) -> None:
        for conn in list(self.connections):
            if not conn.ws.closed:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(conn.ws.close(code=1001, message=b"fake stopping"), 1.0)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
            self._site = None

    async def __aenter__(self) -> FakeDiscord:
        """Start the server, patch discord.py and (unless ``guard_network=False``) block
        non-loopback traffic until exit."""
        stack = contextlib.ExitStack()
        if self.guard_network:
            self.network_guard = stack.enter_context(loopback_only())
        try:
            await self.start()
            stack.enter_context(self.patch_discord())
        except BaseException:
            stack.close()
            raise
        self._exit_stack = stack
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        try:
            await self.stop()
        finally:
            if self._exit_stack is not None:
                self._exit_stack.close()
                self._exit_stack = None

    @property
    def port(self) -> int:
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self._port}"

    @property
    def api_base(self) -> str:
        return self.base_url + API_PREFIX

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.host}:{self._port}/gw"

    @property
    def cdn_base(self) -> str:
        return self.base_url + "/cdn"

    def patch_discord(self) -> contextlib.AbstractContextManager[None]:
        """Context manager pointing discord.py's Route.BASE / DEFAULT_GATEWAY / Asset.BASE here."""
        if not self._port:
            raise RuntimeError("start() the fake before patching discord.py")
        return patch_discord(self.api_base, self.gateway_url, self.cdn_base)

    @contextlib.asynccontextmanager
    async def run_client(
        self,
        client: Any,
        *,
        token: str | None = None,
        timeout: float = 10.0,
        guild_ready_timeout: float | None = 0.05,
        fast_identify: bool = True,
        wait_ready: bool = True,
    ) -> AsyncIterator[Any]:
        """Start ``client`` (``client.start(token)``) in a task, wait until it is ready, yield it,
        then close it.  Exceptions from the client task are re-raised.

        ``guild_ready_timeout`` overrides discord.py's (default 2 s) wait after the last
        GUILD_CREATE; ``fast_identify`` replaces ``before_identify_hook`` (which sleeps 5 s
        before every non-initial IDENTIFY) with a no-op on this instance.
        """
        if guild_ready_timeout is not None:
            client._connection.guild_ready_timeout = guild_ready_timeout
        if fast_identify:

            async def _no_identify_delay(shard_id: int | None, *, initial: bool = False) -> None:
                return None

            client.before_identify_hook = _no_identify_delay

        task = asyncio.create_task(client.start(token or self.token or "fake-bot-token"), name="fake-discord-client")
        body_failed = False
        try:
            if wait_ready:
                deadline = asyncio.get_running_loop().time() + timeout
                while not client.is_ready():
                    if task.done():
                        task.result()  # raises the client's exception
                        raise RuntimeError("discord client stopped before becoming ready")
                    if asyncio.get_running_loop().time() > deadline:
                        raise TimeoutError(
                            f"discord client not ready within {timeout}s; connections={self.connections}, "
                            f"unknown routes={[(r.method, r.path) for r in self.unknown_requests]}"
                        )
                    await asyncio.sleep(0.005)
            yield client
        except BaseException:
            body_failed = True
            raise
        finally:
            try:
                await asyncio.wait_for(client.close(), timeout)
            finally:
                if not task.done():
                    done, _ = await asyncio.wait({task}, timeout=timeout)
                    if not done:
                        task.cancel()
                        with contextlib.suppress(BaseException):
                            await task
                if task.done() and not task.cancelled() and not body_failed:
                    exc = task.exception()
                    if exc is not None:
                        raise exc

    # ------------------------------------------------------------------ ids & world building

    def next_id(self) -> str:
        """A fresh snowflake (string), strictly increasing."""
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        value = ms << 22
        if value <= self._last_snowflake:
            value = self._last_snowflake + 1
        self._last_snowflake = value
        return str(value)

    def add_user(
        self,
        name: str,
        *,
        user_id: int | str | None = None,
        bot: bool = False,
        global_name: str | None = None,
        guild_id: int | str | bool | None = True,
        roles: list[int | str] | None = None,
        nick: str | None = None,
    ) -> dict[str, Any]:
        """Create (or update) a user.  ``guild_id=True`` adds them to the default guild, a guild id
        adds them to that guild, None/False adds no membership."""
        uid = _sf(user_id) if user_id is not None else self.next_id()
        user = self.users.get(uid)
        if user is None:
            user = {
                "id": uid,
                "username": name,
                "discriminator": "0",
                "global_name": global_name,
                "avatar": None,
                "bot": bot,
                "public_flags": 0,
                "flags": 0,
            }
            self.users[uid] = user
        else:
            user["username"] = name
        if guild_id is True:
            guild_id = getattr(self, "guild_id", None)
        if guild_id:
            self.add_member(guild_id, uid, roles=roles, nick=nick)
        return user

    def add_member(
        self,
        guild_id: int | str,
        user_id: int | str,
        *,
        roles: list[int | str] | None = None,
        nick: str | None = None,
    ) -> dict[str, Any]:
        guild = self.guilds[_sf(guild_id)]
        uid = _sf(user_id)
        member: dict[str, Any] | None = guild["members"].get(uid)
        if member is None:
            member = {
                "user": self.users[uid],
                "roles": [],
                "nick": nick,
                "avatar": None,
                "banner": None,
                "joined_at": _now_iso(),
                "premium_since": None,
                "deaf": False,
                "mute": False,
                "flags": 0,
                "pending": False,
                "communication_disabled_until": None,
            }
            guild["members"][uid] = member
        if roles is not None:
            member["roles"] = [_sf(r) for r in roles]
        if nick is not None:
            member["nick"] = nick
        return member

    def add_role(
        self,
        name: str,
        *,
        guild_id: int | str | None = None,
        permissions: int = 0,
        role_id: int | str | None = None,
        managed: bool = False,
        tags: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        guild = self.guilds[_sf(guild_id or self.guild_id)]
        rid = _sf(role_id) if role_id is not None else self.next_id()
        role: dict[str, Any] = {
            "id": rid,
            "name": name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": len(guild["roles"]),
            "permissions": str(permissions),
            "managed": managed,
            "mentionable": False,
            "flags": 0,
        }
        if tags is not None:
            role["tags"] = tags
        guild["roles"].append(role)
        return role

    def add_guild(
        self,
        *,
        guild_id: int | str | None = None,
        name: str = "Guild",
        channel_name: str = "general",
        channel_id: int | str | None = None,
        owner_id: int | str | None = None,
        bot_permissions: int = BOT_PERMISSIONS,
        everyone_permissions: int = EVERYONE_PERMISSIONS,
    ) -> dict[str, Any]:
        """Add a guild (with @everyone, a managed bot role, a category and one text channel) that the
        bot is a member of.  It is sent in READY/GUILD_CREATE of the shard ``(id >> 22) % n``."""
        gid = _sf(guild_id) if guild_id is not None else self.next_id()
        owner = _sf(owner_id) if owner_id is not None else getattr(self, "owner_id", self.bot_user_id)
        guild: dict[str, Any] = {
            "id": gid,
            "name": name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": owner,
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "max_members": 500000,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": "en-US",
            "nsfw_level": 0,
            "nsfw": False,
            "premium_progress_bar_enabled": False,
            "joined_at": _now_iso(),
            "members": {},
            "_channel_ids": [],
        }
        self.guilds[gid] = guild
        self.add_role("@everyone", guild_id=gid, role_id=gid, permissions=everyone_permissions)
        bot_role = self.add_role(
            self.bot_user["username"],
            guild_id=gid,
            permissions=bot_permissions,
            managed=True,
            tags={"bot_id": self.bot_user_id},
        )
        guild["_bot_role_id"] = bot_role["id"]
        self.add_member(gid, self.bot_user_id, roles=[bot_role["id"]])
        if owner in self.users:
            self.add_member(gid, owner)
        category = self._add_channel(gid, {"type": 4, "name": "Text Channels"})
        text = self.add_text_channel(channel_name, guild_id=gid, channel_id=channel_id, parent_id=category["id"])
        guild["system_channel_id"] = text["id"]
        guild["_text_channel_id"] = text["id"]
        return guild

    def _add_channel(self, guild_id: str | None, data: dict[str, Any]) -> dict[str, Any]:
        cid = _sf(data.pop("id")) if data.get("id") is not None else self.next_id()
        data.pop("id", None)
        channel: dict[str, Any] = {"id": cid, "flags": 0, **data}
        if guild_id is not None:
            guild = self.guilds[guild_id]
            channel.setdefault("guild_id", guild_id)
            channel.setdefault("position", len(guild["_channel_ids"]))
            channel.setdefault("permission_overwrites", [])
            guild["_channel_ids"].append(cid)
        self.channels[cid] = channel
        return channel

    def add_text_channel(
        self,
        name: str,
        *,
        guild_id: int | str | None = None,
        channel_id: int | str | None = None,
        parent_id: int | str | None = None,
        topic: str | None = None,
    ) -> dict[str, Any]:
        gid = _sf(guild_id or self.guild_id)
        return self._add_channel(
            gid,
            {
                "id": channel_id,
                "type": 0,
                "name": name,
                "parent_id": _sf(parent_id) if parent_id else None,
                "topic": topic,
                "nsfw": False,
                "last_message_id": None,
                "rate_limit_per_user": 0,
                "default_auto_archive_duration": 1440,
                "last_pin_timestamp": None,
            },
        )

    async def remove_channel(self, channel_id: int | str, *, dispatch: bool = True) -> None:
        """Delete a channel (later REST calls to it get 404 Unknown Channel); dispatches
        CHANNEL_DELETE to the owning shard when ``dispatch``."""
        channel = self.channels.pop(_sf(channel_id))
        gid = channel.get("guild_id")
        if gid and gid in self.guilds:
            ids = self.guilds[gid]["_channel_ids"]
            if channel["id"] in ids:
                ids.remove(channel["id"])
        if dispatch and gid:
            await self._broadcast("CHANNEL_DELETE", self._public_channel(channel), gid, INTENT_GUILDS)

    def _dm_channel_for(self, user_id: str) -> dict[str, Any]:
        for channel in self.channels.values():
            if channel.get("type") == 1 and channel["recipients"][0]["id"] == user_id:
                return channel
        return self._add_channel(
            None, {"type": 1, "recipients": [self.users[user_id]], "last_message_id": None, "name": None}
        )

    # ------------------------------------------------------------------ payload views

    @staticmethod
    def _public_channel(channel: dict[str, Any]) -> dict[str, Any]:
        return {k: copy.deepcopy(v) for k, v in channel.items() if not k.startswith("_")}

    def _public_guild(self, guild: dict[str, Any]) -> dict[str, Any]:
        return {
            k: copy.deepcopy(v) for k, v in guild.items() if not k.startswith("_") and k not in ("members", "joined_at")
        }

    def shard_for_guild(self, guild_id: int | str, shard_count: int) -> int:
        return (int(guild_id) >> 22) % max(shard_count, 1)

    def guild_create_payload(self, guild_id: int | str, *, intents: int | None = None) -> dict[str, Any]:
        guild = self.guilds[_sf(guild_id)]
        payload = self._public_guild(guild)
        include_all = intents is None or bool(intents & INTENT_GUILD_MEMBERS)
        members = [copy.deepcopy(m) for uid, m in guild["members"].items() if include_all or uid == self.bot_user_id]
        channels = []
        threads = []
        for cid in guild["_channel_ids"]:
            channel = self._public_channel(self.channels[cid])
            channel.pop("guild_id", None)
            if channel.get("type") in (10, 11, 12):
                if not channel.get("thread_metadata", {}).get("archived"):
                    threads.append(self._public_channel(self.channels[cid]))
            else:
                channels.append(channel)
        payload.update(
            {
                "joined_at": guild["joined_at"],
                "large": False,
                "unavailable": False,
                "lazy": True,
                "member_count": len(guild["members"]),
                "members": members,
                "channels": channels,
                "threads": threads,
                "voice_states": [],
                "presences": [],
                "stage_instances": [],
                "guild_scheduled_events": [],
                "soundboard_sounds": [],
                "embedded_activities": [],
            }
        )
        return payload

    def member_permissions(self, guild_id: int | str, user_id: int | str) -> int:
        guild = self.guilds[_sf(guild_id)]
        uid = _sf(user_id)
        if guild["owner_id"] == uid:
            return ALL_PERMISSIONS
        member = guild["members"].get(uid, {"roles": []})
        perms = 0
        role_ids = {guild["id"], *member["roles"]}
        for role in guild["roles"]:
            if role["id"] in role_ids:
                perms |= int(role["permissions"])
        if perms & _P["administrator"]:
            return ALL_PERMISSIONS
        return perms

    def _member_payload(self, guild_id: str, user_id: str, *, with_permissions: bool = True) -> dict[str, Any]:
        guild = self.guilds[guild_id]
        member = guild["members"].get(user_id)
        if member is None:
            member = self.add_member(guild_id, user_id)
        payload: dict[str, Any] = copy.deepcopy(member)
        if with_permissions:
            payload["permissions"] = str(self.member_permissions(guild_id, user_id))
        return payload

    # ------------------------------------------------------------------ records & queries

    def requests_to(self, method: str | None, route: str | re.Pattern[str]) -> list[RecordedRequest]:
        """Recorded requests matching ``method`` (None/"*" = any) and ``route``: a template with
        ``{placeholders}`` (any name), a concrete path, or a compiled regex (searched)."""
        matcher = _Matcher(method, route)
        return [r for r in self.requests if matcher.matches(r.method, r.path)]

    def requests_matching(self, pattern: str, method: str | None = None) -> list[RecordedRequest]:
        """Recorded requests whose path matches the regex ``pattern`` (``re.search``)."""
        return self.requests_to(method, re.compile(pattern))

    def assert_no_unknown_routes(self) -> None:
        if self.unknown_requests:
            raise AssertionError(
                "requests to unknown routes: " + ", ".join(f"{r.method} {r.path}" for r in self.unknown_requests)
            )

    def clear_records(self) -> None:
        """Forget recorded requests/callbacks (world state such as messages is kept)."""
        self.requests.clear()
        self.unknown_requests.clear()
        self.interaction_callbacks.clear()

    def channel_messages(self, channel_id: int | str | None = None) -> list[dict[str, Any]]:
        """Live (not deleted) messages of a channel, oldest first (ephemeral ones included)."""
        cid = _sf(channel_id or self.channel_id)
        return [m for m in self.messages.values() if m["channel_id"] == cid]

    def last_message(self, channel_id: int | str | None = None) -> dict[str, Any] | None:
        msgs = self.channel_messages(channel_id)
        return msgs[-1] if msgs else None

    def get_message(self, message_id: int | str) -> dict[str, Any] | None:
        return self.messages.get(_sf(message_id))

    def original_response(self, interaction_id: int | str) -> dict[str, Any] | None:
        state = self.interactions.get(_sf(interaction_id))
        if state is None or state.original_message_id is None:
            return None
        return self.messages.get(state.original_message_id) or self.deleted_messages.get(state.original_message_id)

    def followups(self, interaction_id: int | str) -> list[dict[str, Any]]:
        state = self.interactions.get(_sf(interaction_id))
        if state is None:
            return []
        return [self.messages.get(i) or self.deleted_messages[i] for i in state.followup_ids]

    def callbacks_for(self, interaction_id: int | str) -> list[InteractionCallback]:
        iid = _sf(interaction_id)
        return [c for c in self.interaction_callbacks if c.interaction_id == iid]

    def expire_interaction(self, interaction_id: int | str) -> None:
        """Make the interaction's token invalid (callback -> 10062, webhook calls -> 10015)."""
        self.interactions[_sf(interaction_id)].expired = True

    async def wait_for(
        self, predicate: Callable[[], _T | None], *, timeout: float = WAIT, what: str = "condition"
    ) -> _T:
        """Poll ``predicate`` until it returns something truthy (which is returned)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if loop.time() > deadline:
                raise TimeoutError(f"timed out after {timeout}s waiting for {what}; {self._diagnostics()}")
            await asyncio.sleep(0.005)

    async def wait_for_request(
        self, method: str | None, route: str | re.Pattern[str], *, count: int = 1, timeout: float = WAIT
    ) -> RecordedRequest:
        """Wait until at least ``count`` matching requests were answered; returns the last one."""

        def check() -> RecordedRequest | None:
            found = [r for r in self.requests_to(method, route) if r.status is not None]
            return found[count - 1] if len(found) >= count else None

        return await self.wait_for(check, timeout=timeout, what=f"{count}x {method} {route}")

    async def wait_for_callback(self, interaction_id: int | str, *, timeout: float = WAIT) -> InteractionCallback:
        iid = _sf(interaction_id)

        def check() -> InteractionCallback | None:
            found = self.callbacks_for(iid)
            return found[0] if found else None

        return await self.wait_for(check, timeout=timeout, what=f"callback of interaction {iid}")

    def _diagnostics(self) -> str:
        last = [f"{r.method} {r.path} -> {r.status}" for r in self.requests[-8:]]
        unknown = [f"{r.method} {r.path}" for r in self.unknown_requests]
        return f"connections={self.connections}, unknown routes={unknown}, last requests={last}"

    # ------------------------------------------------------------------ failure injection & limits

    def fail_next(
        self,
        method: str | None,
        route: str | re.Pattern[str],
        error: str | None = None,
        *,
        status: int | None = None,
        code: int | None = None,
        message: str | None = None,
        retry_after: float = 0.5,
        is_global: bool = False,
        via: bool = True,
        times: int = 1,
        headers: dict[str, str] | None = None,
    ) -> _Failure:
        """Answer the next ``times`` matching requests with an error instead of handling them.

        ``error`` is a key of :data:`ERRORS` (e.g. ``"unknown_channel"`` -> 404/10003,
        ``"missing_access"`` -> 403/50001, ``"rate_limited"`` -> 429, ``"server_error"`` -> 500);
        or give ``status`` (+ ``code``/``message``) directly.  A 429 carries ``retry_after``,
        ``global`` and the rate-limit headers; ``via=False`` omits the ``Via`` header, which makes
        discord.py treat it as a Cloudflare ban (immediate HTTPException, no retry).
        """
        if error is not None:
            preset_status, preset_code, preset_message = ERRORS[error]
            status = status or preset_status
            code = preset_code if code is None else code
            message = message or preset_message
        if status is None:
            raise ValueError("give error= or status=")
        if status == 429:
            message = message or ERRORS["rate_limited"][2]
        failure = _Failure(
            matcher=_Matcher(method, route),
            status=status,
            code=code or 0,
            message=message or f"{status}",
            retry_after=retry_after,
            is_global=is_global,
            via=via,
            times=times,
            headers=dict(headers or {}),
        )
        self._failures.append(failure)
        return failure

    def set_rate_limit(
        self,
        method: str | None,
        route: str | re.Pattern[str],
        limit: int,
        per: float = 1.0,
        *,
        scope: str = "user",
    ) -> None:
        """Simulate a per-route bucket: ``limit`` requests per ``per`` seconds per major parameter
        (channel / guild / webhook+token).  Exceeding it answers 429 with ``retry_after``."""
        name = route.pattern if isinstance(route, re.Pattern) else _normalize_template(route)
        bucket = hashlib.sha1(f"{method} {name}".encode()).hexdigest()[:16]
        self._bucket_rules.append(_BucketRule(_Matcher(method, route), limit, per, scope, bucket))

    def set_global_rate_limit(self, limit: int | None, per: float = 1.0) -> None:
        """Simulate the global limit (all routes except interaction callbacks/followups)."""
        self._global_limit = None if limit is None else (limit, per)
        self._global_window = _Window()

    def clear_rate_limits(self) -> None:
        self._bucket_rules.clear()
        self._windows.clear()
        self._global_limit = None

    @property
    def rate_limited_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.status == 429]

    # ------------------------------------------------------------------ HTTP plumbing

    def _route(self, method: str, template: str) -> Callable[[Handler], Handler]:
        def deco(fn: Handler) -> Handler:
            self._routes.append((method, _template_regex(template), template, fn))
            return fn

        return deco

    @staticmethod
    def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
        # discord.py compares Content-Type with == 'application/json'; no charset allowed.
        merged = {"Content-Type": "application/json"}
        merged.update(headers or {})
        return web.Response(status=status, body=json.dumps(data).encode(), headers=merged)

    async def _parse_body(self, request: web.Request, record: RecordedRequest) -> None:
        ctype = request.headers.get("Content-Type", "")
        if ctype.startswith("multipart/"):
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                if not isinstance(part, BodyPartReader):  # nested multipart: not used by discord.py
                    continue
                data = await part.read(decode=False)
                name = part.name
                if name == "payload_json":
                    record.payload_json = json.loads(data.decode())
                    record.json = record.payload_json
                else:
                    record.files.append(
                        {
                            "name": name,
                            "filename": part.filename,
                            "content_type": part.headers.get("Content-Type"),
                            "data": bytes(data),
                        }
                    )
        elif request.can_read_body:
            raw = await request.read()
            if raw:
                try:
                    record.json = json.loads(raw)
                except ValueError:
                    record.json = raw.decode(errors="replace")

    def _exempt_from_global(self, path: str) -> bool:
        parts = [p for p in path.split("/") if p]
        if parts and parts[0] == "interactions":
            return True
        return len(parts) >= 3 and parts[0] == "webhooks" and parts[2] in self._interaction_by_token

    def _ratelimit(self, method: str, path: str, template: str | None) -> tuple[dict[str, str], web.Response | None]:
        """Returns (headers for a normal answer, or a 429 response)."""
        now = time.time()
        mono = time.monotonic()
        if self._global_limit is not None and not self._exempt_from_global(path):
            limit, per = self._global_limit
            window = self._global_window
            if mono >= window.reset_at:
                window.count, window.reset_at = 0, mono + per
            window.count += 1
            if window.count > limit:
                retry = max(window.reset_at - mono, 0.001)
                return {}, self._json(
                    {"message": ERRORS["rate_limited"][2], "retry_after": round(retry, 3), "global": True},
                    429,
                    {
                        "Retry-After": str(max(1, int(retry + 0.999))),
                        "X-RateLimit-Global": "true",
                        "X-RateLimit-Scope": "global",
                        "Via": "1.1 google",
                    },
                )
        for rule in self._bucket_rules:
            if not rule.matcher.matches(method, path):
                continue
            key = (rule.bucket, _major_parameter(path))
            window = self._windows.setdefault(key, _Window())
            if mono >= window.reset_at:
                window.count, window.reset_at = 0, mono + rule.per
            window.count += 1
            reset_after = max(window.reset_at - mono, 0.001)
            headers = {
                "X-RateLimit-Limit": str(rule.limit),
                "X-RateLimit-Remaining": str(max(rule.limit - window.count, 0)),
                "X-RateLimit-Reset": f"{now + reset_after:.3f}",
                "X-RateLimit-Reset-After": f"{reset_after:.3f}",
                "X-RateLimit-Bucket": rule.bucket,
            }
            if window.count > rule.limit:
                headers.update(
                    {
                        "Retry-After": str(max(1, int(reset_after + 0.999))),
                        "X-RateLimit-Scope": rule.scope,
                        "Via": "1.1 google",
                    }
                )
                body = {
                    "message": ERRORS["rate_limited"][2],
                    "retry_after": round(reset_after, 3),
                    "global": False,
                }
                return {}, self._json(body, 429, headers)
            return headers, None
        # Unlimited by default, but with the headers discord.py reads.
        name = _normalize_template(template) if template else path
        return {
            "X-RateLimit-Limit": "50",
            "X-RateLimit-Remaining": "49",
            "X-RateLimit-Reset": f"{now + 1.0:.3f}",
            "X-RateLimit-Reset-After": "1.000",
            "X-RateLimit-Bucket": hashlib.sha1(f"{method} {name}".encode()).hexdigest()[:16],
        }, None

    def _injected_failure(self, method: str, path: str) -> web.Response | None:
        for failure in self._failures:
            if failure.hits >= failure.times or not failure.matcher.matches(method, path):
                continue
            failure.hits += 1
            headers = dict(failure.headers)
            if failure.status == 429:
                body: dict[str, Any] = {
                    "message": failure.message,
                    "retry_after": failure.retry_after,
                    "global": failure.is_global,
                }
                headers.setdefault("Retry-After", str(max(1, int(failure.retry_after + 0.999))))
                headers.setdefault("X-RateLimit-Scope", "global" if failure.is_global else "user")
                if failure.is_global:
                    headers.setdefault("X-RateLimit-Global", "true")
                else:
                    headers.setdefault("X-RateLimit-Limit", "5")
                    headers.setdefault("X-RateLimit-Remaining", "0")
                    headers.setdefault("X-RateLimit-Reset-After", f"{failure.retry_after:.3f}")
                    headers.setdefault("X-RateLimit-Reset", f"{time.time() + failure.retry_after:.3f}")
                    headers.setdefault("X-RateLimit-Bucket", "injected" + hashlib.sha1(path.encode()).hexdigest()[:8])
                if failure.via:
                    headers.setdefault("Via", "1.1 google")
            else:
                body = {"message": failure.message, "code": failure.code}
            return self._json(body, failure.status, headers)
        self._failures = [f for f in self._failures if f.hits < f.times]
        return None

    def _check_auth(self, request: web.Request, path: str) -> bool:
        if self.token is None:
            return True
        parts = [p for p in path.split("/") if p]
        if parts and parts[0] == "interactions":
            return True
        if len(parts) >= 3 and parts[0] == "webhooks":
            return True
        return request.headers.get("Authorization") == f"Bot {self.token}"

    async def _api_handler(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        path = path.rstrip("/") if path != "/" else path
        record = RecordedRequest(
            method=request.method,
            path=path,
            query=dict(request.query),
            headers=dict(request.headers),
        )
        self.requests.append(record)
        try:
            await self._parse_body(request, record)
        except Exception as exc:
            return self._finish(record, self._json({"message": f"bad body: {exc}", "code": 50109}, 400))

        handler: Handler | None = None
        for method, regex, template, fn in self._routes:
            if method != request.method:
                continue
            match = regex.match(path)
            if match:
                handler = fn
                record.route = template
                record.params = match.groupdict()
                break

        if not self._check_auth(request, path):
            return self._finish(record, self._json({"message": "401: Unauthorized", "code": 0}, 401))

        injected = self._injected_failure(request.method, path)
        if injected is not None:
            record.injected = True
            return self._finish(record, injected)

        if handler is None:
            self.unknown_requests.append(record)
            return self._finish(record, self._json({"message": "Unknown route", "code": 0}, 404))

        rl_headers, limited = self._ratelimit(request.method, path, record.route)
        if limited is not None:
            record.rate_limited = True
            return self._finish(record, limited)

        try:
            result = await handler(_Ctx(request, record, record.params))
        except FakeDiscordError as err:
            return self._finish(record, self._json(err.body(), err.status, rl_headers))
        if isinstance(result, web.Response):
            result.headers.update(rl_headers)
            return self._finish(record, result)
        if result is None:
            return self._finish(record, web.Response(status=204, headers=rl_headers))
        return self._finish(record, self._json(result, 200, rl_headers))

    @staticmethod
    def _finish(record: RecordedRequest, response: web.Response) -> web.Response:
        record.status = response.status
        if response.body is not None and response.content_type == "application/json":
            try:
                record.response = json.loads(response.body)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                record.response = None
            if isinstance(record.response, dict) and response.status >= 400:
                record.error_code = record.response.get("code")
        return response

    async def _attachment_handler(self, request: web.Request) -> web.StreamResponse:
        parts = request.match_info["tail"].split("/")
        self.attachment_downloads.append(request.path)
        data = self.attachments.get(parts[1]) if len(parts) >= 2 else None
        if data is None:
            return self._json({"message": "Not Found", "code": 0}, 404)
        return web.Response(body=data, content_type="application/octet-stream")

    async def _fallback_handler(self, request: web.Request) -> web.StreamResponse:
        record = RecordedRequest(
            method=request.method, path=request.path, query=dict(request.query), headers=dict(request.headers)
        )
        self.requests.append(record)
        self.unknown_requests.append(record)
        return self._finish(record, self._json({"message": "Unknown route", "code": 0}, 404))

    # ------------------------------------------------------------------ REST handlers

    def _register_routes(self) -> None:
        r = self._route

        # --- auth / application / gateway
        @r("GET", "/users/@me")
        async def get_me(ctx: _Ctx) -> Any:
            return self.bot_user

        @r("GET", "/oauth2/applications/@me")
        @r("GET", "/applications/@me")
        async def get_app(ctx: _Ctx) -> Any:
            return self.application_info()

        @r("GET", "/gateway")
        async def get_gateway(ctx: _Ctx) -> Any:
            return {"url": self.gateway_url}

        @r("GET", "/gateway/bot")
        async def get_gateway_bot(ctx: _Ctx) -> Any:
            return {
                "url": self.gateway_url,
                "shards": 1,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            }

        # --- users
        @r("GET", "/users/@me/guilds")
        async def my_guilds(ctx: _Ctx) -> Any:
            return [
                {
                    "id": g["id"],
                    "name": g["name"],
                    "icon": None,
                    "owner": g["owner_id"] == self.bot_user_id,
                    "permissions": str(self.member_permissions(g["id"], self.bot_user_id)),
                    "features": [],
                }
                for g in self.guilds.values()
            ]

        @r("POST", "/users/@me/channels")
        async def create_dm(ctx: _Ctx) -> Any:
            uid = _sf((ctx.body or {}).get("recipient_id", 0))
            if uid not in self.users:
                raise FakeDiscordError.preset("unknown_user")
            return self._public_channel(self._dm_channel_for(uid))

        @r("GET", "/users/{user_id}")
        async def get_user(ctx: _Ctx) -> Any:
            user = self.users.get(ctx.params["user_id"])
            if user is None:
                raise FakeDiscordError.preset("unknown_user")
            return user

        # --- guilds
        @r("GET", "/guilds/{guild_id}")
        async def get_guild(ctx: _Ctx) -> Any:
            guild = self._guild(ctx.params["guild_id"])
            data = self._public_guild(guild)
            data["approximate_member_count"] = len(guild["members"])
            return data

        @r("GET", "/guilds/{guild_id}/channels")
        async def get_guild_channels(ctx: _Ctx) -> Any:
            guild = self._guild(ctx.params["guild_id"])
            return [
                self._public_channel(self.channels[c])
                for c in guild["_channel_ids"]
                if self.channels[c]["type"] not in (10, 11, 12)
            ]

        @r("GET", "/guilds/{guild_id}/roles")
        async def get_roles(ctx: _Ctx) -> Any:
            return copy.deepcopy(self._guild(ctx.params["guild_id"])["roles"])

        @r("GET", "/guilds/{guild_id}/members/{user_id}")
        async def get_member(ctx: _Ctx) -> Any:
            guild = self._guild(ctx.params["guild_id"])
            member = guild["members"].get(ctx.params["user_id"])
            if member is None:
                raise FakeDiscordError.preset("unknown_member")
            return copy.deepcopy(member)

        @r("GET", "/guilds/{guild_id}/members")
        async def list_members(ctx: _Ctx) -> Any:
            guild = self._guild(ctx.params["guild_id"])
            limit = int(ctx.query.get("limit", 1))
            after = int(ctx.query.get("after", 0))
            members = sorted(guild["members"].values(), key=lambda m: int(m["user"]["id"]))
            return [copy.deepcopy(m) for m in members if int(m["user"]["id"]) > after][:limit]

        # --- channels
        @r("GET", "/channels/{channel_id}")
        async def get_channel(ctx: _Ctx) -> Any:
            return self._public_channel(self._channel(ctx.params["channel_id"]))

        @r("PATCH", "/channels/{channel_id}")
        async def edit_channel(ctx: _Ctx) -> Any:
            channel = self._channel(ctx.params["channel_id"])
            body = dict(ctx.body or {})
            meta_keys = ("archived", "locked", "auto_archive_duration", "invitable")
            if "thread_metadata" in channel:
                for key in meta_keys:
                    if key in body:
                        channel["thread_metadata"][key] = body.pop(key)
            channel.update({k: v for k, v in body.items() if k not in meta_keys})
            data = self._public_channel(channel)
            if channel.get("guild_id"):
                event = "THREAD_UPDATE" if "thread_metadata" in channel else "CHANNEL_UPDATE"
                await self._broadcast(event, data, channel["guild_id"], INTENT_GUILDS)
            return data

        @r("DELETE", "/channels/{channel_id}")
        async def delete_channel(ctx: _Ctx) -> Any:
            channel = self._channel(ctx.params["channel_id"])
            data = self._public_channel(channel)
            await self.remove_channel(channel["id"])
            return data

        @r("POST", "/channels/{channel_id}/typing")
        async def typing(ctx: _Ctx) -> Any:
            self._channel(ctx.params["channel_id"])

        @r("GET", "/channels/{channel_id}/messages")
        async def history(ctx: _Ctx) -> Any:
            channel = self._channel(ctx.params["channel_id"])
            msgs = [m for m in self.channel_messages(channel["id"]) if not m["flags"] & FLAG_EPHEMERAL]
            limit = int(ctx.query.get("limit", 50))
            if "before" in ctx.query:
                msgs = [m for m in msgs if int(m["id"]) < int(ctx.query["before"])]
            if "after" in ctx.query:
                msgs = [m for m in msgs if int(m["id"]) > int(ctx.query["after"])]
                return [self._message_view(m) for m in reversed(msgs[:limit])]
            if "around" in ctx.query:
                around = int(ctx.query["around"])
                older = [m for m in msgs if int(m["id"]) <= around][-((limit + 1) // 2) :]
                newer = [m for m in msgs if int(m["id"]) > around][: limit // 2]
                msgs = older + newer
            return [self._message_view(m) for m in reversed(msgs[-limit:])]

        @r("POST", "/channels/{channel_id}/messages")
        async def create_message(ctx: _Ctx) -> Any:
            channel = self._channel(ctx.params["channel_id"])
            body = dict(ctx.body or {})
            if self.validate_payloads:
                _validate_message_payload(body, require_body=True, has_files=bool(ctx.record.files))
            reference = body.get("message_reference")
            earlier = self._enforced_nonce(body)
            if earlier is not None:  # Discord answers a repeat with the first message, and creates none
                return self._message_view(earlier)
            msg = self._new_message(channel["id"], body, files=ctx.record.files, msg_type=19 if reference else 0)
            if body.get("nonce") is not None and body.get("enforce_nonce"):
                self._nonces[(msg["author"]["id"], str(body["nonce"]))] = (msg["id"], time.monotonic())
            await self._echo_create(msg)
            if self.after_create is not None:
                await self.after_create(msg)
            return self._message_view(msg)

        @r("POST", "/channels/{channel_id}/messages/bulk-delete")
        async def bulk_delete(ctx: _Ctx) -> Any:
            channel = self._channel(ctx.params["channel_id"])
            ids = [_sf(i) for i in (ctx.body or {}).get("messages", [])]
            for mid in ids:
                msg = self.messages.pop(mid, None)
                if msg is not None:
                    self.deleted_messages[mid] = msg
            if channel.get("guild_id"):
                await self._broadcast(
                    "MESSAGE_DELETE_BULK",
                    {"ids": ids, "channel_id": channel["id"], "guild_id": channel["guild_id"]},
                    channel["guild_id"],
                    INTENT_GUILD_MESSAGES,
                )

        @r("GET", "/channels/{channel_id}/messages/pins")
        async def get_pins(ctx: _Ctx) -> Any:
            channel = self._channel(ctx.params["channel_id"])
            pinned = [m for m in self.channel_messages(channel["id"]) if m.get("pinned")]
            return {
                "items": [{"pinned_at": m.get("_pinned_at"), "message": self._message_view(m)} for m in pinned],
                "has_more": False,
            }

        @r("PUT", "/channels/{channel_id}/messages/pins/{message_id}")
        @r("PUT", "/channels/{channel_id}/pins/{message_id}")
        async def pin(ctx: _Ctx) -> Any:
            msg = self._message(ctx.params["channel_id"], ctx.params["message_id"])
            msg["pinned"] = True
            msg["_pinned_at"] = _now_iso()

        @r("DELETE", "/channels/{channel_id}/messages/pins/{message_id}")
        @r("DELETE", "/channels/{channel_id}/pins/{message_id}")
        async def unpin(ctx: _Ctx) -> Any:
            msg = self._message(ctx.params["channel_id"], ctx.params["message_id"])
            msg["pinned"] = False

        @r("GET", "/channels/{channel_id}/messages/{message_id}")
        async def get_message(ctx: _Ctx) -> Any:
            msg = self._message(ctx.params["channel_id"], ctx.params["message_id"])
            if msg["flags"] & FLAG_EPHEMERAL:
                raise FakeDiscordError.preset("unknown_message")
            return self._message_view(msg)

        @r("PATCH", "/channels/{channel_id}/messages/{message_id}")
        async def edit_message(ctx: _Ctx) -> Any:
            msg = self._message(ctx.params["channel_id"], ctx.params["message_id"])
            if msg["author"]["id"] != self.bot_user_id and set(ctx.body or {}) - {"flags"}:
                raise FakeDiscordError.preset("cannot_edit_other")
            body = dict(ctx.body or {})
            self._validate_edit(msg, body)
            self._apply_edit(msg, body, ctx.record.files)
            await self._echo_update(msg)
            return self._message_view(msg)

        @r("DELETE", "/channels/{channel_id}/messages/{message_id}")
        async def delete_message(ctx: _Ctx) -> Any:
            msg = self._message(ctx.params["channel_id"], ctx.params["message_id"])
            await self._delete_message(msg)

        @r("PUT", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me")
        async def add_reaction(ctx: _Ctx) -> Any:
            msg = self._message(ctx.params["channel_id"], ctx.params["message_id"])
            self._react(msg, ctx.params["emoji"], self.bot_user_id, add=True)

        @r("DELETE", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me")
        async def remove_own_reaction(ctx: _Ctx) -> Any:
            msg = self._message(ctx.params["channel_id"], ctx.params["message_id"])
            self._react(msg, ctx.params["emoji"], self.bot_user_id, add=False)

        @r("DELETE", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/{user_id}")
        async def remove_reaction(ctx: _Ctx) -> Any:
            msg = self._message(ctx.params["channel_id"], ctx.params["message_id"])
            self._react(msg, ctx.params["emoji"], ctx.params["user_id"], add=False)

        @r("GET", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}")
        async def get_reaction_users(ctx: _Ctx) -> Any:
            msg = self._message(ctx.params["channel_id"], ctx.params["message_id"])
            users = msg.setdefault("_reactors", {}).get(ctx.params["emoji"], [])
            return [self.users[u] for u in users if u in self.users]

        @r("DELETE", "/channels/{channel_id}/messages/{message_id}/reactions")
        async def clear_reactions(ctx: _Ctx) -> Any:
            msg = self._message(ctx.params["channel_id"], ctx.params["message_id"])
            msg["reactions"] = []
            msg["_reactors"] = {}

        @r("POST", "/channels/{channel_id}/messages/{message_id}/threads")
        async def thread_from_message(ctx: _Ctx) -> Any:
            msg = self._message(ctx.params["channel_id"], ctx.params["message_id"])
            thread = self._new_thread(self._channel(ctx.params["channel_id"]), ctx.body or {}, 11, thread_id=msg["id"])
            msg["thread"] = self._public_channel(thread)
            await self._broadcast(
                "THREAD_CREATE",
                {**self._public_channel(thread), "newly_created": True},
                thread["guild_id"],
                INTENT_GUILDS,
            )
            return self._public_channel(thread)

        @r("POST", "/channels/{channel_id}/threads")
        async def thread_without_message(ctx: _Ctx) -> Any:
            channel = self._channel(ctx.params["channel_id"])
            body = dict(ctx.body or {})
            thread = self._new_thread(channel, body, int(body.get("type") or 11))
            if body.get("message"):  # forum post
                self._new_message(thread["id"], body["message"], files=ctx.record.files)
            await self._broadcast(
                "THREAD_CREATE",
                {**self._public_channel(thread), "newly_created": True},
                thread["guild_id"],
                INTENT_GUILDS,
            )
            return self._public_channel(thread)

        @r("PUT", "/channels/{channel_id}/thread-members/{user_id}")
        @r("DELETE", "/channels/{channel_id}/thread-members/{user_id}")
        async def thread_members(ctx: _Ctx) -> Any:
            self._channel(ctx.params["channel_id"])

        # --- interactions
        @r("POST", "/interactions/{interaction_id}/{token}/callback")
        async def callback(ctx: _Ctx) -> Any:
            return await self._interaction_callback(ctx)

        @r("POST", "/webhooks/{application_id}/{token}")
        async def execute_webhook(ctx: _Ctx) -> Any:
            state = self._webhook_interaction(ctx)
            body = dict(ctx.body or {})
            if self.validate_payloads:
                _validate_message_payload(body, require_body=True, has_files=bool(ctx.record.files))
            channel_id = state.payload["channel_id"]
            msg = self._new_message(
                channel_id,
                body,
                files=ctx.record.files,
                webhook_id=self.application_id,
                interaction=state.payload,
            )
            state.followup_ids.append(msg["id"])
            await self._echo_create(msg)
            if ctx.query.get("wait") in ("1", "true", "True"):
                return self._message_view(msg)
            return None

        @r("GET", "/webhooks/{application_id}/{token}/messages/{message_id}")
        async def get_webhook_message(ctx: _Ctx) -> Any:
            return self._message_view(self._webhook_message(ctx))

        @r("PATCH", "/webhooks/{application_id}/{token}/messages/{message_id}")
        async def edit_webhook_message(ctx: _Ctx) -> Any:
            msg = self._webhook_message(ctx)
            body = dict(ctx.body or {})
            self._validate_edit(msg, body)
            self._apply_edit(msg, body, ctx.record.files)
            msg["flags"] &= ~FLAG_LOADING
            await self._echo_update(msg)
            return self._message_view(msg)

        @r("DELETE", "/webhooks/{application_id}/{token}/messages/{message_id}")
        async def delete_webhook_message(ctx: _Ctx) -> Any:
            await self._delete_message(self._webhook_message(ctx))

        # --- application commands
        @r("GET", "/applications/{application_id}/commands")
        async def get_global_commands(ctx: _Ctx) -> Any:
            self._check_app(ctx)
            return copy.deepcopy(self.global_commands)

        @r("PUT", "/applications/{application_id}/commands")
        async def put_global_commands(ctx: _Ctx) -> Any:
            self._check_app(ctx)
            self.global_commands = self._store_commands(self.global_commands, ctx.body or [], None)
            return copy.deepcopy(self.global_commands)

        @r("POST", "/applications/{application_id}/commands")
        async def upsert_global_command(ctx: _Ctx) -> Any:
            self._check_app(ctx)
            return self._upsert_command(self.global_commands, ctx.body or {}, None)

        @r("GET", "/applications/{application_id}/commands/{command_id}")
        async def get_global_command(ctx: _Ctx) -> Any:
            self._check_app(ctx)
            return copy.deepcopy(self._find_command(self.global_commands, ctx.params["command_id"]))

        @r("PATCH", "/applications/{application_id}/commands/{command_id}")
        async def edit_global_command(ctx: _Ctx) -> Any:
            self._check_app(ctx)
            cmd = self._find_command(self.global_commands, ctx.params["command_id"])
            cmd.update(ctx.body or {})
            cmd["version"] = self.next_id()
            return copy.deepcopy(cmd)

        @r("DELETE", "/applications/{application_id}/commands/{command_id}")
        async def delete_global_command(ctx: _Ctx) -> Any:
            self._check_app(ctx)
            cmd = self._find_command(self.global_commands, ctx.params["command_id"])
            self.global_commands.remove(cmd)

        @r("GET", "/applications/{application_id}/guilds/{guild_id}/commands/permissions")
        async def get_command_permissions(ctx: _Ctx) -> Any:
            self._check_app(ctx)
            return []

        @r("GET", "/applications/{application_id}/guilds/{guild_id}/commands")
        async def get_guild_commands(ctx: _Ctx) -> Any:
            self._check_app(ctx)
            return copy.deepcopy(self.guild_commands.get(ctx.params["guild_id"], []))

        @r("PUT", "/applications/{application_id}/guilds/{guild_id}/commands")
        async def put_guild_commands(ctx: _Ctx) -> Any:
            self._check_app(ctx)
            gid = ctx.params["guild_id"]
            self._guild(gid)
            self.guild_commands[gid] = self._store_commands(self.guild_commands.get(gid, []), ctx.body or [], gid)
            return copy.deepcopy(self.guild_commands[gid])

        @r("POST", "/applications/{application_id}/guilds/{guild_id}/commands")
        async def upsert_guild_command(ctx: _Ctx) -> Any:
            self._check_app(ctx)
            gid = ctx.params["guild_id"]
            self._guild(gid)
            return self._upsert_command(self.guild_commands.setdefault(gid, []), ctx.body or {}, gid)

        @r("GET", "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}")
        async def get_guild_command(ctx: _Ctx) -> Any:
            self._check_app(ctx)
            cmds = self.guild_commands.get(ctx.params["guild_id"], [])
            return copy.deepcopy(self._find_command(cmds, ctx.params["command_id"]))

        @r("DELETE", "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}")
        async def delete_guild_command(ctx: _Ctx) -> Any:
            self._check_app(ctx)
            cmds = self.guild_commands.get(ctx.params["guild_id"], [])
            cmds.remove(self._find_command(cmds, ctx.params["command_id"]))

    def application_info(self) -> dict[str, Any]:
        owner = self.users.get(self.owner_id, self.bot_user)
        return {
            "id": self.application_id,
            "name": self.bot_user["username"],
            "description": "Fake application",
            "icon": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": owner,
            "team": None,
            "verify_key": "0" * 64,
            "flags": self.application_flags,
            "summary": "",
            "rpc_origins": [],
            "tags": [],
            "interactions_endpoint_url": None,
            "bot": self.bot_user,
        }

    # --- state lookups raising Discord-shaped errors

    def _guild(self, guild_id: str) -> dict[str, Any]:
        guild = self.guilds.get(guild_id)
        if guild is None:
            raise FakeDiscordError.preset("unknown_guild")
        return guild

    def _channel(self, channel_id: str) -> dict[str, Any]:
        channel = self.channels.get(channel_id)
        if channel is None:
            raise FakeDiscordError.preset("unknown_channel")
        return channel

    def _message(self, channel_id: str, message_id: str) -> dict[str, Any]:
        self._channel(channel_id)
        msg = self.messages.get(message_id)
        if msg is None or msg["channel_id"] != channel_id:
            raise FakeDiscordError.preset("unknown_message")
        return msg

    def _check_app(self, ctx: _Ctx) -> None:
        if ctx.params["application_id"] != self.application_id:
            raise FakeDiscordError.preset("unknown_application")

    # --- messages

    def _message_view(self, msg: dict[str, Any]) -> dict[str, Any]:
        """The message as Discord returns it (private fake-only keys stripped)."""
        return {k: copy.deepcopy(v) for k, v in msg.items() if not k.startswith("_")}

    def _store_files(
        self, channel_id: str, payload: dict[str, Any], files: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        described = {str(a.get("id")): a for a in payload.get("attachments") or [] if isinstance(a, dict)}
        out = []
        for index, f in enumerate(files):
            aid = self.next_id()
            self.attachments[aid] = f["data"]
            meta = described.get(str(index), {})
            filename = meta.get("filename") or f.get("filename") or f"file{index}"
            url = f"{self.base_url}/attachments/{channel_id}/{aid}/{filename}"
            out.append(
                {
                    "id": aid,
                    "filename": filename,
                    "description": meta.get("description"),
                    "content_type": f.get("content_type"),
                    "size": len(f["data"]),
                    "url": url,
                    "proxy_url": url,
                    "spoiler": filename.startswith("SPOILER_"),
                }
            )
        return out

    def forget_nonces(self) -> None:
        """Forget the nonces of messages created so far, as Discord does a few minutes on."""
        self._nonces.clear()

    def _enforced_nonce(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """The message the bot created with this nonce in the last `nonce_window` seconds, when `enforce_nonce` asks
        Discord to check ("If another message was created by the same author with the same nonce, that message will
        be returned and no new message will be created")."""
        if body.get("nonce") is None or not body.get("enforce_nonce"):
            return None
        found = self._nonces.get((self.bot_user_id, str(body["nonce"])))
        if found is None or time.monotonic() - found[1] > self.nonce_window:
            return None
        return self.messages.get(found[0])

    def _mentions(self, content: str) -> tuple[list[dict[str, Any]], list[str], bool]:
        users = [self.users[u] for u in re.findall(r"<@!?(\d+)>", content) if u in self.users]
        roles = re.findall(r"<@&(\d+)>", content)
        return users, roles, "@everyone" in content or "@here" in content

    def _new_message(
        self,
        channel_id: str,
        payload: dict[str, Any],
        *,
        files: list[dict[str, Any]] | None = None,
        author: dict[str, Any] | None = None,
        webhook_id: str | None = None,
        interaction: dict[str, Any] | None = None,
        msg_type: int = 0,
        extra_flags: int = 0,
    ) -> dict[str, Any]:
        content = str(payload.get("content") or "")
        users, roles, everyone = self._mentions(content)
        mid = self.next_id()
        msg: dict[str, Any] = {
            "id": mid,
            "channel_id": channel_id,
            "type": msg_type,
            "content": content,
            "author": copy.deepcopy(author or self.bot_user),
            "embeds": copy.deepcopy(payload.get("embeds") or []),
            "components": copy.deepcopy(payload.get("components") or []),
            "attachments": self._store_files(channel_id, payload, files or []),
            "mentions": users,
            "mention_roles": roles,
            "mention_everyone": everyone,
            "pinned": False,
            "tts": bool(payload.get("tts")),
            "timestamp": _now_iso(),
            "edited_timestamp": None,
            "flags": int(payload.get("flags") or 0) | extra_flags,
            "reactions": [],
            # Not part of Discord's message object; kept so tests can assert what was asked for.
            "allowed_mentions": copy.deepcopy(payload.get("allowed_mentions")),
        }
        if payload.get("nonce") is not None:
            msg["nonce"] = payload["nonce"]
        if payload.get("poll"):
            msg["poll"] = copy.deepcopy(payload["poll"])
        reference = payload.get("message_reference")
        if reference:
            msg["message_reference"] = copy.deepcopy(reference)
            ref = self.messages.get(_sf(reference.get("message_id", 0)))
            if ref is not None:
                msg["referenced_message"] = self._message_view(ref)
        if webhook_id is not None:
            msg["webhook_id"] = webhook_id
            msg["application_id"] = self.application_id
        if interaction is not None:
            user = interaction.get("member", {}).get("user") or interaction.get("user")
            metadata: dict[str, Any] = {
                "id": interaction["id"],
                "type": interaction["type"],
                "user": user,
                "authorizing_integration_owners": interaction.get("authorizing_integration_owners", {}),
            }
            if interaction["type"] == 3 and interaction.get("message"):
                metadata["interacted_message_id"] = interaction["message"]["id"]
            msg["interaction_metadata"] = metadata
        channel = self.channels.get(channel_id)
        if channel is not None:
            channel["last_message_id"] = mid
            if channel.get("guild_id"):
                msg["guild_id"] = channel["guild_id"]
            if "message_count" in channel:
                channel["message_count"] += 1
                channel["total_message_sent"] = channel.get("total_message_sent", 0) + 1
        self.messages[mid] = msg
        return msg

    def _validate_edit(self, msg: dict[str, Any], body: dict[str, Any]) -> None:
        if not self.validate_payloads:
            return
        merged = {k: body.get(k, msg.get(k)) for k in ("content", "embeds", "components")}
        merged["flags"] = msg["flags"]
        _validate_message_payload(merged, require_body=False, has_files=False)

    def _apply_edit(self, msg: dict[str, Any], body: dict[str, Any], files: list[dict[str, Any]]) -> None:
        for key in ("content", "embeds", "components", "allowed_mentions", "poll"):
            if key in body:
                value = body[key]
                if key == "content":
                    value = value or ""
                elif key in ("embeds", "components"):
                    value = value or []
                msg[key] = copy.deepcopy(value)
        if "content" in body:
            msg["mentions"], msg["mention_roles"], msg["mention_everyone"] = self._mentions(msg["content"])
        if "flags" in body and body["flags"] is not None:
            keep = msg["flags"] & (FLAG_EPHEMERAL | FLAG_LOADING)
            msg["flags"] = int(body["flags"]) | keep
        if "attachments" in body:
            kept_ids = {_sf(a["id"]) for a in body["attachments"] or [] if str(a.get("id", "")).isdigit()}
            kept = [a for a in msg["attachments"] if a["id"] in kept_ids]
            msg["attachments"] = kept + self._store_files(msg["channel_id"], body, files)
        elif files:
            msg["attachments"] = msg["attachments"] + self._store_files(msg["channel_id"], body, files)
        msg["edited_timestamp"] = _now_iso()

    async def _delete_message(self, msg: dict[str, Any]) -> None:
        self.messages.pop(msg["id"], None)
        self.deleted_messages[msg["id"]] = msg
        if msg.get("guild_id") and not msg["flags"] & FLAG_EPHEMERAL:
            await self._broadcast(
                "MESSAGE_DELETE",
                {"id": msg["id"], "channel_id": msg["channel_id"], "guild_id": msg["guild_id"]},
                msg["guild_id"],
                INTENT_GUILD_MESSAGES,
            )

    def _react(self, msg: dict[str, Any], emoji: str, user_id: str, *, add: bool) -> None:
        reactors: dict[str, list[str]] = msg.setdefault("_reactors", {})
        users = reactors.setdefault(emoji, [])
        if add and user_id not in users:
            users.append(user_id)
        elif not add and user_id in users:
            users.remove(user_id)
        reactions = []
        for key, who in reactors.items():
            if not who:
                continue
            name, _, eid = key.partition(":")
            reactions.append(
                {
                    "count": len(who),
                    "count_details": {"burst": 0, "normal": len(who)},
                    "me": self.bot_user_id in who,
                    "me_burst": False,
                    "burst_colors": [],
                    "emoji": {"id": eid or None, "name": name},
                }
            )
        msg["reactions"] = reactions

    def _new_thread(
        self, parent: dict[str, Any], body: dict[str, Any], thread_type: int, *, thread_id: str | None = None
    ) -> dict[str, Any]:
        gid = parent.get("guild_id")
        if gid is None:
            raise FakeDiscordError(400, 50024, "Cannot execute action on this channel type")
        thread = self._add_channel(
            gid,
            {
                "id": thread_id,
                "type": thread_type,
                "name": body.get("name", "thread"),
                "parent_id": parent["id"],
                "owner_id": self.bot_user_id,
                "last_message_id": None,
                "rate_limit_per_user": body.get("rate_limit_per_user") or 0,
                "message_count": 0,
                "member_count": 1,
                "total_message_sent": 0,
                "thread_metadata": {
                    "archived": False,
                    "auto_archive_duration": body.get("auto_archive_duration") or 1440,
                    "archive_timestamp": _now_iso(),
                    "locked": False,
                    "invitable": body.get("invitable", True),
                    "create_timestamp": _now_iso(),
                },
                "member": {"user_id": self.bot_user_id, "join_timestamp": _now_iso(), "flags": 0},
            },
        )
        thread["member"]["id"] = thread["id"]
        return thread

    # --- commands

    def _normalize_command(self, body: dict[str, Any], guild_id: str | None, existing: dict[str, Any] | None) -> Any:
        cmd = copy.deepcopy(body)
        cmd.setdefault("type", 1)
        cmd.setdefault("description", "")
        cmd.setdefault("options", [])
        cmd.setdefault("default_member_permissions", None)
        cmd.setdefault("nsfw", False)
        cmd["id"] = existing["id"] if existing else self.next_id()
        cmd["application_id"] = self.application_id
        cmd["version"] = self.next_id()
        if guild_id is not None:
            cmd["guild_id"] = guild_id
        else:
            cmd.pop("guild_id", None)
        return cmd

    def _store_commands(
        self, current: list[dict[str, Any]], body: list[dict[str, Any]], guild_id: str | None
    ) -> list[dict[str, Any]]:
        by_key = {(c["name"], c.get("type", 1)): c for c in current}
        errors: dict[str, Any] = {}
        seen: set[tuple[str, int]] = set()
        for i, item in enumerate(body):
            key = (item.get("name", ""), item.get("type", 1))
            if key in seen:
                _form_error(
                    errors,
                    [i, "name"],
                    "APPLICATION_COMMANDS_DUPLICATE_NAME",
                    "Application command names must be unique",
                )
            seen.add(key)
            if item.get("type", 1) == 1 and not re.fullmatch(r"[-_\w]{1,32}", item.get("name", "")):
                _form_error(errors, [i, "name"], "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
        if len(body) > 100:
            _form_error(errors, ["_root"], "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
        if errors:
            raise FakeDiscordError.preset("invalid_form_body", errors)
        return [self._normalize_command(b, guild_id, by_key.get((b["name"], b.get("type", 1)))) for b in body]

    def _upsert_command(self, commands: list[dict[str, Any]], body: dict[str, Any], guild_id: str | None) -> Any:
        key = (body.get("name"), body.get("type", 1))
        existing = next((c for c in commands if (c["name"], c.get("type", 1)) == key), None)
        cmd = self._normalize_command(body, guild_id, existing)
        if existing is not None:
            commands[commands.index(existing)] = cmd
        else:
            commands.append(cmd)
        return copy.deepcopy(cmd)

    @staticmethod
    def _find_command(commands: list[dict[str, Any]], command_id: str) -> dict[str, Any]:
        for cmd in commands:
            if cmd["id"] == command_id:
                return cmd
        raise FakeDiscordError.preset("unknown_command")

    def find_command(self, name: str, *, guild_id: int | str | None = None) -> dict[str, Any] | None:
        """A synced command by name: guild commands of ``guild_id`` first, then global ones."""
        if guild_id is not None:
            for cmd in self.guild_commands.get(_sf(guild_id), []):
                if cmd["name"] == name:
                    return cmd
        for cmd in self.global_commands:
            if cmd["name"] == name:
                return cmd
        return None

    # --- interactions

    def _webhook_interaction(self, ctx: _Ctx) -> _InteractionState:
        if ctx.params["application_id"] != self.application_id:
            raise FakeDiscordError.preset("unknown_webhook")
        iid = self._interaction_by_token.get(ctx.params["token"])
        state = self.interactions.get(iid) if iid else None
        if state is None or state.expired or not state.acked:
            raise FakeDiscordError.preset("unknown_webhook")
        return state

    def _webhook_message(self, ctx: _Ctx) -> dict[str, Any]:
        state = self._webhook_interaction(ctx)
        mid = ctx.params["message_id"]
        if mid == "@original":
            mid = state.original_message_id or ""
        msg = self.messages.get(mid)
        if msg is None or (mid != state.original_message_id and mid not in state.followup_ids):
            raise FakeDiscordError.preset("unknown_message")
        return msg

    async def _interaction_callback(self, ctx: _Ctx) -> Any:
        iid = ctx.params["interaction_id"]
        state = self.interactions.get(iid)
        if state is None or state.token != ctx.params["token"] or state.expired:
            raise FakeDiscordError.preset("unknown_interaction")
        if state.acked:
            raise FakeDiscordError.preset("already_acknowledged")
        body = ctx.body if isinstance(ctx.body, dict) else {}
        cb_type = int(body.get("type", 0))
        data = dict(body.get("data") or {})
        payload = state.payload
        itype = payload["type"]
        valid = {1: {1}, 2: {4, 5, 9, 10, 12}, 3: {4, 5, 6, 7, 9, 10, 12}, 4: {8}, 5: {4, 5, 6, 7, 10, 12}}
        if cb_type not in valid.get(itype, set()):
            raise FakeDiscordError(
                400, 40094, f"Interaction callback type {cb_type} is invalid for interaction type {itype}"
            )
        target_id = (payload.get("message") or {}).get("id")
        target = self.messages.get(target_id) if target_id else None
        if cb_type == 7 and target is None:
            raise FakeDiscordError.preset("unknown_message")
        if self.validate_payloads and cb_type == 4:
            _validate_message_payload(data, require_body=True, has_files=bool(ctx.record.files))
        if cb_type == 7 and target is not None:
            self._validate_edit(target, data)
        if self.validate_payloads and cb_type == 9:
            _validate_modal_payload(data)
        if cb_type == 8 and len(data.get("choices") or []) > 25:
            raise FakeDiscordError.preset(
                "invalid_form_body",
                {
                    "data": {
                        "choices": {
                            "_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 25 or fewer in length."}]
                        }
                    }
                },
            )

        state.acked = True
        state.response_type = cb_type
        interaction_info: dict[str, Any] = {"id": iid, "type": itype}
        result: dict[str, Any] = {"interaction": interaction_info}
        message: dict[str, Any] | None = None
        channel_id = payload["channel_id"]
        msg_type = {2: 20, 4: 20}.get(itype, 0)
        if cb_type in (4, 5):
            flags = int(data.get("flags") or 0)
            extra = FLAG_LOADING if cb_type == 5 else 0
            source = data if cb_type == 4 else {"content": "", "flags": flags & FLAG_EPHEMERAL}
            message = self._new_message(
                channel_id,
                source,
                files=ctx.record.files if cb_type == 4 else None,
                webhook_id=self.application_id,
                interaction=payload,
                msg_type=msg_type,
                extra_flags=extra,
            )
            state.original_message_id = message["id"]
            interaction_info.update(
                {
                    "response_message_id": message["id"],
                    "response_message_loading": cb_type == 5,
                    "response_message_ephemeral": bool(message["flags"] & FLAG_EPHEMERAL),
                }
            )
            result["resource"] = {"type": cb_type, "message": self._message_view(message)}
            await self._echo_create(message)
        elif cb_type in (6, 7):
            if target is not None:
                state.original_message_id = target["id"]
                interaction_info["response_message_id"] = target["id"]
                interaction_info["response_message_ephemeral"] = bool(target["flags"] & FLAG_EPHEMERAL)
                if cb_type == 7:
                    self._apply_edit(target, data, ctx.record.files)
                    message = target
                    result["resource"] = {"type": 7, "message": self._message_view(target)}
                    await self._echo_update(target)
        self.interaction_callbacks.append(
            InteractionCallback(
                interaction_id=iid,
                token=state.token,
                type=cb_type,
                data=data,
                interaction=payload,
                request=ctx.record,
                message=message,
            )
        )
        return result

    def _interaction_base(
        self,
        itype: int,
        data: dict[str, Any] | None,
        *,
        user_id: int | str | None,
        user_name: str | None,
        channel_id: int | str | None,
        guild_id: int | str | None,
        permissions: int | str | None,
        roles: list[int | str] | None,
        locale: str,
        dm: bool,
    ) -> dict[str, Any]:
        if user_id is None:
            uid = next((u for u, d in self.users.items() if d["username"] == (user_name or "player")), None)
            user = self.users[uid] if uid else self.add_user(user_name or "player", guild_id=None)
        elif _sf(user_id) in self.users:
            user = self.users[_sf(user_id)]
            if user_name:
                user["username"] = user_name
        else:
            user = self.add_user(user_name or f"user{user_id}", user_id=user_id, guild_id=None)
        uid = user["id"]
        iid = self.next_id()
        token = "aW50ZXJhY3Rpb24" + secrets.token_hex(32)
        payload: dict[str, Any] = {
            "id": iid,
            "application_id": self.application_id,
            "type": itype,
            "token": token,
            "version": 1,
            "locale": locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": 10 * 1024 * 1024,
            "app_permissions": "0",
        }
        if data is not None:
            payload["data"] = data
        if dm:
            channel = self._dm_channel_for(uid)
            payload.update(
                {
                    "user": user,
                    "channel_id": channel["id"],
                    "channel": self._public_channel(channel),
                    "context": 1,
                    "authorizing_integration_owners": {"0": "0"},
                    "app_permissions": str(BOT_PERMISSIONS),
                }
            )
        else:
            gid = _sf(guild_id or self.guild_id)
            guild = self._guild(gid)
            cid = _sf(channel_id or guild["_text_channel_id"])
            channel = self._channel(cid)
            if uid not in guild["members"] or roles is not None:
                self.add_member(gid, uid, roles=roles)
            member = self._member_payload(gid, uid)
            if permissions is not None:
                member["permissions"] = str(int(permissions))
            payload.update(
                {
                    "guild_id": gid,
                    "guild": {"id": gid, "locale": guild["preferred_locale"], "features": guild["features"]},
                    "guild_locale": guild["preferred_locale"],
                    "channel_id": cid,
                    "channel": {**self._public_channel(channel), "permissions": member["permissions"]},
                    "member": member,
                    "context": 0,
                    "authorizing_integration_owners": {"0": gid},
                    "app_permissions": str(self.member_permissions(gid, self.bot_user_id)),
                }
            )
        self.interactions[iid] = _InteractionState(payload=payload, token=token)
        self._interaction_by_token[token] = iid
        return payload

    @staticmethod
    def _options_payload(options: dict[str, Any] | list[dict[str, Any]] | None, focused: str | None) -> list[Any]:
        if options is None:
            return []
        if isinstance(options, list):
            return copy.deepcopy(options)
        out = []
        for name, value in options.items():
            if isinstance(value, dict) and "type" in value:
                opt = {"name": name, **value}
            elif isinstance(value, bool):
                opt = {"name": name, "type": 5, "value": value}
            elif isinstance(value, int):
                opt = {"name": name, "type": 4, "value": value}
            elif isinstance(value, float):
                opt = {"name": name, "type": 10, "value": value}
            else:
                opt = {"name": name, "type": 3, "value": str(value)}
            if focused == name:
                opt["focused"] = True
            out.append(opt)
        return out

    def slash_command_interaction(
        self,
        name: str = "quiz",
        subcommand: str | None = None,
        options: dict[str, Any] | list[dict[str, Any]] | None = None,
        *,
        group: str | None = None,
        user_id: int | str | None = None,
        user_name: str | None = None,
        channel_id: int | str | None = None,
        guild_id: int | str | None = None,
        permissions: int | str | None = None,
        roles: list[int | str] | None = None,
        resolved: dict[str, Any] | None = None,
        command_id: int | str | None = None,
        locale: str = "en-US",
        dm: bool = False,
        _focused: str | None = None,
        _itype: int = 2,
    ) -> dict[str, Any]:
        """INTERACTION_CREATE data for ``/name [group] [subcommand] options...``.

        ``options`` maps option name -> value (str -> STRING, bool -> BOOLEAN, int -> INTEGER,
        float -> NUMBER; a dict with ``type`` is used as is) or is a raw list of option dicts.
        ``permissions`` overrides the member's computed permissions (e.g. ``8`` for admin).
        The command id / guild_id come from the synced commands when known.
        The user is created (and made a guild member) if needed.
        """
        opts = self._options_payload(options, _focused)
        if subcommand is not None:
            opts = [{"type": 1, "name": subcommand, "options": opts}]
            if group is not None:
                opts = [{"type": 2, "name": group, "options": opts}]
        gid_for_cmd = None if dm else (guild_id or self.guild_id)
        synced = self.find_command(name, guild_id=gid_for_cmd)
        data: dict[str, Any] = {
            "id": _sf(command_id) if command_id is not None else (synced["id"] if synced else self.next_id()),
            "name": name,
            "type": 1,
            "options": opts,
        }
        if synced is not None and synced.get("guild_id"):
            data["guild_id"] = synced["guild_id"]
        if resolved:
            data["resolved"] = resolved
        return self._interaction_base(
            _itype,
            data,
            user_id=user_id,
            user_name=user_name,
            channel_id=channel_id,
            guild_id=guild_id,
            permissions=permissions,
            roles=roles,
            locale=locale,
            dm=dm,
        )

    def autocomplete_interaction(
        self,
        name: str = "quiz",
        subcommand: str | None = None,
        options: dict[str, Any] | list[dict[str, Any]] | None = None,
        *,
        focused: str | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """Like :meth:`slash_command_interaction` but type 4 (autocomplete); ``focused`` names the
        option being typed (default: the last one).  Expect a callback of type 8."""
        if focused is None and isinstance(options, dict) and options:
            focused = list(options)[-1]
        return self.slash_command_interaction(name, subcommand, options, _focused=focused, _itype=4, **kwargs)

    def component_interaction(
        self,
        message: dict[str, Any] | int | str,
        custom_id: str,
        *,
        user_id: int | str | None = None,
        user_name: str | None = None,
        values: list[str] | None = None,
        component_type: int | None = None,
        permissions: int | str | None = None,
        roles: list[int | str] | None = None,
        resolved: dict[str, Any] | None = None,
        locale: str = "en-US",
    ) -> dict[str, Any]:
        """INTERACTION_CREATE data for clicking ``custom_id`` on a stored message (dict or id).

        The component type is taken from the message's components (button=2 when not found);
        ``values`` are the selected values of a select menu.
        """
        mid = _sf(message["id"] if isinstance(message, dict) else message)
        stored = self.messages.get(mid)
        if stored is None:
            if not isinstance(message, dict):
                raise KeyError(f"unknown message {mid}")
            stored = message
        if component_type is None:
            found = next(
                (c for c in _walk_components(stored.get("components") or []) if c.get("custom_id") == custom_id),
                None,
            )
            if found is None:
                raise ValueError(f"message {mid} has no component with custom_id {custom_id!r}")
            component_type = int(found["type"])
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component_type}
        if component_type in (3, 5, 6, 7, 8):
            data["values"] = list(values or [])
        if resolved:
            data["resolved"] = resolved
        channel = self.channels.get(stored["channel_id"])
        dm = channel is not None and channel.get("type") == 1
        payload = self._interaction_base(
            3,
            data,
            user_id=user_id,
            user_name=user_name,
            channel_id=stored["channel_id"] if not dm else None,
            guild_id=stored.get("guild_id") or (channel or {}).get("guild_id"),
            permissions=permissions,
            roles=roles,
            locale=locale,
            dm=dm,
        )
        payload["message"] = self._message_view(stored)
        return payload

    def modal_submit_interaction(
        self,
        custom_id: str,
        values: dict[str, str],
        *,
        message: dict[str, Any] | None = None,
        user_id: int | str | None = None,
        user_name: str | None = None,
        channel_id: int | str | None = None,
        permissions: int | str | None = None,
        locale: str = "en-US",
    ) -> dict[str, Any]:
        """INTERACTION_CREATE data for submitting modal ``custom_id`` with text inputs
        ``{input_custom_id: value}`` (sent as action rows of text inputs)."""
        data = {
            "custom_id": custom_id,
            "components": [
                {"type": 1, "components": [{"type": 4, "custom_id": key, "value": value}]}
                for key, value in values.items()
            ],
        }
        payload = self._interaction_base(
            5,
            data,
            user_id=user_id,
            user_name=user_name,
            channel_id=channel_id or (message or {}).get("channel_id"),
            guild_id=None,
            permissions=permissions,
            roles=None,
            locale=locale,
            dm=False,
        )
        if message is not None:
            payload["message"] = self._message_view(self.messages.get(message["id"], message))
        return payload

    async def send_interaction(
        self,
        data: dict[str, Any],
        *,
        timeout: float = WAIT,
        shard_id: int | None = None,
        expect_callback: bool = True,
    ) -> InteractionCallback | None:
        """Dispatch INTERACTION_CREATE and wait for the bot's callback POST (returned)."""
        await self.dispatch("INTERACTION_CREATE", data, shard_id=shard_id, timeout=timeout)
        if not expect_callback:
            return None
        return await self.wait_for_callback(data["id"], timeout=timeout)

    async def user_message(
        self,
        content: str,
        *,
        user_id: int | str | None = None,
        user_name: str = "player",
        channel_id: int | str | None = None,
        dispatch: bool = True,
    ) -> dict[str, Any]:
        """Store a message written by a (non-bot) user and send MESSAGE_CREATE to connections
        with the message intents (content blanked without MESSAGE_CONTENT, like Discord)."""
        if user_id is not None and _sf(user_id) in self.users:
            user = self.users[_sf(user_id)]
        else:
            user = self.add_user(user_name, user_id=user_id)
        msg = self._new_message(_sf(channel_id or self.channel_id), {"content": content}, author=user)
        if dispatch:
            await self._echo_create(msg)
        return msg

    # ------------------------------------------------------------------ gateway

    def live_connections(self, shard_id: int | None = None) -> list[GatewayConnection]:
        return [c for c in self.connections if c.live and (shard_id is None or c.shard_id == shard_id)]

    async def wait_until_connected(
        self, shard_id: int = 0, *, timeout: float = WAIT, identify_count: int | None = None
    ) -> GatewayConnection:
        """Wait for a live (READY sent, open) connection of ``shard_id``.  With ``identify_count``
        also wait until that shard has IDENTIFYed at least that many times (e.g. 2 after a
        restart)."""

        def check() -> GatewayConnection | None:
            if identify_count is not None:
                count = sum(1 for c in self.connections if c.identify is not None and c.shard_id == shard_id)
                if count < identify_count:
                    return None
            live = self.live_connections(shard_id)
            return live[-1] if live else None

        return await self.wait_for(check, timeout=timeout, what=f"gateway shard {shard_id} connected")

    async def dispatch(
        self, event: str, data: dict[str, Any], *, shard_id: int | None = None, timeout: float = WAIT
    ) -> int:
        """Send a DISPATCH (op 0) to the live connection of ``shard_id`` (default: the shard
        owning ``data['guild_id']``, else shard 0).  Returns the sequence number used."""
        conn = await self._connection_for(shard_id, data.get("guild_id"), timeout)
        payload: dict[str, Any] = {"op": 0, "t": event, "s": None, "d": data}
        await conn.send(payload)
        return int(payload["s"])

    async def _connection_for(self, shard_id: int | None, guild_id: Any, timeout: float) -> GatewayConnection:
        if shard_id is not None:
            return await self.wait_until_connected(shard_id, timeout=timeout)

        def check() -> GatewayConnection | None:
            live = self.live_connections()
            if not live:
                return None
            count = live[-1].shard_count
            target = self.shard_for_guild(guild_id, count) if guild_id else 0
            matching = [c for c in live if c.shard_id == target]
            return matching[-1] if matching else None

        return await self.wait_for(check, timeout=timeout, what="a live gateway connection")

    async def _broadcast(self, event: str, data: dict[str, Any], guild_id: str | None, intent: int) -> None:
        for conn in self.live_connections():
            if guild_id is not None and conn.shard_id != self.shard_for_guild(guild_id, conn.shard_count):
                continue
            if guild_id is None and conn.shard_id != 0:
                continue
            if not conn.has_intent(intent):
                continue
            event_data = copy.deepcopy(data)
            if event in ("MESSAGE_CREATE", "MESSAGE_UPDATE") and not conn.has_intent(INTENT_MESSAGE_CONTENT):
                author_id = (event_data.get("author") or {}).get("id")
                mentioned = any(u.get("id") == self.bot_user_id for u in event_data.get("mentions", []))
                if author_id != self.bot_user_id and not mentioned:
                    event_data.update({"content": "", "embeds": [], "attachments": [], "components": []})
            with contextlib.suppress(ConnectionError, RuntimeError):
                await conn.send({"op": 0, "t": event, "s": None, "d": event_data})

    async def _echo_create(self, msg: dict[str, Any]) -> None:
        if not self.echo_message_events or msg["flags"] & FLAG_EPHEMERAL:
            return
        data = self._message_view(msg)
        data.pop("allowed_mentions", None)
        gid = msg.get("guild_id")
        if gid:
            member = self.guilds[gid]["members"].get(msg["author"]["id"])
            if member is not None and not msg.get("webhook_id"):
                data["member"] = {k: copy.deepcopy(v) for k, v in member.items() if k != "user"}
            await self._broadcast("MESSAGE_CREATE", data, gid, INTENT_GUILD_MESSAGES)
        else:
            await self._broadcast("MESSAGE_CREATE", data, None, INTENT_DIRECT_MESSAGES)

    async def _echo_update(self, msg: dict[str, Any]) -> None:
        if not self.echo_message_events or msg["flags"] & FLAG_EPHEMERAL:
            return
        data = self._message_view(msg)
        data.pop("allowed_mentions", None)
        gid = msg.get("guild_id")
        intent = INTENT_GUILD_MESSAGES if gid else INTENT_DIRECT_MESSAGES
        await self._broadcast("MESSAGE_UPDATE", data, gid, intent)

    async def request_reconnect(self, shard_id: int = 0) -> None:
        """Send op 7 RECONNECT; discord.py closes and tries to RESUME."""
        conn = await self.wait_until_connected(shard_id)
        await conn.send({"op": 7, "d": None})

    async def invalidate_session(self, shard_id: int = 0, *, resumable: bool = False) -> None:
        """Send op 9 INVALID_SESSION (discord.py re-identifies; mind before_identify_hook)."""
        conn = await self.wait_until_connected(shard_id)
        await conn.send({"op": 9, "d": resumable})

    async def drop_connection(self, shard_id: int = 0, *, code: int = 4000) -> None:
        """Close the shard's websocket from the server side with ``code``."""
        conn = await self.wait_until_connected(shard_id)
        await conn.ws.close(code=code, message=b"fake drop")

    async def _gateway_handler(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        conn = GatewayConnection(id=len(self.connections) + 1, ws=ws, query=dict(request.query))
        self.connections.append(conn)
        try:
            await conn.send(
                {
                    "op": 10,
                    "s": None,
                    "t": None,
                    "d": {"heartbeat_interval": self.heartbeat_interval_ms, "_trace": ["fake-gateway"]},
                }
            )
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    try:
                        await self._on_gateway_message(conn, json.loads(msg.data))
                    except (ConnectionError, RuntimeError):
                        break
                    except Exception as exc:  # keep serving; surface via gateway_errors
                        self.gateway_errors.append(f"{type(exc).__name__}: {exc}")
                elif msg.type == WSMsgType.ERROR:
                    break
        except (ConnectionError, RuntimeError):
            pass
        finally:
            conn.closed = True
            conn.close_code = ws.close_code
        return ws

    async def _on_gateway_message(self, conn: GatewayConnection, msg: dict[str, Any]) -> None:
        conn.received.append(msg)
        op = msg.get("op")
        data = msg.get("d")
        if op == 1:
            conn.heartbeats += 1
            if self.ack_heartbeats:
                await conn.send({"op": 11, "s": None, "t": None, "d": None})
        elif op == 2:
            await self._on_identify(conn, data or {})
        elif op == 6:
            await self._on_resume(conn, data or {})
        elif op == 3:
            self.presence_updates.append(data or {})
        elif op == 8:
            await self._on_request_members(conn, data or {})
        elif op == 4:
            pass  # voice state update: ignored
        else:
            self.gateway_errors.append(f"unknown op {op}")
            await conn.ws.close(code=4001, message=b"Unknown opcode")

    async def _on_identify(self, conn: GatewayConnection, data: dict[str, Any]) -> None:
        if conn.identify is not None:
            await conn.ws.close(code=4005, message=b"Already authenticated")
            return
        if self.token is not None and data.get("token") != self.token:
            await conn.ws.close(code=4004, message=b"Authentication failed")
            return
        shard = data.get("shard")
        if shard is not None:
            shard_id, shard_count = int(shard[0]), int(shard[1])
            if shard_count < 1 or not 0 <= shard_id < shard_count:
                await conn.ws.close(code=4010, message=b"Invalid shard")
                return
            conn.shard_id, conn.shard_count, conn.sharded = shard_id, shard_count, True
        conn.identify = data
        conn.intents = data.get("intents")
        self.identifies.append(data)
        await self._send_ready(conn)

    async def _send_ready(self, conn: GatewayConnection) -> None:
        conn.session_id = secrets.token_hex(16)
        self._sessions[conn.session_id] = conn
        guild_ids = [gid for gid in self.guilds if self.shard_for_guild(gid, conn.shard_count) == conn.shard_id]
        ready: dict[str, Any] = {
            "v": 10,
            "user": self.bot_user,
            "guilds": [{"id": gid, "unavailable": True} for gid in guild_ids],
            "session_id": conn.session_id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": self.application_id, "flags": self.application_flags},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": ["fake"],
            "user_settings": {},
            "_trace": ["fake-gateway"],
        }
        if conn.sharded:
            ready["shard"] = [conn.shard_id, conn.shard_count]
        await conn.send({"op": 0, "t": "READY", "s": None, "d": ready})
        if conn.has_intent(INTENT_GUILDS):
            for gid in guild_ids:
                await conn.send(
                    {
                        "op": 0,
                        "t": "GUILD_CREATE",
                        "s": None,
                        "d": self.guild_create_payload(gid, intents=conn.intents),
                    }
                )
        conn.ready = True

    async def _on_resume(self, conn: GatewayConnection, data: dict[str, Any]) -> None:
        self.resumes.append(data)
        old = self._sessions.get(str(data.get("session_id")))
        if self.resume_mode == "accept" and old is not None and (self.token is None or data.get("token") == self.token):
            conn.identify = old.identify
            conn.intents = old.intents
            conn.shard_id, conn.shard_count, conn.sharded = old.shard_id, old.shard_count, old.sharded
            conn.session_id = old.session_id
            conn.seq = int(data.get("seq") or old.seq)
            self._sessions[str(conn.session_id)] = conn
            await conn.send({"op": 0, "t": "RESUMED", "s": None, "d": {"_trace": ["fake-gateway"]}})
            conn.ready = True
        else:
            await conn.send({"op": 9, "s": None, "t": None, "d": False})

    async def _on_request_members(self, conn: GatewayConnection, data: dict[str, Any]) -> None:
        self.member_requests.append(data)
        gid = _sf(data.get("guild_id", 0))
        guild = self.guilds.get(gid)
        members = list(guild["members"].values()) if guild else []
        if data.get("user_ids"):
            wanted = {_sf(u) for u in data["user_ids"]}
            members = [m for m in members if m["user"]["id"] in wanted]
        elif data.get("query"):
            members = [m for m in members if m["user"]["username"].lower().startswith(str(data["query"]).lower())]
        limit = int(data.get("limit") or 0)
        if limit:
            members = members[:limit]
        chunk = {
            "guild_id": gid,
            "members": copy.deepcopy(members),
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce"):
            chunk["nonce"] = data["nonce"]
        await conn.send({"op": 0, "t": "GUILD_MEMBERS_CHUNK", "s": None, "d": chunk})
