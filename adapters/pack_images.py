"""A pack's image files (`image: {file: ring.png, alt: ...}` under content/images/), read for an adapter to send.

Both platform adapters read them the same way: by the bare file name under the content folder's `images/`, off the
event loop, with the SHA-256 of the bytes (what Slack keys its uploads by and Discord names its attachments by). A
file that cannot be read is logged, and the card shows the image's alt text instead.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path

from bot.domain import IMAGES_DIR, Image

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ImageFile:
    """An image file as read: where it is, its bytes and their SHA-256 (hex)."""

    path: Path
    data: bytes
    digest: str


async def read_image_file(content_dir: Path | None, image: Image) -> ImageFile | None:
    """The file `image` names, read in a thread; None without a file or a content folder, or when it cannot be read
    (logged)."""
    if content_dir is None or image.file is None:
        return None
    path = content_dir / IMAGES_DIR / Path(image.file).name  # the schema allows a bare file name only
    try:
        data = await asyncio.to_thread(path.read_bytes)
    except OSError as exc:
        log.warning("image file %s not shown: %s", path, exc)
        return None
    return ImageFile(path, data, hashlib.sha256(data).hexdigest())
