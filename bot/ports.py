"""The port between the quiz core and a chat platform, and the platform-neutral messages it carries.

The core calls three methods (post a card, edit it, post a message such as a season's final board) and reads
one declaration (rate limits); adapters (Slack, Discord, terminal) implement them.
One optional capability, DirectMessages, sends a person a private message.
Replies to a user's own command or click are not sent through the port: the core returns them and the adapter
answers in the way its platform expects (an ephemeral response, an interaction callback, a line on the terminal).
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, TypeVar, runtime_checkable

from bot.domain import ChannelRef, QuestionCard, UserRef


@dataclass(frozen=True, slots=True)
class Message:
    """A short platform-neutral message: a title and plain-text lines (no markup; adapters style it)."""

    title: str
    lines: Sequence[str] = field(default_factory=tuple)

    @property
    def text(self) -> str:
        """Title and lines as plain text."""
        return "\n".join([self.title, *self.lines]) if self.lines else self.title


@dataclass(frozen=True, slots=True)
class Line:
    """A line of a page section: plain text, and the channel it is about (adapters show a channel their way)."""

    text: str
    channel: ChannelRef | None = None


@dataclass(frozen=True, slots=True)
class Section:
    """A titled part of a page (the streaks, the channels, the review)."""

    title: str
    lines: tuple[Line, ...] = ()


class ActionKind(enum.Enum):
    """What a button under a page does; each adapter gives it its own id (action_id, custom_id)."""

    START_REVIEW = "start-review"
    """Ask the review question due longest, as `/quiz review` does."""
    APPROVE_DRAFT = "approve-draft"
    """A lead approves the draft `Action.value` names (`/quiz drafts`): it joins the workspace's pack."""
    EDIT_DRAFT = "edit-draft"
    """A lead opens the draft `Action.value` names in the write form, to change it before approving."""
    REJECT_DRAFT = "reject-draft"
    """A lead rejects the draft `Action.value` names; its author hears so privately."""


@dataclass(frozen=True, slots=True)
class Action:
    """A button under a page: what it does, its label, and what it acts on (a draft's id; at most 64 characters,
    carried in a Slack button's value or a Discord custom_id). A click goes to `QuizCore.act`."""

    kind: ActionKind
    label: str
    value: str = ""


@dataclass(frozen=True, slots=True)
class Page:
    """A message in sections with buttons (the personal home): adapters that can show sections and buttons do;
    `message` is the same content as a plain Message (a title and lines) for those that cannot."""

    title: str
    sections: tuple[Section, ...]
    message: Message
    actions: tuple[Action, ...] = ()


class PlatformError(Exception):
    """A platform refused or failed a call; `permanent` when retrying cannot help (channel gone, no access)."""

    def __init__(self, message: str, *, permanent: bool = False, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.permanent = permanent
        self.retry_after = retry_after


class MissingPermission(PlatformError):
    """A platform refused a call for want of a permission the bot was not given: `permission` names it as the
    platform does (Slack's `files:write` scope, Discord's Attach Files)."""

    def __init__(self, message: str, *, permission: str) -> None:
        super().__init__(message, permanent=True)
        self.permission = permission


@dataclass(frozen=True, slots=True)
class Rate:
    """At most `per_second` requests a second on average, with bursts of up to `burst` at once."""

    per_second: float
    burst: int = 1


@dataclass(frozen=True, slots=True)
class PlatformLimits:
    """How fast a platform accepts posts, per channel, per workspace and for the whole platform (None: no limit).

    `rate_limited_retries`: how many 429s one post may meet before it is given up (and left to a later retry).
    `transient_retries` / `transient_backoff`: retries, with doubling waits, of other non-permanent failures.
    """

    channel: Rate | None = Rate(1.0)
    workspace: Rate | None = None
    platform: Rate | None = Rate(5.0, burst=5)
    rate_limited_retries: int = 10
    transient_retries: int = 2
    transient_backoff: float = 2.0


DEFAULT_LIMITS = PlatformLimits()
"""For a platform that says nothing: one post a second per channel, five a second in all."""

UNLIMITED = PlatformLimits(channel=None, workspace=None, platform=None)
"""A platform with no limits (the terminal)."""


@runtime_checkable
class ChatPlatform(Protocol):
    """What the core needs from a chat platform: post a card, edit it, post a message. That is all the core calls.

    A platform may also declare `rate_limits: PlatformLimits` (how fast scheduled fan-out may post there);
    one that does not gets DEFAULT_LIMITS.
    """

    name: str

    async def post_card(self, channel: ChannelRef, card: QuestionCard) -> str:
        """Post a question card with one answer button per choice; returns the platform's message reference."""
        ...

    async def update_card(self, channel: ChannelRef, message_ref: str, card: QuestionCard) -> None:
        """Replace a posted card (new answer count, or the reveal once closed)."""
        ...

    async def post_message(self, channel: ChannelRef, message: Message) -> None:
        """Post a message everyone in the channel sees (a season's final board)."""
        ...


@runtime_checkable
class DirectMessages(Protocol):
    """An optional capability of a ChatPlatform: a private message to one person, outside any channel.

    What a cohort lead's `/quiz cohort remind` sends (Slack: a direct message from the app; Discord: a DM; the
    terminal: a line marked private). A platform that cannot do it simply does not have the method: the core asks
    with `isinstance(platform, DirectMessages)`. Raises PlatformError when the person cannot be reached.
    """

    async def send_direct(self, user: UserRef, message: Message) -> None:
        """Send `message` to `user` alone."""
        ...


@runtime_checkable
class DirectDelivery(Protocol):
    """An optional capability of a ChatPlatform: reach one person privately (a cohort's private delivery).

    A platform without it still runs everything else; a cohort that asks for private delivery there is told so
    (`direct_delivery_of` returns None). The card is then posted with `post_card` into the channel returned.
    """

    async def direct_channel(self, user: UserRef) -> ChannelRef:
        """The direct-message channel between the bot and `user` (opened if need be), in `user`'s workspace.

        Raises PlatformError (permanent when the person cannot be messaged: gone, or DMs closed to the bot).
        """
        ...

    async def user_timezone(self, user: UserRef) -> str | None:
        """The IANA timezone of `user`'s profile, or None when the platform gives none."""
        ...


@runtime_checkable
class FindsPostedCards(Protocol):
    """An optional capability of a ChatPlatform: find a card posted earlier, by its post's id.

    A process killed after the platform accepted a card but before its message reference was recorded leaves a
    post without one; before posting it again, recovery asks the platform whether the card is there already and
    adopts it (Slack: the message's metadata carries the post's id; Discord: its answer buttons do).
    """

    async def find_card(self, channel: ChannelRef, card: QuestionCard, *, since: datetime) -> str | None:
        """The message reference of `card` (its post's, by `card.post_id`) posted in `channel` since `since`, or
        None (not there, or the platform would not say: then the card is posted again)."""
        ...


def direct_delivery_of(platform: object) -> DirectDelivery | None:
    """The platform's private delivery capability, if it has one."""
    return platform if isinstance(platform, DirectDelivery) else None


class PlatformRegistry:
    """The running platforms by name; a post is always updated through the platform it was posted on."""

    def __init__(self) -> None:
        self._platforms: dict[str, ChatPlatform] = {}

    def register(self, platform: ChatPlatform) -> None:
        """Make a platform reachable by its name."""
        self._platforms[platform.name] = platform

    def unregister(self, name: str) -> None:
        """Take a platform away (its adapter has closed): nothing is posted to it any more."""
        self._platforms.pop(name, None)

    def get(self, name: str) -> ChatPlatform | None:
        """The platform with this name, if it is running."""
        return self._platforms.get(name)

    def names(self) -> list[str]:
        """The names of the running platforms."""
        return list(self._platforms)


class ServiceMetrics(Protocol):
    """What the application counts (the port; bot/ops/metrics.py `Metrics` exports it, bot/runtime.py wires it)."""

    def answered(self, platform: str, outcome: str, seconds: float) -> None:
        """One click handled, its outcome and how long recording it took."""

    def recording(self, delta: int) -> None:
        """Clicks being recorded right now went up (+1) or down (-1)."""

    def busy_refused(self, platform: str) -> None:
        """One click refused at once because too many were waiting to be committed."""

    def late_ack(self, platform: str) -> None:
        """One click acknowledged to its platform before its answer was committed."""

    def posted(self, platform: str, source: str) -> None:
        """One question posted."""

    def platform_error(self, platform: str, kind: str) -> None:
        """One platform API failure (rate_limited, permanent, error)."""


class NoMetrics:
    """ServiceMetrics that counts nothing: for a service built without a runtime (tests, tools)."""

    def answered(self, platform: str, outcome: str, seconds: float) -> None:
        """Counts nothing."""

    def recording(self, delta: int) -> None:
        """Counts nothing."""

    def busy_refused(self, platform: str) -> None:
        """Counts nothing."""

    def late_ack(self, platform: str) -> None:
        """Counts nothing."""

    def posted(self, platform: str, source: str) -> None:
        """Counts nothing."""

    def platform_error(self, platform: str, kind: str) -> None:
        """Counts nothing."""


T = TypeVar("T")


class Sender(Protocol):
    """Platform calls through the per-platform rate limits (the port; bot/scheduling/fanout.py `FanOut` is it,
    bot/runtime.py wires it): the service sends its announcements through it."""

    async def send(self, platform: ChatPlatform, channel: ChannelRef, call: Callable[[], Awaitable[T]]) -> T:
        """Run `call` (one platform request for `channel`) once a slot is free; retry what is retryable."""
        ...
