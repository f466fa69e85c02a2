"""A pack's image files on Discord, through the real discord.py against the loopback fake: each card sends the file
as an attachment its embed shows (`attachment://NAME`, NAME from the file's hash, the same on every card), and the
reveal adds the explanation's file while keeping the prompt's."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import yaml

from adapters.discord.adapter import DiscordAdapter
from bot.config import Settings
from bot.runtime import Runtime
from tests.discord_support import card_messages, serving, slash
from tests.e2e.discord.conftest import discord_settings
from tests.fakes.discord_api import FakeDiscord

PACK_ID = "image-files"
RING = b"\x89PNG\r\n\x1a\n" + b"\x01" * 64
STEPS = b"\x89PNG\r\n\x1a\n" + b"\x02" * 64
RING_NAME = hashlib.sha256(RING).hexdigest()[:32] + ".png"
STEPS_NAME = hashlib.sha256(STEPS).hexdigest()[:32] + ".png"


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    content = tmp_path / "content"
    (content / "images").mkdir(parents=True)
    (content / "images" / "ring.png").write_bytes(RING)
    (content / "images" / "steps.png").write_bytes(STEPS)
    pack = {
        "id": PACK_ID,
        "title": "Images",
        "questions": [
            {
                "id": "q1",
                "prompt": "Which topology?",
                "choices": ["A ring", "A tree"],
                "answer": 1,
                "explanation": "Each sends to the next.",
                "image": {"file": "ring.png", "alt": "Eight GPUs in a ring"},
                "explanation_image": {"file": "steps.png", "alt": "The steps of a ring all-reduce"},
            }
        ],
    }
    (content / f"{PACK_ID}.yaml").write_text(yaml.safe_dump(pack), encoding="utf-8")
    return discord_settings(database_url, content)


def _attached(fake: FakeDiscord, message: dict) -> dict[str, bytes]:
    return {a["filename"]: fake.attachments[a["id"]] for a in message["attachments"]}


async def test_an_image_file_is_attached_to_the_card_that_shows_it(runtime: Runtime, fake: FakeDiscord) -> None:
    async with serving(DiscordAdapter(runtime), fake):
        await slash(fake, "now", {"pack": PACK_ID}, user_name="alice")
        await fake.wait_for(lambda: card_messages(fake), what="the first card")
        await slash(fake, "now", {"pack": PACK_ID}, user_name="alice")
        cards = await fake.wait_for(lambda: len(card_messages(fake)) == 2 and card_messages(fake), what="two cards")
        for card in cards:
            assert card["embeds"][0]["image"]["url"] == f"attachment://{RING_NAME}"
            assert _attached(fake, card) == {RING_NAME: RING}  # the same name and bytes on every card
        await slash(fake, "reveal", user_name="alice")
        revealed = await fake.wait_for(
            lambda: (m := fake.get_message(cards[-1]["id"])) and len(m["attachments"]) == 2 and m, what="the reveal"
        )
        assert revealed["embeds"][-1]["image"]["url"] == f"attachment://{STEPS_NAME}"
        assert _attached(fake, revealed) == {RING_NAME: RING, STEPS_NAME: STEPS}
    assert [r for r in fake.requests if (r.status or 0) >= 400] == []
