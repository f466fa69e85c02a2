"""Pending confirmations of destructive commands (cohort delete, schedule remove, season end).

A destructive command's handler does not act at first: it validates, then `ask`s, and returns a Reply carrying a
`ConfirmationRequest` (a token, the button labels, who may confirm and until when). The adapter renders it its
platform's way (Slack buttons, Discord components, `y/N` in the terminal); the click comes back through the core
facade (`QuizApp.confirm`), which `take`s the token and runs the stored command with `confirmed=True`.

Why a row with a random token rather than an HMAC-signed button: a signed payload proves the bot made the button
and can carry an expiry, but it cannot tell a second click (or a replay of the same payload) from the first, so
single use would still need storage; and it needs a server secret shared by every replica (Slack in HTTP mode sits
behind any load balancer) and kept across restarts. A row does all of that with what the bot already has: 128
random bits (`secrets.token_urlsafe(16)`) that cannot be guessed, the asker, the command, an expiry, and a
conditional update (`used_at IS NULL`) that lets exactly one click through. The token is meaningless outside the
row, so a forged or edited button finds nothing. Rows are swept once they are a day past their expiry.
"""

from __future__ import annotations

import dataclasses
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from bot.clock import Clock
from bot.commands import ACCESS, Command, DeleteCohort, EndSeason, RemoveSchedule
from bot.db.models import PendingConfirmation
from bot.domain import ChannelRef, UserRef
from bot.domain.views import ConfirmationRequest
from bot.errors import NotAllowed, NotFound, UserInputError
from bot.service.uow import UnitOfWork
from bot.wording import confirmations as words

CONFIRMABLE: dict[str, type[Any]] = {kind.__name__: kind for kind, access in ACCESS.items() if access.confirm}
"""The commands that ask first (`confirm=True` in their spec), by the name stored with a pending confirmation."""

SWEEP_AFTER = timedelta(days=1)


class ConfirmationExpired(UserInputError):
    """A click on a confirmation after it expired: nothing was changed."""


class ConfirmationUsed(UserInputError):
    """A second click on a confirmation (confirmed or cancelled already): nothing more happens."""


class UnknownConfirmation(NotFound):
    """A confirmation token the bot has no row for (forged, or swept long after it expired)."""


class NotTheirConfirmation(NotAllowed):
    """Someone other than the asker clicked a confirmation's button."""


@dataclass(frozen=True, slots=True)
class Taken:
    """A confirmation its asker accepted: the command to run now, and the channel it was asked in."""

    command: Command
    channel: ChannelRef


def _stored(command: DeleteCohort | RemoveSchedule | EndSeason) -> dict[str, Any]:
    fields = {k: v for k, v in dataclasses.asdict(command).items() if k != "confirmed"}
    return {"type": type(command).__name__, "fields": fields}


def _rebuilt(stored: dict[str, Any]) -> Command:
    kind = CONFIRMABLE.get(str(stored.get("type")))
    if kind is None:
        raise UnknownConfirmation(words.unknown())
    command: Command = kind(**dict(stored.get("fields") or {}), confirmed=True)
    return command


class Confirmations:
    """Stores pending confirmations and lets exactly one click of their asker through, before they expire."""

    def __init__(self, *, clock: Clock, ttl: timedelta) -> None:
        self.clock = clock
        self.ttl = ttl

    async def ask(
        self,
        uow: UnitOfWork,
        command: DeleteCohort | RemoveSchedule | EndSeason,
        *,
        channel: ChannelRef,
        user: UserRef,
        confirm_label: str,
    ) -> ConfirmationRequest:
        """Store a pending confirmation of `command` for `user` (the caller commits) and describe its buttons."""
        now = self.clock.now()
        token = secrets.token_urlsafe(16)
        await uow.confirmations.sweep(now - SWEEP_AFTER)
        uow.confirmations.add(
            PendingConfirmation(
                token=token,
                platform=user.platform,
                workspace_external_id=user.workspace_id,
                channel_external_id=channel.channel_id,
                user_external_id=user.user_id,
                user_name=user.display_name or user.user_id,
                command=_stored(command),
                created_at=now,
                expires_at=now + self.ttl,
                used_at=None,
            )
        )
        return ConfirmationRequest(
            token=token,
            confirm_label=confirm_label,
            cancel_label=words.cancel_label(),
            note=words.expires_in(self.ttl),
            asked_by=user.user_id,
            expires_at=now + self.ttl,
        )

    async def take(self, uow: UnitOfWork, token: str, user: UserRef, *, accept: bool) -> Taken | None:
        """Use a confirmation (the caller commits): its command if accepted, None if cancelled.

        Refused, with nothing changed: an unknown token, a click by anyone but the asker (of the same platform and
        workspace), an expired one, and any click after the first.
        """
        now = self.clock.now()
        row = await uow.confirmations.get(token)
        if row is None:
            raise UnknownConfirmation(words.unknown())
        if (row.platform, row.workspace_external_id, row.user_external_id) != (
            user.platform,
            user.workspace_id,
            user.user_id,
        ):
            raise NotTheirConfirmation(words.only_they_can_confirm(row.user_name))
        if row.used_at is not None:
            raise ConfirmationUsed(words.already_answered(row.outcome))
        if row.expires_at <= now:
            raise ConfirmationExpired(words.expired(row.expires_at - row.created_at))
        outcome = "confirmed" if accept else "cancelled"
        if not await uow.confirmations.use(row.token, now, outcome):  # another click got there first
            raise ConfirmationUsed(words.already_answered(None))
        if not accept:
            return None
        return Taken(
            command=_rebuilt(row.command),
            channel=ChannelRef(row.platform, row.workspace_external_id, row.channel_external_id),
        )
