"""The one entry point adapters call: run a `/quiz` command, take a click, reveal a post.

Adapters turn platform payloads into these calls and the returned Reply into platform messages.

This is the service's transaction boundary: the dispatcher opens the unit of work of each command, confirmation,
home page, reveal and card read, and the use cases and handlers run in the one they are given. The exceptions,
each explained in its module, are a post's publication (quiz.py, `publication_step`) and the click path's group
commit (answers.py); tests/unit/test_transaction_boundary.py lists every place that opens one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

from bot.clock import Clock
from bot.commands import Command, parse_command
from bot.commands.forms import ACTION_COMMANDS, FORM_COMMANDS
from bot.content.upload_limits import UploadLimits
from bot.domain import AnswerOutcome, AnswerResult, ChannelRef, Pack, QuestionCard, UserRef
from bot.domain.forms import FormKind
from bot.domain.settings import SettingDefaults
from bot.domain.views import SeasonEnded
from bot.errors import Busy, CommandError, ShuttingDown
from bot.ports import ActionKind, Message, Page, ServiceMetrics
from bot.service.answers import AnswerRecorder
from bot.service.cards import CardRefresher
from bot.service.cohorts import CohortService
from bot.service.confirmations import Confirmations
from bot.service.deliveries import delivery_key
from bot.service.facade import Context, Invocation, Reply, error_reply
from bot.service.flags import FlagService
from bot.service.handlers import COMMAND_HANDLERS, Route, bind_routes, check_permission
from bot.service.handlers.questions import NowLimits
from bot.service.home import HomeReader
from bot.service.quiz import PostedCard, QuizService
from bot.service.report import ReportService
from bot.service.review import ReviewService
from bot.service.schedules import ScheduleService
from bot.service.seasons import SeasonService
from bot.service.stats import Stats
from bot.service.uow import UnitOfWork, UnitOfWorkFactory, is_conflict
from bot.wording import commands as command_words
from bot.wording import confirmations as confirm_words
from bot.wording import home as home_words
from bot.wording.answers import busy
from bot.wording.errors import RESTARTING, not_available_here
from bot.wording.i18n import reading_in

log = logging.getLogger(__name__)


async def sync_content(uow_factory: UnitOfWorkFactory, quiz: QuizService) -> None:
    """Copy the loaded packs into the database (the runtime, at start-up, before the app is built), again if another
    replica synced the same rows at the same moment."""
    for attempt in range(3):
        try:
            async with uow_factory() as uow:
                await quiz.sync_content(uow)
                await uow.commit()
            return
        except Exception as exc:
            if not is_conflict(exc) or attempt == 2:
                raise
            log.info("content sync raced another process; retrying")


class QuizApp:
    """The quiz core as adapters see it."""

    def __init__(
        self,
        *,
        uow: UnitOfWorkFactory,
        quiz: QuizService,
        answers: AnswerRecorder,
        stats: Stats,
        cards: CardRefresher,
        clock: Clock,
        cohorts: CohortService,
        review: ReviewService,
        reports: ReportService,
        schedules: ScheduleService,
        flags: FlagService,
        seasons: SeasonService,
        confirmations: Confirmations,
        metrics: ServiceMetrics | None = None,
        max_pending_clicks: int = 1000,
        now_limits: NowLimits | None = None,
        setting_defaults: SettingDefaults | None = None,
        upload_limits: UploadLimits | None = None,
    ) -> None:
        self.uow = uow
        self.quiz = quiz
        self.answers = answers
        self.stats = stats
        self.cards = cards
        self.clock = clock
        self.metrics = metrics or quiz.metrics
        self.accepting = True
        self.max_pending_clicks = max_pending_clicks
        self._inflight = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self.cohorts = cohorts
        self.review = review
        self.reports = reports
        self.schedules = schedules
        self.flags = flags
        self.seasons = seasons
        self.confirmations = confirmations
        self.home_reader = HomeReader(stats)
        cards.read_card = self.card  # a coalesced edit reads the card in a unit of work of the dispatcher's
        self.routes: dict[type[Any], Route] = bind_routes(
            COMMAND_HANDLERS,
            {
                "quiz": quiz,
                "platforms": quiz.platforms,
                "reveal": self.reveal_in,
                "catalog": quiz.catalog,
                "stats": stats,
                "clock": clock,
                "reports_": reports,
                "cohorts_": cohorts,
                "review_": review,
                "schedules_": schedules,
                "flags_": flags,
                "seasons_": seasons,
                "confirmations_": confirmations,
                "home_": self.home_reader,
                "announce_season": self.announce_season,
                "now_limits": now_limits or NowLimits(),
                "setting_defaults": setting_defaults or _defaults_of(now_limits or NowLimits()),
                "upload_limits": upload_limits or UploadLimits(),
            },
        )

    async def handle_command(self, invocation: Invocation) -> Reply:
        """Parse and run a `/quiz` command; every error becomes a friendly reply, in the caller's language. A
        repeated delivery (the same `delivery_id` within a few minutes, on any replica) is not run: its reply is
        quiet."""
        with reading_in(invocation.locale):
            try:
                if invocation.delivery_id is not None and not await self._first_delivery(invocation):
                    return Reply(Message(command_words.repeated_delivery()), quiet=True)
                return await self.execute(parse_command(invocation.text), invocation.context)
            except Exception as exc:
                return error_reply(exc)

    async def _first_delivery(self, invocation: Invocation) -> bool:
        assert invocation.delivery_id is not None
        key = delivery_key(invocation.channel.platform, invocation.delivery_id)
        async with self.uow() as uow:
            first = await uow.deliveries.first_sight(key, self.clock.now())
            await uow.commit()
        if not first:
            log.warning(
                "a repeated delivery of a command was not run again",
                extra={
                    "platform": invocation.channel.platform,
                    "workspace": invocation.channel.workspace_id,
                    "channel": invocation.channel.channel_id,
                },
            )
        return first

    async def execute(self, command: Command, context: Context) -> Reply:
        """Run a command object (Discord builds them from typed options): permission, then its handler.

        One unit of work per command; the permission is checked inside it, before the handler runs.
        """
        with reading_in(context.locale):
            route = self.routes.get(type(command))
            if route is None:
                raise CommandError(not_available_here())
            async with self.uow() as uow:
                await check_permission(route, command, context, uow, self.clock)
                return await route.handler(command, context, uow)

    async def confirm(self, *, token: str, context: Context, accept: bool) -> Reply:
        """A click on a confirmation's button (or `y`/`N` in the terminal): run the stored command, or cancel it.

        Only the asker (same platform, workspace and user) may answer, once, before it expires; anyone else, a
        second click and a late one are told so and nothing changes. The token is used up in its own unit of work
        before the command runs in the usual one (permission checked again, as the clicker is now), so a command
        that then fails must be run again rather than confirmed twice. Every error becomes a friendly reply.
        """
        with reading_in(context.locale):
            try:
                async with self.uow() as uow:
                    taken = await self.confirmations.take(uow, token, context.user, accept=accept)
                    await uow.commit()
                if taken is None:
                    return Reply(confirm_words.cancelled())
                here = Context(
                    channel=taken.channel,
                    user=context.user,
                    is_admin=context.is_admin,
                    locale=context.locale,
                    platform_roles=context.platform_roles,
                )
                return await self.execute(taken.command, here)
            except Exception as exc:
                return error_reply(exc)

    async def submit_form(self, *, kind: FormKind, state: str, values: Mapping[str, str], context: Context) -> Reply:
        """A filled-in form sent back (`Reply.form`): run the command it stands for (bot/commands/forms.py), with
        its permission; every error becomes a friendly reply."""
        with reading_in(context.locale):
            try:
                build = FORM_COMMANDS.get(kind)
                if build is None:
                    raise CommandError(not_available_here())
                return await self.execute(build(state, values), context)
            except Exception as exc:
                return error_reply(exc)

    async def act(self, *, action: ActionKind, value: str, context: Context) -> Reply:
        """A click on a page's button: run the command it stands for (bot/commands/forms.py), with its permission;
        every error becomes a friendly reply."""
        with reading_in(context.locale):
            try:
                build = ACTION_COMMANDS.get(action)
                if build is None:
                    raise CommandError(not_available_here())
                return await self.execute(build(value), context)
            except Exception as exc:
                return error_reply(exc)

    async def home(self, user: UserRef) -> Page:
        """A person's home page (Slack's App Home tab): the same page as `/quiz me`, read in one unit of work."""
        async with self.uow() as uow:
            view = await self.home_reader.home(uow, user, now=self.clock.now())
            await uow.commit()  # the user's /quiz me checkpoint, moved on by the read (bot/service/streak_stats.py)
        return home_words.home_page(view)

    async def answer(
        self, *, post_id: int, user: UserRef, choice_index: int, channel: ChannelRef | None = None
    ) -> AnswerResult:
        """Record a click and schedule a (coalesced) edit of the card's answer count.

        Returns only once the answer is committed, so an adapter that acknowledges the result never
        acknowledges a click the database does not have. During shutdown new clicks are refused (retryable).
        A click counts only on a post of the user's own platform and workspace, and of `channel` (where the click
        happened) when the adapter knows it, or from another workspace of the post's organisation in the post's
        own channel (it then counts on the post's boards); otherwise PostedElsewhere, and nothing is recorded.

        Bounded intake: with `max_pending_clicks` clicks already accepted and not yet committed, the click is
        refused at once (Busy, retryable) and nothing is recorded, so a burst cannot grow memory without bound.
        """
        if not self.accepting:
            raise ShuttingDown(RESTARTING)
        if self._inflight >= self.max_pending_clicks:
            self.metrics.busy_refused(user.platform)
            raise Busy(busy())
        self._inflight += 1
        self._idle.clear()
        self.metrics.recording(1)
        started = time.perf_counter()
        outcome = "failed"
        try:
            result = await self.answers.record(post_id=post_id, user=user, choice_index=choice_index, channel=channel)
            outcome = result.outcome.value
        finally:
            self.metrics.answered(user.platform, outcome, time.perf_counter() - started)
            self.metrics.recording(-1)
            self._inflight -= 1
            if self._inflight == 0:
                self._idle.set()
        if result.outcome is AnswerOutcome.RECORDED:
            self.cards.request(post_id)
        return result

    def acknowledged_late(self, platform: str) -> None:
        """Count a click the adapter acknowledged before its answer was committed (its deadline passed)."""
        self.metrics.late_ack(platform)

    async def drain(self, grace_seconds: float = 10.0) -> bool:
        """Stop taking clicks and wait for those in flight to commit; False if some were still running."""
        self.accepting = False
        try:
            await asyncio.wait_for(self._idle.wait(), grace_seconds)
        except TimeoutError:
            log.warning("%d answers still in flight at shutdown", self._inflight)
            return False
        return True

    async def reveal(self, post_id: int) -> QuestionCard:
        """Close a post and edit its card to show the answer, the distribution and who got it right (the
        scheduler's reveals call this: one unit of work)."""
        async with self.uow() as uow:
            return await self.reveal_in(uow, post_id)

    async def reveal_in(self, uow: UnitOfWork, post_id: int) -> QuestionCard:
        """`reveal` in the caller's unit of work: the post is closed and committed before the card is edited."""
        closed = await self.quiz.close_post(uow, post_id)
        await uow.commit()
        await self.cards.edit_now(post_id, closed)
        return closed[2]

    async def announce_season(self, season_id: int) -> SeasonEnded:
        """Post an ended season's final boards (the ticker's, or the admin's who ended it): read in a unit of work,
        posted once it has ended."""
        async with self.uow() as uow:
            final = await self.seasons.final_boards(uow, season_id)
        return await self.seasons.post_final_boards(final)

    async def current_post_id(self, channel: ChannelRef) -> int:
        """The newest open post in a channel, or NoOpenPost (read in a unit of work of its own)."""
        async with self.uow() as uow:
            return await self.quiz.current_post_id(uow, channel)

    async def card(self, post_id: int) -> PostedCard:
        """A post's current card, where it was posted, and its message reference (what a card edit shows)."""
        async with self.uow() as uow:
            return await self.quiz.card(uow, post_id)

    async def sync_content(self) -> None:
        """Copy the loaded packs into the database (see `sync_content`)."""
        await sync_content(self.uow, self.quiz)

    async def flush_cards(self) -> None:
        """Finish pending card edits now (an adapter calls this before it disconnects)."""
        await self.cards.flush()

    @property
    def packs(self) -> Sequence[Pack]:
        """The loaded packs."""
        return self.quiz.catalog.packs

    async def aclose(self) -> None:
        """Stop taking clicks, let those in flight commit, then finish pending card edits."""
        await self.drain()
        await self.cards.flush()


def _defaults_of(limits: NowLimits) -> SettingDefaults:
    """The settings' defaults when only the now limits are given (tests that build the app by hand)."""
    return SettingDefaults.of(
        now_cooldown_seconds=int(limits.cooldown.total_seconds()), now_open_limit=limits.open_limit
    )
