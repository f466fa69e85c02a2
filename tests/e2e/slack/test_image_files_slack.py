"""An image file of a pack (content/images/), through the real slack-bolt against the loopback fake: uploaded once
with files_upload_v2, shown as an image block of the uploaded file on every card that shows it, and reused."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bot.config import Settings
from bot.runtime import Runtime
from tests.conftest import patient_settings
from tests.fakes.slack_api import FakeSlack
from tests.slack_harness import running_adapter

PACK_ID = "image-files"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
ALT = "Eight GPUs in a ring"


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    content = tmp_path / "content"
    (content / "images").mkdir(parents=True)
    (content / "images" / "ring.png").write_bytes(PNG)
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
                "image": {"file": "ring.png", "alt": ALT},
                "explanation_image": {"file": "ring.png", "alt": "The same ring"},
            }
        ],
    }
    (content / f"{PACK_ID}.yaml").write_text(yaml.safe_dump(pack), encoding="utf-8")
    return patient_settings(database_url=database_url, content_dir=content, card_update_interval=0.0)


async def test_an_image_file_is_uploaded_once_and_shown_on_every_card(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake) as slack:
        assert (await slack.command(f"now {PACK_ID}"))[0] == 200
        await slack.posted_card()
        assert (await slack.command(f"now {PACK_ID}"))[0] == 200
        await fake.wait_for_calls("chat.postMessage", 2)
        await slack.idle()
        assert (await slack.command("reveal", user_id="U0ADMIN"))[0] == 200
        await fake.wait_for_calls("chat.update", 1)
        await slack.idle()
    uploads = fake.uploaded_files()
    assert len(uploads) == 1 and uploads[0]["data"] == PNG and uploads[0]["alt_txt"] == ALT
    assert uploads[0]["channels"] == []  # shared nowhere: the image block shows it
    file_id = uploads[0]["id"]
    posted = [c for c in fake.calls if c.method == "chat.postMessage" and c.ok]
    assert len(posted) == 2
    for call in posted:
        images = [b for b in call.args["blocks"] if b["type"] == "image"]
        assert [(b["slack_file"], b["alt_text"]) for b in images] == [({"id": file_id}, ALT)]
    revealed = [c for c in fake.calls if c.method == "chat.update" and c.ok][-1]
    images = [b for b in revealed.args["blocks"] if b["type"] == "image"]
    assert [b["slack_file"]["id"] for b in images] == [file_id, file_id]  # the prompt's and the explanation's
    assert [c.method for c in fake.calls if not c.ok] == []
