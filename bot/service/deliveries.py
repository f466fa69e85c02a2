"""Which platform requests were already run: a replayed copy of a signed request is acknowledged, not run twice.

Slack signs a request for five minutes, and a slash command carries a trigger_id of its own; a byte-identical copy
(a replay, a proxy that resends) would otherwise post a second card. The Slack adapter remembers trigger_ids in
memory too, which is enough for one process; this table is what several replicas behind a load balancer share.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta

from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import SeenDelivery
from bot.service.repositories.directory import dialect_insert

REPLAY_WINDOW = timedelta(minutes=6)
"""How long a request is remembered: Slack's five-minute signature window plus a minute of clock disagreement."""


def delivery_key(platform: str, delivery_id: str) -> str:
    """The stored key of a platform's request id: a SHA-256, so it has one length whatever the platform sends."""
    return hashlib.sha256(f"{platform}\n{delivery_id}".encode()).hexdigest()


class Deliveries:
    """The requests run within REPLAY_WINDOW (the repository of `seen_deliveries`)."""

    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def first_sight(self, key: str, now: datetime, *, window: timedelta = REPLAY_WINDOW) -> bool:
        """True (and remembered) the first time `key` is offered; False for a repeat within `window`. Rows past
        the window are dropped on the way (an index range, a handful of rows a minute)."""
        await self._session.execute(delete(SeenDelivery).where(SeenDelivery.seen_at < now - window))
        insert = (
            dialect_insert(self._session, SeenDelivery)
            .values(key=key, seen_at=now)
            .on_conflict_do_nothing(index_elements=["key"])
            .returning(SeenDelivery.key)
        )
        return (await self._session.execute(insert)).first() is not None
