"""Settling `/quiz me` checkpoints in the background, so that a user's first `/quiz me` reads only a tail.

`/quiz me` resumes from the user's checkpoint (bot/service/streak_stats.py) and folds only what was settled since;
without one (a user's first call) it reads their whole history, which grows with it. Each tick this step settles
the checkpoints of a batch of users who need one (`Stats.settle_checkpoints`: missing, unusable, or older than a
day, and answers since), walking the users with totals in key order a window at a time (`scan` of them a tick, the
position kept here and started over past the last), so a pass costs the same however many answers there are, and a
person asking for the first time finds their settled history folded already.

It is the fold and the write `/quiz me` itself does, with the same guard (`Checkpoints.advance`: a checkpoint
replaces only one settled less far), so replicas settling the same user at once, or the user asking meanwhile, are
harmless (at worst work done twice); no claim is needed. The work is bounded by `batch` users and `budget` seconds
a tick (the first user always settles), and a failure (the database away, a statement timing out) is logged and
left to the next tick, never failing the tick's other steps. The call is a `SettleCheckpoints` callable
(`Stats.settle_checkpoints`), as seasons' announcements are, so the read side keeps its statements and opens its
own read-only units of work.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from bot.errors import StorageUnavailable
from bot.scheduling.fires import LOGGER_NAME, TickReport
from bot.service.stats import Settled
from bot.service.streak_stats import CHECKPOINT_AGE

log = logging.getLogger(LOGGER_NAME)

SettleCheckpoints = Callable[..., Awaitable[Settled]]
"""`Stats.settle_checkpoints`: keyword arguments now, platforms, after, scan, limit, age, budget."""

BUDGET = 0.2
"""Seconds of a tick the step may spend: no further user is started once they are spent (a user's first settle
reads their whole history, ~40 ms at 10M answers, so 50 of them would hold the tick ~2 s); the rest wait for the
next tick."""


class CheckpointSettling:
    """Each tick, settles the `/quiz me` checkpoints of up to `batch` users among the next `scan`."""

    def __init__(
        self,
        *,
        settle: SettleCheckpoints,
        batch: int = 50,
        scan: int = 1000,
        age: timedelta = CHECKPOINT_AGE,
        budget: float = BUDGET,
    ) -> None:
        self.settle = settle
        self.batch = batch
        self.scan = scan
        self.age = age
        self.budget = budget
        self.after = 0
        """The users.id this replica's next pass starts after."""

    async def settle_due(self, now: datetime, served: list[str], report: TickReport) -> None:
        """Settle the next batch (users of workspaces on platforms served here); the users settled go in `report`."""
        try:
            done = await self.settle(
                now=now,
                platforms=served,
                after=self.after,
                scan=self.scan,
                limit=self.batch,
                age=self.age,
                budget=self.budget,
            )
        except StorageUnavailable as exc:
            log.warning("/quiz me checkpoints not settled this tick: %s", exc)
            return
        except Exception:
            log.exception("/quiz me checkpoints not settled this tick")
            return
        self.after = done.after
        report.checkpoints_settled.extend(done.users)
