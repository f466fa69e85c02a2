"""Reading quiz files as UTF-8, with one clear line when a file is not; and parsing their YAML."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from bot.errors import InvalidPack, Problem
from bot.wording import imports as words

_CSafeLoader: type[yaml.CSafeLoader] | None = getattr(yaml, "CSafeLoader", None)


def read_utf8(path: Path, *, pack: bool = False) -> str:
    """The text of `path` decoded as UTF-8 (a byte order mark dropped), or InvalidPack naming the first bad byte.

    An input to import says `FILE is not UTF-8 text (...)`; a pack (`pack`) says `FILE: cannot read: ...`, as
    every other problem of a pack file starts with the file.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidPack(Problem(words.cannot_read, where=[str(path)], reason=str(exc.strerror or exc))) from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        at = Problem(words.bad_byte, byte=data[exc.start], line=line, column=column)
        if pack:
            problem = Problem(words.pack_not_utf8, where=[str(path)], at=at)
        else:
            problem = Problem(words.file_not_utf8, path=str(path), at=at)
        raise InvalidPack(problem) from exc


def load_yaml(text: str) -> Any:
    """`yaml.safe_load(text)`, parsed by libyaml when PyYAML has it (several times faster; the values are built by
    the same safe constructor). A document libyaml refuses is parsed again by the pure-Python parser, so that a
    problem is reported (and an edge case either parser reads differently is settled) exactly as safe_load would."""
    if _CSafeLoader is not None:
        try:
            return yaml.load(text, Loader=_CSafeLoader)  # a safe loader: SafeConstructor
        except yaml.YAMLError:
            pass
    return yaml.safe_load(text)
