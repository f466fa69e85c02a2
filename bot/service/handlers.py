"""One handler per command, and the one table from command type to handler with its permission beside it.

A handler is a plain async function `(command, context, uow, *, <dependencies>) -> Reply`: the dispatcher
(`QuizApp.execute`) opens the unit of work, checks the route's permission in it, and calls the handler, which
commits when it writes. Dependencies are keyword-only parameters, bound by name at start-up (`bind_routes`),
as cosmicpython's bootstrap injects them. Adding a command: its dataclass and spec in bot/commands.py, its
words in bot/wording/, and a handler here registered with `@handles(TheCommand)`.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from bot.clock import Clock
from bot.commands import (
    ACCESS,
    AddCohortSchedule,
    AddSchedule,
    AddToCohort,
    AnswerReview,
    ClearFlags,
    Command,
    CreateCohort,
    DeleteCohort,
    EndSeason,
    FlagQuestion,
    JoinCohort,
    LeaveCohort,
    ListCohorts,
    ListFlags,
    ListPacks,
    ListSchedules,
    ListSeasons,
    NextSchedule,
    PauseSchedule,
    PostCohortQuestion,
    PostNow,
    RemindCohort,
    RemoveFromCohort,
    RemoveSchedule,
    ResumeSchedule,
    Reveal,
    SetCohort,
    ShowCohort,
    ShowHelp,
    ShowLeaderboard,
    ShowMe,
    ShowReport,
    StartReview,
    StartSeason,
    help_message,
)
from bot.commandspec import Permission
from bot.content import Catalog
from bot.domain import PostSource, QuestionCard, UserRef
from bot.domain.views import NothingDue
from bot.domain.windows import Scope
from bot.errors import NotAllowed, UnknownWorkspace
from bot.ports import DirectMessages, Message, PlatformError, PlatformRegistry
from bot.service.cohorts import CohortService
from bot.service.confirmations import Confirmations
from bot.service.facade import Context, Reply
from bot.service.flags import FlagService
from bot.service.home import HomeReader
from bot.service.lookups import local_date
from bot.service.quiz import QuizService
from bot.service.report import ReportService
from bot.service.review import ReviewService
from bot.service.schedules import ScheduleService
from bot.service.seasons import SeasonService
from bot.service.stats import Stats
from bot.service.uow import UnitOfWork
from bot.wording import (
    boards,
    cards,
    cohorts,
    commands,
    confirmations,
    flags,
    help,
    home,
    reports,
    review,
    schedules,
    seasons,
)
from bot.wording.errors import admins_only

log = logging.getLogger(__name__)


Handler = Callable[[Any, Context, UnitOfWork], Awaitable[Reply]]
RevealPost = Callable[[int], Awaitable[QuestionCard]]


@dataclass(frozen=True, slots=True)
class Route:
    """A command's handler, who may run it, and what the refusal says they tried (`add schedules`)."""

    handler: Callable[..., Awaitable[Reply]]
    permission: Permission = Permission.ANYONE
    action: str = ""


_HANDLERS: dict[type[Any], Callable[..., Awaitable[Reply]]] = {}
HandlerT = TypeVar("HandlerT", bound=Callable[..., Awaitable[Reply]])


def handles(*kinds: type[Any]) -> Callable[[HandlerT], HandlerT]:
    """Register a handler for its command types (the dispatcher finds it in COMMAND_HANDLERS)."""

    def register(handler: HandlerT) -> HandlerT:
        for kind in kinds:
            if kind in _HANDLERS:
                raise TypeError(f"{kind.__name__} has two handlers")
            _HANDLERS[kind] = handler
        return handler

    return register


async def check_permission(route: Route, command: Command, context: Context, uow: UnitOfWork, clock: Clock) -> None:
    """Raise NotAllowed unless the context may run the command (the only place permissions are decided)."""
    if route.permission is Permission.ANYONE or context.is_admin:
        return
    if route.permission is Permission.ADMIN:
        raise NotAllowed(admins_only(commands.action_words(route.action)))
    cohort = await CohortService.find(uow, context.channel, getattr(command, "name", ""))
    if cohort.created_by != await uow.places.user_id(context.user, clock.now()):
        raise NotAllowed(cohorts.not_allowed(cohort.name, commands.action_words(route.action)))


# --- questions -----------------------------------------------------------------------------------------


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
    card = await reveal(await quiz.current_post_id(context.channel))
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
    page = home.home_page(await home_.home(context.user, now=clock.now(), within=uow))
    return Reply(page.message, page=page)


@handles(ShowReport)
async def show_report(command: ShowReport, context: Context, uow: UnitOfWork, *, reports_: ReportService) -> Reply:
    """`/quiz report [cohort NAME]`: a short summary for the channel (everyone sees it), and its charts."""
    channel = context.channel
    try:
        report = await reports_.build(
            platform=channel.platform, workspace=channel.workspace_id, cohort=command.cohort, daily=True, top=3
        )
    except UnknownWorkspace:
        return Reply(reports.no_answers_yet())
    return Reply(reports.summary_message(report, cohort=command.cohort), private=False, charts=reports.charts(report))


# --- cohorts -------------------------------------------------------------------------------------------


@handles(CreateCohort)
async def create_cohort(command: CreateCohort, context: Context, uow: UnitOfWork, *, cohorts_: CohortService) -> Reply:
    """`/quiz cohort create NAME ...`."""
    view = await cohorts_.create(
        uow,
        context.channel,
        context.user,
        name=command.name,
        start=command.start,
        packs=list(command.packs),
        delivery=command.delivery,
    )
    await uow.commit()
    return Reply(cohorts.created_message(view))


@handles(JoinCohort)
async def join_cohort(command: JoinCohort, context: Context, uow: UnitOfWork, *, cohorts_: CohortService) -> Reply:
    """`/quiz cohort join NAME`: anyone may join."""
    cohort = await cohorts_.find(uow, context.channel, command.name)
    joined = await cohorts_.add_members(uow, cohort, context.user, [context.user])
    await uow.commit()
    return Reply(cohorts.joined(command.name, new=bool(joined)))


@handles(LeaveCohort)
async def leave_cohort(command: LeaveCohort, context: Context, uow: UnitOfWork, *, cohorts_: CohortService) -> Reply:
    """`/quiz cohort leave NAME`: anyone may leave."""
    cohort = await cohorts_.find(uow, context.channel, command.name)
    left = await cohorts_.remove_members(uow, cohort, [context.user.user_id])
    await uow.commit()
    return Reply(cohorts.left(command.name, was_member=bool(left)))


@handles(AddToCohort)
async def add_to_cohort(command: AddToCohort, context: Context, uow: UnitOfWork, *, cohorts_: CohortService) -> Reply:
    """`/quiz cohort add NAME @user...`."""
    channel = context.channel
    refs = [UserRef(channel.platform, channel.workspace_id, uid, "") for uid in command.users]
    cohort = await cohorts_.find(uow, channel, command.name)
    added = await cohorts_.add_members(uow, cohort, context.user, refs)
    await uow.commit()
    return Reply(cohorts.added(command.name, added, [uid for uid in command.users if uid not in added]))


@handles(RemoveFromCohort)
async def remove_from_cohort(
    command: RemoveFromCohort, context: Context, uow: UnitOfWork, *, cohorts_: CohortService
) -> Reply:
    """`/quiz cohort remove NAME @user...`."""
    cohort = await cohorts_.find(uow, context.channel, command.name)
    removed = await cohorts_.remove_members(uow, cohort, list(command.users))
    await uow.commit()
    return Reply(cohorts.removed(command.name, removed, [uid for uid in command.users if uid not in removed]))


@handles(ListCohorts)
async def list_cohorts(command: ListCohorts, context: Context, uow: UnitOfWork, *, cohorts_: CohortService) -> Reply:
    """`/quiz cohort list`."""
    return Reply(cohorts.list_message(await cohorts_.all_cohorts(uow, context.channel)))


@handles(ShowCohort)
async def show_cohort(command: ShowCohort, context: Context, uow: UnitOfWork, *, cohorts_: CohortService) -> Reply:
    """`/quiz cohort show NAME`."""
    cohort = await cohorts_.find(uow, context.channel, command.name)
    return Reply(cohorts.show_message(await cohorts_.view(uow, cohort)))


@handles(PostCohortQuestion)
async def post_cohort_question(
    command: PostCohortQuestion, context: Context, uow: UnitOfWork, *, cohorts_: CohortService
) -> Reply:
    """`/quiz cohort next NAME`: post the cohort's next curriculum question here."""
    cohort = await cohorts_.find(uow, context.channel, command.name)
    await uow.commit()  # the permission check may have created the caller's user row
    posted = await cohorts_.post_next_question(context.channel, cohort_id=cohort.id, posted_by=context.user)
    if posted is None:
        return Reply(cohorts.curriculum_done(command.name))
    return Reply(cohorts.next_posted(command.name), quiet=True)


@handles(SetCohort)
async def set_cohort(command: SetCohort, context: Context, uow: UnitOfWork, *, cohorts_: CohortService) -> Reply:
    """`/quiz cohort set NAME deliver:dm|channel`: how the cohort's schedules deliver its curriculum."""
    cohort = await cohorts_.find(uow, context.channel, command.name)
    changed = await cohorts_.set_delivery(uow, cohort, command.delivery)
    await uow.commit()
    return Reply(cohorts.delivery_set(cohort.name, command.delivery, changed=changed))


def direct_messages(platform: object) -> DirectMessages | None:
    """The platform's private-message capability, if it has one."""
    return platform if isinstance(platform, DirectMessages) else None


@handles(RemindCohort)
async def remind_cohort(
    command: RemindCohort, context: Context, uow: UnitOfWork, *, cohorts_: CohortService, platforms: PlatformRegistry
) -> Reply:
    """`/quiz cohort remind NAME`: a private nudge to each member who is behind, listing their due questions.

    The nudges are gathered in the unit of work, which then ends (nothing is written) before any platform call.
    A member the platform cannot reach is counted, not an error: the others still get theirs.
    """
    cohort = await cohorts_.find(uow, context.channel, command.name)
    view, nudges = await cohorts_.nudges(uow, cohort)
    await uow.commit()  # the permission check may have created the caller's user row
    behind = sum(1 for member in view.members if member.behind)
    sender = direct_messages(platforms.get(context.channel.platform))
    if nudges and sender is None:
        raise NotAllowed(cohorts.no_direct_messages(context.channel.platform))
    nudged = unreachable = 0
    for nudge in nudges:
        assert sender is not None
        try:
            await sender.send_direct(nudge.user, cohorts.nudge_message(nudge))
        except PlatformError as exc:
            log.info("could not nudge a cohort member: %s", exc, extra={"platform": context.channel.platform})
            unreachable += 1
        else:
            nudged += 1
    return Reply(cohorts.reminded(view.name, nudged=nudged, unreachable=unreachable, behind=behind))


async def ask_to_confirm(
    command: DeleteCohort | RemoveSchedule | EndSeason,
    context: Context,
    uow: UnitOfWork,
    confirmations_: Confirmations,
    *,
    prompt: Message,
    confirm_label: str,
) -> Reply:
    """Store a pending confirmation of a destructive command and reply with its question and buttons."""
    request = await confirmations_.ask(
        uow, command, channel=context.channel, user=context.user, confirm_label=confirm_label
    )
    await uow.commit()
    return Reply(prompt, confirm=request)


@handles(DeleteCohort)
async def delete_cohort(
    command: DeleteCohort, context: Context, uow: UnitOfWork, *, cohorts_: CohortService, confirmations_: Confirmations
) -> Reply:
    """`/quiz cohort delete NAME`: asks first; once confirmed, the cohort and its board go (answers stay)."""
    cohort = await cohorts_.find(uow, context.channel, command.name)
    if not command.confirmed:
        view = await cohorts_.view(uow, cohort)
        return await ask_to_confirm(
            command,
            context,
            uow,
            confirmations_,
            prompt=confirmations.delete_cohort_prompt(cohort.name, len(view.members)),
            confirm_label=confirmations.delete_cohort_label(),
        )
    await cohorts_.delete(uow, cohort)
    await uow.commit()
    return Reply(cohorts.deleted(command.name))


# --- review --------------------------------------------------------------------------------------------


@handles(StartReview)
async def start_review(command: StartReview, context: Context, uow: UnitOfWork, *, review_: ReviewService) -> Reply:
    """`/quiz review`: the question out for review, or when the next one is due."""
    found = await review_.next_question(uow, context.user)
    if isinstance(found, NothingDue):
        return Reply(review.nothing_due_message(found, now=review_.clock.now()))
    await uow.commit()  # the question is out: its shown order and version are pinned
    return Reply(review.question_message(found))


@handles(AnswerReview)
async def answer_review(command: AnswerReview, context: Context, uow: UnitOfWork, *, review_: ReviewService) -> Reply:
    """`/quiz review N`."""
    result = await review_.answer(uow, context.user, command.number)
    await uow.commit()
    return Reply(review.result_message(result))


# --- schedules -----------------------------------------------------------------------------------------


@handles(AddSchedule, AddCohortSchedule)
async def add_schedule(
    command: AddSchedule | AddCohortSchedule, context: Context, uow: UnitOfWork, *, schedules_: ScheduleService
) -> Reply:
    """`/quiz schedule add ...`, of packs or of a cohort's curriculum (the channel sees it)."""
    view, upcoming = await schedules_.add(uow, command, channel=context.channel, user=context.user)
    await uow.commit()
    return Reply(schedules.added(view, upcoming), private=False)


@handles(ListSchedules)
async def list_schedules(
    command: ListSchedules, context: Context, uow: UnitOfWork, *, schedules_: ScheduleService
) -> Reply:
    """`/quiz schedule list [all]`."""
    views = await schedules_.list(context.channel, everywhere=command.everywhere, within=uow)
    return Reply(schedules.listing(views, everywhere=command.everywhere, here=context.channel))


@handles(RemoveSchedule)
async def remove_schedule(
    command: RemoveSchedule,
    context: Context,
    uow: UnitOfWork,
    *,
    schedules_: ScheduleService,
    confirmations_: Confirmations,
) -> Reply:
    """`/quiz schedule remove ID`: asks first; once confirmed it is removed, and the channel sees it."""
    if not command.confirmed:
        view = await schedules_.get(uow, context.channel, command.schedule_id)
        return await ask_to_confirm(
            command,
            context,
            uow,
            confirmations_,
            prompt=confirmations.remove_schedule_prompt(view),
            confirm_label=confirmations.remove_schedule_label(),
        )
    view = await schedules_.remove(uow, command.schedule_id, channel=context.channel, user=context.user)
    await uow.commit()
    return Reply(schedules.removed(view, context.user), private=False)


@handles(PauseSchedule)
async def pause_schedule(
    command: PauseSchedule, context: Context, uow: UnitOfWork, *, schedules_: ScheduleService
) -> Reply:
    """`/quiz schedule pause ID` (the channel sees it when something changed)."""
    view, changed = await schedules_.set_paused(
        uow, command.schedule_id, paused=True, channel=context.channel, user=context.user
    )
    await uow.commit()
    return Reply(schedules.paused(view, context.user, changed=changed), private=not changed)


@handles(ResumeSchedule)
async def resume_schedule(
    command: ResumeSchedule, context: Context, uow: UnitOfWork, *, schedules_: ScheduleService
) -> Reply:
    """`/quiz schedule resume ID` (the channel sees it when something changed)."""
    view, changed = await schedules_.set_paused(
        uow, command.schedule_id, paused=False, channel=context.channel, user=context.user
    )
    await uow.commit()
    return Reply(schedules.resumed(view, context.user, changed=changed), private=not changed)


@handles(NextSchedule)
async def next_schedule(
    command: NextSchedule, context: Context, uow: UnitOfWork, *, schedules_: ScheduleService, clock: Clock
) -> Reply:
    """`/quiz schedule next`."""
    return Reply(schedules.next_here(await schedules_.next_here(context.channel, within=uow), now=clock.now()))


# --- flags --------------------------------------------------------------------------------------------


@handles(FlagQuestion)
async def flag_question(command: FlagQuestion, context: Context, uow: UnitOfWork, *, flags_: FlagService) -> Reply:
    """`/quiz flag [reason]` and the "Report a problem" buttons: record the caller's flag, or update its reason."""
    result = await flags_.flag(uow, context.channel, context.user, post_id=command.post_id, reason=command.reason)
    await uow.commit()
    return Reply(flags.flag_message(result))


@handles(ListFlags)
async def list_flags(command: ListFlags, context: Context, uow: UnitOfWork, *, flags_: FlagService) -> Reply:
    """`/quiz flags`: the workspace's flagged questions with counts, reasons and accuracy."""
    return Reply(flags.listing_message(await flags_.flagged(uow, context.channel), threshold=flags_.threshold))


@handles(ClearFlags)
async def clear_flags(command: ClearFlags, context: Context, uow: UnitOfWork, *, flags_: FlagService) -> Reply:
    """`/quiz flags clear PACK/QUESTION`: the question's open flags cleared, so it is back in rotation."""
    cleared = await flags_.clear(uow, context.channel, context.user, pack_id=command.pack_id, key=command.question_key)
    await uow.commit()
    return Reply(flags.cleared_message(cleared))


# --- seasons -------------------------------------------------------------------------------------------


@handles(StartSeason)
async def start_season(command: StartSeason, context: Context, uow: UnitOfWork, *, seasons_: SeasonService) -> Reply:
    """`/quiz season start NAME [until:YYYY-MM-DD]` (the channel sees it)."""
    view = await seasons_.start(uow, context.channel, context.user, name=command.name, until=command.until)
    await uow.commit()
    return Reply(seasons.started_message(view), private=False)


@handles(EndSeason)
async def end_season(
    command: EndSeason, context: Context, uow: UnitOfWork, *, seasons_: SeasonService, confirmations_: Confirmations
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
    return Reply(seasons.ended_message(await seasons_.announce(ended.id)))


@handles(ListSeasons)
async def list_seasons(command: ListSeasons, context: Context, uow: UnitOfWork, *, seasons_: SeasonService) -> Reply:
    """`/quiz season list`."""
    return Reply(seasons.listing(await seasons_.list(uow, context.channel)))


COMMAND_HANDLERS: Mapping[type[Any], Route] = {
    kind: Route(handler, ACCESS[kind].permission, ACCESS[kind].action) for kind, handler in _HANDLERS.items()
}
"""Every command the core runs: its handler (registered by `@handles`), and from its spec (bot/commands.py SPECS)
who may run it and what a refusal names."""


def bind_routes(routes: Mapping[type[Any], Route], dependencies: Mapping[str, object]) -> dict[type[Any], Route]:
    """The routes with each handler's keyword-only dependencies bound by name (cosmicpython's bootstrap)."""
    bound: dict[type[Any], Route] = {}
    for command_type, route in routes.items():
        wanted = [
            name
            for name, parameter in inspect.signature(route.handler).parameters.items()
            if parameter.kind is inspect.Parameter.KEYWORD_ONLY
        ]
        missing = [name for name in wanted if name not in dependencies]
        if missing:
            raise TypeError(f"{route.handler.__name__} needs {', '.join(missing)}, which bootstrap does not provide")
        handler = functools.partial(route.handler, **{name: dependencies[name] for name in wanted})
        bound[command_type] = Route(handler, route.permission, route.action)
    return bound
