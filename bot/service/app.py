"""The one entry point adapters call: run a `/quiz` command, take a click, reveal a post.

Adapters turn platform payloads into these calls and the returned Reply into platform messages.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.clock import Clock
from bot.commands import (
    AddSchedule,
    AnswerReview,
    CohortCommand,
    Command,
    ListPacks,
    ListSchedules,
    NextSchedule,
    PauseSchedule,
    PostNow,
    RemoveSchedule,
    ResumeSchedule,
    Reveal,
    Scope,
    ShowHelp,
    ShowLeaderboard,
    ShowMe,
    ShowReport,
    StartReview,
    help_lines,
    parse_command,
)
from bot.domain import AnswerOutcome, AnswerResult, ChannelRef, PostSource, QuestionCard, UserRef
from bot.errors import CommandError, QuizError, ShuttingDown, StorageUnavailable
from bot.ops.metrics import Metrics
from bot.ports import Message, PlatformError
from bot.render import cohort_board_message, help_message, leaderboard_message, packs_message, stats_message
from bot.service.answers import AnswerRecorder
from bot.service.cards import CardRefresher
from bot.service.cohorts import CohortService
from bot.service.outcome import Outcome
from bot.service.quiz import QuizService
from bot.service.report import ReportService
from bot.service.review import ReviewService
from bot.service.stats import Stats

if TYPE_CHECKING:
    from bot.scheduling.service import ScheduleService

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Invocation:
    """A `/quiz ...` typed by a user in a channel.

    `is_admin` is decided by the adapter from its platform's roles (Slack workspace admins and owners,
    Discord members with Manage Server, everyone in the terminal) and gates commands that change settings.
    """

    channel: ChannelRef
    user: UserRef
    text: str
    is_admin: bool = False


@dataclass(frozen=True, slots=True)
class Reply:
    """What to tell the user who ran a command.

    `private`: only they should see it. `quiet`: the command's effect is already visible (a card was posted),
    so an adapter that must answer anyway (a Discord interaction) may answer briefly and others may stay silent.
    """

    message: Message
    private: bool = True
    quiet: bool = False
    ok: bool = True


def error_reply(exc: BaseException) -> Reply:
    """The friendly reply for an error; unexpected errors are logged with their traceback."""
    if isinstance(exc, CommandError):
        return Reply(Message(str(exc), tuple(help_lines())), ok=False)
    if isinstance(exc, StorageUnavailable):
        return Reply(Message("Could not reach the quiz database; nothing was changed. Please try again."), ok=False)
    if isinstance(exc, QuizError):
        return Reply(Message(str(exc)), ok=False)
    if isinstance(exc, PlatformError):
        return Reply(Message(f"The chat platform refused that: {exc}"), ok=False)
    log.error("unexpected error", exc_info=exc)
    return Reply(Message("Something went wrong on our side; it has been logged. Please try again."), ok=False)


def _reply(outcome: Outcome) -> Reply:
    return Reply(outcome.message, private=outcome.private, quiet=outcome.quiet)


class QuizApp:
    """The quiz core as adapters see it."""

    def __init__(
        self,
        *,
        quiz: QuizService,
        answers: AnswerRecorder,
        stats: Stats,
        cards: CardRefresher,
        clock: Clock,
        metrics: Metrics | None = None,
        cohorts: CohortService | None = None,
        review: ReviewService | None = None,
        reports: ReportService | None = None,
        schedules: ScheduleService | None = None,
    ) -> None:
        self.quiz = quiz
        self.answers = answers
        self.stats = stats
        self.cards = cards
        self.clock = clock
        self.metrics = metrics or quiz.metrics
        self.accepting = True
        self._inflight = 0
        self._idle = asyncio.Event()
        self._idle.set()
        db, directory = quiz.db, quiz.directory
        self.cohorts = cohorts or CohortService(
            db=db, catalog=quiz.catalog, directory=directory, clock=clock, quiz=quiz
        )
        self.review = review or ReviewService(db=db, directory=directory, clock=clock, rng=quiz.rng)
        self.reports = reports or ReportService(db=db, stats=stats, clock=clock)
        self.schedules = schedules

    async def handle_command(self, invocation: Invocation) -> Reply:
        """Parse and run a `/quiz` command; every error becomes a friendly reply."""
        try:
            command = parse_command(invocation.text)
            return await self._run(command, invocation)
        except Exception as exc:
            return error_reply(exc)

    async def _run(self, command: Command, inv: Invocation) -> Reply:
        match command:
            case PostNow(pack=pack):
                posted = await self.quiz.post_question(
                    inv.channel, pack_id=pack, source=PostSource.COMMAND, posted_by=inv.user
                )
                card = posted.card
                return Reply(Message(f"Posted question {card.question_number} of {card.pack_title}."), quiet=True)
            case Reveal():
                card = await self.reveal(await self.quiz.current_post_id(inv.channel))
                return Reply(
                    Message(f"Revealed: {card.choices[card.reveal.correct_position] if card.reveal else ''}"),
                    quiet=True,
                )
            case ShowLeaderboard(window=window, scope=Scope.COHORTS):
                cohorts = await self.stats.cohort_board(inv.channel, window=window, now=self.clock.now())
                return Reply(cohort_board_message(cohorts))
            case ShowLeaderboard(window=window, scope=scope, cohort=cohort):
                board = await self.stats.leaderboard(
                    inv.channel, window=window, scope=scope, cohort=cohort, now=self.clock.now()
                )
                return Reply(leaderboard_message(board))
            case ShowMe():
                return Reply(stats_message(await self.stats.user_stats(inv.user, now=self.clock.now())))
            case ListPacks():
                return Reply(packs_message(self.quiz.catalog))
            case ShowHelp(topic=topic):
                return Reply(help_message(help_lines(topic)))
            case CohortCommand():
                return _reply(
                    await self.cohorts.run(command, channel=inv.channel, user=inv.user, is_admin=inv.is_admin)
                )
            case StartReview() | AnswerReview():
                return _reply(await self.review.run(command, inv.user))
            case ShowReport(cohort=cohort):
                return _reply(await self.reports.run(inv.channel, cohort=cohort))
            case (
                AddSchedule() | ListSchedules() | RemoveSchedule() | PauseSchedule() | ResumeSchedule() | NextSchedule()
            ):
                if self.schedules is None:
                    raise CommandError("Schedules are not available here.")
                message, public = await self.schedules.handle(
                    command, channel=inv.channel, user=inv.user, is_admin=inv.is_admin
                )
                return Reply(message, private=not public)
        raise CommandError("That command is not available here.")  # pragma: no cover - the match is exhaustive

    async def answer(self, *, post_id: int, user: UserRef, choice_index: int) -> AnswerResult:
        """Record a click and schedule a (coalesced) edit of the card's answer count.

        Returns only once the answer is committed, so an adapter that acknowledges the result never
        acknowledges a click the database does not have. During shutdown new clicks are refused (retryable).
        """
        if not self.accepting:
            raise ShuttingDown("The quiz bot is restarting; nothing was recorded. Please click again in a moment.")
        self._inflight += 1
        self._idle.clear()
        self.metrics.inflight.inc()
        started = time.perf_counter()
        outcome = "failed"
        try:
            result = await self.answers.record(post_id=post_id, user=user, choice_index=choice_index)
            outcome = result.outcome.value
        finally:
            self.metrics.answered(user.platform, outcome, time.perf_counter() - started)
            self.metrics.inflight.dec()
            self._inflight -= 1
            if self._inflight == 0:
                self._idle.set()
        if result.outcome is AnswerOutcome.RECORDED:
            self.cards.request(post_id)
        return result

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
        """Close a post and edit its card to show the answer, the distribution and who got it right."""
        closed = await self.quiz.close_post(post_id)
        await self.cards.edit_now(post_id, closed)
        return closed[2]

    async def aclose(self) -> None:
        """Stop taking clicks, let those in flight commit, then finish pending card edits."""
        await self.drain()
        await self.cards.flush()
