"""Who is a quiz admin on Slack: workspace admins and owners (users.info), plus configured user ids."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

log = logging.getLogger(__name__)

ADMIN_TTL = 300.0
"""Seconds a users.info answer is trusted: a demoted admin loses admin commands within five minutes."""
FAILURE_TTL = 30.0
"""Seconds a failed lookup counts as "not an admin" before users.info is asked again."""
MAX_ENTRIES = 10_000


class AdminDirectory:
    """Answers "is this user an admin?" from users.info `is_admin`/`is_owner`, cached briefly per user."""

    def __init__(
        self,
        client: AsyncWebClient,
        *,
        admin_user_ids: Iterable[str] = (),
        ttl: float = ADMIN_TTL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.admin_user_ids = frozenset(admin_user_ids)
        self.ttl = ttl
        self.clock = clock
        self._cache: dict[tuple[str, str], tuple[float, bool]] = {}
        self._names: dict[tuple[str, str], str] = {}

    def remember(self, team_id: str, user_id: str, name: str | None) -> None:
        """Note a user's name as a payload carried it (a slash command's `user_name`), for `name_of`."""
        if not name or name == user_id:
            return
        if len(self._names) >= MAX_ENTRIES:
            self._names.clear()
        self._names[(team_id, user_id)] = name

    def name_of(self, team_id: str, user_id: str) -> str:
        """The user's name as last seen (a command's payload or the users.info answer `is_admin` read), or "" when
        none was: a message event carries only the user id, and no extra API call is made for a name."""
        return self._names.get((team_id, user_id), "")

    async def is_admin(self, team_id: str, user_id: str) -> bool:
        """Whether the user may run admin commands; a failed lookup means no (and is logged)."""
        if user_id in self.admin_user_ids:
            return True
        key = (team_id, user_id)
        now = self.clock()
        cached = self._cache.get(key)
        if cached is not None and cached[0] > now:
            return cached[1]
        try:
            response = await self.client.users_info(user=user_id)
            user = response.get("user") or {}
            admin = bool(user.get("is_admin") or user.get("is_owner"))
            name = user.get("name")
            self.remember(team_id, user_id, name if isinstance(name, str) else None)
            expires = now + self.ttl
        except (SlackApiError, aiohttp.ClientError, TimeoutError) as exc:
            log.warning("users.info failed for %s; treating them as no admin: %s", user_id, exc)
            admin, expires = False, now + FAILURE_TTL
        if len(self._cache) >= MAX_ENTRIES:
            self._cache.clear()
        self._cache[key] = (expires, admin)
        return admin
