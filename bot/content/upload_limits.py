"""How big a pack file uploaded in chat (`/quiz import`) may be. bot/content/upload.py reads and checks the file;
the limits are apart so that the bot's wiring (bot/runtime.py, bot/service/app.py) holds them without loading the
readers of every format at start-up: those load with the first upload."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MAX_BYTES = 1_000_000
"""The default upload limit (QUIZBOT_UPLOAD_MAX_BYTES): a pack of a thousand questions is a few hundred KB."""


@dataclass(frozen=True, slots=True)
class UploadLimits:
    """How much an upload may be: its bytes, and for a zip (.xlsx) what it may unpack to."""

    max_bytes: int = DEFAULT_MAX_BYTES
    max_members: int = 100
    """Files inside an .xlsx: Kahoot's template has about a dozen, one with a few images a few dozen."""
    max_unpacked: int = 20_000_000
    """What an .xlsx may unpack to, in bytes, all members together."""
    max_ratio: int = 100
    """How much more a member may unpack to than it takes compressed: spreadsheet XML is 5-20:1, a zip bomb 1000:1."""
    max_rows: int = 1000
    """Question rows of a spreadsheet."""
