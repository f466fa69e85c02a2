"""Questions (post now, reveal, packs, help) and the boards (leaderboard, me, report)."""

from __future__ import annotations

import logging

from bot.clock import Clock
from bot.commands import ListPacks, PostNow, Reveal, ShowHelp, ShowLeaderboard, ShowMe, ShowReport, help_message
from bot.content import Catalog
from bot.domain import PostSource
from bot.domain.windows import Scope
from bot.errors import UnknownWorkspace
from bot.service.facade import Context, Reply
from bot.service.handlers.routing import RevealPost, handles
from bot.service.home import HomeReader
from bot.service.quiz import QuizService
from bot.service.report import ReportService
from bot.service.stats import Stats
from bot.service.uow import UnitOfWork
from bot.wording import boards, cards, help, home, reports

log = logging.getLogger(__name__)


@handles(PostNow)
async def post_now(command: PostNow, context: Context, uow: UnitOfWork, *, quiz: QuizService) -> Reply:
    """`/quiz now [pack]`: post the channel's next question (publication is QuizService's own two steps)."""
    posted = await quiz.post_question(
        context.channel, pack_id=command.pack, source=PostSource.COMMAND, posted_by=context.user
    )
    return Reply(cards.posted_message(posted.card), quiet=True)


@handles(Reveal)
async def reveal_current(
    command: Reveal, context: Context, uow: UnitOfWork, *, quiz: QuizService, reveal: RevealPost
) -> Reply:
    """`/quiz reveal`: close the channel's newest open question and show the answer."""
    card = await reveal(uow, await quiz.current_post_id(uow, context.channel))
    return Reply(cards.revealed_message(card), quiet=True)


@handles(ListPacks)
async def list_packs(command: ListPacks, context: Context, uow: UnitOfWork, *, catalog: Catalog) -> Reply:
    """`/quiz packs` (admins also see the pack files that did not load)."""
    return Reply(help.packs_message(catalog, left_out=catalog.problems if context.is_admin else ()))


@handles(ShowHelp)
async def show_help(command: ShowHelp, context: Context, uow: UnitOfWork) -> Reply:
    """`/quiz help [command]`."""
    return Reply(help_message(command.topic))


# --- boards --------------------------------------------------------------------------------------------


@handles(ShowLeaderboard)
async def show_leaderboard(
    command: ShowLeaderboard, context: Context, uow: UnitOfWork, *, stats: Stats, clock: Clock
) -> Reply:
    """`/quiz leaderboard ...`: a scope's board in a window (a season's too), or cohort vs cohort."""
    if command.scope is Scope.COHORTS:
        board = await stats.cohort_board(
            context.channel, window=command.window, season=command.season, now=clock.now(), within=uow
        )
        return Reply(boards.cohort_board_message(board))
    leaderboard = await stats.leaderboard(
        context.channel,
        window=command.window,
        scope=command.scope,
        cohort=command.cohort,
        season=command.season,
        now=clock.now(),
        within=uow,
    )
    return Reply(boards.leaderboard_message(leaderboard))


@handles(ShowMe)
async def show_me(command: ShowMe, context: Context, uow: UnitOfWork, *, home_: HomeReader, clock: Clock) -> Reply:
    """`/quiz me`: the personal home (the same page as Slack's App Home tab), with its review button."""
    page = home.home_page(await home_.home(uow, context.user, now=clock.now()))
    return Reply(page.message, page=page)


@handles(ShowReport)
async def show_report(command: ShowReport, context: Context, uow: UnitOfWork, *, reports_: ReportService) -> Reply:
    """`/quiz report [cohort NAME]`: a short summary for the channel (everyone sees it), and its charts."""
    channel = context.channel
    try:
        report = await reports_.build(
            platform=channel.platform,
            workspace=channel.workspace_id,
            cohort=command.cohort,
            daily=True,
            top=3,
            within=uow,
        )
    except UnknownWorkspace:
        return Reply(reports.no_answers_yet())
    return Reply(reports.summary_message(report, cohort=command.cohort), private=False, charts=reports.charts(report))
