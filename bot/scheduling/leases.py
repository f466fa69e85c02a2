"""The lease on a claimed fire slot: kept alive, renewed, finished, put off, handed back, each a fenced update.

A claim row (a channel's `schedule_fires` or a member's `member_fires`, status `claimed`) is this replica's for as
long as its `claimed_at` is younger than the lease. Every change to it is conditional on the row still being the
attempt this replica holds (`attempts`, and for renewals `claimed_by`): a replica that took an expired claim over
bumped `attempts`, so the old owner's next update matches nothing and it knows it lost the slot. `Leases` does
this for either kind of claim, through the store (`FireClaims`) it is given.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable
from datetime import datetime, timedelta

from bot.clock import Clock
from bot.scheduling.fires import LOGGER_NAME, FireStatus, HeldClaim
from bot.scheduling.jobs import Jobs
from bot.service.repositories import FireClaims
from bot.service.uow import UnitOfWork

log = logging.getLogger(LOGGER_NAME)

RETRY_AFTER_FAILURE = timedelta(minutes=1)
"""A slot whose post failed in a way that may pass is tried again (by any replica) this much later."""

RELEASE_MARGIN = timedelta(minutes=1)
"""A handed-back claim looks this much more than expired, so a replica whose clock is a little behind takes it too."""

Store = Callable[[UnitOfWork], FireClaims]
"""Which claim rows, of a unit of work: `channel_fires` or `member_fires`."""


def channel_fires(uow: UnitOfWork) -> FireClaims:
    """The claims of channel schedules' slots."""
    return uow.channel_fires


def member_fires(uow: UnitOfWork) -> FireClaims:
    """The claims of members' slots of privately delivered schedules."""
    return uow.member_fires


class Leases:
    """Fenced updates of the claim rows (of `store`) this replica (`replica`) holds, each in a job of its own."""

    def __init__(self, *, jobs: Jobs, store: Store, clock: Clock, replica: str, lease: timedelta) -> None:
        self.jobs = jobs
        self.store = store
        self.clock = clock
        self.replica = replica
        self.lease = lease

    async def keep_alive(self, fire_ids: Collection[int], now: datetime) -> None:
        """Renew every claim this replica is still working on (a slow fan-out is not taken over while alive)."""
        if fire_ids:
            await self.jobs.run(lambda uow: self.store(uow).keep_alive(fire_ids, self.replica, now))

    async def renew(self, claim: HeldClaim) -> bool:
        """Renew one claim right before its platform call; False if another replica took it over."""
        now = self.clock.now()
        return await self.jobs.run(lambda uow: self.store(uow).renew(claim.fire_id, claim.attempts, self.replica, now))

    async def finish(
        self,
        claim: HeldClaim,
        status: FireStatus,
        *,
        post_id: int | None = None,
        detail: str | None = None,
        pause: bool = False,
    ) -> None:
        """Record how the slot ended (posted, failed, skipped), and with `pause` disable its schedule with `detail`
        as the reason, in one transaction; warns if the claim was taken over meanwhile."""
        now = self.clock.now()

        async def job(uow: UnitOfWork) -> bool:
            store = self.store(uow)
            done = await store.finish(claim.fire_id, claim.attempts, status, now=now, post_id=post_id, detail=detail)
            if pause:
                await store.pause_schedule(claim.schedule_id, detail or "")
            return done

        if not await self.jobs.run(job):
            log.warning(
                "slot %s: the claim was taken over while this replica finished it",
                claim.name,
                extra={**claim.extra, **({"post_id": post_id} if post_id is not None else {})},
            )

    async def retry_later(self, claim: HeldClaim, reason: str) -> None:
        """Let the claim expire in a minute, so that recovery (on any replica) tries the slot again."""
        retry_at = self.clock.now() - self.lease + min(self.lease, RETRY_AFTER_FAILURE)
        await self.jobs.run(
            lambda uow: self.store(uow).expire_at(claim.fire_id, claim.attempts, retry_at, detail=reason)
        )

    async def release(self, claims: Iterable[HeldClaim]) -> int:
        """Hand claims back unposted: their lease is made to look expired, so any replica's next tick takes them.

        `attempts` is left as it is: the replica that takes a claim over bumps it once, as for any expired claim,
        and that bump is what fences this replica out should it still be running. Returns how many were released.
        """
        held = [(claim.fire_id, claim.attempts) for claim in claims]
        if not held:
            return 0
        expired = self.clock.now() - self.lease - RELEASE_MARGIN
        return await self.jobs.run(lambda uow: self.store(uow).release(held, self.replica, expired))
