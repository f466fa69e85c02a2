"""Running the real Slack adapter against the loopback FakeSlack, and reading what it did.

async with running_adapter(runtime, fake, mode="http") as slack:
    status, _ = await slack.command("now data-parallelism")
    [post] = await fake.wait_for_calls("chat.postMessage")
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Literal

import aiohttp
import pytest
from pydantic import SecretStr

from adapters.slack import SlackAdapter
from adapters.slack.blocks import parse_answer_action
from bot.domain import Question
from bot.runtime import Runtime
from tests.fakes.slack_api import SIGNING_SECRET, FakeSlack, poll_until, signed_headers

WAIT = 30.0
"""How long (seconds) the harness waits for what a test expects (an ack, a card, a private reply, an idle adapter):
a bound that fails a hang, not a speed check (the fake's own default, 5 s, is short for a machine loaded by other
work). A test about a wait passes its own."""
PATIENT_ACK = 60.0
"""The ack deadline `running_adapter` gives an adapter whose test sets none (the setting's default is 2 s): a click
or a form is acked late where its test says so (a deadline of its own, a held commit), never because a loaded
machine took two seconds to commit it (the fake has no 3 s window). As tests/discord_support.py's `serving`."""
PROXY_VARS = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")


def without_proxies(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment minus proxy variables: slack_sdk reads them itself and would send loopback traffic away."""
    source = dict(os.environ if env is None else env)
    for name in PROXY_VARS:
        source.pop(name, None)
    return source


def clear_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    """Remove proxy variables for one test (see `without_proxies`)."""
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test: no proxy variables (see `without_proxies`)."""
    clear_proxies(monkeypatch)


@pytest.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    """A started loopback FakeSlack (modules that fake Discord define their own `fake`)."""
    slack = FakeSlack()
    await slack.start()
    try:
        yield slack
    finally:
        await asyncio.wait_for(slack.stop(), WAIT)


def slack_settings(runtime: Runtime, fake: FakeSlack, mode: Literal["http", "socket"], **extra: Any) -> None:
    """Point the runtime's settings at the fake: HTTP mode on a free loopback port, or Socket Mode."""
    update: dict[str, Any] = {
        "slack_bot_token": SecretStr(fake.bot_token),
        "slack_api_url": fake.api_url,
        "slack_host": "127.0.0.1",
        "slack_port": 0,
        "slack_signing_secret": SecretStr(SIGNING_SECRET) if mode == "http" else None,
        "slack_app_token": SecretStr(fake.app_token) if mode == "socket" else None,
        **extra,
    }
    runtime.settings = runtime.settings.model_copy(update=update)


@dataclass
class RunningSlack:
    """A started SlackAdapter and helpers that talk to it like Slack does."""

    adapter: SlackAdapter
    fake: FakeSlack
    runtime: Runtime

    @property
    def url(self) -> str:
        """The adapter's HTTP endpoint."""
        return f"http://127.0.0.1:{self.adapter.http_port}/slack/events"

    async def post(
        self,
        body: str,
        *,
        sign: bool = True,
        age: float = 0,
        bad_signature: bool = False,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, str]:
        """POST a body to the adapter as Slack would (signed unless `sign=False`)."""
        status, text, _ = await self.exchange(body, sign=sign, age=age, bad_signature=bad_signature, headers=headers)
        return status, text

    async def exchange(
        self,
        body: str,
        *,
        sign: bool = True,
        age: float = 0,
        bad_signature: bool = False,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, str, dict[str, str]]:
        """`post`, returning the response's headers too."""
        hdrs = {"Content-Type": "application/x-www-form-urlencoded"}
        if sign:
            hdrs.update(signed_headers(SIGNING_SECRET, body, age=age, bad_signature=bad_signature))
        hdrs.update(headers or {})
        timeout = aiohttp.ClientTimeout(total=WAIT)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            async with session.post(self.url, data=body.encode(), headers=hdrs) as response:
                return response.status, await response.text(), dict(response.headers)

    async def command(
        self, text: str, *, user_id: str = "U0ALICE", channel_id: str = "C0001", **kwargs: Any
    ) -> tuple[int, str]:
        """A signed `/quiz TEXT`."""
        headers = kwargs.pop("headers", None)
        body = self.fake.slash_command_body(text, user_id=user_id, channel_id=channel_id, **kwargs)
        return await self.post(body, headers=headers)

    async def click(self, message: dict[str, Any] | str, action_id: str, **kwargs: Any) -> tuple[int, str]:
        """A signed click on a button of a stored message."""
        headers = kwargs.pop("headers", None)
        return await self.post(self.fake.block_actions_body(message, action_id, **kwargs), headers=headers)

    async def idle(self) -> None:
        """Wait until every acked command and click has been worked through (Bolt runs them after the ack)."""
        await poll_until(
            lambda: self.adapter.listeners.in_flight == 0, timeout=WAIT, message="in-flight Slack requests"
        )

    async def posted_card(self, count: int = 1) -> dict[str, Any]:
        """The `count`-th card the bot posted (waiting for it), as currently stored by the fake."""
        calls = await self.fake.wait_for_calls("chat.postMessage", count, ok=True, timeout=WAIT)
        call = calls[count - 1]
        message = self.fake.message(call.response["channel"], call.response["ts"])
        assert message is not None
        return message

    async def ephemerals(self, count: int) -> list[dict[str, Any]]:
        """Wait for `count` private replies (chat.postEphemeral or response_url) and return them all."""
        await poll_until(
            lambda: len(self.fake.ephemeral) >= count, timeout=WAIT, message=f"{count} ephemeral message(s)"
        )
        return list(self.fake.ephemeral)


def answer_buttons(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The answer buttons of a card message."""
    return [el for block in message.get("blocks", []) if block["type"] == "actions" for el in block["elements"]]


def post_id_of(message: dict[str, Any]) -> int:
    """The post id a card's buttons carry."""
    parsed = parse_answer_action(answer_buttons(message)[0]["action_id"])
    assert parsed is not None
    return parsed[0]


def question_of(runtime: Runtime, message: dict[str, Any]) -> Question:
    """The pack question a card shows (found by its prompt)."""
    text = message["blocks"][0]["text"]["text"]
    for pack in runtime.catalog.packs:
        for question in pack.questions:
            if question.prompt.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") in text:
                return question
    raise AssertionError(f"no question matches {text!r}")


def choice_action(runtime: Runtime, message: dict[str, Any], *, correct: bool, nth: int = 0) -> str:
    """The action_id of the card's correct button, or of its `nth` wrong one."""
    question = question_of(runtime, message)
    matching = []
    for button in answer_buttons(message):
        parsed = parse_answer_action(button["action_id"])
        assert parsed is not None
        if (parsed[1] == question.correct_index) == correct:
            matching.append(button["action_id"])
    return matching[nth]


@contextlib.asynccontextmanager
async def running_adapter(
    runtime: Runtime, fake: FakeSlack, *, mode: Literal["http", "socket"] = "http", **settings: Any
) -> AsyncIterator[RunningSlack]:
    """Build the SlackAdapter from settings pointing at `fake`, run it, and stop it gracefully at the end.

    Without a `slack_ack_deadline` of the test's own, clicks and forms get `PATIENT_ACK`."""
    slack_settings(runtime, fake, mode, **settings)
    adapter = SlackAdapter(runtime)
    if "slack_ack_deadline" not in settings:
        adapter.listeners.ack_deadline = PATIENT_ACK
    task = asyncio.create_task(adapter.run(), name="slack-adapter")
    ready = asyncio.create_task(adapter.ready.wait())
    done, _ = await asyncio.wait({task, ready}, timeout=WAIT, return_when=asyncio.FIRST_COMPLETED)
    if ready not in done:
        ready.cancel()
        if task.done():
            task.result()  # raises what went wrong
        task.cancel()
        raise AssertionError("the Slack adapter did not become ready")
    try:
        yield RunningSlack(adapter=adapter, fake=fake, runtime=runtime)
    finally:
        runtime.stopping.set()
        await asyncio.wait_for(task, WAIT)
