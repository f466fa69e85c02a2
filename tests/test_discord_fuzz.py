"""A fuzzed stream of malformed interactions through the real discord.py client of the adapter: nothing recorded,
no crash, and the bot still answers a real click afterwards.

What is fuzzed is what a user or a forged client controls and the adapter reads: the button's custom_id and
values, the slash command's options, the member and user, the message the button sits on, the channel. The
envelope discord.py itself parses before any bot code runs (interaction id, type, token, guild routing) is left
well-formed: Discord never sends it otherwise, and a malformed one would test discord.py, not this bot."""

from __future__ import annotations

import copy
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from adapters.discord.adapter import DiscordAdapter
from bot.config import Settings
from bot.db.models import Answer
from bot.runtime import Runtime
from tests.conftest import CONTENT
from tests.discord_support import ANSWER_ID, card_messages, click, custom_ids, serving, slash, text_of
from tests.fakes.discord_api import FakeDiscord

JUNK_STRINGS = [
    "",
    "0",
    "-1",
    "9" * 40,
    "quiz:answer:",
    "quiz:answer:x:y",
    "quiz:answer:1:-1",
    "quiz:answer:0:0",
    "quiz:answer:99999999:0",
    "quiz:answer:1:99",
    "quiz:answer:1234567890123456789012:1",
    "@everyone",
    "<@&1>",
    "ü" * 300,
    "\u0000",
    "now; drop table answers",
    "' or 1=1 --",
    "🙂" * 50,
]
FUZZED = ["data", "member", "user", "message", "channel", "locale", "guild_locale"]
# Free-text fields a user or a forged client sets; ids, timestamps and flags are typed and Discord-validated.
FREE_TEXT = {
    "custom_id",
    "value",
    "values",
    "username",
    "global_name",
    "nick",
    "content",
    "label",
    "title",
    "description",
}


def _strings(value: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Paths of the free-text string leaves in a payload."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _strings(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _strings(v, (*path, str(i)))]
    named = [part for part in path if not part.isdigit()]
    return [path] if isinstance(value, str) and named and named[-1] in FREE_TEXT else []


def _set(target: Any, path: tuple[str, ...], new: str) -> None:
    for key in path[:-1]:
        target = target[int(key)] if isinstance(target, list) else target[key]
    if isinstance(target, list):
        target[int(path[-1])] = new
    else:
        target[path[-1]] = new


def _mutate(event: dict[str, Any], rng: random.Random) -> None:
    """Replace a few string values (never a type or a key: Discord's schema holds) with junk."""
    paths = [p for field in FUZZED if field in event for p in _strings(event[field], (field,))]
    for path in rng.sample(paths, k=min(len(paths), rng.randint(1, 4))):
        _set(event, path, rng.choice(JUNK_STRINGS))


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return Settings(
        database_url=database_url,
        content_dir=CONTENT,
        card_update_interval=0.0,
        discord_token="fake-bot-token",
        _env_file=None,
    )  # type: ignore[call-arg]


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as fake:
        yield fake


async def _answers(runtime: Runtime) -> int:
    async with runtime.db.transaction() as session:
        return int((await session.execute(select(func.count(Answer.id)))).scalar_one())


async def test_fuzzed_interactions_record_nothing_and_the_client_survives(runtime: Runtime, fake: FakeDiscord) -> None:
    adapter = DiscordAdapter(runtime)
    async with serving(adapter, fake):
        await slash(fake, "now", {"pack": "model-pipeline-parallelism"}, user_name="alice")
        message = (await fake.wait_for(lambda: card_messages(fake), what="the card"))[0]
        real_ids = custom_ids(message)
        post_id = int(ANSWER_ID.fullmatch(real_ids[0]).group(1))  # type: ignore[union-attr]
        valid = fake.component_interaction(message, real_ids[0], user_id=2001, user_name="fuzzer")
        slash_valid = fake.slash_command_interaction("quiz", subcommand="leaderboard", options={"window": "week"})
        rng = random.Random(21)
        for n in range(150):
            event = copy.deepcopy(slash_valid if n % 3 == 0 else valid)
            _mutate(event, rng)
            data = event["data"]
            if data.get("custom_id") in real_ids:
                data["custom_id"] = rng.choice(JUNK_STRINGS)  # never a real button: nothing may be recorded
            event["id"] = str(10**17 + n)  # unique, so the fake can tell the interactions apart
            await fake.dispatch("INTERACTION_CREATE", event)
        # Real clicks still work, on the same connection or a reconnected one.
        ok = await click(fake, message, real_ids[0], user_id=1001, user_name="alice")
        assert "Traceback" not in text_of(ok)
        assert ok.ephemeral
    assert await _answers(runtime) == 1
    assert post_id > 0
