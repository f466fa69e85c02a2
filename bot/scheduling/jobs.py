"""The scheduler's job runner: the one place in bot/scheduling that opens units of work.

Each step of a tick (claim a schedule's slot, take an expired claim over, renew, finish or release a claim, close
due posts, end due seasons) is a job: a coroutine function that takes the unit of work it is given and does a few
(fenced) statements through the repositories. `Jobs.run` opens a unit of work for it, commits when the job returns
normally (an early "nothing to do" included: each step is meant to be durable) and rolls back if it raises.
The platform calls between steps (posting, revealing, announcing) run outside any transaction.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from bot.service.uow import UnitOfWork, UnitOfWorkFactory, committed

T = TypeVar("T")

Job = Callable[[UnitOfWork], Awaitable[T]]
"""One step of a tick, run in the unit of work it is given."""


class Jobs:
    """Runs each of the scheduler's jobs in a unit of work of its own."""

    def __init__(self, uow: UnitOfWorkFactory) -> None:
        self.uow = uow

    async def run(self, job: Job[T]) -> T:
        """Run `job` in a fresh unit of work, committed if it returns and rolled back if it raises."""
        async with committed(self.uow) as uow:
            return await job(uow)
