"""What every part of the scheduler shares about a fire slot: its key, its status, a claim on it, a tick's report.

A fire slot is one (schedule, local slot) pair, e.g. schedule 12's `2026-01-05T09:00`. Its key is written as
`12:2026-01-05T09:00` in exactly one place, `FireKey.__str__` (and read back in one, `FireKey.parse`): it is the
`source_ref` of the slot's post and how a tick's report names the slot.
"""

from __future__ import annotations

import enum
import os
import secrets
import socket
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Protocol
from zoneinfo import ZoneInfo

from bot.db.models import Schedule
from bot.domain import ChannelRef, QuestionCard
from bot.domain.schedules import FireKey, Rule, Slot
from bot.schedule_rules import load_rule

LOGGER_NAME = "bot.scheduling.ticker"
"""Every part of the scheduler logs under the name the one-module ticker had, so operators' log filters keep working:
`log = logging.getLogger(LOGGER_NAME)`."""


class FireStatus(enum.StrEnum):
    """Where a fire slot stands."""

    CLAIMED = "claimed"
    POSTED = "posted"
    FAILED = "failed"
    SKIPPED = "skipped"


class Refused(Exception):
    """A send that retrying cannot fix (the platform refused for good, the pack is unknown): the slot fails."""


class LostClaim(Exception):
    """Another replica took the slot over (its lease ran out here): this one must not post it."""


class Stopping(Exception):
    """This replica is stopping: a slot it holds is handed back rather than tried (again) now."""


class HeldClaim(Protocol):
    """What the lifecycle (lifecycle.py, leases.py) needs of a claim, a channel's slot or a member's."""

    @property
    def fire_id(self) -> int:
        """The claim row."""
        ...

    @property
    def attempts(self) -> int:
        """The attempt this process holds (the fence of every update)."""
        ...

    @property
    def schedule_id(self) -> int:
        """The schedule the slot belongs to."""
        ...

    @property
    def slot(self) -> Slot:
        """The slot (its local key and the UTC instant it was due)."""
        ...

    @property
    def lane(self) -> ChannelRef:
        """Where it is sent: its platform, and its lane in the fan-out limiter."""
        ...

    @property
    def name(self) -> str:
        """How reports and logs name the slot."""
        ...

    @property
    def extra(self) -> dict[str, object]:
        """The `extra=` of a log line about it."""
        ...


class PostedFire(Protocol):
    """What the lifecycle needs of a posted question: its card (for the post's id)."""

    @property
    def card(self) -> QuestionCard:
        """The card that was posted."""
        ...


@dataclass(frozen=True, slots=True)
class Claim:
    """A fire slot this process owns (until its lease expires) and must post. Build it with `Claim.of`."""

    fire_id: int
    attempts: int
    key: FireKey
    slot: Slot
    channel: ChannelRef
    pack_ids: tuple[str, ...]
    close_after: timedelta | None
    rule: Rule
    zone: ZoneInfo
    cohort_id: int | None = None
    """A cohort schedule's claim: the fire posts the cohort's next curriculum question, not one of `pack_ids`."""

    @classmethod
    def of(cls, schedule: Schedule, *, fire_id: int, attempts: int, slot: Slot, channel: ChannelRef) -> Claim:
        """The claim on `slot` of `schedule`, held as attempt `attempts` of fire row `fire_id`."""
        return cls(
            fire_id=fire_id,
            attempts=attempts,
            key=FireKey(schedule_id=schedule.id, slot_key=slot.key),
            slot=slot,
            channel=channel,
            pack_ids=tuple(schedule.pack_ids),
            close_after=timedelta(seconds=schedule.close_after_seconds) if schedule.close_after_seconds else None,
            rule=load_rule(schedule.rule),
            zone=ZoneInfo(schedule.timezone),
            cohort_id=schedule.cohort_id,
        )

    @property
    def schedule_id(self) -> int:
        """The schedule the slot belongs to."""
        return self.key.schedule_id

    @property
    def source_ref(self) -> str:
        """What the post records as its source: the fire key (`12:2026-01-05T09:00`)."""
        return str(self.key)

    @property
    def lane(self) -> ChannelRef:
        """The channel it is posted in (its fan-out lane)."""
        return self.channel

    @property
    def name(self) -> str:
        """The fire key: how reports name a channel's slot."""
        return str(self.key)

    @property
    def extra(self) -> dict[str, object]:
        """The `extra=` of a log line about this slot."""
        return log_context(self.channel, schedule_id=self.schedule_id)


@dataclass
class TickReport:
    """What one tick did (posts may finish after `tick(wait=False)` returns). Slots are named by their fire key."""

    posted: list[int] = field(default_factory=list)
    revealed: list[int] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    deferred: list[str] = field(default_factory=list)
    paused: list[int] = field(default_factory=list)
    recovered: int = 0
    seasons_ended: list[int] = field(default_factory=list)
    delivered: list[int] = field(default_factory=list)
    """Posts sent privately to cohort members (bot/scheduling/delivery.py)."""
    checkpoints_settled: list[int] = field(default_factory=list)
    """Users (users.id) whose `/quiz me` checkpoint was settled in the background (bot/scheduling/checkpoints.py)."""


def replica_name() -> str:
    """This process's name in claims: host, pid and a random suffix."""
    return f"{socket.gethostname()[:60]}:{os.getpid()}:{secrets.token_hex(3)}"


def log_context(
    channel: ChannelRef, *, schedule_id: int | None = None, post_id: int | None = None
) -> dict[str, object]:
    """The `extra=` of a scheduler log line: where it happened, and which schedule and post."""
    extra: dict[str, object] = {
        "platform": channel.platform,
        "workspace": channel.workspace_id,
        "channel": channel.channel_id,
    }
    if schedule_id is not None:
        extra["schedule_id"] = schedule_id
    if post_id is not None:
        extra["post_id"] = post_id
    return extra
