"""The lease on a claimed fire slot: kept alive, renewed, finished, put off, handed back, each a fenced update.

A claim row (schedule_fires, status `claimed`) is this replica's for as long as its `claimed_at` is younger than the
lease. Every change to it is conditional on the row still being the attempt this replica holds (`attempts`, and for
renewals `claimed_by`): a replica that took an expired claim over bumped `attempts`, so the old owner's next
update matches nothing and it knows it lost the slot.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Update, update

from bot.clock import Clock
from bot.db.models import Schedule, ScheduleFire
from bot.db.rows import rows_changed
from bot.scheduling.fires import LOGGER_NAME, Claim, FireStatus, log_context
from bot.service.uow import UnitOfWorkFactory, committed

log = logging.getLogger(LOGGER_NAME)

RETRY_AFTER_FAILURE = timedelta(minutes=1)
"""A slot whose post failed in a way that may pass is tried again (by any replica) this much later."""

RELEASE_MARGIN = timedelta(minutes=1)
"""A handed-back claim looks this much more than expired, so a replica whose clock is a little behind takes it too."""


class Leases:
    """Fenced updates of the claim rows this replica (`replica`) holds."""

    def __init__(self, *, uow: UnitOfWorkFactory, clock: Clock, replica: str, lease: timedelta) -> None:
        self.uow = uow
        self.clock = clock
        self.replica = replica
        self.lease = lease

    async def keep_alive(self, fire_ids: Collection[int], now: datetime) -> None:
        """Renew every claim this replica is still working on (a slow fan-out is not taken over while alive)."""
        if not fire_ids:
            return
        async with committed(self.uow) as uow:
            session = uow.session
            await session.execute(
                update(ScheduleFire)
                .where(
                    ScheduleFire.id.in_(list(fire_ids)),
                    ScheduleFire.status == FireStatus.CLAIMED.value,
                    ScheduleFire.claimed_by == self.replica,
                )
                .values(claimed_at=now)
            )

    async def renew(self, claim: Claim) -> bool:
        """Renew one claim right before its platform call; False if another replica took it over."""
        return await self._update(claim, {"claimed_at": self.clock.now()}, ScheduleFire.claimed_by == self.replica) > 0

    async def finish(
        self, claim: Claim, status: FireStatus, *, post_id: int | None = None, detail: str | None = None
    ) -> None:
        """Record how the slot ended (posted, failed); warns if the claim was taken over meanwhile."""
        if not await self._update(claim, self._finished(status, post_id=post_id, detail=detail)):
            self._warn_taken_over(claim, post_id)

    async def retry_later(self, claim: Claim, reason: str) -> None:
        """Let the claim expire in a minute, so that recovery (on any replica) tries the slot again."""
        retry_at = self.clock.now() - self.lease + min(self.lease, RETRY_AFTER_FAILURE)
        await self._update(claim, {"claimed_at": retry_at, "detail": reason[:300]})

    async def fail_and_pause(self, claim: Claim, reason: str, *, status: FireStatus = FireStatus.FAILED) -> None:
        """Mark the slot failed (or `status`) and pause its schedule with the reason, in one transaction."""
        async with committed(self.uow) as uow:
            session = uow.session
            done = rows_changed(
                await session.execute(self._fenced(claim).values(self._finished(status, detail=reason)))
            )
            await session.execute(
                update(Schedule)
                .where(Schedule.id == claim.schedule_id)
                .values(enabled=False, paused_reason=reason[:300])
            )
        if not done:
            self._warn_taken_over(claim, None)

    async def release(self, claims: Iterable[Claim]) -> int:
        """Hand claims back unposted: their lease is made to look expired, so any replica's next tick takes them.

        `attempts` is left as it is: the replica that takes a claim over bumps it once, as for any expired claim,
        and that bump is what fences this replica out should it still be running. Returns how many were released.
        """
        by_attempt: dict[int, list[int]] = {}
        for claim in claims:
            by_attempt.setdefault(claim.attempts, []).append(claim.fire_id)
        if not by_attempt:
            return 0
        expired = self.clock.now() - self.lease - RELEASE_MARGIN
        released = 0
        async with committed(self.uow) as uow:
            session = uow.session
            for attempts, fire_ids in by_attempt.items():
                released += rows_changed(
                    await session.execute(
                        update(ScheduleFire)
                        .where(
                            ScheduleFire.id.in_(fire_ids),
                            ScheduleFire.status == FireStatus.CLAIMED.value,
                            ScheduleFire.attempts == attempts,
                            ScheduleFire.claimed_by == self.replica,
                        )
                        .values(claimed_at=expired)
                    )
                )
        return released

    # --- helpers ---------------------------------------------------------------------------------

    def _finished(self, status: FireStatus, *, post_id: int | None = None, detail: str | None = None) -> dict[str, Any]:
        return {
            "status": status.value,
            "post_id": post_id,
            "detail": detail[:300] if detail else None,
            "finished_at": self.clock.now(),
        }

    @staticmethod
    def _fenced(claim: Claim, *also: ColumnElement[bool]) -> Update:
        """UPDATE of the claim's row, if it still is the attempt `claim` holds."""
        return update(ScheduleFire).where(
            ScheduleFire.id == claim.fire_id,
            ScheduleFire.status == FireStatus.CLAIMED.value,
            ScheduleFire.attempts == claim.attempts,
            *also,
        )

    async def _update(self, claim: Claim, values: dict[str, Any], *also: ColumnElement[bool]) -> int:
        async with committed(self.uow) as uow:
            session = uow.session
            return rows_changed(await session.execute(self._fenced(claim, *also).values(values)))

    @staticmethod
    def _warn_taken_over(claim: Claim, post_id: int | None) -> None:
        log.warning(
            "slot %s: the claim was taken over while this replica finished it",
            claim.slot.key,
            extra=log_context(claim.channel, schedule_id=claim.schedule_id, post_id=post_id),
        )
