"""Interactions whose `channel` object is partial: answered like any other.

Discord sends an interaction's channel as a partial object, and for a guild or channel the client has not cached
(a server whose GUILD_CREATE has not arrived, a thread, a channel created since) it may carry only `id` and `type`.
discord.py 2.7 then builds a full channel from it (`TextChannel(data=...)`), whose constructor raises
`KeyError: 'name'` inside the gateway's read loop: the connection ends and the click is never answered. The adapter
needs nothing of a channel but its id (it posts through partial messageables), so such an interaction gets a
`discord.PartialMessageable` as its channel instead, as discord.py 2.0 to 2.3 gave it.

Any other INTERACTION_CREATE that discord.py cannot read (a field it requires missing) is dropped with one line at
ERROR instead of ending the connection and every other click with it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import discord
from discord.state import ConnectionState

log = logging.getLogger(__name__)

Parser = Callable[[dict[str, Any]], None]

_DIRECT = (discord.ChannelType.private.value, discord.ChannelType.group.value)
"""discord.py builds a DM or group channel from the payload without its name."""


def is_partial_channel(data: dict[str, Any]) -> bool:
    """Whether an INTERACTION_CREATE carries a channel object discord.py cannot build a guild channel from."""
    raw = data.get("channel")
    return isinstance(raw, dict) and "id" in raw and "name" not in raw and raw.get("type") not in _DIRECT


def tolerate_partial_channels(state: ConnectionState[Any]) -> None:
    """Read the gateway's INTERACTION_CREATEs as the module says (the gateway looks its parser up per event)."""
    parse: Parser = state.parsers["INTERACTION_CREATE"]

    def parse_interaction_create(data: dict[str, Any]) -> None:
        try:
            if is_partial_channel(data):
                _parse(state, data)
            else:
                parse(data)
        except Exception as exc:
            log.error(
                "dropped interaction %s that could not be read: %s: %s",
                data.get("id"),
                type(exc).__name__,
                " ".join(str(exc).split())[:200],
            )
            log.debug("the interaction that could not be read", exc_info=exc)

    state.parsers["INTERACTION_CREATE"] = parse_interaction_create


def _parse(state: ConnectionState[Any], data: dict[str, Any]) -> None:
    """What `ConnectionState.parse_interaction_create` does, with the partial channel as a PartialMessageable."""
    raw = data["channel"]
    without: Any = {**data, "channel": {}}  # discord.py leaves the channel None, and builds the rest as usual
    interaction: discord.Interaction[Any] = discord.Interaction(data=without, state=state)
    channel = discord.PartialMessageable(
        state=state,
        id=int(raw["id"]),
        guild_id=interaction.guild_id,
        type=discord.enums.try_enum(discord.ChannelType, raw.get("type")),
    )
    interaction.channel = channel  # type: ignore[assignment]
    log.debug("interaction %s in channel %s not cached: a partial channel", interaction.id, channel.id)
    kind = data["type"]
    if kind in (2, 4) and state._command_tree:  # an application command, an autocomplete
        state._command_tree._from_interaction(interaction)
    elif kind == 3:  # a component
        state._view_store.dispatch_view(data["data"]["component_type"], data["data"]["custom_id"], interaction)
    elif kind == 5:  # a modal's submission
        inner = data["data"]
        state._view_store.dispatch_modal(
            inner["custom_id"], interaction, inner["components"], inner.get("resolved", {})
        )
    state.dispatch("interaction", interaction)
