"""A card edit that fails because the database or the platform said no is one log line, not a traceback: the next
click on the card asks for another edit, and an operator reading the log has nothing to debug. An edit that fails
any other way (a bug) keeps its traceback."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.domain import ChannelRef, QuestionCard
from bot.errors import StorageUnavailable
from bot.ports import PlatformError, PlatformRegistry
from bot.service.cards import CardRefresher
from bot.service.quiz import PostedCard
from tests.fakes.fake_platform import FakePlatform

HANG = 30.0
"""A bound that fails a hang, not a speed check."""


class RefusingPlatform(FakePlatform):
    """Refuses every card edit as a platform does (rate-limited, message gone)."""

    async def update_card(self, channel: ChannelRef, message_ref: str, card: QuestionCard) -> None:
        raise PlatformError("ratelimited", retry_after=30)


async def _failed_edit(refresher: CardRefresher, caplog: pytest.LogCaptureFixture) -> logging.LogRecord:
    with caplog.at_level(logging.WARNING, logger="bot.service.cards"):
        refresher.request(7)
        await asyncio.wait_for(asyncio.gather(*refresher._tasks, return_exceptions=True), HANG)
    [record] = [r for r in caplog.records if r.name == "bot.service.cards"]
    return record


@pytest.mark.parametrize(
    "failure", [StorageUnavailable("The database is unavailable right now; nothing was recorded."), None]
)
async def test_a_refused_edit_is_one_line_without_a_traceback(
    failure: Exception | None, caplog: pytest.LogCaptureFixture
) -> None:
    platforms = PlatformRegistry()
    platforms.register(RefusingPlatform())
    refresher = CardRefresher(platforms=platforms, interval=0.0)

    async def read_card(post_id: int) -> PostedCard:
        if failure is not None:
            raise failure
        return PostedCard(ChannelRef("fake", "W1", "C1"), "m-1", None)  # type: ignore[arg-type]

    refresher.read_card = read_card
    record = await _failed_edit(refresher, caplog)
    assert record.levelno == logging.WARNING
    assert record.exc_info is None
    assert record.getMessage().startswith("card refresh failed: ")


async def test_an_unexpected_failure_keeps_its_traceback(caplog: pytest.LogCaptureFixture) -> None:
    refresher = CardRefresher(platforms=PlatformRegistry(), interval=0.0)

    async def read_card(post_id: int) -> PostedCard:
        raise KeyError(post_id)

    refresher.read_card = read_card
    record = await _failed_edit(refresher, caplog)
    assert record.levelno == logging.ERROR
    assert record.exc_info is not None
