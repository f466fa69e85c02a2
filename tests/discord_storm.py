"""Many clicks on Discord answer buttons against the bot as a child process, and what became of each one.

Used by the Discord fault test (tests/e2e/discord/test_discord_kill.py: a few hundred clicks, SIGKILL midway) and
by the benchmarks (bench/discord_path.py: clicks at 200 in flight; bench/kill_clicks.py --platform discord: 8,000
clicks, SIGKILL midway). This process plays Discord: the loopback fake's gateway sends each click as an
INTERACTION_CREATE, and its REST API receives the interaction callback and, for a deferred click, the later edit
of the deferred response (`PATCH /webhooks/{app}/{token}/messages/@original`).

A click's fate is read from what the person would see: the interaction response (type 4, the verdict itself; type
5, a defer: "thinking...") and, after a defer, the deferred response once edited. Its final words are sorted by
`Outcome`.
"""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import sys
import time
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select

from bot.cli_commands import settle_heap
from bot.db import Database
from bot.db.models import Answer, User, Workspace
from tests.discord_support import ANSWER_ID, custom_ids
from tests.fakes.discord_api import FLAG_LOADING, FakeDiscord, InteractionCallback, patch_discord

if TYPE_CHECKING:
    from bot.runtime import Runtime

ROOT = Path(__file__).resolve().parent.parent
RETRY_WORDS = ("please click again", "try again")
"""Words of every reply that tells the person nothing was recorded and to click again (busy, database down,
restarting: bot/wording)."""
BUSY_WORDS = "is busy"


class Outcome(StrEnum):
    """What a click's final message told the person."""

    RECORDED = "recorded"
    """"Correct! ..." or "Not quite. ...": their answer is recorded."""
    ALREADY_ANSWERED = "already answered"
    CLOSED = "closed"
    BUSY = "busy"
    """Refused by the intake cap: nothing recorded, click again."""
    RETRY = "told to retry"
    """Not recorded (database unavailable, restarting): click again."""
    OTHER = "other reply"
    DEFERRED_UNFINISHED = "deferred, never edited"
    """Deferred ("thinking..."), and the edit never came: Discord shows the person the interaction failed."""
    NO_RESPONSE = "no response"
    """Sent, but no interaction response at all: Discord shows the person the interaction failed."""
    NOT_SENT = "not sent"
    """Never dispatched (the bot was gone before its turn)."""


def outcome_of(text: str) -> Outcome:
    """Sort the words of a final message."""
    if text.startswith(("Correct!", "Not quite.")):
        return Outcome.RECORDED
    if text.startswith("You already answered"):
        return Outcome.ALREADY_ANSWERED
    if text.startswith("This question is closed"):
        return Outcome.CLOSED
    lowered = text.lower()
    if BUSY_WORDS in lowered:
        return Outcome.BUSY
    if any(word in lowered for word in RETRY_WORDS):
        return Outcome.RETRY
    return Outcome.OTHER


def _embed_text(embeds: list[dict[str, Any]]) -> str:
    return "\n".join(p for e in embeds for p in (e.get("title") or "", e.get("description") or "") if p)


@dataclass
class DiscordClick:
    """One click sent, and what came back."""

    user: str
    post_id: int
    choice: int
    card: dict[str, Any]
    custom_id: str
    event: dict[str, Any] = field(default_factory=dict)
    """The INTERACTION_CREATE, built when the click is sent: its id is a snowflake of that moment, which the bot
    reads as the click's creation time (an event built early would arrive "late" and be deferred at once)."""
    sent_at: float | None = None
    response: InteractionCallback | None = None
    final_text: str | None = None
    finished_at: float | None = None

    @property
    def key(self) -> tuple[str, int]:
        """Who clicked which post: at most one answer is stored for it."""
        return (self.user, self.post_id)

    @property
    def interaction_id(self) -> str:
        return str(self.event.get("id", ""))

    @property
    def deferred(self) -> bool:
        """Acknowledged with a defer (type 5) rather than with the verdict itself."""
        return self.response is not None and self.response.type == 5

    @property
    def acknowledged(self) -> bool:
        """Discord got an interaction response: the verdict or a defer."""
        return self.response is not None and self.response.type in (4, 5)

    @property
    def outcome(self) -> Outcome:
        if self.sent_at is None:
            return Outcome.NOT_SENT
        if self.response is None:
            return Outcome.NO_RESPONSE
        if self.final_text is None:
            return Outcome.DEFERRED_UNFINISHED
        return outcome_of(self.final_text)

    @property
    def latency(self) -> float:
        """From the event leaving the gateway to the interaction response reaching the REST API."""
        assert self.response is not None and self.sent_at is not None
        return self.response.request.at - self.sent_at


class _NotifyingList(list[InteractionCallback]):
    """The fake's list of callbacks, waking whoever waits for a given interaction id."""

    def __init__(self) -> None:
        super().__init__()
        self.waiters: dict[str, asyncio.Future[InteractionCallback]] = {}

    def append(self, item: InteractionCallback) -> None:
        super().append(item)
        waiter = self.waiters.pop(item.interaction_id, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(item)


def notify_callbacks(fake: FakeDiscord) -> None:
    """Make the fake wake a storm's workers as callbacks arrive (call once, before the first storm)."""
    if not isinstance(fake.interaction_callbacks, _NotifyingList):
        fake.interaction_callbacks = _NotifyingList()


@dataclass
class DiscordStorm:
    """The clicks of one run."""

    clicks: list[DiscordClick] = field(default_factory=list)
    elapsed: float = 0.0

    def outcomes(self) -> Counter[Outcome]:
        return Counter(c.outcome for c in self.clicks)

    def acknowledged(self) -> list[DiscordClick]:
        return [c for c in self.clicks if c.acknowledged]

    def deferred(self) -> list[DiscordClick]:
        return [c for c in self.clicks if c.deferred]

    def latencies(self) -> list[float]:
        return [c.latency for c in self.clicks if c.response is not None and c.sent_at is not None]


def plan_clicks(cards: list[dict[str, Any]], clicks: int, *, first_user: int = 10**6) -> list[DiscordClick]:
    """`clicks` clicks: user n // len(cards) clicks every card in turn (a button picked by n), once per card."""
    planned = []
    for n in range(clicks):
        card = cards[n % len(cards)]
        buttons = custom_ids(card)
        user = first_user + n // len(cards)
        custom_id = buttons[(n * 7 + n // len(cards)) % len(buttons)]
        match = ANSWER_ID.fullmatch(custom_id)
        assert match is not None
        planned.append(DiscordClick(str(user), int(match.group(1)), int(match.group(2)), card, custom_id))
    return planned


async def storm(
    fake: FakeDiscord,
    planned: list[DiscordClick],
    *,
    concurrency: int,
    response_timeout: float = 30.0,
    on_response: Callable[[int], None] | None = None,
    gone: Callable[[], bool] = lambda: False,
) -> DiscordStorm:
    """Send the clicks, `concurrency` waiting for their interaction response at any time (a defer frees its
    worker: Discord's user has been answered). `on_response(n)` is called after the n-th response; once `gone()`
    (the bot is dead) no more clicks are sent and those waiting give up."""
    notify_callbacks(fake)
    callbacks = fake.interaction_callbacks
    assert isinstance(callbacks, _NotifyingList)
    result = DiscordStorm(clicks=planned)
    queue = list(reversed(planned))
    responses = 0
    loop = asyncio.get_running_loop()

    async def worker() -> None:
        nonlocal responses
        while queue and not gone():
            click = queue.pop()
            user = int(click.user)
            click.event = fake.component_interaction(click.card, click.custom_id, user_id=user, user_name=f"u{user}")
            waiter: asyncio.Future[InteractionCallback] = loop.create_future()
            callbacks.waiters[click.interaction_id] = waiter
            started = time.monotonic()
            try:
                await fake.dispatch("INTERACTION_CREATE", click.event, timeout=1.0)
            except (TimeoutError, ConnectionError, RuntimeError):  # no live gateway connection: the bot is gone
                callbacks.waiters.pop(click.interaction_id, None)
                click.event = {}
                continue
            click.sent_at = started
            deadline = started + response_timeout
            while not waiter.done() and not gone() and time.monotonic() < deadline:
                await asyncio.wait({waiter}, timeout=0.1)
            if not waiter.done():
                callbacks.waiters.pop(click.interaction_id, None)
                continue
            click.response = waiter.result()
            if click.response.type == 4:
                click.final_text = _embed_text(click.response.embeds)
                click.finished_at = click.response.request.at
            responses += 1
            if on_response is not None:
                on_response(responses)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    result.elapsed = time.perf_counter() - started
    return result


def settle(fake: FakeDiscord, result: DiscordStorm) -> None:
    """Note the interaction responses that reached the fake after their sender gave up waiting (the bot was killed
    meanwhile), and the deferred responses edited so far."""
    by_id = {c.interaction_id: c for c in fake.interaction_callbacks}
    for click in result.clicks:
        if click.sent_at is None or click.response is not None or click.interaction_id not in by_id:
            continue
        click.response = by_id[click.interaction_id]
        if click.response.type == 4:
            click.final_text = _embed_text(click.response.embeds)
            click.finished_at = click.response.request.at
    for click in result.deferred():
        if click.final_text is None:
            _read_deferred_edit(fake, click)


def _read_deferred_edit(fake: FakeDiscord, click: DiscordClick) -> bool:
    """Whether the deferred response of `click` was edited (its final text noted then)."""
    original = fake.original_response(click.interaction_id)
    if original is None or original.get("flags", 0) & FLAG_LOADING or not original.get("embeds"):
        return False
    click.final_text = _embed_text(original["embeds"])
    click.finished_at = time.monotonic()  # when seen (polled every 0.1 s)
    return True


async def follow_deferred(fake: FakeDiscord, result: DiscordStorm, *, timeout: float) -> list[DiscordClick]:
    """Wait (at most `timeout` seconds) until every deferred click's response was edited with its answer; the
    clicks still unfinished then."""
    pending = [c for c in result.deferred() if c.final_text is None]
    deadline = time.monotonic() + timeout
    while pending:
        pending = [c for c in pending if not _read_deferred_edit(fake, c)]
        if not pending or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.1)
    return pending


@dataclass
class DiscordAudit:
    """What the clicks were told against what the database holds (by user and post)."""

    stored: dict[tuple[str, int], int]
    """(user, post) -> the choice index stored (Discord answers only)."""
    stored_twice: list[tuple[str, int]]
    """More than one answer row for one (user, post): must be empty."""
    told_recorded_not_stored: list[tuple[str, int]]
    """Told "Correct!" / "Not quite." (directly or by the deferred edit), and nothing is stored: must be empty."""
    acknowledged_not_stored_not_told_retry: list[tuple[str, int]]
    """An interaction response (verdict or defer) was sent, nothing is stored, and the person was not told to
    click again: neither by our words (busy, not recorded) nor by Discord (a defer never edited shows the
    interaction failed). Must be empty."""
    stored_never_told: list[tuple[str, int]]
    """Stored, but the person saw no final message (no response, or a defer never edited): Discord showed the
    click as failed, and clicking again tells them their first answer."""
    stored_wrongly: list[tuple[str, int]]
    """Stored with another choice than the one clicked, or for a click that was never sent."""


async def stored_answers(database_url: str) -> tuple[dict[tuple[str, int], int], list[tuple[str, int]]]:
    """Every Discord answer as (user, post) -> choice, and the (user, post) pairs stored more than once."""
    db = Database.from_url(database_url)
    try:
        async with db.transaction() as session:
            rows = await session.execute(
                select(User.external_id, Answer.post_id, func.min(Answer.choice_index), func.count(Answer.id))
                .join(Answer, Answer.user_id == User.id)
                .join(Workspace, Workspace.id == Answer.workspace_id)
                .where(Workspace.platform == "discord")
                .group_by(User.external_id, Answer.post_id)
            )
            found = [(str(r[0]), int(r[1]), int(r[2]), int(r[3])) for r in rows]
    finally:
        await db.dispose()
    return {(u, p): c for u, p, c, _ in found}, [(u, p) for u, p, _, n in found if n > 1]


async def audit(result: DiscordStorm, database_url: str) -> DiscordAudit:
    """Compare each click's final words with the database."""
    stored, twice = await stored_answers(database_url)
    sent = {c.key: c for c in result.clicks if c.sent_at is not None}
    told_retry = {Outcome.BUSY, Outcome.RETRY, Outcome.DEFERRED_UNFINISHED}
    return DiscordAudit(
        stored=stored,
        stored_twice=twice,
        told_recorded_not_stored=[
            c.key for c in result.clicks if c.outcome is Outcome.RECORDED and c.key not in stored
        ],
        acknowledged_not_stored_not_told_retry=[
            c.key for c in result.acknowledged() if c.key not in stored and c.outcome not in told_retry
        ],
        stored_never_told=[
            key
            for key in stored
            if key in sent and sent[key].outcome in (Outcome.NO_RESPONSE, Outcome.DEFERRED_UNFINISHED)
        ],
        stored_wrongly=[key for key, choice in stored.items() if key in sent and choice != sent[key].choice]
        + [key for key in stored if key not in sent and key[0] in {c.user for c in result.clicks}],
    )


# --- the bot as a child process ---------------------------------------------------------------------------------


async def start_bot(
    fake: FakeDiscord, database_url: str, log: Path, *, env: dict[str, str] | None = None
) -> asyncio.subprocess.Process:
    """`python -m tests.discord_storm DB_URL API GW`: the bot as `quizbot run` serves it (bot.runtime.serve:
    supervised adapter, the scheduler, SIGTERM drains), with discord.py pointed at the fake; returns once the
    client is connected."""
    identified = len(fake.identifies)
    child_env = {k: v for k, v in os.environ.items() if not k.startswith("QUIZBOT_") and "proxy" not in k.lower()}
    child_env["PYTHONPATH"] = str(ROOT)
    with open(log, "wb") as stderr:  # noqa: ASYNC230 - the child writes it
        child = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.discord_storm",
            database_url,
            fake.api_base,
            fake.gateway_url,
            env={**child_env, **(env or {})},
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=stderr,
        )
    try:
        await fake.wait_for(
            lambda: len(fake.identifies) > identified or child.returncode is not None, timeout=60, what="identify"
        )
        if child.returncode is not None:
            raise RuntimeError(f"the bot exited: {log.read_bytes()[-2000:].decode(errors='replace')}")  # noqa: ASYNC240
        await fake.wait_until_connected(timeout=60)
        await asyncio.sleep(1.0)  # let the client finish its start-up (command check, ready)
    except BaseException:
        await stop_bot(child)
        raise
    return child


async def stop_bot(child: asyncio.subprocess.Process) -> None:
    """SIGTERM (unless it is dead already) and reap."""
    if child.returncode is None:
        child.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(child.wait(), 60)
    except TimeoutError:
        child.kill()
        await child.wait()


HOLD_ENV = "STORM_HOLD_USERS"
"""`A:B` in the child's environment (optional): the clicks of users A <= id < B wait before their commit until
the child gets SIGUSR1 (`release_held`), those of users >= B wait for ever; the others commit at once. Makes
"the kill catches clicks waiting for their commit" a fact the test sets up instead of a matter of timing."""


def release_held(child: asyncio.subprocess.Process) -> None:
    """Let the clicks held until SIGUSR1 (HOLD_ENV) go on to their commit."""
    child.send_signal(signal.SIGUSR1)


def _hold_clicks(stack: ExitStack, runtime: Runtime, spec: str) -> None:
    from tests.held_commits import held_commits

    first, never = (int(part) for part in spec.split(":"))

    def user_at_least(bound: int) -> Callable[[dict[str, Any]], bool]:
        return lambda click: int(click["user"].user_id) >= bound

    released = stack.enter_context(held_commits(runtime, only=user_at_least(first)))
    stack.enter_context(held_commits(runtime, only=user_at_least(never)))  # never released
    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, released.set)


async def _serve(database_url: str, api_base: str, gateway_url: str) -> None:
    from adapters.discord.adapter import DiscordAdapter
    from bot.config import Settings
    from bot.runtime import build_runtime, serve

    settings = Settings(database_url=database_url, discord_token="bench-token", _env_file=None)  # type: ignore[call-arg]
    gc.disable()  # start-up as `quizbot run` does it (bot.cli_commands.run_bot): collector off, then settle_heap
    runtime = await build_runtime(settings, migrate=False)
    settle_heap()
    with ExitStack() as stack, patch_discord(api_base, gateway_url):
        if os.environ.get(HOLD_ENV):
            _hold_clicks(stack, runtime, os.environ[HOLD_ENV])
        adapter = DiscordAdapter(runtime)
        adapter.client._connection.guild_ready_timeout = 0.05
        await serve(runtime, [adapter])


if __name__ == "__main__":
    import logging

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    asyncio.run(_serve(*sys.argv[1:4]))
