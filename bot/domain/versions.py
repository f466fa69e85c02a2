"""The name of a question version: a digest of exactly what a post of it shows.

A post shows a prompt, choices (stored in the pack's order; the post keeps its shuffled order separately), which
one is correct and an explanation. Two posts that show the same of all four share one version; any edit of them
is a new version. Tags and difficulty classify a question rather than show it, so they are not part of it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any


def content_digest(
    prompt: str,
    choices: Sequence[str],
    correct_index: int,
    explanation: str,
    images: Mapping[str, Any] | None = None,
) -> str:
    """A 64-character hex SHA-256 of the shown content, the same on every run, platform and database.

    Migration 0005 carries a frozen copy of this function; if it changes, old versions are simply not found
    again by their content, and the next post of a question gets a new version (nothing breaks). Images count
    only when a question has some, so a question without any keeps the digest it always had.
    """
    content: dict[str, Any] = {
        "prompt": prompt,
        "choices": list(choices),
        "correct_index": correct_index,
        "explanation": explanation,
    }
    if images:
        content["images"] = dict(images)
    canonical = json.dumps(
        content,
        ensure_ascii=False,
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
