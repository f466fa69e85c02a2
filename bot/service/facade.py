"""What an adapter sees of the bot: a narrow facade of the core and the bot's lifecycle, never the Runtime.

Adapters (adapters/<platform>/) are built from an `AdapterHost`. They turn platform payloads into `Invocation`s
and command objects, clicks into `answer` calls, and the returned `Reply` / `AnswerResult` into platform messages;
they register their `ChatPlatform` so the core can post and edit cards there. Nothing else of the core is theirs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Protocol

from aiohttp import web

from bot.clock_skew import ClockSkew
from bot.commands import Command
from bot.config import Settings
from bot.domain import AnswerResult, ChannelRef, Pack, UserRef
from bot.ports import ChatPlatform, Page
from bot.service.handlers import Context, Invocation, Reply


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

    async def home(self, user: UserRef) -> Page:
        """A person's home page: their record, channels, topics, review, cohorts and next question."""
        ...

    async def answer(
        self, *, post_id: int, user: UserRef, choice_index: int, channel: ChannelRef | None = None
    ) -> AnswerResult:
        """Record a click; returns once it is committed. Pass `channel` when the platform says where the click
        happened: a click on a post of another workspace or channel is refused (PostedElsewhere)."""
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
