"""The crash window of a scheduled post, shared by the Slack and Discord fault tests: a schedule due at once, a
gate in the fake that holds the platform's answer to a card, and what the database says of the slot afterwards.

The fault: the platform has taken the card, and the bot is SIGKILLed before it hears so (before the message
reference is recorded). The process started next recovers the slot once its lease has run out; the channel must
show the question once.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy import select, update

from bot.clock import SystemClock
from bot.commands import AddSchedule
from bot.db import Database
from bot.db.models import Post, Schedule, ScheduleFire
from bot.domain import ChannelRef, UserRef
from bot.runtime import build_runtime
from bot.schedule_rules import parse_rule
from tests.conftest import patient_settings

FAST_SCHEDULER = {"QUIZBOT_SCHEDULE_TICK_SECONDS": "1", "QUIZBOT_SCHEDULE_LEASE_SECONDS": "10"}
"""A tick a second, and the shortest lease allowed: the restarted process recovers the slot ten seconds on."""


async def schedule_due_now(database_url: str, channel: ChannelRef) -> None:
    """A schedule in `channel` (daily, twelve hours from now) whose next fire has passed: the first tick of a bot
    claims it, and no other fire falls due while the test runs (an every-ten-minutes rule did when a run crossed a
    ten-minute mark between the crash and the restart: the slot after it fired too)."""
    later = datetime.now(UTC) + timedelta(hours=12)
    runtime = await build_runtime(
        patient_settings(database_url=database_url),
        clock=SystemClock(),
        rng=random.Random(1),
    )
    try:
        admin = UserRef(channel.platform, channel.workspace_id, "U0ADMIN", "admin")
        async with runtime.uow() as uow:
            await runtime.schedules.add(
                uow,
                AddSchedule(rule=parse_rule(f"{later.minute} {later.hour} * * *"), timezone="UTC"),
                channel=channel,
                user=admin,
            )
            await uow.commit()
    finally:
        await runtime.aclose()
    db = Database.from_url(database_url)
    try:
        async with db.transaction() as session:
            await session.execute(update(Schedule).values(next_fire_at=datetime.now(UTC) - timedelta(seconds=1)))
    finally:
        await db.dispose()


@dataclass
class HeldAnswer:
    """The fake's gate: `taken` is set once the platform has stored a card, whose answer waits for `release`."""

    taken: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)
    held: int = 0

    async def hold(self) -> None:
        """Signal the test, then hold the answer (only the first card's: later ones pass)."""
        if self.taken.is_set():
            return
        self.held += 1
        self.taken.set()
        await self.release.wait()


@dataclass(frozen=True)
class SlotOutcome:
    """The slot's fire row and its post's message reference."""

    status: str
    attempts: int
    message_ref: str | None


async def slot_outcome(database_url: str) -> SlotOutcome | None:
    """The one fire row's status and attempts, and its post's message reference (None: no fire yet)."""
    db = Database.from_url(database_url)
    try:
        async with db.transaction() as session:
            fire = (await session.execute(select(ScheduleFire))).scalars().one_or_none()
            if fire is None:
                return None
            ref = None
            if fire.post_id is not None:
                ref = (await session.execute(select(Post.message_ref).where(Post.id == fire.post_id))).scalar()
            return SlotOutcome(fire.status, fire.attempts, ref)
    finally:
        await db.dispose()


async def wait_until_posted(database_url: str, *, within: float = 90.0) -> SlotOutcome:
    """Poll until the slot is finished (posted, or given up); the outcome."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        outcome = await slot_outcome(database_url)
        if outcome is not None and outcome.status != "claimed":
            return outcome
        await asyncio.sleep(0.2)
    raise AssertionError(f"the slot was not finished within {within} s: {await slot_outcome(database_url)}")
