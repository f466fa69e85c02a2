"""Ending seasons whose `until:` date has passed: one replica ends each, then announces it.

Like reveals: ending is a conditional update (`ended_at IS NULL`, repositories.Deadlines), so however many
replicas tick at once (and whether or not an admin types `/quiz season end` at the same moment) one ends each
season, and only that one posts its final boards. The announcement is an `AnnounceSeason` callable
(`SeasonService.announce`), so the service layer can change behind it; it posts through the platform port and the
fan-out limiter.

Ending at the planned end leaves the season's rollup rows as they are: while a season runs, the click path never
adds an answer given at or after its planned end (service/repositories/seasons.py), so there is nothing to take
back (an admin's earlier end takes back what it must).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

from bot.errors import QuizError
from bot.ports import PlatformError
from bot.scheduling.fires import LOGGER_NAME, TickReport
from bot.scheduling.jobs import Jobs

log = logging.getLogger(LOGGER_NAME)

AnnounceSeason = Callable[[int], Awaitable[object]]
"""Post an ended season's final boards to the channels that had answers in it (`SeasonService.announce`)."""


class SeasonEnds:
    """Ends the seasons whose planned end has passed and announces them."""

    def __init__(self, *, jobs: Jobs, announce: AnnounceSeason, batch: int) -> None:
        self.jobs = jobs
        self.announce_season = announce
        self.batch = batch

    async def end_due(self, now: datetime, served: list[str]) -> list[int]:
        """End the seasons (of workspaces on platforms served here) whose `ends_at` has passed; those this one ended.

        A season ends at its planned end, not at this tick: its board counts up to `until`, whenever the tick came.
        """
        return await self.jobs.run(lambda uow: uow.deadlines.end_due_seasons(now, served, limit=self.batch))

    async def announce(self, season_id: int, report: TickReport) -> None:
        """Post the final boards of a season this replica ended."""
        try:
            await self.announce_season(season_id)
        except (PlatformError, QuizError) as exc:
            log.warning("an ended season's final boards could not be posted: %s", exc)
            return
        report.seasons_ended.append(season_id)
        log.info("ended season %s at its planned end", season_id)
