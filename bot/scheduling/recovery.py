"""Recovering claims whose replica went silent: take the expired lease over, fenced by `attempts`.

A claim whose `claimed_at` is older than the lease belongs to a replica that died (or stalled) between claiming and
finishing. Another replica takes it over with a conditional update that bumps `attempts`, so the old owner's next
renewal fails and it cannot post. Then, in the same transaction:
- if the old attempt got as far as posting (its post has a message reference), the post is adopted: recorded as
  the slot's, not posted again;
- the slot is retried with the newest post of the lost attempt, which may have reached the platform just before its
  process died (its message reference unrecorded): the retry publishes that post again, and the platform tells a
  repeat (see QuizService.post_question); older attempts' rows without a message reference are removed;
- unless it is now later than the grace window (skipped) or used up `max_attempts` (failed): its rows without a
  message reference are removed.
"""

from __future__ import annotations

import logging
from collections.abc import Container
from datetime import datetime, timedelta

from sqlalchemy import select, update

from bot.db.models import Schedule, ScheduleFire, Workspace
from bot.db.rows import rows_changed
from bot.domain.schedules import FireKey, Slot
from bot.scheduling.claims import load_schedule
from bot.scheduling.fires import LOGGER_NAME, Claim, FireStatus, TickReport, log_context
from bot.service.uow import UnitOfWorkFactory, committed
from bot.wording.i18n import plural

log = logging.getLogger(LOGGER_NAME)


class Recovery:
    """Takes over expired claims for this replica (`replica`)."""

    def __init__(
        self, *, uow: UnitOfWorkFactory, replica: str, lease: timedelta, grace: timedelta, batch: int, max_attempts: int
    ) -> None:
        self.uow = uow
        self.replica = replica
        self.lease = lease
        self.grace = grace
        self.batch = batch
        self.max_attempts = max_attempts

    async def take_over_expired(
        self, now: datetime, served: list[str], report: TickReport, *, held: Container[int]
    ) -> list[Claim]:
        """Take over the expired claims (of platforms served here) except those `held` by this process."""
        expired = now - self.lease
        async with committed(self.uow) as uow:
            session = uow.session
            rows = (
                await session.execute(
                    select(ScheduleFire.id, ScheduleFire.attempts)
                    .join(Schedule, Schedule.id == ScheduleFire.schedule_id)
                    .join(Workspace, Workspace.id == Schedule.workspace_id)
                    .where(
                        ScheduleFire.status == FireStatus.CLAIMED.value,
                        ScheduleFire.claimed_at < expired,
                        Workspace.platform.in_(served),
                    )
                    .order_by(ScheduleFire.claimed_at)
                    .limit(self.batch)
                )
            ).all()
        claims = []
        for row in rows:
            if row.id in held:
                continue
            claim = await self._take_over(int(row.id), int(row.attempts), now, expired, report)
            if claim is not None:
                claims.append(claim)
        return claims

    async def _take_over(
        self, fire_id: int, attempts: int, now: datetime, expired: datetime, report: TickReport
    ) -> Claim | None:
        """Bump `attempts` of one expired claim (fencing out its owner) and adopt, retry or give up its slot."""
        async with committed(self.uow) as uow:
            session = uow.session
            taken = rows_changed(
                await session.execute(
                    update(ScheduleFire)
                    .where(
                        ScheduleFire.id == fire_id,
                        ScheduleFire.status == FireStatus.CLAIMED.value,
                        ScheduleFire.attempts == attempts,
                        ScheduleFire.claimed_at < expired,
                    )
                    .values(claimed_at=now, claimed_by=self.replica, attempts=attempts + 1)
                )
            )
            if not taken:
                return None
            fire = await session.get(ScheduleFire, fire_id)
            assert fire is not None
            loaded = await load_schedule(session, fire.schedule_id)
            if loaded is None:
                return None
            schedule, channel = loaded.schedule, loaded.channel
            extra = log_context(channel, schedule_id=schedule.id)
            slot = Slot(key=fire.slot_key, due=fire.due_at)
            source_ref = str(FireKey(schedule.id, slot.key))
            posts = await uow.posts.of_fire(source_ref)  # by fire key: a pack post or a cohort post
            done = next((post.id for post in posts if post.message_ref is not None), None)
            report.recovered += 1
            if done is not None:  # the lost attempt posted; only its bookkeeping was lost
                fire.status, fire.post_id, fire.finished_at = FireStatus.POSTED.value, done, now
                log.warning("slot %s: adopted post %s of an expired claim", slot.key, done, extra=extra)
                return None
            unsent = sorted(post.id for post in posts)
            late = now - slot.due
            if late > self.grace or attempts + 1 > self.max_attempts:
                await uow.posts.remove_unsent(unsent)  # rows of attempts that never got a message reference
                give_up = FireStatus.SKIPPED if late > self.grace else FireStatus.FAILED
                fire.status, fire.finished_at = give_up.value, now
                fire.detail = f"claim expired after {plural(attempts, 'attempt')}; {late} late"[:300]
                (report.skipped if give_up is FireStatus.SKIPPED else report.failed).append(source_ref)
                log.warning("slot %s: %s", slot.key, fire.detail, extra=extra)
                return None
            # The newest attempt's post is kept: the platform may have taken it just before its process died, so
            # the retry publishes that same post again (QuizService.post_question), which lets the platform tell the
            # repeat (a Discord nonce, a Slack message's metadata) instead of showing the question twice.
            await uow.posts.remove_unsent(unsent[:-1])
            log.warning("slot %s: claim expired (owner %s gone?); retrying", slot.key, fire.claimed_by, extra=extra)
            return Claim.of(schedule, fire_id=fire_id, attempts=attempts + 1, slot=slot, channel=channel)
