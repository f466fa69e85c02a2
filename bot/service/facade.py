"""What an adapter sees of the bot: a narrow facade of the core and the bot's lifecycle, never the Runtime.

Adapters (adapters/<platform>/) are built from an `AdapterHost`. They turn platform payloads into `Invocation`s
and command objects, clicks into `answer` calls, and the returned `Reply` / `AnswerResult` into platform messages
(an error they catch becomes one through `error_reply`); they register their `ChatPlatform` so the core can post
and edit cards there. Nothing else of the core is theirs.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from aiohttp import web

from bot.clock_skew import ClockSkew
from bot.commands import Command
from bot.config import Settings
from bot.domain import AnswerResult, ChannelRef, Pack, UserRef
from bot.domain.forms import Form, FormKind
from bot.domain.views import ConfirmationRequest, ReportChart
from bot.errors import CommandError, QuizError, StorageUnavailable
from bot.ports import ActionKind, ChatPlatform, Message, Page, PlatformError
from bot.wording import errors as error_words
from bot.wording.i18n import DEFAULT_LOCALE

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Context:
    """Who runs a command, and where. `is_admin` is decided by the adapter from its platform's roles; `locale` is
    the language the reply is worded in (the dispatcher sets it for the request, `bot.wording.i18n.reading_in`)."""

    channel: ChannelRef
    user: UserRef
    is_admin: bool = False
    locale: str = DEFAULT_LOCALE
    platform_roles: tuple[str, ...] = ()
    """The ids of the platform's own roles the user has (a Discord member's roles), for roles granted to them."""


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
    locale: str = DEFAULT_LOCALE
    delivery_id: str | None = None
    """The platform's own id of this request (a Slack slash command's trigger_id), when it has one: a second
    delivery of the same id is acknowledged and not run (service/deliveries.py)."""
    platform_roles: tuple[str, ...] = ()
    """The ids of the platform's own roles the user has (a Discord member's roles), for roles granted to them."""

    @property
    def context(self) -> Context:
        """Who runs the command, and where."""
        return Context(
            channel=self.channel,
            user=self.user,
            is_admin=self.is_admin,
            locale=self.locale,
            platform_roles=self.platform_roles,
        )


@dataclass(frozen=True, slots=True)
class Reply:
    """What to tell the user who ran a command, the one reply shape of every handler.

    `private`: only they should see it. `quiet`: the command's effect is already visible (a card was posted),
    so an adapter that must answer anyway (a Discord interaction) may answer briefly and others may stay silent.
    `confirm`: the command did nothing yet and asks them to confirm (the message is the question); the adapter
    shows its buttons (or asks `y/N`) and sends the answer to `QuizApp.confirm` with the request's token.
    `page`: the same content in sections with buttons, for an adapter that can show them (`message` is its text).
    `charts`: images to post beside the message (`/quiz report`), for an adapter that can upload files.
    `form`: open this form for the user (bot/domain/forms.py); with `form.errors`, the answer to a refused
    submission: show the problems inside the form, keeping what was typed. `message` says the same in words, for
    an adapter that cannot show a form in reply.
    """

    message: Message
    private: bool = True
    quiet: bool = False
    ok: bool = True
    confirm: ConfirmationRequest | None = None
    page: Page | None = None
    charts: tuple[ReportChart, ...] = ()
    form: Form | None = None


def error_reply(exc: BaseException) -> Reply:
    """The friendly reply for an error, by category; unexpected errors are logged with their traceback."""
    if isinstance(exc, CommandError):
        return Reply(Message(exc.worded(), exc.lines), ok=False)
    if isinstance(exc, StorageUnavailable):
        return Reply(error_words.database_down(), ok=False)
    if isinstance(exc, QuizError):
        return Reply(Message(str(exc)), ok=False)
    if isinstance(exc, PlatformError):
        return Reply(error_words.platform_refused(str(exc)), ok=False)
    log.error("unexpected error", exc_info=exc)
    return Reply(error_words.unexpected(), ok=False)


class QuizCore(Protocol):
    """The core as adapters call it (QuizApp implements it)."""

    async def handle_command(self, invocation: Invocation) -> Reply:
        """Parse and run a `/quiz ...` text; every error becomes a friendly reply."""
        ...

    async def execute(self, command: Command, context: Context) -> Reply:
        """Run a command object built from a platform's typed options."""
        ...

    async def confirm(self, *, token: str, context: Context, accept: bool) -> Reply:
        """Answer a confirmation request (`Reply.confirm`) with its token: run the command, or cancel it.
        Only its asker may, once, before it expires; every refusal is a friendly reply."""
        ...

    async def submit_form(self, *, kind: FormKind, state: str, values: Mapping[str, str], context: Context) -> Reply:
        """A filled-in form (`Reply.form`) sent back with its kind and state: run the command it stands for. The
        reply is a message, or the form again with `errors`; every error becomes a friendly reply."""
        ...

    async def act(self, *, action: ActionKind, value: str, context: Context) -> Reply:
        """A click on a page's button (`Action`, other than START_REVIEW): run the command it stands for, with the
        permission checked as for a typed one; every error becomes a friendly reply."""
        ...

    async def home(self, user: UserRef) -> Page:
        """A person's home page: their record, channels, topics, review, cohorts and next question."""
        ...

    async def answer(
        self, *, post_id: int, user: UserRef, choice_index: int, channel: ChannelRef | None = None
    ) -> AnswerResult:
        """Record a click; returns once it is committed. Pass `channel` when the platform says where the click
        happened: a click on a post of another workspace or channel is refused (PostedElsewhere), except one from
        another workspace of the post's organisation in the post's own channel (`ChannelRef.enterprise_id`)."""
        ...

    def acknowledged_late(self, platform: str) -> None:
        """Count (metrics) a click acknowledged before its answer was committed, because the platform's
        acknowledgement deadline came first; the adapter answers it once it is recorded."""
        ...

    async def flush_cards(self) -> None:
        """Finish pending card edits (an adapter calls this before it disconnects)."""
        ...

    @property
    def packs(self) -> Sequence[Pack]:
        """The loaded packs (for autocompletion)."""
        ...


class Platforms(Protocol):
    """Where an adapter registers its ChatPlatform."""

    def register(self, platform: ChatPlatform) -> None:
        """Make a platform reachable by its name."""
        ...

    def unregister(self, name: str) -> None:
        """Take a platform away (its adapter has closed)."""
        ...


class AdapterHost(Protocol):
    """Everything an adapter is given."""

    @property
    def app(self) -> QuizCore:
        """The core's facade."""
        ...

    @property
    def settings(self) -> Settings:
        """The settings (each adapter reads its own)."""
        ...

    @property
    def platforms(self) -> Platforms:
        """Where to register the adapter's ChatPlatform."""
        ...

    def ops_routes(self) -> list[web.RouteDef]:
        """/healthz and /metrics, for an adapter that serves HTTP and wants them beside its own routes."""
        ...

    @property
    def clock_skew(self) -> ClockSkew:
        """Where the adapter hands the `Date` of its platform's responses (`ClockSkew.trace_config`)."""
        ...

    @property
    def stopping(self) -> asyncio.Event:
        """Set when the bot is shutting down: the adapter finishes what it is doing and returns."""
        ...
