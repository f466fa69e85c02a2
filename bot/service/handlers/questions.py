"""Questions (post now, reveal, packs, help) and the boards (leaderboard, me, report)."""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.clock import Clock
from bot.commands import ListPacks, PostNow, Reveal, ShowHelp, ShowLeaderboard, ShowMe, ShowReport, help_message
from bot.content import Catalog
from bot.domain import ChannelRef, PostSource
from bot.domain.settings import NowPosters, SettingDefaults
from bot.domain.windows import Scope
from bot.errors import NotAllowed, UnknownWorkspace
from bot.service.facade import Context, Reply
from bot.service.handlers.routing import RevealPost, handles, role_of
from bot.service.handlers.settings import effective_here
from bot.service.home import HomeReader
from bot.service.quiz import QuizService
from bot.service.report import ReportService
from bot.service.stats import Stats
from bot.service.uow import UnitOfWork
from bot.wording import boards, cards, chat_settings, help, home, reports, roles
from bot.wording import drafts as draft_words
from bot.wording.i18n import plural

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class NowLimits:
    """How often members may `/quiz now` in one channel (the channel's `now-cooldown` and `now-limit` settings, by
    default QUIZBOT_NOW_COOLDOWN_SECONDS, QUIZBOT_NOW_OPEN_LIMIT; 0 is off); leads and admins are exempt."""

    cooldown: timedelta = timedelta(0)
    open_limit: int = 0


@handles(PostNow)
async def post_now(
    command: PostNow,
    context: Context,
    uow: UnitOfWork,
    *,
    quiz: QuizService,
    clock: Clock,
    setting_defaults: SettingDefaults,
) -> Reply:
    """`/quiz now [pack]`: post the channel's next question (publication is QuizService's own two steps), unless the
    channel's settings keep it for leads, or a member is within the channel's cooldown or its limit of open
    on-demand questions. The question closes after the channel's `close-after`, if it sets one.

    The cooldown and the limit are checked in the post row's own transaction with the channel's row locked
    (`post_question`'s `admit`): two members at the same moment post one after the other, the second seeing the
    first's post."""
    here = await effective_here(uow, context.channel, setting_defaults)
    now = clock.now()
    limits = NowLimits(here.now_cooldown, here.now_limit)
    leads_only = here.now_posters is NowPosters.LEADS
    member = bool(leads_only or limits.cooldown or limits.open_limit) and await role_of(context, uow) is None
    if member and leads_only:
        raise NotAllowed(chat_settings.now_leads_only())
    limited = member and bool(limits.cooldown or limits.open_limit)
    admit = functools.partial(_check_now_limits, context.channel, limits, now) if limited else None
    await uow.commit()  # ends this unit's read: SQLite's publication below must not wait on its shared lock
    closes_at = now + here.close_after if here.close_after is not None else None
    posted = await quiz.post_question(
        context.channel,
        pack_id=command.pack,
        source=PostSource.COMMAND,
        posted_by=context.user,
        closes_at=closes_at,
        admit=admit,
    )
    return Reply(cards.posted_message(posted.card), quiet=True)


async def _check_now_limits(channel: ChannelRef, limits: NowLimits, now: datetime, uow: UnitOfWork) -> None:
    """A member's `/quiz now` refused (NotAllowed) within the channel's cooldown or at its limit of open on-demand
    questions; run under the channel's lock, in the transaction that then creates the post."""
    on_demand = await uow.posts.on_demand(channel)
    if limits.open_limit and on_demand.open >= limits.open_limit:
        raise NotAllowed(roles.now_too_many(limits.open_limit))
    if limits.cooldown and on_demand.last is not None and now - on_demand.last < limits.cooldown:
        raise NotAllowed(roles.now_too_soon(on_demand.last + limits.cooldown - now))


@handles(Reveal)
async def reveal_current(
    command: Reveal, context: Context, uow: UnitOfWork, *, quiz: QuizService, reveal: RevealPost
) -> Reply:
    """`/quiz reveal`: close the channel's newest open question and show the answer."""
    card = await reveal(uow, await quiz.current_post_id(uow, context.channel))
    return Reply(cards.revealed_message(card), quiet=True)


@handles(ListPacks)
async def list_packs(command: ListPacks, context: Context, uow: UnitOfWork, *, catalog: Catalog) -> Reply:
    """`/quiz packs`: the shipped packs and the workspace's own, marked as the team's (admins also see the pack
    files that did not load)."""
    team: list[str] = []
    known = await uow.places.workspace(context.channel.platform, context.channel.workspace_id)
    if known is not None:
        team = [
            draft_words.team_pack_line(pack.slug, pack.title, plural(pack.questions, "question"))
            for pack in await uow.workspace_packs.of_workspace(known.id)
        ]
    return Reply(help.packs_message(catalog, left_out=catalog.problems if context.is_admin else (), team=team))


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
    """`/quiz me`: the personal home (the same page as Slack's App Home tab), with its review button. Committed: the
    read may move the user's checkpoint on (bot/service/streak_stats.py), so the next one reads only what is new."""
    page = home.home_page(await home_.home(uow, context.user, now=clock.now()))
    await uow.commit()
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
