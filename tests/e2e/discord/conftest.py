"""The Discord end-to-end fixtures: settings with a token the fake accepts, and the loopback fake Discord.

A module that needs other settings (all the shipped packs) or a fake without the closing checks defines its own
`settings` or `fake`, which takes precedence here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.config import Settings
from tests.conftest import SEED_CONTENT, patient_settings
from tests.fakes.discord_api import FakeDiscord


def discord_settings(database_url: str, content_dir: Path = SEED_CONTENT) -> Settings:
    """Test settings with a Discord token (the fake accepts any)."""
    return patient_settings(
        database_url=database_url, content_dir=content_dir, card_update_interval=0.0, discord_token="fake-bot-token"
    )


@pytest.fixture
def settings(database_url: str) -> Settings:
    """The core on the test database and the seed packs, with a Discord token."""
    return discord_settings(database_url)


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    """The fake Discord; afterwards nothing may have called a route it does not know or left the loopback."""
    async with FakeDiscord() as fake:
        yield fake
        fake.assert_no_unknown_routes()
        assert fake.network_guard is not None
        assert fake.network_guard.violations == []
