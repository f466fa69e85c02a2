"""Many signed clicks against `quizbot run` (Slack HTTP mode) as a child process, and what became of each one.

Used by the fault test (tests/e2e/slack/test_slack_kill.py: a few hundred clicks, SIGKILL midway) and by the
benchmarks (bench/kill_clicks.py: 8,000 clicks at 200 in flight; bench/click_memory.py: RSS under 20,000). This
process plays Slack: it serves the loopback fake Web API (where the private replies arrive) and signs each click.

What a click's ack says is read from the X-Quizbot-Answer response header (adapters/slack/listeners.py): the
answer's outcome once committed ("recorded", "already_answered", "closed"), "late" when the deadline came first,
"busy" when the intake cap refused it.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from sqlalchemy import select

from adapters.slack.blocks import parse_answer_action, parse_flag_action
from bot.db import Database
from bot.db.models import Answer, User
from tests.fakes.slack_api import SIGNING_SECRET, FakeSlack, signed_headers, slash_command_body

ROOT = Path(__file__).resolve().parent.parent
ANSWER_HEADER = "X-Quizbot-Answer"
COMMITTED = {"recorded", "already_answered", "closed"}
"""Acks sent only after the click's answer was committed."""
RETRY_WORDS = ("please click again", "try again")
"""A private reply containing one of these told the person to click again (busy, database down, restarting)."""
VERDICT_WORDS = ("Correct!", "Not quite.")
"""A private reply starting with one of these told the person their answer was recorded."""


def free_port() -> int:
    """A free loopback TCP port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_bytes(pid: int) -> int:
    """The resident set size of a process (Linux /proc)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


@dataclass
class Bot:
    """`quizbot run` as a child process, in Slack HTTP mode against the fake."""

    process: asyncio.subprocess.Process
    port: int
    log: Path

    @property
    def url(self) -> str:
        """The Slack events endpoint."""
        return f"http://127.0.0.1:{self.port}/slack/events"

    def log_text(self) -> str:
        """What the bot wrote to stderr so far."""
        return self.log.read_text(encoding="utf-8", errors="replace")

    async def metrics(self) -> str:
        """/metrics, served beside the Slack endpoint."""
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{self.port}/metrics") as response:
                return await response.text()


@asynccontextmanager
async def running_bot(
    fake: FakeSlack,
    database_url: str,
    workdir: Path,
    env: dict[str, str] | None = None,
    *,
    patient_acks: bool = False,
) -> AsyncIterator[Bot]:
    """Start `quizbot run` (Slack HTTP mode), wait for /healthz, stop it at the end (SIGTERM, unless it is dead).

    `patient_acks`: through tests/slack_child.py, whose clicks are acked only once committed, never late because
    the machine is slow (a test's choice; the benchmarks run the production deadline)."""
    port = free_port()
    child_env = {k: v for k, v in os.environ.items() if not k.startswith("QUIZBOT_") and "proxy" not in k.lower()}
    child_env.update(
        PYTHONPATH=str(ROOT),
        QUIZBOT_ADAPTERS="slack",
        QUIZBOT_DATABASE_URL=database_url,
        QUIZBOT_SLACK_BOT_TOKEN=fake.bot_token,
        QUIZBOT_SLACK_SIGNING_SECRET=SIGNING_SECRET,
        QUIZBOT_SLACK_API_URL=fake.api_url,
        QUIZBOT_SLACK_HOST="127.0.0.1",
        QUIZBOT_SLACK_PORT=str(port),
        QUIZBOT_LOG_LEVEL="WARNING",
        **(env or {}),
    )
    log = workdir / f"quizbot-{port}.log"
    with open(log, "wb") as stderr:  # noqa: ASYNC230 - the child writes it; this process reads it by name
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.slack_child" if patient_acks else "bot.cli",
            "run",
            env=child_env,
            cwd=str(workdir),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=stderr,
        )
    bot = Bot(process, port, log)
    try:
        await _wait_healthy(bot)
        yield bot
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), 60)
            except TimeoutError:
                process.kill()
                await process.wait()


async def _wait_healthy(bot: Bot, within: float = 120) -> None:
    deadline = time.monotonic() + within
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            if bot.process.returncode is not None:
                raise RuntimeError(f"quizbot run exited: {bot.log_text()[-2000:]}")
            try:
                async with session.get(f"http://127.0.0.1:{bot.port}/healthz") as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.05)
    raise RuntimeError("quizbot run never became healthy")


async def post_card(bot: Bot, fake: FakeSlack, channel_id: str = "C0001") -> dict[str, Any]:
    """A signed `/quiz now`; the card the bot posted."""
    before = len(fake.calls_to("chat.postMessage", ok=True))
    body = slash_command_body("now", team_id=fake.team_id, channel_id=channel_id, user_id="U0ALICE")
    headers = {"Content-Type": "application/x-www-form-urlencoded", **signed_headers(SIGNING_SECRET, body)}
    async with aiohttp.ClientSession() as session:
        async with session.post(bot.url, data=body.encode(), headers=headers) as response:
            assert response.status == 200, await response.text()
    calls = await fake.wait_for_calls("chat.postMessage", before + 1, ok=True, timeout=30)
    card = fake.message(calls[-1].response["channel"], calls[-1].response["ts"])
    assert card is not None
    return card


def buttons(card: dict[str, Any]) -> list[str]:
    """The action_ids of a card's answer buttons."""
    return [el["action_id"] for b in card["blocks"] if b["type"] == "actions" for el in b["elements"]]


async def post_cards(bot: Bot, fake: FakeSlack, count: int) -> list[dict[str, Any]]:
    """`count` cards in one channel, all open at once (like bench/slack_path.py)."""
    return [await post_card(bot, fake) for _ in range(count)]


@dataclass
class Click:
    """One click sent, and what came back."""

    user: str
    post_id: int
    action_id: str
    status: int | None = None
    acked_as: str | None = None
    seconds: float = 0.0

    @property
    def key(self) -> tuple[str, int]:
        """Who clicked which post: at most one answer is stored for it."""
        return (self.user, self.post_id)


@dataclass
class Storm:
    """The clicks of one run."""

    clicks: list[Click] = field(default_factory=list)
    elapsed: float = 0.0

    def acked(self, *kinds: str) -> list[Click]:
        """Clicks answered 200, optionally only those whose ack said one of `kinds`."""
        return [c for c in self.clicks if c.status == 200 and (not kinds or c.acked_as in kinds)]

    def kinds(self) -> Counter[str]:
        """How many clicks got each kind of answer (no_response: the connection failed or the bot died)."""
        return Counter(
            (c.acked_as or "200") if c.status == 200 else (f"http {c.status}" if c.status else "no_response")
            for c in self.clicks
        )


async def kill(bot: Bot) -> None:
    """SIGKILL the bot (an OOM kill, `docker kill`, a lost node) and reap it."""
    if bot.process.returncode is None:
        bot.process.send_signal(signal.SIGKILL)
    await bot.process.wait()


async def storm(
    bot: Bot,
    fake: FakeSlack,
    cards: list[dict[str, Any]],
    *,
    clicks: int,
    concurrency: int,
    first_user: int = 0,
    on_ack: Callable[[int], None] | None = None,
) -> Storm:
    """`clicks` clicks, `concurrency` in flight at any time: user n clicks every card in turn (a button picked
    by n), each user once per card; users are added to the fake so their private replies land there.

    `on_ack(n)` is called after the n-th 200; once the bot is dead the remaining clicks fail fast.
    """
    result = Storm()
    for n in range(clicks):
        card = cards[n % len(cards)]
        choices = buttons(card)
        user = f"U{first_user + n // len(cards):07d}"
        if n % len(cards) == 0:
            fake.add_user(user, f"user{first_user + n // len(cards)}")
        action_id = choices[(n // len(cards)) % len(choices)]
        parsed = parse_answer_action(action_id)
        assert parsed is not None
        result.clicks.append(Click(user, parsed[0], action_id))
    by_post = {parse_answer_action(buttons(card)[0])[0]: card for card in cards}  # type: ignore[index]
    queue = list(reversed(result.clicks))
    acks = 0
    timeout = aiohttp.ClientTimeout(total=30)
    connector = aiohttp.TCPConnector(limit=concurrency)

    async def worker(session: aiohttp.ClientSession) -> None:
        nonlocal acks
        while queue:
            click = queue.pop()
            body = fake.block_actions_body(
                by_post[click.post_id], click.action_id, user_id=click.user, user_name=click.user.lower()
            )
            headers = {"Content-Type": "application/x-www-form-urlencoded", **signed_headers(SIGNING_SECRET, body)}
            started = time.perf_counter()
            try:
                async with session.post(bot.url, data=body.encode(), headers=headers) as response:
                    await response.read()
                    click.status = response.status
                    click.acked_as = response.headers.get(ANSWER_HEADER)
            except (aiohttp.ClientError, TimeoutError, OSError):
                click.status = None
            click.seconds = time.perf_counter() - started
            if click.status == 200:
                acks += 1
                if on_ack is not None:
                    on_ack(acks)

    started = time.perf_counter()
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        await asyncio.gather(*(worker(session) for _ in range(concurrency)))
    result.elapsed = time.perf_counter() - started
    return result


@dataclass
class Audit:
    """What the clicks of a storm were promised, against what the database holds (by user and post)."""

    stored: dict[tuple[str, int], int]
    """(user, post) -> the choice index stored."""
    acked_committed_not_stored: list[tuple[str, int]]
    """Acked as committed (recorded, already answered, closed) but not in the database: must be empty."""
    acked_not_stored_not_told_retry: list[tuple[str, int]]
    """Any 200 (a late ack included) whose answer is not stored and who was not told to click again."""
    told_recorded_not_stored: list[tuple[str, int]]
    """Told "Correct!" / "Not quite." privately about a post, but nothing is stored for them there."""
    stored_not_acked: list[tuple[str, int]]
    """Stored, but the ack never came (the process died between commit and ack): Slack showed the click as failed,
    and clicking again tells them their first answer."""
    stored_wrongly: list[tuple[str, int]]
    """Stored with another choice than the one clicked, or for a click that was never sent."""


def _reply_post(reply: dict[str, Any]) -> int | None:
    """The post a private verdict is about (its "Report a problem" button carries it)."""
    for block in reply.get("blocks") or []:
        for element in block.get("elements") or []:
            post_id = parse_flag_action(str(element.get("action_id") or ""))
            if post_id is not None:
                return post_id
    return None


async def audit(result: Storm, fake: FakeSlack, database_url: str) -> Audit:
    """Compare the clicks with the database and with the private replies the fake received."""
    db = Database.from_url(database_url)
    try:
        async with db.transaction() as session:
            rows = await session.execute(
                select(User.external_id, Answer.post_id, Answer.choice_index).join(Answer, Answer.user_id == User.id)
            )
            stored = {(row[0], row[1]): row[2] for row in rows}
    finally:
        await db.dispose()
    verdicts: set[tuple[str, int]] = set()
    retries: Counter[str] = Counter()  # a "click again" reply does not say which post: counted per user
    for reply in fake.ephemeral:
        text = reply["text"]
        if text.startswith(VERDICT_WORDS):
            post_id = _reply_post(reply)
            if post_id is not None:
                verdicts.add((reply["user"], post_id))
        elif any(word in text.lower() for word in RETRY_WORDS):
            retries[reply["user"]] += 1
    sent = {c.key: c for c in result.clicks}
    unstored_acks = [c for c in result.acked() if c.key not in stored and c.acked_as != "busy"]
    untold: list[tuple[str, int]] = []
    for click in unstored_acks:
        if retries[click.user] > 0:
            retries[click.user] -= 1
        else:
            untold.append(click.key)

    def choice_of(action_id: str) -> int:
        parsed = parse_answer_action(action_id)
        assert parsed is not None
        return parsed[1]

    return Audit(
        stored=stored,
        acked_committed_not_stored=[c.key for c in result.acked(*COMMITTED) if c.key not in stored],
        acked_not_stored_not_told_retry=untold,
        told_recorded_not_stored=sorted(key for key in verdicts if key in sent and key not in stored),
        stored_not_acked=[key for key in stored if key in sent and sent[key].status != 200],
        stored_wrongly=[
            key for key, choice in stored.items() if key in sent and choice != choice_of(sent[key].action_id)
        ]
        + [key for key in stored if key not in sent and key[0][1:].isdigit()],
    )
