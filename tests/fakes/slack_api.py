"""Loopback fake of Slack's Web API, Socket Mode and response_url endpoints.

Everything binds to 127.0.0.1 on an ephemeral port; nothing ever talks to the
internet.  The fake is meant to sit behind a *real* slack-bolt ``AsyncApp``:

    fake = FakeSlack()
    await fake.start()
    app = AsyncApp(
        signing_secret=SIGNING_SECRET,
        client=AsyncWebClient(token=fake.bot_token, base_url=fake.api_url),
    )

    # HTTP mode: serve the app on loopback and post signed requests to it
    server = BoltHttpServer(app)
    await server.start()
    status, text = await server.post(fake.slash_command_body("start"))

    # Socket Mode
    handler = fake.socket_mode_handler(app)   # AsyncSocketModeHandler, proxy-safe
    await handler.connect_async()
    await fake.wait_for_socket_client()
    ack = await fake.send_slash_command("start")
    ...
    await handler.close_async()
    await server.stop()
    await fake.stop()

Web API behaviour follows Slack's conventions: HTTP 200 with ``{"ok": false,
"error": ...}`` for logical errors, HTTP 429 + ``Retry-After`` for rate limits.
Every request (including rejected ones) is recorded as a :class:`Call` in
``fake.calls``.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import itertools
import json
import math
import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from email.utils import formatdate
from typing import Any
from urllib.parse import urlencode

from aiohttp import WSCloseCode, WSMsgType, web

__all__ = [
    "APP_ID",
    "APP_TOKEN",
    "BOT_ID",
    "BOT_TOKEN",
    "BOT_USER_ID",
    "FORM_CONTENT_TYPE",
    "JSON_CONTENT_TYPE",
    "SIGNING_SECRET",
    "TEAM_DOMAIN",
    "TEAM_ID",
    "UNBOUND_RESPONSE_URL",
    "BoltHttpServer",
    "Call",
    "FakeSlack",
    "ResponseUrlPost",
    "SocketConnection",
    "block_actions_body",
    "block_actions_payload",
    "event_callback_body",
    "event_callback_payload",
    "find_action",
    "poll_until",
    "sign",
    "signed_headers",
    "slash_command_body",
    "slash_command_payload",
    "validate_blocks",
    "validate_modal",
    "view_block_actions_payload",
]

# --------------------------------------------------------------------------
# Defaults
# --------------------------------------------------------------------------

SIGNING_SECRET = "secret"
BOT_TOKEN = "xoxb-test"
APP_TOKEN = "xapp-1-test"
TEAM_ID = "T0001"
TEAM_DOMAIN = "quizteam"
TEAM_NAME = "Quiz Team"
APP_ID = "A0001"
BOT_USER_ID = "U0BOT"
BOT_ID = "B0001"
BOT_NAME = "quizbot"
VERIFICATION_TOKEN = "verification-token"  # legacy "token" field in payloads

FORM_CONTENT_TYPE = "application/x-www-form-urlencoded"
JSON_CONTENT_TYPE = "application/json"

# Loopback address that refuses connections (port 9 = discard, nothing listens).
# Used as the response_url by the module-level builders so a test that forgot
# to bind a real response_url fails loudly instead of reaching the internet.
UNBOUND_RESPONSE_URL = "http://127.0.0.1:9/response/unbound"

# Fields that Slack clients send JSON-encoded inside form bodies.
_JSON_FIELDS = ("blocks", "attachments", "metadata", "view", "user_auth_blocks")

# The bot token's scopes unless a test takes some away (fake.scopes): only the history scopes are checked.
DEFAULT_SCOPES = frozenset({"commands", "chat:write", "channels:history", "groups:history", "im:history"})

# Token prefix accepted per method ("bot" = xoxb/xoxp, "app" = xapp).
_APP_TOKEN_METHODS = {"apps.connections.open"}


# --------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------


@dataclass
class Call:
    """One Web API request as seen by the fake."""

    method: str
    args: dict
    token: str | None
    http_method: str = "POST"
    status: int = 200
    response: dict = field(default_factory=dict)
    headers: dict = field(default_factory=dict)  # response headers (e.g. Retry-After)
    at: float = 0.0  # time.time() when received

    @property
    def ok(self) -> bool:
        return bool(self.response.get("ok"))

    @property
    def error(self) -> str | None:
        return self.response.get("error")


@dataclass
class ResponseUrlPost:
    """One POST to a response_url (what Bolt's ``respond()`` sends)."""

    response_id: str
    body: dict
    status: int
    at: float
    channel_id: str | None = None
    message_ts: str | None = None
    user_id: str | None = None
    peer: tuple[str, int] | None = None  # the client's address: posts over one kept-alive connection share it


@dataclass
class _ResponseUrl:
    response_id: str
    channel_id: str | None
    message_ts: str | None
    user_id: str | None
    uses: int = 0


@dataclass
class _Failure:
    method: str
    error: str
    status: int
    retry_after: int | None
    remaining: int
    match: Callable[[dict], bool] | None
    extra: dict


@dataclass
class SocketConnection:
    """A live Socket Mode websocket from a client."""

    connection_id: int
    ws: web.WebSocketResponse
    ticket: str
    opened_at: float
    received: list = field(default_factory=list)  # every JSON message from the client
    closed: bool = False


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


WAIT = 30.0
"""How long a helper waits by default for what a test expects: a bound that fails a hang, not a speed check (a
loaded machine, CI sharing it with other work, may take seconds; the Discord fake waits as long)."""


async def poll_until(
    predicate: Callable[[], Any],
    *,
    timeout: float = WAIT,
    interval: float = 0.01,
    message: str = "condition",
) -> Any:
    """Poll ``predicate()`` (sync or async) until truthy; return its value.

    Raises ``AssertionError`` after ``timeout`` seconds so that tests fail
    instead of hanging.  Bolt acks first and runs listeners in background
    tasks, so side effects have to be polled for.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {message}")
        await asyncio.sleep(interval)


def _truthy(v: Any) -> bool:
    if isinstance(v, str):
        return v.strip().lower() in ("1", "true", "yes")
    return bool(v)


def find_action(blocks: Iterable[dict], action_id: str) -> tuple[str | None, dict | None]:
    """Find the interactive element with ``action_id`` in ``blocks``.

    Returns ``(block_id, element)`` or ``(None, None)``.  Looks into ``actions``
    blocks, ``section`` accessories and ``input`` elements.
    """
    for block in blocks or []:
        candidates = []
        if isinstance(block.get("elements"), list):
            candidates.extend(block["elements"])
        if isinstance(block.get("accessory"), dict):
            candidates.append(block["accessory"])
        if isinstance(block.get("element"), dict):
            candidates.append(block["element"])
        for el in candidates:
            if isinstance(el, dict) and el.get("action_id") == action_id:
                return block.get("block_id"), el
    return None, None


def validate_blocks(blocks: Any, *, max_blocks: int = 50) -> list[str]:
    """A subset of Slack's Block Kit validation.

    Returns a list of Slack-style error strings (empty if valid).  Checks the
    limits a quiz bot is most likely to trip over: max 50 blocks, max 25
    elements per actions block, button text <= 75 chars, button value <= 2000,
    action_id/block_id <= 255 and unique, section text <= 3000 (fields <= 10
    of <= 2000), header text <= 150, context <= 10 elements with text objects
    of 1-3000 chars, and required ``type``/``text`` fields.  ``max_blocks``: 50 for a message, 100 for a
    Home tab or modal view.
    """
    errors: list[str] = []
    if not isinstance(blocks, list):
        return ["expected an array [json-pointer:/blocks]"]
    if len(blocks) > max_blocks:
        errors.append(f"no more than {max_blocks} items allowed [json-pointer:/blocks]")
    action_ids: set[str] = set()
    block_ids: set[str] = set()

    def check_text(obj: Any, ptr: str, max_len: int, plain_only: bool = False) -> None:
        if not isinstance(obj, dict) or obj.get("type") not in ("plain_text", "mrkdwn"):
            errors.append(f"must provide an object with a valid text type [json-pointer:{ptr}]")
            return
        if plain_only and obj.get("type") != "plain_text":
            errors.append(f'must be "plain_text" [json-pointer:{ptr}/type]')
        text = obj.get("text")
        if not isinstance(text, str) or text == "":
            errors.append(f"must be more than 0 characters [json-pointer:{ptr}/text]")
        elif len(text) > max_len:
            errors.append(f"must be less than {max_len + 1} characters [json-pointer:{ptr}/text]")

    def check_element(el: Any, ptr: str) -> None:
        if not isinstance(el, dict) or not el.get("type"):
            errors.append(f"must provide an object with a type [json-pointer:{ptr}]")
            return
        aid = el.get("action_id")
        if aid is not None:
            if not isinstance(aid, str) or len(aid) > 255:
                errors.append(f"must be less than 256 characters [json-pointer:{ptr}/action_id]")
            elif aid in action_ids:
                errors.append(f"action_id already exists: {aid} [json-pointer:{ptr}/action_id]")
            else:
                action_ids.add(aid)
        if el["type"] == "button":
            check_text(el.get("text"), f"{ptr}/text", 75, plain_only=True)
            value = el.get("value")
            if value is not None and (not isinstance(value, str) or len(value) > 2000):
                errors.append(f"must be less than 2001 characters [json-pointer:{ptr}/value]")
            if el.get("style") not in (None, "primary", "danger"):
                errors.append(f"must be a valid enum value [json-pointer:{ptr}/style]")

    for i, block in enumerate(blocks):
        ptr = f"/blocks/{i}"
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            errors.append(f"must provide an object with a type [json-pointer:{ptr}]")
            continue
        bid = block.get("block_id")
        if bid is not None:
            if not isinstance(bid, str) or len(bid) > 255:
                errors.append(f"must be less than 256 characters [json-pointer:{ptr}/block_id]")
            elif bid in block_ids:
                errors.append(f"block_id already exists: {bid} [json-pointer:{ptr}/block_id]")
            else:
                block_ids.add(bid)
        btype = block["type"]
        if btype == "section":
            if "text" not in block and "fields" not in block:
                errors.append(f"must provide either text or fields [json-pointer:{ptr}]")
            if "text" in block:
                check_text(block["text"], f"{ptr}/text", 3000)
            for j, f in enumerate(block.get("fields") or []):
                check_text(f, f"{ptr}/fields/{j}", 2000)
            if len(block.get("fields") or []) > 10:
                errors.append(f"no more than 10 items allowed [json-pointer:{ptr}/fields]")
            if "accessory" in block:
                check_element(block["accessory"], f"{ptr}/accessory")
        elif btype == "header":
            check_text(block.get("text"), f"{ptr}/text", 150, plain_only=True)
        elif btype == "actions":
            els = block.get("elements")
            if not isinstance(els, list) or not els:
                errors.append(f"must provide at least 1 item [json-pointer:{ptr}/elements]")
                continue
            if len(els) > 25:
                errors.append(f"no more than 25 items allowed [json-pointer:{ptr}/elements]")
            for j, el in enumerate(els):
                check_element(el, f"{ptr}/elements/{j}")
        elif btype == "context":
            els = block.get("elements")
            if not isinstance(els, list) or not els:
                errors.append(f"must provide at least 1 item [json-pointer:{ptr}/elements]")
            elif len(els) > 10:
                errors.append(f"no more than 10 items allowed [json-pointer:{ptr}/elements]")
            else:
                for j, el in enumerate(els):
                    # Text elements are text objects (1-3000 characters); image elements carry no text.
                    if isinstance(el, dict) and el.get("type") in ("mrkdwn", "plain_text"):
                        check_text(el, f"{ptr}/elements/{j}", 3000)
        elif btype == "image":
            # https://docs.slack.dev/reference/block-kit/blocks/image-block: alt_text (required) at most 2000,
            # exactly one of image_url (at most 3000) and slack_file; an optional plain_text title of 2000.
            alt = block.get("alt_text")
            if not isinstance(alt, str) or not alt or len(alt) > 2000:
                errors.append(f"must be 1-2000 characters [json-pointer:{ptr}/alt_text]")
            url, slack_file = block.get("image_url"), block.get("slack_file")
            if (url is None) == (slack_file is None):
                errors.append(f"must provide exactly one of image_url and slack_file [json-pointer:{ptr}]")
            if url is not None and (not isinstance(url, str) or not url or len(url) > 3000):
                errors.append(f"must be 1-3000 characters [json-pointer:{ptr}/image_url]")
            if slack_file is not None and not (
                isinstance(slack_file, dict) and (slack_file.get("id") or slack_file.get("url"))
            ):
                errors.append(f"must provide an id or a url [json-pointer:{ptr}/slack_file]")
            if "title" in block:
                check_text(block["title"], f"{ptr}/title", 2000, plain_only=True)
        elif btype == "input":
            check_element(block.get("element"), f"{ptr}/element")
            check_text(block.get("label"), f"{ptr}/label", 2000, plain_only=True)
            errors.extend(_input_element_errors(block.get("element"), f"{ptr}/element"))
    return errors


def _input_element_errors(element: Any, ptr: str) -> list[str]:
    """A plain_text_input's own limits (https://docs.slack.dev/reference/block-kit/block-elements/plain-text-input-element):
    max_length and min_length at most 3000, an initial_value within max_length, a placeholder of at most 150."""
    if not isinstance(element, dict) or element.get("type") != "plain_text_input":
        return []
    errors: list[str] = []
    max_length = element.get("max_length", 3000)
    if not isinstance(max_length, int) or not 1 <= max_length <= 3000:
        errors.append(f"must be between 1 and 3000 [json-pointer:{ptr}/max_length]")
        max_length = 3000
    if "min_length" in element and (not isinstance(element["min_length"], int) or element["min_length"] > 3000):
        errors.append(f"must be at most 3000 [json-pointer:{ptr}/min_length]")
    initial = element.get("initial_value")
    if initial is not None and (not isinstance(initial, str) or len(initial) > max_length):
        errors.append(f"must be less than {max_length + 1} characters [json-pointer:{ptr}/initial_value]")
    placeholder = element.get("placeholder")
    if placeholder is not None:
        text = placeholder.get("text") if isinstance(placeholder, dict) else None
        if not isinstance(placeholder, dict) or placeholder.get("type") != "plain_text" or not isinstance(text, str):
            errors.append(f'must be a "plain_text" object [json-pointer:{ptr}/placeholder]')
        elif not 1 <= len(text) <= 150:
            errors.append(f"must be 1-150 characters [json-pointer:{ptr}/placeholder/text]")
    if "multiline" in element and not isinstance(element["multiline"], bool):
        errors.append(f"must be a boolean [json-pointer:{ptr}/multiline]")
    return errors


def validate_modal(view: Any) -> list[str]:
    """Slack's checks of a modal view (https://docs.slack.dev/reference/views/modal-view): type modal, a
    plain_text title, submit and close of at most 24 characters (a view with an input block needs a submit),
    callback_id at most 255, private_metadata at most 3000, and at most 100 valid blocks."""
    if not isinstance(view, dict):
        return ["must provide an object [json-pointer:/view]"]
    errors: list[str] = []
    if view.get("type") != "modal":
        errors.append('must be "modal" [json-pointer:/view/type]')
    for key, required in (("title", True), ("submit", False), ("close", False)):
        obj = view.get(key)
        if obj is None:
            if required:
                errors.append(f"must provide {key} [json-pointer:/view/{key}]")
            continue
        text = obj.get("text") if isinstance(obj, dict) else None
        if not isinstance(obj, dict) or obj.get("type") != "plain_text" or not isinstance(text, str) or not text:
            errors.append(f'must be a "plain_text" object [json-pointer:/view/{key}]')
        elif len(text) > 24:
            errors.append(f"must be less than 25 characters [json-pointer:/view/{key}/text]")
    blocks = view.get("blocks", [])
    if isinstance(blocks, list) and any(isinstance(b, dict) and b.get("type") == "input" for b in blocks):
        if view.get("submit") is None:
            errors.append("must provide submit when blocks include an input [json-pointer:/view/submit]")
    callback_id = view.get("callback_id")
    if callback_id is not None and (not isinstance(callback_id, str) or len(callback_id) > 255):
        errors.append("must be less than 256 characters [json-pointer:/view/callback_id]")
    metadata = view.get("private_metadata")
    if metadata is not None and (not isinstance(metadata, str) or len(metadata) > 3000):
        errors.append("must be less than 3001 characters [json-pointer:/view/private_metadata]")
    errors.extend(f"{e} (view)" for e in validate_blocks(blocks, max_blocks=100))
    return errors


# --------------------------------------------------------------------------
# Request builders (HTTP mode bodies / Socket Mode payloads)
# --------------------------------------------------------------------------


def sign(signing_secret: str, timestamp: int | str, body: str | bytes) -> str:
    """``v0=hex(HMAC_SHA256(secret, "v0:{timestamp}:{body}"))``."""
    if isinstance(body, bytes):
        body = body.decode("utf-8")
    base = f"v0:{timestamp}:{body}".encode()
    return "v0=" + hmac.new(signing_secret.encode("utf-8"), base, hashlib.sha256).hexdigest()


def signed_headers(
    signing_secret: str,
    body: str | bytes,
    *,
    timestamp: int | str | None = None,
    age: float = 0,
    bad_signature: bool = False,
    content_type: str = FORM_CONTENT_TYPE,
) -> dict:
    """Headers Slack sends with an HTTP-mode request.

    ``timestamp`` defaults to now minus ``age`` seconds (``age=400`` gives a
    stale request that Bolt rejects with 401; the limit is 300 s).
    ``bad_signature=True`` signs with a wrong secret.  Use
    ``content_type=JSON_CONTENT_TYPE`` for Events API bodies.
    """
    ts = str(int(time.time() - age)) if timestamp is None else str(timestamp)
    secret = signing_secret + "-wrong" if bad_signature else signing_secret
    return {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": sign(secret, ts, body),
    }


def _trigger_id() -> str:
    return f"{int(time.time())}.{uuid.uuid4().int % 10**12}.{uuid.uuid4().hex}"


def slash_command_payload(
    text: str = "",
    *,
    command: str = "/quiz",
    team_id: str = TEAM_ID,
    team_domain: str = TEAM_DOMAIN,
    channel_id: str = "C0001",
    channel_name: str = "general",
    user_id: str = "U0ALICE",
    user_name: str = "alice",
    response_url: str = UNBOUND_RESPONSE_URL,
    trigger_id: str | None = None,
    api_app_id: str = APP_ID,
    token: str = VERIFICATION_TOKEN,
    is_enterprise_install: bool = False,
) -> dict:
    """A slash command as a dict of strings (Socket Mode ``slash_commands`` payload)."""
    return {
        "token": token,
        "team_id": team_id,
        "team_domain": team_domain,
        "channel_id": channel_id,
        "channel_name": channel_name,
        "user_id": user_id,
        "user_name": user_name,
        "command": command,
        "text": text,
        "api_app_id": api_app_id,
        "is_enterprise_install": "true" if is_enterprise_install else "false",
        "response_url": response_url,
        "trigger_id": trigger_id or _trigger_id(),
    }


def slash_command_body(text: str = "", **kwargs: Any) -> str:
    """A slash command form-encoded exactly as Slack POSTs it in HTTP mode."""
    return urlencode(slash_command_payload(text, **kwargs))


def block_actions_payload(
    *,
    message: dict | None,
    action_id: str,
    value: str | None = None,
    block_id: str | None = None,
    user_id: str = "U0ALICE",
    user_name: str = "alice",
    team_id: str = TEAM_ID,
    team_domain: str = TEAM_DOMAIN,
    channel_id: str = "C0001",
    channel_name: str = "general",
    response_url: str = UNBOUND_RESPONSE_URL,
    trigger_id: str | None = None,
    api_app_id: str = APP_ID,
    token: str = VERIFICATION_TOKEN,
    is_ephemeral: bool = False,
    message_ts: str | None = None,
    action_ts: str | None = None,
    element_type: str | None = None,
) -> dict:
    """A ``block_actions`` interaction (button click) as a dict.

    ``message`` is the message the button lives in (as returned by
    chat.postMessage / stored by the fake).  ``value``, ``block_id`` and the
    button ``text`` are looked up from the message's blocks by ``action_id``
    when not given.  For ephemeral messages pass ``is_ephemeral=True`` and
    ``message_ts`` (Slack omits ``message`` for ephemeral containers; pass
    ``message=None``, and ``value`` then must be given).
    """
    blocks = (message or {}).get("blocks") or []
    found_block_id, element = find_action(blocks, action_id)
    if element is None and value is None:
        raise ValueError(f"action_id {action_id!r} not found in message blocks and no value given")
    element = element or {}
    if block_id is None:
        block_id = found_block_id or "block"
    if value is None:
        value = element.get("value")
    el_type = element_type or element.get("type") or "button"
    ts = message_ts or (message or {}).get("ts") or "1700000000.000100"
    action: dict = {
        "action_id": action_id,
        "block_id": block_id,
        "type": el_type,
        "action_ts": action_ts or f"{time.time():.6f}",
    }
    if value is not None:
        action["value"] = value
    if "text" in element:
        action["text"] = element["text"]
    elif el_type == "button":
        action["text"] = {"type": "plain_text", "text": str(value), "emoji": True}
    if "style" in element:
        action["style"] = element["style"]

    payload: dict = {
        "type": "block_actions",
        "user": {"id": user_id, "username": user_name, "name": user_name, "team_id": team_id},
        "api_app_id": api_app_id,
        "token": token,
        "container": {
            "type": "message",
            "message_ts": ts,
            "channel_id": channel_id,
            "is_ephemeral": bool(is_ephemeral),
        },
        "trigger_id": trigger_id or _trigger_id(),
        "team": {"id": team_id, "domain": team_domain},
        "enterprise": None,
        "is_enterprise_install": False,
        "channel": {"id": channel_id, "name": channel_name},
        "state": {"values": {}},
        "response_url": response_url,
        "actions": [action],
    }
    if message is not None and not is_ephemeral:
        payload["message"] = message
    return payload


def view_block_actions_payload(
    view: dict, action_id: str, *, user_id: str = "U0ALICE", user_name: str = "alice", team_id: str = TEAM_ID
) -> dict:
    """A ``block_actions`` click on a button of a view (a published Home tab): Slack sends the ``view`` and a
    ``container`` of type ``view``, and no channel, message or response_url."""
    payload = block_actions_payload(
        message=view, action_id=action_id, user_id=user_id, user_name=user_name, team_id=team_id
    )
    for key in ("channel", "response_url", "message"):
        payload.pop(key, None)
    payload["container"] = {"type": "view", "view_id": view.get("id", "V0000")}
    payload["view"] = view
    return payload


def block_actions_body(**kwargs: Any) -> str:
    """A block_actions interaction form-encoded as ``payload=<JSON>``."""
    return urlencode({"payload": json.dumps(block_actions_payload(**kwargs))})


def event_callback_payload(
    event: dict,
    *,
    team_id: str = TEAM_ID,
    api_app_id: str = APP_ID,
    event_id: str | None = None,
    event_time: int | None = None,
    token: str = VERIFICATION_TOKEN,
    authorizations: list | None = None,
) -> dict:
    """An Events API ``event_callback`` envelope (Socket Mode ``events_api`` payload)."""
    return {
        "token": token,
        "team_id": team_id,
        "api_app_id": api_app_id,
        "event": event,
        "type": "event_callback",
        "event_id": event_id or f"Ev{uuid.uuid4().hex[:10].upper()}",
        "event_time": event_time or int(time.time()),
        "authorizations": authorizations
        or [
            {
                "enterprise_id": None,
                "team_id": team_id,
                "user_id": BOT_USER_ID,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
    }


def event_callback_body(event: dict, **kwargs: Any) -> str:
    """Events API body for HTTP mode (JSON; sign with content_type=JSON_CONTENT_TYPE)."""
    return json.dumps(event_callback_payload(event, **kwargs))


# --------------------------------------------------------------------------
# The fake
# --------------------------------------------------------------------------


class FakeSlack:
    """Loopback fake of Slack (Web API + Socket Mode + response_url).

    Public state (plain Python containers, safe to inspect from tests):

    * ``calls``: list[Call] -- every Web API request, in order
    * ``messages``: {channel_id: {ts: message_dict}} -- live channel messages
      (chat.update edits them in place, chat.delete removes them)
    * ``ephemeral``: list[dict] -- chat.postEphemeral and ephemeral respond()s
      (``{"channel", "user", "message_ts", "text", "blocks", ...}``)
    * ``responses``: list[ResponseUrlPost] -- everything POSTed to response_urls
    * ``published_views``: every Home tab view views.publish accepted, in order
    * ``files``: uploads by file id (``uploaded_files()``: the completed ones, with their bytes)
    * ``users`` / ``channels``: seeded directory, editable via add_user/add_channel
    * ``socket_connections``: list[SocketConnection] (open and closed)
    * ``socket_acks``: list[dict] -- every ack received over Socket Mode
    """

    def __init__(
        self,
        *,
        bot_token: str = BOT_TOKEN,
        app_token: str = APP_TOKEN,
        team_id: str = TEAM_ID,
        team_domain: str = TEAM_DOMAIN,
        team_name: str = TEAM_NAME,
        app_id: str = APP_ID,
        bot_user_id: str = BOT_USER_ID,
        bot_id: str = BOT_ID,
        bot_name: str = BOT_NAME,
        strict_blocks: bool = True,
        response_url_max_uses: int | None = 5,
        clock: Callable[[], float] = time.monotonic,
        wall_clock_ts: bool = False,
    ) -> None:
        self.bot_token = bot_token
        self.app_token = app_token
        self.tokens: dict[str, str] = {bot_token: "bot", app_token: "app"}
        self.team_id = team_id
        self.team_domain = team_domain
        self.team_name = team_name
        self.app_id = app_id
        self.bot_user_id = bot_user_id
        self.bot_id = bot_id
        self.bot_name = bot_name
        self.strict_blocks = strict_blocks
        self.response_url_max_uses = response_url_max_uses
        self.clock = clock  # used for rate limiting only; replace to control time
        self.wall_clock_ts = wall_clock_ts  # a message's ts is the fake's time (as Slack's is), not a counter
        self.clock_skew = 0.0
        """Seconds the fake's clock is ahead of this host's (behind when negative): its `Date` headers and, with
        `wall_clock_ts`, its messages' ts say so."""
        self.scopes: set[str] = set(DEFAULT_SCOPES)
        self.after_post: Callable[[dict], Awaitable[None]] | None = None
        """Awaited once chat.postMessage stored its message and before Slack's answer goes out: a test holds the
        answer here (for instance, to kill the bot after Slack took its post and before it hears so)."""

        self.calls: list[Call] = []
        self.messages: dict[str, dict[str, dict]] = {}
        self.ephemeral: list[dict] = []
        self.responses: list[ResponseUrlPost] = []
        self.views: dict[str, dict] = {}
        self.published_views: list[dict] = []  # every view views.publish accepted, in order
        self.opened_views: list[dict] = []  # every modal views.open accepted, in order
        self.used_triggers: set[str] = set()
        self.issued_triggers: dict[str, float] = {}  # trigger_id -> the fake's clock when a builder issued it
        self.files: dict[str, dict] = {}  # file id -> {"name", "title", "alt_txt", "data", "channels", ...}
        self._file_counter = itertools.count(1)
        self.shared_files: dict[str, bytes] = {}  # file id -> bytes served at url_private_download (share_file)
        self.file_downloads: list[tuple[str, str | None]] = []  # (path, bearer token) of each download, in order
        self.users: dict[str, dict] = {}
        self.channels: dict[str, dict] = {}

        self.socket_connections: list[SocketConnection] = []
        self.socket_acks: list[dict] = []
        self.envelopes_sent: list[dict] = []
        self._pending_acks: dict[str, asyncio.Future] = {}
        self._tickets: set[str] = set()
        self._conn_ids = itertools.count(1)

        self._ts_counter = itertools.count(0)
        self._ts_base = 1_700_000_000_000_100  # microseconds -> "1700000000.000100"
        self._last_wall_ts = 0
        self._response_urls: dict[str, _ResponseUrl] = {}
        self._failures: list[_Failure] = []
        self._block_id_counter = itertools.count(1)
        self._view_counter = itertools.count(1)

        # rate limiting (off by default)
        self.rate_limits_enabled = False
        self._per_channel_interval: float | None = None
        self._workspace_per_minute: int | None = None
        self._workspace_methods: frozenset[str] = frozenset({"chat.postMessage"})
        self._retry_after_override: int | None = None
        self._channel_last_post: dict[str, float] = {}
        self._workspace_window: deque[float] = deque()

        self._runner: web.AppRunner | None = None
        self.port: int | None = None

        self._seed()

    # ---------------- lifecycle ----------------

    async def start(self) -> FakeSlack:
        app = web.Application()
        app.on_response_prepare.append(self._stamp_date)
        app.router.add_route("*", "/api/{method}", self._handle_api)
        app.router.add_post("/response/{rid}", self._handle_response_url)
        app.router.add_get("/link/", self._handle_socket)
        app.router.add_post("/upload/v1/{file_id}", self._handle_upload)
        app.router.add_get("/files-pri/{file_id}/{name}", self._handle_private_file)
        self._runner = web.AppRunner(app, shutdown_timeout=1.0, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def _stamp_date(self, _request: web.Request, response: web.StreamResponse) -> None:
        """Every response carries the fake's own time in `Date`, as Slack's do (skewed by `clock_skew`)."""
        response.headers["Date"] = formatdate(time.time() + self.clock_skew, usegmt=True)

    async def stop(self) -> None:
        for fut in self._pending_acks.values():
            if not fut.done():
                fut.cancel()
        self._pending_acks.clear()
        for conn in self.socket_connections:
            if not conn.ws.closed:
                try:
                    await asyncio.wait_for(conn.ws.close(code=WSCloseCode.GOING_AWAY), 1.0)
                except Exception:
                    pass
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeSlack:
        return await self.start()

    async def __aexit__(self, *exc: Any) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise RuntimeError("FakeSlack not started")
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_url(self) -> str:
        """Pass as ``AsyncWebClient(base_url=...)``; ends with ``/api/``."""
        return f"{self.base_url}/api/"

    def web_client(self, token: str | None = None, **kwargs: Any):
        """An ``AsyncWebClient`` pointed at the fake (bot token by default)."""
        from slack_sdk.web.async_client import AsyncWebClient

        client = AsyncWebClient(token=token or self.bot_token, base_url=self.api_url, **kwargs)
        if kwargs.get("proxy") is None:
            client.proxy = None  # the SDK would otherwise pick up HTTP(S)_PROXY env vars
        return client

    def socket_mode_handler(self, app: Any, *, app_token: str | None = None, **kwargs: Any):
        """An ``AsyncSocketModeHandler`` for ``app`` that reaches this fake.

        apps.connections.open goes through ``app.client`` (so ``app.client``
        must already use ``fake.api_url``) unless ``web_client=`` is given.
        Must be called inside a running event loop (the SDK client creates an
        aiohttp session and a task in ``__init__``).  Forces ``proxy=None``
        because the SDK reads HTTPS_PROXY/HTTP_PROXY from the environment.
        """
        from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

        handler = AsyncSocketModeHandler(app, app_token=app_token or self.app_token, **kwargs)
        handler.client.proxy = None
        return handler

    # ---------------- directory ----------------

    def _seed(self) -> None:
        self.add_user(
            self.bot_user_id,
            self.bot_name,
            is_bot=True,
            real_name="Quiz Bot",
            tz="America/Los_Angeles",
            tz_offset=-28800,
        )
        self.users[self.bot_user_id]["profile"]["bot_id"] = self.bot_id
        self.add_user(
            "U0ADMIN",
            "admin",
            is_admin=True,
            is_owner=True,
            is_primary_owner=True,
            real_name="Ada Admin",
            tz="America/New_York",
            tz_offset=-18000,
        )
        self.add_user("U0ALICE", "alice", real_name="Alice Liddell", tz="Europe/London", tz_offset=0)
        self.add_user("U0BOB", "bob", real_name="Bob Builder", tz="Asia/Tokyo", tz_offset=32400)
        self.add_user("U0CAROL", "carol", real_name="Carol Danvers", tz="America/Los_Angeles", tz_offset=-28800)
        self.add_channel("C0001", "general")
        self.add_channel("C0002", "quiz")
        self.add_channel("C0003", "random")
        self.add_channel("C0NOBOT", "no-bot", is_member=False)
        self.add_channel("C0ARCHIVED", "old-quiz", is_archived=True)
        self.add_channel("G0PRIVATE", "secret", is_private=True)

    def add_user(
        self,
        user_id: str,
        name: str,
        *,
        is_admin: bool = False,
        is_owner: bool = False,
        is_primary_owner: bool = False,
        is_bot: bool = False,
        deleted: bool = False,
        real_name: str | None = None,
        tz: str = "UTC",
        tz_offset: int = 0,
        tz_label: str | None = None,
        join_channels: bool = True,
    ) -> dict:
        real_name = real_name or name.title()
        user = {
            "id": user_id,
            "team_id": self.team_id,
            "name": name,
            "deleted": deleted,
            "real_name": real_name,
            "tz": tz,
            "tz_label": tz_label or tz,
            "tz_offset": tz_offset,
            "is_admin": is_admin,
            "is_owner": is_owner,
            "is_primary_owner": is_primary_owner,
            "is_restricted": False,
            "is_ultra_restricted": False,
            "is_bot": is_bot,
            "is_app_user": False,
            "updated": 1700000000,
            "profile": {
                "real_name": real_name,
                "display_name": name,
                "real_name_normalized": real_name,
                "display_name_normalized": name,
                "team": self.team_id,
            },
        }
        self.users[user_id] = user
        if join_channels:
            for ch in self.channels.values():
                if not ch["is_im"]:
                    ch["_members"].add(user_id)
        return user

    def add_channel(
        self,
        channel_id: str,
        name: str,
        *,
        is_private: bool = False,
        is_archived: bool = False,
        is_member: bool = True,
        members: Iterable[str] | None = None,
        is_im: bool = False,
        im_user: str | None = None,
    ) -> dict:
        """Add a channel.  ``is_member`` is the bot's membership: posting to a
        channel with ``is_member=False`` answers ``not_in_channel``."""
        member_set = set(members) if members is not None else set(self.users)
        if is_member:
            member_set.add(self.bot_user_id)
        else:
            member_set.discard(self.bot_user_id)
        ch = {
            "id": channel_id,
            "name": name,
            "is_channel": not is_private and not is_im,
            "is_group": is_private,
            "is_im": is_im,
            "is_private": is_private or is_im,
            "is_archived": is_archived,
            "is_general": name == "general",
            "is_member": is_member,
            "created": 1690000000,
            "creator": "U0ADMIN",
            "context_team_id": self.team_id,
            "topic": {"value": "", "creator": "", "last_set": 0},
            "purpose": {"value": "", "creator": "", "last_set": 0},
            "_members": member_set,
        }
        if is_im:
            ch["user"] = im_user
        self.channels[channel_id] = ch
        self.messages.setdefault(channel_id, {})
        return ch

    def _public_channel(self, ch: dict) -> dict:
        out = {k: v for k, v in ch.items() if not k.startswith("_")}
        if not ch["is_im"]:
            out["num_members"] = len(ch["_members"])
        return out

    def _resolve_channel(self, ref: Any) -> dict | None:
        """Channel id, ``#name``/``name`` or a user id (opens a DM)."""
        if not isinstance(ref, str) or not ref:
            return None
        if ref in self.channels:
            return self.channels[ref]
        name = ref[1:] if ref.startswith("#") else ref
        for ch in self.channels.values():
            if ch["name"] == name and not ch["is_im"]:
                return ch
        if ref in self.users:
            return self.open_dm(ref)
        return None

    def open_dm(self, user_id: str) -> dict:
        dm_id = "D" + user_id.lstrip("U")
        if dm_id not in self.channels:
            self.add_channel(dm_id, user_id, is_im=True, im_user=user_id, members=[user_id])
        return self.channels[dm_id]

    # ---------------- queries for tests ----------------

    def calls_to(self, method: str, *, ok: bool | None = None) -> list[Call]:
        """Calls to ``method`` (optionally only successful / only failed ones)."""
        return [c for c in self.calls if c.method == method and (ok is None or c.ok == ok)]

    async def wait_for_calls(
        self,
        method: str,
        count: int = 1,
        *,
        timeout: float = WAIT,
        ok: bool | None = None,
        where: Callable[[Call], bool] | None = None,
    ) -> list[Call]:
        """Wait until at least ``count`` matching calls were recorded; return them."""

        def matching() -> list[Call]:
            return [c for c in self.calls_to(method, ok=ok) if where is None or where(c)]

        await poll_until(lambda: len(matching()) >= count, timeout=timeout, message=f"{count} call(s) to {method}")
        return matching()

    async def wait_for_response(self, count: int = 1, *, timeout: float = WAIT) -> list[ResponseUrlPost]:
        await poll_until(lambda: len(self.responses) >= count, timeout=timeout, message=f"{count} response_url post(s)")
        return list(self.responses)

    def message(self, channel: str, ts: str) -> dict | None:
        """The *current* version of a stored message."""
        return self.messages.get(channel, {}).get(ts)

    def messages_in(self, channel: str) -> list[dict]:
        return list(self.messages.get(channel, {}).values())

    def last_message(self, channel: str | None = None) -> dict | None:
        if channel is not None:
            msgs = self.messages_in(channel)
            return msgs[-1] if msgs else None
        best = None
        for msgs in self.messages.values():
            for m in msgs.values():
                if best is None or m["ts"] > best["ts"]:
                    best = m
        return best

    def channel_of(self, ts: str) -> str | None:
        for ch, msgs in self.messages.items():
            if ts in msgs:
                return ch
        return None

    def reset(self) -> None:
        """Forget recorded calls/responses/acks (keeps messages and directory)."""
        self.calls.clear()
        self.responses.clear()
        self.socket_acks.clear()
        self.envelopes_sent.clear()

    def inject_message(
        self,
        channel: str,
        text: str,
        *,
        user: str = "U0ALICE",
        blocks: list | None = None,
        thread_ts: str | None = None,
    ) -> dict:
        """Store a message as if a human had posted it (no call recorded)."""
        msg = {"type": "message", "user": user, "text": text, "ts": self._next_ts(), "team": self.team_id}
        if blocks is not None:
            msg["blocks"] = blocks
        if thread_ts:
            msg["thread_ts"] = thread_ts
        self.messages.setdefault(channel, {})[msg["ts"]] = msg
        return msg

    # ---------------- failure injection / rate limits ----------------

    def fail_next(
        self,
        method: str,
        error: str | None = None,
        *,
        status: int = 200,
        retry_after: int | None = None,
        times: int = 1,
        match: Callable[[dict], bool] | None = None,
        extra: dict | None = None,
    ) -> None:
        """Make the next ``times`` calls to ``method`` fail.

        * ``fail_next("chat.postMessage", "channel_not_found")`` -> 200 ok:false
        * ``fail_next("chat.postMessage", status=429, retry_after=1)`` -> 429 ratelimited
        * ``fail_next("chat.postMessage", status=500)`` -> 500 ok:false internal_error
        ``match(args)`` restricts which calls are hit (e.g. a given channel).
        Injected failures apply after authentication and before rate limits.
        """
        if error is None:
            error = {429: "ratelimited"}.get(status, "internal_error" if status >= 500 else "fatal_error")
        if status == 429 and retry_after is None:
            retry_after = 1
        self._failures.append(_Failure(method, error, status, retry_after, times, match, extra or {}))

    def clear_failures(self) -> None:
        self._failures.clear()

    def enable_rate_limits(
        self,
        *,
        per_channel_per_second: float | None = 1.0,
        workspace_per_minute: int | None = None,
        workspace_methods: Iterable[str] = ("chat.postMessage",),
        retry_after: int | None = None,
    ) -> None:
        """Enforce chat.postMessage limits.

        ``per_channel_per_second``: max posts per channel per second (Slack: ~1).
        ``workspace_per_minute``: cap over a sliding 60 s window for
        ``workspace_methods`` across all channels.
        ``retry_after`` forces the Retry-After value (integer seconds); by
        default it is the ceiling of the time until the next slot (>= 1).
        Rate-limited requests are recorded (status 429) but don't consume quota.
        """
        self.rate_limits_enabled = True
        self._per_channel_interval = 1.0 / per_channel_per_second if per_channel_per_second else None
        self._workspace_per_minute = workspace_per_minute
        self._workspace_methods = frozenset(workspace_methods)
        self._retry_after_override = retry_after
        self._channel_last_post.clear()
        self._workspace_window.clear()

    def disable_rate_limits(self) -> None:
        self.rate_limits_enabled = False

    def _check_rate_limit(self, method: str, args: dict) -> int | None:
        """Returns Retry-After seconds if the call must be rejected, else records it."""
        if not self.rate_limits_enabled:
            return None
        now = self.clock()
        waits: list[float] = []
        ch_key = None
        if method == "chat.postMessage" and self._per_channel_interval:
            ch = self._resolve_channel(args.get("channel"))
            ch_key = ch["id"] if ch else str(args.get("channel"))
            last = self._channel_last_post.get(ch_key)
            if last is not None and now - last < self._per_channel_interval:
                waits.append(self._per_channel_interval - (now - last))
        if self._workspace_per_minute is not None and method in self._workspace_methods:
            win = self._workspace_window
            while win and now - win[0] >= 60.0:
                win.popleft()
            if len(win) >= self._workspace_per_minute:
                waits.append(60.0 - (now - win[0]))
        if waits:
            if self._retry_after_override is not None:
                return self._retry_after_override
            return max(1, math.ceil(max(waits)))
        if ch_key is not None:
            self._channel_last_post[ch_key] = now
        if self._workspace_per_minute is not None and method in self._workspace_methods:
            self._workspace_window.append(now)
        return None

    def _take_failure(self, method: str, args: dict) -> _Failure | None:
        for f in self._failures:
            if f.method == method and (f.match is None or f.match(args)):
                f.remaining -= 1
                if f.remaining <= 0:
                    self._failures.remove(f)
                return f
        return None

    # ---------------- Web API ----------------

    def _next_ts(self) -> str:
        if self.wall_clock_ts:  # the fake's time, each later than the one before
            v = self._last_wall_ts = max(self._last_wall_ts + 100, int((time.time() + self.clock_skew) * 1_000_000))
        else:
            v = self._ts_base + 100 * next(self._ts_counter)
        return f"{v // 1_000_000}.{v % 1_000_000:06d}"

    @staticmethod
    async def _read_args(request: web.Request) -> dict:
        args: dict = dict(request.query.items())
        if request.method in ("POST", "PUT") and request.can_read_body:
            ctype = request.content_type
            if ctype == "application/json":
                raw = await request.text()
                if raw.strip():
                    try:
                        body = json.loads(raw)
                    except ValueError:
                        body = {}
                    if isinstance(body, dict):
                        args.update(body)
            else:
                form = await request.post()
                for k, v in form.items():
                    args[k] = v if isinstance(v, str) else getattr(v, "filename", str(v))
        for k in _JSON_FIELDS:
            if isinstance(args.get(k), str):
                try:
                    args[k] = json.loads(args[k])
                except ValueError:
                    pass
        return args

    async def _handle_api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        args = await self._read_args(request)
        token = None
        auth = request.headers.get("Authorization", "")
        if auth.lower().startswith("bearer "):
            token = auth[7:].strip()
        if "token" in args:
            body_token = args.pop("token")
            token = token or body_token
        call = Call(method=method, args=args, token=token, http_method=request.method, at=time.time())
        status, body, headers = await self._dispatch(method, args, token)
        call.status, call.response, call.headers = status, body, headers
        self.calls.append(call)
        if method == "chat.postMessage" and body.get("ok") and self.after_post is not None:
            await self.after_post(body["message"])
        return web.json_response(body, status=status, headers=headers)

    async def _dispatch(self, method: str, args: dict, token: str | None) -> tuple[int, dict, dict]:
        handler = getattr(self, "_api_" + method.replace(".", "_"), None)
        if handler is None:
            return 200, {"ok": False, "error": "unknown_method", "req_method": method}, {}
        if not token:
            return 200, {"ok": False, "error": "not_authed"}, {}
        kind = self.tokens.get(token)
        if kind is None:
            return 200, {"ok": False, "error": "invalid_auth"}, {}
        wanted = "app" if method in _APP_TOKEN_METHODS else "bot"
        if kind != wanted:
            return 200, {"ok": False, "error": "not_allowed_token_type"}, {}
        failure = self._take_failure(method, args)
        if failure is not None:
            headers = {}
            if failure.retry_after is not None:
                headers["Retry-After"] = str(int(failure.retry_after))
            return failure.status, {"ok": False, "error": failure.error, **failure.extra}, headers
        retry_after = self._check_rate_limit(method, args)
        if retry_after is not None:
            return 429, {"ok": False, "error": "ratelimited"}, {"Retry-After": str(retry_after)}
        result = handler(args)
        if asyncio.iscoroutine(result):
            result = await result
        # As Slack does, every answer to a bot token lists the scopes the app was granted (what `doctor --online` reads).
        return 200, result, ({"x-oauth-scopes": ",".join(sorted(self.scopes))} if kind == "bot" else {})

    @staticmethod
    def _err(error: str, **extra: Any) -> dict:
        return {"ok": False, "error": error, **extra}

    def _content_error(self, args: dict, *, require_text: bool = True) -> dict | None:
        has_content = any(args.get(k) not in (None, "", []) for k in ("text", "blocks", "attachments"))
        if require_text and not has_content:
            return self._err("no_text")
        if "blocks" in args and args["blocks"] not in (None, ""):
            if self.strict_blocks:
                errors = validate_blocks(args["blocks"])
                if errors:
                    return self._err(
                        "invalid_blocks",
                        errors=errors,
                        response_metadata={"messages": [f"[ERROR] {e}" for e in errors]},
                    )
            elif not isinstance(args["blocks"], list):
                return self._err("invalid_blocks_format")
        text = args.get("text")
        if isinstance(text, str) and len(text) > 40000:
            return self._err("msg_too_long")
        return None

    def _postable_channel(self, ref: Any) -> dict | tuple[None, dict]:
        ch = self._resolve_channel(ref)
        if ch is None:
            return None, self._err("channel_not_found")
        if ch["is_archived"]:
            return None, self._err("is_archived")
        if not ch["is_member"] and not ch["is_im"]:
            return None, self._err("not_in_channel")
        return ch

    def _with_block_ids(self, blocks: Any) -> Any:
        if not isinstance(blocks, list):
            return blocks
        out = []
        for block in blocks:
            if isinstance(block, dict) and "block_id" not in block:
                out.append({**block, "block_id": f"b{next(self._block_id_counter):05d}"})
            else:
                out.append(block)
        return out

    # auth / team / users / conversations -----------------------------------

    def _api_api_test(self, args: dict) -> dict:
        return {"ok": True, "args": args}

    def _api_auth_test(self, args: dict) -> dict:
        return {
            "ok": True,
            "url": f"https://{self.team_domain}.slack.com/",
            "team": self.team_name,
            "user": self.bot_name,
            "team_id": self.team_id,
            "user_id": self.bot_user_id,
            "bot_id": self.bot_id,
            "is_enterprise_install": False,
        }

    def _api_team_info(self, args: dict) -> dict:
        return {
            "ok": True,
            "team": {
                "id": self.team_id,
                "name": self.team_name,
                "domain": self.team_domain,
                "email_domain": "example.com",
                "url": f"https://{self.team_domain}.slack.com/",
                "icon": {"image_default": True},
                "is_verified": False,
            },
        }

    def _api_users_info(self, args: dict) -> dict:
        user = self.users.get(args.get("user") or "")
        if user is None:
            return self._err("user_not_found")
        return {"ok": True, "user": user}

    def _api_users_list(self, args: dict) -> dict:
        return {"ok": True, "members": list(self.users.values()), "response_metadata": {"next_cursor": ""}}

    def _api_conversations_info(self, args: dict) -> dict:
        ch = self.channels.get(args.get("channel") or "")
        if ch is None:
            return self._err("channel_not_found")
        return {"ok": True, "channel": self._public_channel(ch)}

    def _api_conversations_history(self, args: dict) -> dict:
        """A channel's messages, newest first, from `oldest` (exclusive) to `latest`; each message's metadata only
        with `include_all_metadata`. Needs the history scope of the channel's kind, and the bot in the channel."""
        ch = self.channels.get(args.get("channel") or "")
        if ch is None:
            return self._err("channel_not_found")
        needed = "im:history" if ch["is_im"] else "groups:history" if ch["is_private"] else "channels:history"
        if needed not in self.scopes:
            return self._err("missing_scope", needed=needed, provided=",".join(sorted(self.scopes)))
        if self.bot_user_id not in ch["_members"] and not ch["is_im"]:
            return self._err("not_in_channel")
        oldest = float(args.get("oldest") or 0)
        latest = float(args.get("latest") or math.inf)
        limit = max(1, min(int(args.get("limit") or 100), 999))
        newest_first = sorted(
            (m for ts, m in self.messages.get(ch["id"], {}).items() if oldest < float(ts) <= latest),
            key=lambda m: float(m["ts"]),
            reverse=True,
        )
        start = int(args.get("cursor") or 0)
        page = newest_first[start : start + limit]
        with_metadata = _truthy(args.get("include_all_metadata"))
        messages = [{k: v for k, v in m.items() if k != "metadata" or with_metadata} for m in page]
        more = start + limit < len(newest_first)
        return {
            "ok": True,
            "messages": messages,
            "has_more": more,
            "response_metadata": {"next_cursor": str(start + limit) if more else ""},
        }

    def _api_conversations_members(self, args: dict) -> dict:
        ch = self.channels.get(args.get("channel") or "")
        if ch is None:
            return self._err("channel_not_found")
        return {"ok": True, "members": sorted(ch["_members"]), "response_metadata": {"next_cursor": ""}}

    def _api_conversations_open(self, args: dict) -> dict:
        users = args.get("users") or ""
        if isinstance(users, list):
            users = ",".join(users)
        ids = [u for u in users.split(",") if u]
        if len(ids) != 1 or ids[0] not in self.users:
            return self._err("user_not_found")
        return {"ok": True, "channel": {"id": self.open_dm(ids[0])["id"]}}

    def _api_apps_connections_open(self, args: dict) -> dict:
        ticket = uuid.uuid4().hex
        self._tickets.add(ticket)
        return {"ok": True, "url": f"ws://127.0.0.1:{self.port}/link/?ticket={ticket}&app_id={self.app_id}"}

    # chat -------------------------------------------------------------------

    def _bot_message(self, args: dict, ts: str) -> dict:
        msg: dict = {
            "type": "message",
            "subtype": "bot_message",
            "text": args.get("text") or "",
            "user": self.bot_user_id,
            "bot_id": self.bot_id,
            "app_id": self.app_id,
            "team": self.team_id,
            "ts": ts,
            "bot_profile": {
                "id": self.bot_id,
                "app_id": self.app_id,
                "name": self.bot_name,
                "team_id": self.team_id,
                "deleted": False,
            },
        }
        if args.get("blocks"):
            msg["blocks"] = self._with_block_ids(args["blocks"])
        if args.get("attachments"):
            msg["attachments"] = args["attachments"]
        if args.get("metadata"):
            msg["metadata"] = args["metadata"]
        if args.get("thread_ts"):
            msg["thread_ts"] = args["thread_ts"]
        return msg

    def _api_chat_postMessage(self, args: dict) -> dict:
        res = self._postable_channel(args.get("channel"))
        if isinstance(res, tuple):
            return res[1]
        ch = res
        err = self._content_error(args)
        if err:
            return err
        thread_ts = args.get("thread_ts")
        if thread_ts and thread_ts not in self.messages.get(ch["id"], {}):
            return self._err("thread_not_found")
        ts = self._next_ts()
        msg = self._bot_message(args, ts)
        self.messages.setdefault(ch["id"], {})[ts] = msg
        if thread_ts:
            parent = self.messages[ch["id"]][thread_ts]
            parent["reply_count"] = parent.get("reply_count", 0) + 1
            parent.setdefault("thread_ts", thread_ts)
        return {"ok": True, "channel": ch["id"], "ts": ts, "message": dict(msg)}

    def _api_chat_postEphemeral(self, args: dict) -> dict:
        res = self._postable_channel(args.get("channel"))
        if isinstance(res, tuple):
            return res[1]
        ch = res
        user = args.get("user")
        if not user or user not in self.users:
            return self._err("user_not_found")
        if user not in ch["_members"]:
            return self._err("user_not_in_channel")
        err = self._content_error(args)
        if err:
            return err
        ts = self._next_ts()
        record = {
            "channel": ch["id"],
            "user": user,
            "message_ts": ts,
            "text": args.get("text") or "",
            "blocks": self._with_block_ids(args.get("blocks")) if args.get("blocks") else None,
            "attachments": args.get("attachments"),
            "thread_ts": args.get("thread_ts"),
            "source": "chat.postEphemeral",
        }
        self.ephemeral.append(record)
        return {"ok": True, "message_ts": ts}

    def _api_chat_update(self, args: dict) -> dict:
        ch = self._resolve_channel(args.get("channel"))
        if ch is None:
            return self._err("channel_not_found")
        ts = args.get("ts")
        msg = self.messages.get(ch["id"], {}).get(ts) if ts else None
        if msg is None:
            return self._err("message_not_found")
        if msg.get("user") != self.bot_user_id:
            return self._err("cant_update_message")
        if ch["is_archived"]:
            return self._err("is_archived")
        err = self._content_error(args)
        if err:
            return err
        if "text" in args and args["text"] is not None:
            msg["text"] = args["text"]
        if "blocks" in args and args["blocks"] is not None:
            if args["blocks"]:
                msg["blocks"] = self._with_block_ids(args["blocks"])
            else:
                msg.pop("blocks", None)
        if "attachments" in args and args["attachments"] is not None:
            msg["attachments"] = args["attachments"]
        if args.get("metadata"):
            msg["metadata"] = args["metadata"]
        msg["edited"] = {"user": self.bot_user_id, "ts": self._next_ts()}
        return {"ok": True, "channel": ch["id"], "ts": ts, "text": msg["text"], "message": dict(msg)}

    def _api_chat_delete(self, args: dict) -> dict:
        ch = self._resolve_channel(args.get("channel"))
        if ch is None:
            return self._err("channel_not_found")
        ts = args.get("ts")
        msgs = self.messages.get(ch["id"], {})
        if not ts or ts not in msgs:
            return self._err("message_not_found")
        if msgs[ts].get("user") != self.bot_user_id:
            return self._err("cant_delete_message")
        del msgs[ts]
        return {"ok": True, "channel": ch["id"], "ts": ts}

    def _api_chat_getPermalink(self, args: dict) -> dict:
        ch = self._resolve_channel(args.get("channel"))
        ts = args.get("message_ts") or ""
        if ch is None:
            return self._err("channel_not_found")
        if ts not in self.messages.get(ch["id"], {}):
            return self._err("message_not_found")
        return {
            "ok": True,
            "channel": ch["id"],
            "permalink": f"https://{self.team_domain}.slack.com/archives/{ch['id']}/p{ts.replace('.', '')}",
        }

    # views ------------------------------------------------------------------

    def _store_view(self, view: Any, *, view_id: str | None = None, user: str | None = None) -> dict | None:
        if not isinstance(view, dict) or view.get("type") not in ("modal", "home"):
            return None
        view_id = view_id or f"V{next(self._view_counter):04d}"
        stored = {
            **view,
            "id": view_id,
            "team_id": self.team_id,
            "app_id": self.app_id,
            "bot_id": self.bot_id,
            "hash": uuid.uuid4().hex[:12],
        }
        if "blocks" in stored:
            stored["blocks"] = self._with_block_ids(stored["blocks"])
        if user:
            stored["user"] = user
        self.views[view_id] = stored
        return stored

    def _api_views_open(self, args: dict) -> dict:
        """A modal opened with a trigger_id: each trigger opens one view, within 3 s of the click or command
        (``expired_trigger_id`` past that, by the fake's clock, for triggers it issued); the view is checked as
        Slack checks it (``validate_modal``)."""
        trigger_id = args.get("trigger_id")
        if not trigger_id:
            return self._err("invalid_arguments")
        if trigger_id in self.used_triggers:
            return self._err("invalid_trigger_id")
        issued = self.issued_triggers.get(trigger_id)
        if issued is not None and self.clock() - issued > 3.0:
            return self._err("expired_trigger_id")
        if self.strict_blocks:
            errors = validate_modal(args.get("view"))
            if errors:
                return self._err("invalid_arguments", response_metadata={"messages": errors})
        view = self._store_view(args.get("view"))
        if view is None:
            return self._err("invalid_arguments")
        self.used_triggers.add(trigger_id)
        view["opened_by_trigger"] = trigger_id
        self.opened_views.append(view)
        return {"ok": True, "view": view}

    def _api_views_update(self, args: dict) -> dict:
        view_id = args.get("view_id")
        if not view_id or view_id not in self.views:
            return self._err("not_found")
        view = self._store_view(args.get("view"), view_id=view_id)
        if view is None:
            return self._err("invalid_arguments")
        return {"ok": True, "view": view}

    def _api_views_publish(self, args: dict) -> dict:
        """A Home tab view: ``type: home``, at most 100 valid blocks (Block Kit's limits for views), for a known
        user. ``fail_next("views.publish", "not_enabled")`` stands for a workspace without the Home tab."""
        if args.get("user_id") not in self.users:
            return self._err("user_not_found")
        view = args.get("view")
        if not isinstance(view, dict) or view.get("type") != "home":
            return self._err("invalid_arguments", response_metadata={"messages": ["view.type must be home"]})
        errors = validate_blocks(view.get("blocks", []), max_blocks=100)
        if errors:
            return self._err("invalid_arguments", response_metadata={"messages": errors})
        stored = self._store_view(view, view_id=f"VHOME{args['user_id']}", user=args["user_id"])
        assert stored is not None
        self.published_views.append(stored)
        return {"ok": True, "view": stored}

    # files (files_upload_v2: getUploadURLExternal, POST the bytes, completeUploadExternal) -----------------

    def _api_files_getUploadURLExternal(self, args: dict) -> dict:
        filename, length = args.get("filename"), args.get("length")
        if not filename:
            return self._err("invalid_arguments", response_metadata={"messages": ["filename is required"]})
        try:
            size = int(length)
        except (TypeError, ValueError):
            return self._err("invalid_arguments", response_metadata={"messages": ["length must be an integer"]})
        alt = args.get("alt_txt")
        if alt is not None and len(str(alt)) > 1000:
            return self._err("invalid_arguments", response_metadata={"messages": ["alt_txt is too long"]})
        file_id = f"F{next(self._file_counter):06d}"
        self.files[file_id] = {
            "id": file_id,
            "name": filename,
            "title": filename,
            "alt_txt": alt,
            "length": size,
            "data": None,
            "channels": [],
            "completed": False,
        }
        return {"ok": True, "upload_url": f"{self.base_url}/upload/v1/{file_id}", "file_id": file_id}

    async def _handle_upload(self, request: web.Request) -> web.Response:
        """The upload URL: the raw bytes of one file (as slack_sdk posts them); 404 for an unknown file id."""
        record = self.files.get(request.match_info["file_id"])
        if record is None:
            return web.Response(status=404, text="unknown file")
        data = await request.read()
        if record["length"] != len(data):
            return web.Response(status=400, text="length does not match")
        record["data"] = data
        return web.Response(status=200, text="OK - " + str(len(data)))

    def _api_files_completeUploadExternal(self, args: dict) -> dict:
        files = args.get("files")
        if isinstance(files, str):
            try:
                files = json.loads(files)
            except ValueError:
                files = None
        if not isinstance(files, list) or not files:
            return self._err("invalid_arguments", response_metadata={"messages": ["files must be a JSON array"]})
        channel = None
        if args.get("channel_id"):
            res = self._postable_channel(args["channel_id"])
            if isinstance(res, tuple):
                return res[1]
            channel = res
        done = []
        for item in files:
            record = self.files.get(item.get("id")) if isinstance(item, dict) else None
            if record is None or record["data"] is None:
                return self._err("file_not_found")
            record["title"] = item.get("title") or record["name"]
            record["completed"] = True
            if channel is not None:
                record["channels"].append(channel["id"])
            done.append({k: v for k, v in record.items() if k != "data"})
        if channel is not None:
            ts = self._next_ts()
            msg = self._bot_message({"text": args.get("initial_comment") or ""}, ts)
            msg["files"] = [{"id": f["id"], "name": f["name"], "title": f["title"]} for f in done]
            self.messages.setdefault(channel["id"], {})[ts] = msg
        return {"ok": True, "files": done}

    def share_file(self, name: str, data: bytes, *, size: int | None = None) -> dict:
        """A file a person shared, as a message event's `files` item describes it; its bytes are served at its
        `url_private_download` (on this fake, to the bot token only). `size` overrides what the event says."""
        file_id = f"F{next(self._file_counter):08d}"
        self.shared_files[file_id] = data
        url = f"{self.base_url}/files-pri/{file_id}/{name}"
        return {
            "id": file_id,
            "name": name,
            "title": name,
            "mimetype": "application/octet-stream",
            "filetype": name.rsplit(".", 1)[-1],
            "size": len(data) if size is None else size,
            "url_private": url,
            "url_private_download": url,
        }

    async def _handle_private_file(self, request: web.Request) -> web.StreamResponse:
        """A shared file's bytes, for the bot token only (Slack answers others with a redirect to its sign-in)."""
        auth = request.headers.get("Authorization", "")
        token = auth[7:].strip() if auth.lower().startswith("bearer ") else None
        self.file_downloads.append((request.path, token))
        if token != self.bot_token:
            return web.Response(status=302, headers={"Location": f"{self.base_url}/signin"})
        data = self.shared_files.get(request.match_info["file_id"])
        if data is None:
            return web.Response(status=404, text="file_not_found")
        return web.Response(body=data, content_type="application/octet-stream")

    def uploaded_files(self, channel: str | None = None) -> list[dict]:
        """Completed uploads (with their bytes under ``data``), optionally only those shared in ``channel``."""
        return [f for f in self.files.values() if f["completed"] and (channel is None or channel in f["channels"])]

    # ---------------- response_url ----------------

    def new_response_url(
        self,
        *,
        channel_id: str | None = None,
        message_ts: str | None = None,
        user_id: str | None = None,
    ) -> str:
        """A loopback response_url.  When bound to ``channel_id``+``message_ts``,
        ``replace_original``/``delete_original`` act on that stored message and
        ``response_type: in_channel`` posts a new message to ``channel_id``."""
        rid = uuid.uuid4().hex[:16]
        self._response_urls[rid] = _ResponseUrl(rid, channel_id, message_ts, user_id)
        return f"{self.base_url}/response/{rid}"

    async def _handle_response_url(self, request: web.Request) -> web.Response:
        rid = request.match_info["rid"]
        raw = await request.text()
        body: dict
        try:
            body = json.loads(raw) if raw.strip() else {}
        except ValueError:
            form = await request.post()
            body = json.loads(form["payload"]) if "payload" in form else dict(form)
        if not isinstance(body, dict):
            body = {}
        binding = self._response_urls.get(rid)
        rec = ResponseUrlPost(
            response_id=rid,
            body=body,
            status=200,
            at=time.time(),
            channel_id=binding.channel_id if binding else None,
            message_ts=binding.message_ts if binding else None,
            user_id=binding.user_id if binding else None,
            peer=request.transport.get_extra_info("peername") if request.transport else None,
        )
        if binding is not None:
            binding.uses += 1
            if self.response_url_max_uses is not None and binding.uses > self.response_url_max_uses:
                rec.status = 404
                self.responses.append(rec)
                return web.Response(status=404, text="used_url")
            # Like an incoming webhook, a response_url refuses over-limit content with a 400 and the error as text.
            refused = self._content_error(body, require_text=False)
            if refused is not None:
                rec.status = 400
                self.responses.append(rec)
                return web.Response(status=400, text=str(refused["error"]))
            self._apply_response(binding, body)
        self.responses.append(rec)
        return web.json_response({"ok": True})

    def _apply_response(self, b: _ResponseUrl, body: dict) -> None:
        msgs = self.messages.get(b.channel_id or "", {})
        if _truthy(body.get("delete_original")):
            if b.message_ts in msgs:
                del msgs[b.message_ts]
            return
        if _truthy(body.get("replace_original")) and b.message_ts in msgs:
            msg = msgs[b.message_ts]
            msg["text"] = body.get("text", "")
            if body.get("blocks"):
                msg["blocks"] = self._with_block_ids(body["blocks"])
            else:
                msg.pop("blocks", None)
            if "attachments" in body:
                msg["attachments"] = body["attachments"]
            return
        if body.get("response_type") == "in_channel" and b.channel_id:
            ts = self._next_ts()
            self.messages.setdefault(b.channel_id, {})[ts] = self._bot_message(body, ts)
            return
        self.ephemeral.append(
            {
                "channel": b.channel_id,
                "user": b.user_id,
                "message_ts": self._next_ts(),
                "text": body.get("text", ""),
                "blocks": self._with_block_ids(body["blocks"]) if body.get("blocks") else None,
                "attachments": body.get("attachments"),
                "thread_ts": body.get("thread_ts"),
                "source": "response_url",
            }
        )

    # ---------------- bound builders ----------------

    def _user_name(self, user_id: str) -> str:
        u = self.users.get(user_id)
        return u["name"] if u else user_id.lower()

    def _channel_name(self, channel_id: str) -> str:
        ch = self.channels.get(channel_id)
        if ch is None:
            return channel_id
        return "directmessage" if ch["is_im"] else ("privategroup" if ch["is_private"] else ch["name"])

    def slash_command_payload(
        self, text: str = "", *, channel_id: str = "C0001", user_id: str = "U0ALICE", **kwargs: Any
    ) -> dict:
        """Like the module-level builder, but with this fake's team/app ids,
        real channel/user names and a live response_url."""
        kwargs.setdefault("team_id", self.team_id)
        kwargs.setdefault("team_domain", self.team_domain)
        kwargs.setdefault("api_app_id", self.app_id)
        kwargs.setdefault("channel_name", self._channel_name(channel_id))
        kwargs.setdefault("user_name", self._user_name(user_id))
        if "response_url" not in kwargs:
            kwargs["response_url"] = self.new_response_url(channel_id=channel_id, user_id=user_id)
        payload = slash_command_payload(text, channel_id=channel_id, user_id=user_id, **kwargs)
        self.issued_triggers[payload["trigger_id"]] = self.clock()
        return payload

    def slash_command_body(self, text: str = "", **kwargs: Any) -> str:
        return urlencode(self.slash_command_payload(text, **kwargs))

    def block_actions_payload(
        self,
        message: dict | str,
        action_id: str,
        *,
        user_id: str = "U0ALICE",
        channel_id: str | None = None,
        **kwargs: Any,
    ) -> dict:
        """A button click on a stored message.

        ``message`` is a message dict (anything with ``ts``) or a ts string;
        the *current* stored version is used, so clicks see chat.update edits.
        """
        ts = message if isinstance(message, str) else message["ts"]
        channel_id = channel_id or self.channel_of(ts)
        if channel_id is None:
            raise ValueError(f"no stored message with ts {ts}; pass channel_id")
        current = self.message(channel_id, ts)
        if current is None:
            if isinstance(message, dict):
                current = message
            else:
                raise ValueError(f"message {channel_id}/{ts} not found")
        kwargs.setdefault("team_id", self.team_id)
        kwargs.setdefault("team_domain", self.team_domain)
        kwargs.setdefault("api_app_id", self.app_id)
        kwargs.setdefault("channel_name", self._channel_name(channel_id))
        kwargs.setdefault("user_name", self._user_name(user_id))
        if "response_url" not in kwargs:
            kwargs["response_url"] = self.new_response_url(channel_id=channel_id, message_ts=ts, user_id=user_id)
        payload = block_actions_payload(
            message=json.loads(json.dumps(current)),
            action_id=action_id,
            user_id=user_id,
            channel_id=channel_id,
            **kwargs,
        )
        self.issued_triggers[payload["trigger_id"]] = self.clock()
        return payload

    def block_actions_body(self, message: dict | str, action_id: str, **kwargs: Any) -> str:
        return urlencode({"payload": json.dumps(self.block_actions_payload(message, action_id, **kwargs))})

    def view_submission_payload(
        self,
        view: dict | str,
        values: Mapping[str, str | None],
        *,
        user_id: str = "U0ALICE",
        team_id: str | None = None,
        callback_id: str | None = None,
        private_metadata: str | None = None,
    ) -> dict:
        """A ``view_submission`` of an opened modal (a view dict or its id), with ``values`` typed into its input
        blocks by block_id (None: left empty). Slack sends the whole view with ``state.values`` as
        ``{block_id: {action_id: {"type": ..., "value": ...}}}``, and no channel or response_url.
        ``callback_id`` / ``private_metadata`` override the view's (a forged or stale submission)."""
        stored = self.views[view if isinstance(view, str) else view["id"]]
        state: dict[str, dict] = {}
        for block in stored.get("blocks") or []:
            if block.get("type") != "input":
                continue
            element = block["element"]
            typed = values.get(block["block_id"])
            state[block["block_id"]] = {element["action_id"]: {"type": element["type"], "value": typed}}
        unknown = set(values) - set(state)
        if unknown:
            raise ValueError(f"the view has no input block {sorted(unknown)}")
        submitted = {**json.loads(json.dumps(stored)), "state": {"values": state}}
        if callback_id is not None:
            submitted["callback_id"] = callback_id
        if private_metadata is not None:
            submitted["private_metadata"] = private_metadata
        team = team_id or self.team_id
        name = self._user_name(user_id)
        trigger = _trigger_id()
        self.issued_triggers[trigger] = self.clock()
        return {
            "type": "view_submission",
            "team": {"id": team, "domain": self.team_domain},
            "user": {"id": user_id, "username": name, "name": name, "team_id": team},
            "api_app_id": self.app_id,
            "token": VERIFICATION_TOKEN,
            "trigger_id": trigger,
            "view": submitted,
            "response_urls": [],
            "enterprise": None,
            "is_enterprise_install": False,
        }

    def view_submission_body(self, view: dict | str, values: Mapping[str, str | None], **kwargs: Any) -> str:
        """A view_submission form-encoded as ``payload=<JSON>`` (HTTP mode)."""
        return urlencode({"payload": json.dumps(self.view_submission_payload(view, values, **kwargs))})

    # ---------------- Socket Mode ----------------

    async def _handle_socket(self, request: web.Request) -> web.StreamResponse:
        ticket = request.query.get("ticket", "")
        if ticket not in self._tickets:
            return web.Response(status=401, text="invalid ticket")
        ws = web.WebSocketResponse(autoping=True)  # answers the SDK's pings with pongs
        await ws.prepare(request)
        conn = SocketConnection(next(self._conn_ids), ws, ticket, time.time())
        self.socket_connections.append(conn)
        await ws.send_json(
            {
                "type": "hello",
                "num_connections": len(self.open_socket_connections()),
                "debug_info": {
                    "host": "applink-fake-127.0.0.1",
                    "build_number": 1,
                    "approximate_connection_time": 18060,
                },
                "connection_info": {"app_id": self.app_id},
            }
        )
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                try:
                    data = json.loads(msg.data)
                except ValueError:
                    data = {"_raw": msg.data}
                conn.received.append(data)
                env_id = data.get("envelope_id") if isinstance(data, dict) else None
                if env_id:
                    self.socket_acks.append(data)
                    fut = self._pending_acks.pop(env_id, None)
                    if fut is not None and not fut.done():
                        fut.set_result(data)
        finally:
            conn.closed = True
        return ws

    def open_socket_connections(self) -> list[SocketConnection]:
        return [c for c in self.socket_connections if not c.closed and not c.ws.closed]

    async def wait_for_socket_client(self, timeout: float = WAIT, *, nth: int | None = None) -> SocketConnection:
        """Wait for an open Socket Mode connection (or for the ``nth`` connection
        ever made, 1-based, e.g. after a reconnect) and return it."""

        def ready() -> SocketConnection | None:
            if nth is not None:
                if len(self.socket_connections) >= nth:
                    c = self.socket_connections[nth - 1]
                    return c if not c.closed else None
                return None
            opened = self.open_socket_connections()
            return opened[-1] if opened else None

        return await poll_until(ready, timeout=timeout, message="a Socket Mode client connection")

    async def send_envelope_nowait(
        self,
        type: str,
        payload: dict,
        *,
        accepts_response_payload: bool | None = None,
        retry_attempt: int = 0,
        retry_reason: str = "",
        envelope_id: str | None = None,
        connection: SocketConnection | None = None,
        timeout: float = WAIT,
    ) -> str:
        """Send an envelope; return its envelope_id (see :meth:`wait_for_ack`)."""
        conn = connection or await self.wait_for_socket_client(timeout)
        if accepts_response_payload is None:
            accepts_response_payload = type == "slash_commands" or (
                type == "interactive" and payload.get("type") in ("view_submission", "block_suggestion", "view_closed")
            )
        env_id = envelope_id or str(uuid.uuid4())
        envelope = {
            "envelope_id": env_id,
            "type": type,
            "payload": payload,
            "accepts_response_payload": accepts_response_payload,
            "retry_attempt": retry_attempt,
            "retry_reason": retry_reason,
        }
        self._pending_acks[env_id] = asyncio.get_running_loop().create_future()
        self.envelopes_sent.append(envelope)
        await conn.ws.send_json(envelope)
        return env_id

    async def wait_for_ack(self, envelope_id: str, timeout: float = WAIT) -> dict:
        for ack in self.socket_acks:
            if ack.get("envelope_id") == envelope_id:
                return ack
        fut = self._pending_acks.get(envelope_id)
        if fut is None:
            raise KeyError(f"unknown envelope_id {envelope_id}")
        try:
            return await asyncio.wait_for(asyncio.shield(fut), timeout)
        except TimeoutError:
            raise AssertionError(f"no ack for envelope {envelope_id} within {timeout}s") from None

    async def send_envelope(self, type: str, payload: dict, *, timeout: float = WAIT, **kwargs: Any) -> dict:
        """Send an envelope over the newest open connection and return the
        client's ack ``{"envelope_id": ..., "payload"?: ...}``."""
        env_id = await self.send_envelope_nowait(type, payload, timeout=timeout, **kwargs)
        return await self.wait_for_ack(env_id, timeout)

    async def send_slash_command(self, text: str = "", *, timeout: float = WAIT, **kwargs: Any) -> dict:
        return await self.send_envelope("slash_commands", self.slash_command_payload(text, **kwargs), timeout=timeout)

    async def click(self, message: dict | str, action_id: str, *, timeout: float = WAIT, **kwargs: Any) -> dict:
        """Socket Mode button click on a stored message; returns the ack."""
        return await self.send_envelope(
            "interactive", self.block_actions_payload(message, action_id, **kwargs), timeout=timeout
        )

    async def send_event(self, event: dict, *, timeout: float = WAIT, **kwargs: Any) -> dict:
        kwargs.setdefault("team_id", self.team_id)
        kwargs.setdefault("api_app_id", self.app_id)
        return await self.send_envelope("events_api", event_callback_payload(event, **kwargs), timeout=timeout)

    async def disconnect_socket_clients(self, reason: str = "refresh_requested") -> None:
        """Ask clients to reconnect, like Slack does periodically (the SDK then
        calls apps.connections.open again and opens a new websocket)."""
        for conn in self.open_socket_connections():
            await conn.ws.send_json(
                {"type": "disconnect", "reason": reason, "debug_info": {"host": "applink-fake-127.0.0.1"}}
            )

    async def close_socket_clients(self, code: int = WSCloseCode.GOING_AWAY) -> None:
        """Abruptly close every websocket from the server side."""
        for conn in self.open_socket_connections():
            await conn.ws.close(code=code)


# --------------------------------------------------------------------------
# Serving a Bolt AsyncApp in HTTP mode on loopback
# --------------------------------------------------------------------------


class BoltHttpServer:
    """Serve a Bolt ``AsyncApp`` over HTTP on 127.0.0.1 (ephemeral port).

    ``use_web_app=True`` uses ``app.web_app(path=...)`` (Bolt's own aiohttp
    server; the Application it returns is cached per app, so it can only be
    served once); otherwise a tiny handler using
    ``slack_bolt.adapter.aiohttp.to_bolt_request/to_aiohttp_response``.
    """

    def __init__(
        self,
        app: Any,
        *,
        path: str = "/slack/events",
        signing_secret: str = SIGNING_SECRET,
        use_web_app: bool = False,
    ) -> None:
        self.app = app
        self.path = path
        self.signing_secret = signing_secret
        self.use_web_app = use_web_app
        self._runner: web.AppRunner | None = None
        self.port: int | None = None

    async def start(self) -> BoltHttpServer:
        if self.use_web_app:
            web_app = self.app.web_app(path=self.path)
        else:
            from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request

            async def handle(request: web.Request) -> web.Response:
                bolt_resp = await self.app.async_dispatch(await to_bolt_request(request))
                return await to_aiohttp_response(bolt_resp)

            web_app = web.Application()
            web_app.router.add_post(self.path, handle)
        self._runner = web.AppRunner(web_app, shutdown_timeout=1.0, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> BoltHttpServer:
        return await self.start()

    async def __aexit__(self, *exc: Any) -> None:
        await self.stop()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.path}"

    async def post(
        self,
        body: str,
        *,
        headers: Mapping[str, str] | None = None,
        sign: bool = True,
        age: float = 0,
        bad_signature: bool = False,
        timestamp: int | str | None = None,
        content_type: str | None = None,
        timeout: float = WAIT,
    ) -> tuple[int, str]:
        """POST ``body`` (signed unless ``sign=False``); returns ``(status, text)``."""
        import aiohttp

        if content_type is None:
            content_type = JSON_CONTENT_TYPE if body.lstrip().startswith("{") else FORM_CONTENT_TYPE
        hdrs: dict = {"Content-Type": content_type}
        if sign:
            hdrs.update(
                signed_headers(
                    self.signing_secret,
                    body,
                    timestamp=timestamp,
                    age=age,
                    bad_signature=bad_signature,
                    content_type=content_type,
                )
            )
        if headers:
            hdrs.update(headers)
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as session:
            async with session.post(self.url, data=body.encode("utf-8"), headers=hdrs) as resp:
                return resp.status, await resp.text()
