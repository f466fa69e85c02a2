"""A fake chat platform: a real implementation of the port that records what it was asked to send."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.domain import ChannelRef, QuestionCard, UserRef
from bot.ports import Message, PlatformError


@dataclass
class Sent:
    """One call the core made on the platform."""

    kind: str
    channel: ChannelRef
    card: QuestionCard | None = None
    message: Message | None = None
    message_ref: str | None = None
    user_id: str | None = None


@dataclass
class FakePlatform:
    """Records posts, edits and messages; can be told to fail the next post."""

    name: str = "fake"
    sent: list[Sent] = field(default_factory=list)
    fail_next_post: BaseException | None = None
    unreachable: set[str] = field(default_factory=set)
    """User ids a direct message cannot reach (they refuse DMs): send_direct raises a permanent PlatformError."""
    _next_ref: int = 1000

    async def post_card(self, channel: ChannelRef, card: QuestionCard) -> str:
        if self.fail_next_post is not None:
            exc, self.fail_next_post = self.fail_next_post, None
            raise exc
        self._next_ref += 1
        ref = f"msg-{self._next_ref}"
        self.sent.append(Sent("post_card", channel, card=card, message_ref=ref))
        return ref

    async def update_card(self, channel: ChannelRef, message_ref: str, card: QuestionCard) -> None:
        self.sent.append(Sent("update_card", channel, card=card, message_ref=message_ref))

    async def send_private(self, channel: ChannelRef, user_id: str, message: Message) -> None:
        self.sent.append(Sent("send_private", channel, message=message, user_id=user_id))

    async def send_direct(self, user: UserRef, message: Message) -> None:
        if user.user_id in self.unreachable:
            raise PlatformError("The user does not accept direct messages.", permanent=True)
        where = ChannelRef(self.name, user.workspace_id, "")
        self.sent.append(Sent("send_direct", where, message=message, user_id=user.user_id))

    async def post_message(self, channel: ChannelRef, message: Message) -> None:
        self.sent.append(Sent("post_message", channel, message=message))

    def of_kind(self, kind: str) -> list[Sent]:
        """The calls of one kind, in order."""
        return [s for s in self.sent if s.kind == kind]


@dataclass
class DirectFakePlatform(FakePlatform):
    """A fake platform that can also reach people privately (the optional DirectDelivery capability).

    Each person's direct channel is `D-<user id>`; `timezones` is what their profiles say (absent: none), and
    `closed` lists the people whose direct messages are closed to the bot (a permanent refusal).
    """

    timezones: dict[str, str] = field(default_factory=dict)
    closed: set[str] = field(default_factory=set)
    opened: list[str] = field(default_factory=list)
    asked_timezone: list[str] = field(default_factory=list)

    async def direct_channel(self, user: UserRef) -> ChannelRef:
        if user.user_id in self.closed:
            raise PlatformError("cannot send messages to this user", permanent=True)
        self.opened.append(user.user_id)
        return ChannelRef(self.name, user.workspace_id, f"D-{user.user_id}")

    async def user_timezone(self, user: UserRef) -> str | None:
        self.asked_timezone.append(user.user_id)
        return self.timezones.get(user.user_id)

    def direct_cards(self, user_id: str) -> list[QuestionCard]:
        """The cards posted in one person's direct channel, in order."""
        return [
            sent.card
            for sent in self.of_kind("post_card")
            if sent.card is not None and sent.channel.channel_id == f"D-{user_id}"
        ]


__all__ = ["DirectFakePlatform", "FakePlatform", "PlatformError", "Sent"]
