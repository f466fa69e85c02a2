"""The one entry point adapters call: run a `/quiz` command, take a click, reveal a post.

Adapters turn platform payloads into these calls and the returned Reply into platform messages.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.clock import Clock
from bot.commands import (
    AddSchedule,
    Command,
    ListPacks,
    ListSchedules,
    NextSchedule,
    PauseSchedule,
    PostNow,
    RemoveSchedule,
    ResumeSchedule,
    Reveal,
    ShowHelp,
    ShowLeaderboard,
    ShowMe,
    help_lines,
    parse_command,
)
from bot.domain import AnswerOutcome, AnswerResult, ChannelRef, PostSource, QuestionCard, UserRef
from bot.errors import CommandError, QuizError, StorageUnavailable
from bot.ports import Message, PlatformError
from bot.render import help_message, leaderboard_message, packs_message, stats_message
from bot.service.cards import CardRefresher
from bot.service.quiz import QuizService
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


class QuizApp:
    """The quiz core as adapters see it."""

    def __init__(
        self,
        *,
        quiz: QuizService,
        stats: Stats,
        cards: CardRefresher,
        clock: Clock,
        schedules: ScheduleService | None = None,
    ) -> None:
        self.quiz = quiz
        self.stats = stats
        self.cards = cards
        self.clock = clock
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
            case ShowLeaderboard(window=window, scope=scope):
                board = await self.stats.leaderboard(inv.channel, window=window, scope=scope, now=self.clock.now())
                return Reply(leaderboard_message(board))
            case ShowMe():
                return Reply(stats_message(await self.stats.user_stats(inv.user, now=self.clock.now())))
            case ListPacks():
                return Reply(packs_message(self.quiz.catalog))
            case ShowHelp(topic=topic):
                return Reply(help_message(help_lines(topic)))
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
        """Record a click and schedule a (coalesced) edit of the card's answer count."""
        result = await self.quiz.record_answer(post_id=post_id, user=user, choice_index=choice_index)
        if result.outcome is AnswerOutcome.RECORDED:
            self.cards.request(post_id)
        return result

    async def reveal(self, post_id: int) -> QuestionCard:
        """Close a post and edit its card to show the answer, the distribution and who got it right."""
        closed = await self.quiz.close_post(post_id)
        await self.cards.edit_now(post_id, closed)
        return closed[2]

    async def aclose(self) -> None:
        """Finish pending card edits."""
        await self.cards.flush()
