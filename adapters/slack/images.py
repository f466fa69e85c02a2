"""Image files of packs (`image: {file: ring.png, alt: ...}`), uploaded to Slack once and reused by content hash.

An image block can show an https URL (`image_url`) or a file Slack holds (`slack_file: {id}`). A pack's file under
`content/images/` is uploaded with files_upload_v2 the first time a card shows it, shared in no channel (an image
block needs only the file id), and its id is kept by the SHA-256 of the bytes, so every later card, on any post,
reuses the upload (and an edited file, with new bytes, is uploaded again). The ids live in this process: a restart
uploads each file once more. An upload Slack refuses, or a file that cannot be read, is logged and the card shows
the image's alt text instead (adapters/slack/blocks.py).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.pack_images import read_image_file
from adapters.slack import limits
from bot.domain import Image, QuestionCard

log = logging.getLogger(__name__)


class ImageFiles:
    """Slack file ids of a content folder's image files, uploading each (by content) once."""

    def __init__(self, client: AsyncWebClient, content_dir: Path | None) -> None:
        self._client = client
        self._content_dir = content_dir
        self._ids: dict[str, str] = {}
        self._lock = asyncio.Lock()

    async def for_card(self, card: QuestionCard) -> dict[str, str]:
        """The Slack file id of each image file the card shows (by file name); files not uploaded are left out."""
        found: dict[str, str] = {}
        for image in (card.image, card.explanation_image):
            if image is not None and image.file is not None and image.file not in found:
                file_id = await self._file_id(image)
                if file_id is not None:
                    found[image.file] = file_id
        return found

    async def _file_id(self, image: Image) -> str | None:
        read = await read_image_file(self._content_dir, image)
        if read is None:
            return None
        path, data, digest = read.path, read.data, read.digest
        async with self._lock:  # two cards showing a new file at once upload it once
            if digest in self._ids:
                return self._ids[digest]
            try:
                response = await self._client.files_upload_v2(
                    file=data, filename=path.name, alt_txt=image.alt[: limits.ALT_TEXT]
                )
            except SlackApiError as exc:
                log.warning("image file %s not uploaded: %s", path, exc.response.get("error"))
                return None
            uploaded = response.get("files") or [response.get("file") or {}]
            file_id = str(uploaded[0].get("id") or "")
            if not file_id:
                return None
            self._ids[digest] = file_id
            log.info("image file %s uploaded as %s", path, file_id)
            return file_id

    @property
    def uploaded(self) -> int:
        """How many distinct image files were uploaded by this process."""
        return len(self._ids)
