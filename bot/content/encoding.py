"""Reading quiz files as UTF-8, with one clear line when a file is not."""

from __future__ import annotations

from pathlib import Path

from bot.errors import InvalidPack


def read_utf8(path: Path) -> str:
    """The text of `path` decoded as UTF-8 (a byte order mark dropped), or InvalidPack naming the first bad byte."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidPack(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InvalidPack(
            f"{path}: line {line}, column {column}: not UTF-8 text (byte 0x{data[exc.start]:02x}); "
            "save the file as UTF-8 and try again"
        ) from exc
