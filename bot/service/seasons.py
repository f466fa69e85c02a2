"""Seasons: a named window of a workspace's answers with a board of its own, started and ended by admins.

A season runs from `/quiz season start` until `/quiz season end` or its `until:` date has passed (the ticker's
season part ends it then, bot/scheduling/season_ends.py). Ending is a conditional update (`ended_at IS NULL`), so
of the command and every replica's tick exactly one ends a season, and only that one announces it: each channel of
the workspace with answers in the season gets its final board (the top three) through the platform port, paced by
the fan-out limiter like scheduled posts. Boards are read models (service/stats.py); all-time rollups never change. A
season's own rollup rows are settled by its start and its end in the same unit of work (`uow.seasons.add` and
`end`: the answers stored meanwhile, see service/repositories/seasons.py), so starting and ending write nothing
else here.
The announcement runs after the end is committed (a platform call never runs inside the transaction); a crash in
between leaves the season ended without its boards posted, and its board still at `/quiz leaderboard season NAME`.
The use cases run in the caller's unit of work: the dispatcher's (QuizApp.announce_season reads the final boards in
one, then posts them after it has ended), the repositories' (`uow.seasons`) SQL included.
"""

from __future__ import annotations

import functools
import logging
from datetime import date, datetime, timedelta
from typing import NamedTuple

from bot.clock import Clock
from bot.db.models import Season
from bot.domain import ChannelRef, UserRef
from bot.domain.views import SeasonEnded, SeasonView
from bot.domain.windows import Scope, Window
from bot.errors import NoSeasonRunning, QuizError, UserInputError
from bot.ports import Message, PlatformError, PlatformRegistry, Sender
from bot.service.repositories.lookups import local_date, local_midnight, season_span
from bot.service.stats import Stats
from bot.service.uow import UnitOfWork
from bot.wording import seasons as season_words

log = logging.getLogger(__name__)

FINAL_BOARD_SIZE = 3


def season_view(season: Season, timezone: str) -> SeasonView:
    """A season's dates in the workspace's timezone (its last day is the day before its end's local midnight)."""
    end = season.ended_at
    planned = season.ends_at
    return SeasonView(
        name=season.name,
        started=local_date(season.starts_at, timezone),
        until=local_date(planned - timedelta(microseconds=1), timezone) if planned is not None else None,
        ended=local_date(end, timezone) if end is not None else None,
    )


class FinalBoards(NamedTuple):
    """An ended season's name and the final board for each channel that had answers in it."""

    name: str
    boards: list[tuple[ChannelRef, Message]]


class SeasonService:
    """Season use cases: start, end (and read the final boards), list, each inside the caller's unit of work; and
    posting the final boards, outside any."""

    def __init__(
        self,
        *,
        clock: Clock,
        stats: Stats,
        platforms: PlatformRegistry,
        fanout: Sender,
    ) -> None:
        self.clock = clock
        self.stats = stats
        self.platforms = platforms
        self.fanout = fanout

    async def start(
        self, uow: UnitOfWork, channel: ChannelRef, user: UserRef, *, name: str, until: date | None
    ) -> SeasonView:
        """Start a season in the channel's workspace now, through the `until` date (inclusive, local) if given."""
        now = self.clock.now()
        workspace = await uow.places.workspace_id(channel.platform, channel.workspace_id, now)
        found = await uow.places.workspace(channel.platform, channel.workspace_id)  # just created if it was new
        timezone = found.timezone if found is not None else "UTC"
        running = await uow.seasons.running(workspace)
        if running is not None:
            raise UserInputError(season_words.already_running(running.name, local_date(running.starts_at, timezone)))
        if await uow.seasons.name_taken(workspace, name):
            raise UserInputError(season_words.name_taken(name))
        ends_at: datetime | None = None
        if until is not None:
            today = local_date(now, timezone)
            if until < today:
                raise UserInputError(season_words.until_in_the_past(until, today))
            ends_at = local_midnight(until + timedelta(days=1), timezone)
        season = Season(
            workspace_id=workspace,
            key=name.casefold(),
            name=name,
            starts_at=now,
            ends_at=ends_at,
            ended_at=None,
            created_by=await uow.places.user_id(user, now),
            created_at=now,
        )
        if not await uow.seasons.add(season):  # another admin started one (or took the name) at the same moment
            raise UserInputError(season_words.already_running(name, local_date(now, timezone)))
        return season_view(season, timezone)

    async def running(self, uow: UnitOfWork, channel: ChannelRef) -> tuple[Season, str]:
        """The season running in the channel's workspace and the workspace's timezone, or NoSeasonRunning."""
        workspace = await uow.places.workspace(channel.platform, channel.workspace_id)
        season = await uow.seasons.running(workspace.id if workspace else None)
        if season is None or workspace is None:
            raise NoSeasonRunning(season_words.none_running())
        return season, workspace.timezone

    async def end(self, uow: UnitOfWork, channel: ChannelRef, user: UserRef) -> Season:
        """End the running season now (if the ticker or another admin has not just done so: NoSeasonRunning)."""
        season, _ = await self.running(uow, channel)
        now = self.clock.now()
        ended_at = min(now, season.ends_at) if season.ends_at is not None else now
        if not await uow.seasons.end(season.id, ended_at, await uow.places.user_id(user, now)):
            raise NoSeasonRunning(season_words.none_running())
        season.ended_at = ended_at
        return season

    async def list(self, uow: UnitOfWork, channel: ChannelRef) -> list[SeasonView]:
        """The workspace's seasons: the running one first, then the others, newest first."""
        workspace = await uow.places.workspace(channel.platform, channel.workspace_id)
        if workspace is None:
            return []
        return [season_view(season, workspace.timezone) for season in await uow.seasons.of_workspace(workspace.id)]

    async def final_boards(self, uow: UnitOfWork, season_id: int) -> FinalBoards:
        """An ended season's final board (its top three) for each channel of its workspace that had answers in it,
        read in the caller's unit of work; `post_final_boards` posts them once the caller's block has ended."""
        now = self.clock.now()
        season = await uow.seasons.get(season_id)
        if season is None or season.ended_at is None:
            raise NoSeasonRunning(season_words.none_running())
        boards = []
        for channel in await uow.seasons.channels_with_answers(season.workspace_id, season_span(season)):
            board = await self.stats.leaderboard(
                channel,
                window=Window.SEASON,
                scope=Scope.CHANNEL,
                season=season.name,
                now=now,
                limit=FINAL_BOARD_SIZE,
                within=uow,
            )
            boards.append((channel, season_words.final_board_message(board)))
        return FinalBoards(season.name, boards)

    async def post_final_boards(self, final: FinalBoards) -> SeasonEnded:
        """Post an ended season's final boards (outside any transaction), paced by the fan-out limiter.

        Called once per season, by whoever ended it. A channel the platform refuses is logged and counted; the others
        still get theirs. Platforms not running here are skipped (counted as failed).
        """
        posted = failed = 0
        for channel, message in final.boards:
            platform = self.platforms.get(channel.platform)
            if platform is None:
                failed += 1
                continue
            try:
                await self.fanout.send(platform, channel, functools.partial(platform.post_message, channel, message))
            except (PlatformError, QuizError) as exc:
                failed += 1
                extra = {"platform": channel.platform, "workspace": channel.workspace_id, "channel": channel.channel_id}
                log.warning("a season's final board could not be posted: %s", exc, extra=extra)
                continue
            posted += 1
        log.info("season %s ended: final boards posted to %d channel(s), %d failed", final.name, posted, failed)
        return SeasonEnded(name=final.name, posted=posted, failed=failed)
