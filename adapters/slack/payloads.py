"""What a Slack payload says: its fields read defensively (a malformed request is refused, never a KeyError),
the button it was, and where a click came from."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from slack_bolt.request.async_request import AsyncBoltRequest

from adapters.slack.home import PAGE_ACTION_PREFIX, REVIEW_ACTION
from adapters.slack.platform import PLATFORM
from bot.domain import ChannelRef, UserRef
from bot.ports import Message

log = logging.getLogger(__name__)

_Carried = TypeVar("_Carried")


def text_of(mapping: Mapping[str, Any] | None, key: str) -> str | None:
    """A non-empty string field, or None."""
    if not isinstance(mapping, Mapping):
        return None
    value = mapping.get(key)
    return value if isinstance(value, str) and value else None


def retry_number(req: AsyncBoltRequest) -> int:
    """Slack's retry count of this delivery (0 for the first; Socket Mode sends 0 too)."""
    values = req.headers.get("x-slack-retry-num") or ["0"]
    try:
        return int(values[0])
    except (TypeError, ValueError):
        return 0


def is_slash_command(body: Mapping[str, Any]) -> bool:
    return "command" in body and "type" not in body


def missing_command_fields(body: Mapping[str, Any]) -> list[str]:
    """The fields a slash command needs that this one lacks."""
    return [name for name in ("command", "team_id", "channel_id", "user_id") if text_of(body, name) is None]


def missing_click_fields(body: Mapping[str, Any]) -> list[str]:
    """The fields a block_actions click needs that this one lacks (or has in the wrong shape)."""
    missing = []
    actions = body.get("actions")
    if (
        not isinstance(actions, list)
        or not actions
        or not isinstance(actions[0], Mapping)
        or text_of(actions[0], "action_id") is None
    ):
        missing.append("actions[0].action_id")
    if text_of(body.get("user"), "id") is None:
        missing.append("user.id")
    if team_of_click(body) is None:
        missing.append("team.id")
    if channel_of_click(body) is None and not is_home_button(body):
        missing.append("channel.id")
    return missing


def is_home_button(body: Mapping[str, Any]) -> bool:
    """A click on a button of the App Home tab (its review button, a page button): the only clicks that come from a
    view, without a channel."""
    actions = body.get("actions")
    first = actions[0] if isinstance(actions, list) and actions and isinstance(actions[0], Mapping) else None
    action_id = text_of(first, "action_id") or ""
    ours = action_id == REVIEW_ACTION or action_id.startswith(PAGE_ACTION_PREFIX)
    return ours and isinstance(body.get("view"), Mapping)


def read_button(
    action: dict[str, Any], parse: Callable[[str], _Carried | None], kind: str, channel: ChannelRef
) -> _Carried | None:
    """What one of our buttons carries, read from its action_id (or its value); None, logged, when neither reads."""
    found = parse(action["action_id"]) or parse(str(action.get("value") or ""))
    if found is None:
        log.warning(
            "ignored %s button with a bad action_id %r / value %r",
            kind,
            action.get("action_id"),
            action.get("value"),
            extra={"platform": PLATFORM, "workspace": channel.workspace_id, "channel": channel.channel_id},
        )
    return found


def team_of_click(body: Mapping[str, Any]) -> str | None:
    return text_of(body.get("team"), "id") or text_of(body.get("user"), "team_id")


def enterprise_of_click(body: Mapping[str, Any]) -> str | None:
    """The Enterprise Grid organisation of the workspace a click came from (None outside Enterprise Grid)."""
    return text_of(body.get("team"), "enterprise_id") or text_of(body.get("enterprise"), "id")


def channel_of_click(body: Mapping[str, Any]) -> str | None:
    return text_of(body.get("channel"), "id") or text_of(body.get("container"), "channel_id")


def click_extra(body: Mapping[str, Any]) -> dict[str, object]:
    return {"platform": PLATFORM, "workspace": team_of_click(body), "channel": channel_of_click(body)}


@dataclass(frozen=True, slots=True)
class Click:
    """An answer click, taken apart: who, where, and which post and choice the button carries."""

    channel: ChannelRef
    user: UserRef
    post_id: int
    choice_id: int

    def log_extra(self) -> dict[str, object]:
        """The context fields for log lines about this click."""
        return {
            "platform": PLATFORM,
            "workspace": self.channel.workspace_id,
            "channel": self.channel.channel_id,
            "post_id": self.post_id,
            "user": self.user.user_id,
        }


@dataclass(frozen=True, slots=True)
class ClickReply:
    """What a click is told, and the post it answered (None when it failed), which its reply lets them report."""

    message: Message
    post_id: int | None = None
    outcome: str = "refused"
    """What the ack stands for: the AnswerResult's outcome (recorded, already_answered, closed) once committed;
    busy (refused by the intake cap), unavailable (the database), refused (a stale or forged button), failed."""
