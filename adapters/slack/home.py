"""The App Home tab: the personal home page (`QuizCore.home`) published with views.publish, and its blocks.

Published when the person opens the tab (`app_home_opened`) and again after they answer, coalesced and
rate-limited per person: at most one views.publish per MIN_INTERVAL seconds per person, however many clicks,
with the page read at publish time (so the last click is always in it). views.publish is Tier 4 (100+ a minute
per workspace); a small concurrency cap keeps a burst of answers from flooding it. Only people this replica saw
open the tab get republished after an answer (at most KNOWN_HOMES of them, the least recent forgotten first).

A workspace whose app has no Home tab enabled answers views.publish with an error: one log line per workspace and
error code, then nothing else happens (no retry, nothing shown to anyone).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack import limits
from adapters.slack.blocks import Block, BlockParagraph, clip, neutralise, section_blocks
from adapters.slack.platform import PLATFORM
from adapters.text_safety import plain
from bot.domain import UserRef
from bot.ports import Action, ActionKind, Line, Page
from bot.service.facade import QuizCore

log = logging.getLogger(__name__)

REVIEW_ACTION = "quiz:review:start"
"""The action_id (and value) of the "Start a review" button, in the Home tab and under `/quiz me`."""
ACTION_IDS = {ActionKind.START_REVIEW: REVIEW_ACTION}
PAGE_ACTION_PREFIX = "quiz:act:"
"""Every other page button (`Action` with a value, e.g. a draft's Approve): action_id `quiz:act:{kind}:{value}`
(unique in the message), `value` the Action's value; a click goes to `QuizCore.act` (adapters/slack/forms.py)."""
BUTTONS_PER_ROW = 5
"""Page buttons per actions block: a row each for a value's buttons (a draft's Approve, Edit, Reject)."""

MIN_INTERVAL = 10.0
"""Seconds between two publishes of one person's home."""
KNOWN_HOMES = 10_000
CONCURRENT_PUBLISHES = 4


def _line(line: Line) -> str:
    """A page line as mrkdwn: a channel link (Slack shows its name), then the neutralised text."""
    text = neutralise(line.text)
    return f"<#{line.channel.channel_id}>  {text}" if line.channel is not None else text


def page_blocks(page: Page, *, max_blocks: int = limits.BLOCKS) -> list[Block]:
    """A page as blocks: a header, one section per part (a long one continues), the buttons last."""
    blocks: list[Block] = [
        {"type": "header", "text": {"type": "plain_text", "text": plain(page.title)[: limits.HEADER_TEXT] or "·"}}
    ]
    for section in page.sections:
        paragraphs = [BlockParagraph(neutralise(section.title), bold=True)]
        paragraphs += [BlockParagraph(_line(line)) for line in section.lines]
        blocks += section_blocks(paragraphs)
    rows = action_rows(page.actions)
    blocks = blocks[: max_blocks - len(rows)]
    return blocks + rows


def _button(action: Action, action_id: str) -> Block:
    button: Block = {
        "type": "button",
        "action_id": action_id,
        "text": {"type": "plain_text", "text": plain(action.label)[: limits.BUTTON_TEXT] or "·", "emoji": True},
    }
    value = ACTION_IDS.get(action.kind, action.value)
    if value:  # Slack refuses an empty value; a click without one acts on ""
        button["value"] = value[: limits.BUTTON_VALUE]
    if action.kind in (ActionKind.START_REVIEW, ActionKind.APPROVE_DRAFT):
        button["style"] = "primary"
    elif action.kind is ActionKind.REJECT_DRAFT:
        button["style"] = "danger"
    return button


def page_action_id(action: Action) -> str:
    """The action_id of a page button: START_REVIEW's own, else `quiz:act:{kind}:{value}`."""
    fixed = ACTION_IDS.get(action.kind)
    return fixed if fixed is not None else f"{PAGE_ACTION_PREFIX}{action.kind.value}:{action.value}"[: limits.ACTION_ID]


def action_rows(actions: Sequence[Action]) -> list[Block]:
    """A page's buttons as actions blocks: the review button as before, every other one in a row with the others of
    its value (a draft's Approve, Edit and Reject side by side), at most BUTTONS_PER_ROW to a row."""
    rows: list[list[Block]] = []
    row_values: list[str] = []
    seen: set[str] = set()
    for action in actions:
        action_id = page_action_id(action)
        while action_id in seen:  # the same kind and value twice: still one button each, told apart
            action_id = f"{action_id}+"[: limits.ACTION_ID]
        seen.add(action_id)
        key = action.value if action.kind not in ACTION_IDS else ""
        if not rows or row_values[-1] != key or len(rows[-1]) >= BUTTONS_PER_ROW:
            rows.append([])
            row_values.append(key)
        rows[-1].append(_button(action, action_id))
    return [
        {"type": "actions", "block_id": f"quiz:page:actions:{index}" if index else "quiz:home:actions", "elements": row}
        for index, row in enumerate(rows)
    ]


def home_view(page: Page) -> dict[str, object]:
    """The Home tab view of a page."""
    return {"type": "home", "blocks": page_blocks(page, max_blocks=limits.HOME_BLOCKS)}


def page_text(page: Page) -> str:
    """The top-level text of a page sent as a message."""
    return clip(neutralise(page.message.text), 3000)


@dataclass
class _Home:
    """One person's home: when it was last published, and the publish waiting or running."""

    user: UserRef
    last: float | None = None
    task: asyncio.Task[None] | None = None
    reading: bool = False
    again: bool = False


class HomePublisher:
    """Publishes people's App Home tabs, coalesced and rate-limited per person."""

    def __init__(
        self,
        client: AsyncWebClient,
        core: QuizCore,
        *,
        min_interval: float = MIN_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.core = core
        self.min_interval = min_interval
        self.clock = clock
        self.published = 0
        self._homes: OrderedDict[tuple[str, str], _Home] = OrderedDict()
        self._limit = asyncio.Semaphore(CONCURRENT_PUBLISHES)
        self._refused: set[tuple[str, str]] = set()

    def opened(self, user: UserRef) -> None:
        """The person opened their Home tab: publish it (now, or as soon as the rate limit allows)."""
        key = (user.workspace_id, user.user_id)
        home = self._homes.get(key)
        if home is None:
            home = self._homes[key] = _Home(user)
            while len(self._homes) > KNOWN_HOMES:
                oldest_key, oldest = next(iter(self._homes.items()))
                if oldest.task is not None and not oldest.task.done():
                    break
                del self._homes[oldest_key]
        self._homes.move_to_end(key)
        self._request(home)

    def answered(self, user: UserRef) -> None:
        """The person answered: rebuild their home if they have opened it (else there is nothing to refresh)."""
        home = self._homes.get((user.workspace_id, user.user_id))
        if home is not None:
            self._request(home)

    def _request(self, home: _Home) -> None:
        if home.task is not None and not home.task.done():
            if home.reading:  # the page was already read: publish once more afterwards
                home.again = True
            return  # the publish waiting will read the page when it runs
        home.task = asyncio.create_task(self._publish_when_allowed(home), name="slack-home")

    async def _publish_when_allowed(self, home: _Home) -> None:
        while True:
            if home.last is not None:
                wait = home.last + self.min_interval - self.clock()
                if wait > 0:
                    await asyncio.sleep(wait)
            home.reading, home.again = True, False
            home.last = self.clock()  # the limit spaces the starts of publishes (each reads the page afresh)
            try:
                async with self._limit:
                    await self._publish(home.user)
            finally:
                home.reading = False
            if not home.again:
                return

    async def _publish(self, user: UserRef) -> None:
        extra = {"platform": PLATFORM, "workspace": user.workspace_id, "user": user.user_id}
        try:
            page = await self.core.home(user)
            await self.client.views_publish(user_id=user.user_id, view=home_view(page))
        except SlackApiError as exc:
            code = str(exc.response.get("error") or exc.response.status_code)
            seen = (user.workspace_id, code)
            level = logging.DEBUG if seen in self._refused else logging.WARNING
            self._refused.add(seen)
            log.log(level, "Slack refused to publish an App Home tab (%s); is the Home tab enabled?", code, extra=extra)
        except Exception as exc:  # the database down, Slack unreachable: the next open or answer tries again
            log.warning("could not publish an App Home tab: %s", exc, extra=extra)
        else:
            self.published += 1

    def pending(self) -> int:
        """How many people's homes have a publish waiting or running."""
        return sum(1 for home in self._homes.values() if home.task is not None and not home.task.done())

    async def close(self) -> None:
        """Stop: publishes still waiting for the rate limit are dropped (the next open rebuilds the page)."""
        tasks = [home.task for home in self._homes.values() if home.task is not None and not home.task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
