"""A workspace's own packs and the drafts that feed them: pure values and rules, no I/O and no words.

A workspace pack belongs to one workspace and is named there by a slug (`team`, `runbooks`), as a shipped pack is
by its id; its questions are ordinary question rows, so posts, versions, rotation, flags and review work as for
shipped packs. Two workspaces may use the same slug: the pack's row is stored under a qualified key
(`workspace_pack_key`: the workspace's row id, a colon, the slug) that no shipped id can equal (a shipped id is a
slug, which has no colon). A slug equal to a shipped pack's id is refused, so a team pack never shadows one.

A draft is a question written in chat (`/quiz write`) or uploaded without everything a pack needs: it waits in
the workspace's review queue (`/quiz drafts`) until a lead approves it (it joins its pack) or rejects it.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from datetime import datetime

DEFAULT_PACK = "team"
"""The workspace pack `/quiz write` adds to when no pack is named (created on the first approval)."""

SLUG_MAX = 48
"""A workspace pack's slug at most, in characters: its qualified key must fit a pack id's 64."""

_SLUG = re.compile(rf"^[a-z0-9][a-z0-9-]{{0,{SLUG_MAX - 1}}}$")
KEY_SEPARATOR = ":"


def is_workspace_slug(slug: str) -> bool:
    """Whether `slug` may name a workspace pack: lower-case letters, digits and dashes, at most SLUG_MAX."""
    return bool(_SLUG.match(slug))


def workspace_pack_key(workspace: int, slug: str) -> str:
    """The stored id (PackRow.id, QuestionRow.pack_id) of a workspace's pack: `<workspace row>:<slug>`."""
    return f"{workspace}{KEY_SEPARATOR}{slug}"


def is_workspace_pack_key(pack_id: str) -> bool:
    """Whether a stored pack id is a workspace pack's (a shipped pack's id has no colon)."""
    return KEY_SEPARATOR in pack_id


def slug_of_key(pack_id: str) -> str:
    """The slug people type for a stored pack id (a shipped pack's id is its own slug)."""
    return pack_id.partition(KEY_SEPARATOR)[2] if is_workspace_pack_key(pack_id) else pack_id


class DraftStatus(enum.Enum):
    """Where a draft is in review."""

    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"


class DraftOrigin(enum.Enum):
    """How a draft came in."""

    WRITTEN = "written"
    """Written in chat (`/quiz write`)."""
    UPLOADED = "uploaded"
    """From an uploaded pack, missing what a lead must complete (an explanation)."""


@dataclass(frozen=True, slots=True)
class DraftContent:
    """What a draft says: a question in the making. `correct_index` is zero-based, None when not yet said;
    `explanation` is "" when not yet written (an uploaded question): such a draft must be completed (Edit)
    before it can be approved."""

    prompt: str
    choices: tuple[str, ...]
    correct_index: int | None
    explanation: str = ""
    references: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    difficulty: str | None = None

    @property
    def complete(self) -> bool:
        """Whether it says everything a pack question needs (approval still checks the pack rules)."""
        return bool(self.prompt.strip() and self.explanation.strip() and self.correct_index is not None)


@dataclass(frozen=True, slots=True)
class Draft:
    """A draft as stored, for the review queue and its outcome."""

    id: int
    workspace: int
    """The `workspaces` row it belongs to."""
    pack: str
    """The slug of the workspace pack it is for."""
    content: DraftContent
    author_id: str
    """The author's platform user id (in the draft's workspace)."""
    author_name: str
    status: DraftStatus
    origin: DraftOrigin
    created_at: datetime
    decided_by: str | None = None
    decided_at: datetime | None = None
    reason: str = ""
    question_key: str | None = None
    """The question id it became in its pack, once approved."""


@dataclass(frozen=True, slots=True)
class WorkspacePack:
    """A workspace's own pack: its slug, its stored key and what it says about itself."""

    workspace: int
    slug: str
    key: str
    title: str
    description: str = ""
    tags: tuple[str, ...] = ()
    questions: int = 0
    """Active questions in it."""
    created_by: str = ""
    created_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class StoredPack:
    """What storing a whole pack did: the pack, and how many of its questions were new, changed or retired."""

    pack: WorkspacePack
    added: int = 0
    changed: int = 0
    retired: int = 0
    created: bool = False
    keys: tuple[str, ...] = field(default_factory=tuple)
    """The question ids stored, in the pack's order."""
