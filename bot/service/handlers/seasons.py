"""Seasons: start, end, list."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.commands import EndSeason, ListSeasons, StartSeason
from bot.domain.views import SeasonEnded
from bot.service.confirmations import Confirmations
from bot.service.facade import Context, Reply
from bot.service.handlers.routing import ask_to_confirm, handles
from bot.service.repositories.lookups import local_date
from bot.service.seasons import SeasonService
from bot.service.uow import UnitOfWork
from bot.wording import seasons

AnnounceSeason = Callable[[int], Awaitable[SeasonEnded]]
"""Posts an ended season's final boards (QuizApp.announce_season)."""


@handles(StartSeason)
async def start_season(command: StartSeason, context: Context, uow: UnitOfWork, *, seasons_: SeasonService) -> Reply:
    """`/quiz season start NAME [until:YYYY-MM-DD]` (the channel sees it)."""
    view = await seasons_.start(uow, context.channel, context.user, name=command.name, until=command.until)
    await uow.commit()
    return Reply(seasons.started_message(view), private=False)


@handles(EndSeason)
async def end_season(
    command: EndSeason,
    context: Context,
    uow: UnitOfWork,
    *,
    seasons_: SeasonService,
    confirmations_: Confirmations,
    announce_season: AnnounceSeason,
) -> Reply:
    """`/quiz season end`: asks first; once confirmed the season ends and each channel gets its final board."""
    season, timezone = await seasons_.running(uow, context.channel)
    if not command.confirmed:
        return await ask_to_confirm(
            command,
            context,
            uow,
            confirmations_,
            prompt=seasons.end_prompt(season.name, local_date(season.starts_at, timezone)),
            confirm_label=seasons.end_label(),
        )
    ended = await seasons_.end(uow, context.channel, context.user)
    await uow.commit()  # ended once: the boards are posted after the commit, by whoever ended it
    return Reply(seasons.ended_message(await announce_season(ended.id)))


@handles(ListSeasons)
async def list_seasons(command: ListSeasons, context: Context, uow: UnitOfWork, *, seasons_: SeasonService) -> Reply:
    """`/quiz season list`."""
    return Reply(seasons.listing(await seasons_.list(uow, context.channel)))
