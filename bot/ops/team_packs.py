"""`quizbot content export|import --workspace PLATFORM:ID`: a workspace's own packs (written and approved in chat, or
uploaded) out of the database as YAML, GIFT or CSV, and a pack file into a workspace's packs.

Export reads the pack as it is now (its active questions, in order). Import takes a YAML pack, or any format
`quizbot content import` reads, validates it as `quizbot content check` does (what the schema refuses is refused,
with every problem; the quality rules' warnings are reported) and stores it whole (`uow.workspace_packs.store_pack`):
new questions are added, changed ones get a new version, the ones no longer in the file are retired. A pack named
as a shipped pack is refused. The round trip: `export --format yaml`, edit, `import` the file back.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import yaml

from bot.content.drafts import draft_from_model, to_yaml
from bot.content.encoding import read_utf8
from bot.content.formats import export_text, import_file
from bot.content.loader import PACK_SUFFIXES, parse_pack_model
from bot.content.quality import QualityWarning, pack_warnings
from bot.content.schema import PackModel
from bot.content.written import pack_data, pack_model
from bot.domain.drafts import StoredPack
from bot.errors import QuizError
from bot.service.operator_uow import OperatorUnitOfWork
from bot.wording import drafts as words

TEAM_EXPORT_FORMATS = ("yaml", "gift", "csv")


def workspace_address(text: str) -> tuple[str, str]:
    """`PLATFORM:ID` (`slack:T123`, `discord:4567`, `console:local`) as (platform, workspace id)."""
    platform, colon, external = text.partition(":")
    if not colon or not platform.strip() or not external.strip():
        raise QuizError(words.cli_bad_workspace(text))
    return platform.strip(), external.strip()


async def _workspace(uow: OperatorUnitOfWork, address: str) -> int:
    platform, external = workspace_address(address)
    found = await uow.places.workspace(platform, external)
    if found is None:
        raise QuizError(words.cli_no_such_workspace(address, await uow.exports.workspace_names()))
    return found.id


async def export_team_pack(uow: OperatorUnitOfWork, address: str, slug: str, fmt: str) -> str:
    """A workspace's pack as the text of `fmt` (yaml, gift or csv); QuizError naming its packs when there is none."""
    workspace = await _workspace(uow, address)
    found = await uow.workspace_packs.get(workspace, slug)
    if found is None:
        names = [pack.slug for pack in await uow.workspace_packs.of_workspace(workspace)]
        raise QuizError(words.cli_no_such_team_pack(slug, address, names))
    pack = await uow.workspace_packs.as_pack(found)
    if fmt == "yaml":
        return str(yaml.safe_dump(pack_data(pack), sort_keys=False, allow_unicode=True, width=1000))
    return export_text(draft_from_model(pack_model(pack)), fmt)


def read_pack_file(source: Path, fmt: str | None, *, pack_id: str | None) -> PackModel:
    """A pack file for a workspace: a YAML pack, or any format `content import` reads, validated as `content check`
    validates (InvalidPack with every problem; an imported file's missing explanations are such problems)."""
    if fmt is None and source.suffix in PACK_SUFFIXES:
        model = parse_pack_model(read_utf8(source, pack=True), source=str(source))
        return model.model_copy(update={"id": pack_id}) if pack_id else model
    result = import_file(source, fmt, pack_id=pack_id)
    return parse_pack_model(to_yaml(result.pack, origin=source.name, fmt=result.format), source=str(source))


def warnings_of(model: PackModel, source: str) -> list[QualityWarning]:
    """The quality rules' warnings on a pack (as `content check` reports them)."""
    return pack_warnings(model, source=source)


async def import_team_pack(
    uow: OperatorUnitOfWork, address: str, model: PackModel, *, shipped: set[str], by: str, now: datetime
) -> StoredPack:
    """Store a validated pack as the workspace's pack `model.id` (refused when a shipped pack has that id);
    commits."""
    if model.id in shipped:
        raise QuizError(words.shipped_pack(model.id))
    workspace = await _workspace(uow, address)
    stored = await uow.workspace_packs.store_pack(workspace, model.to_domain(), by=by, now=now)
    await uow.commit()
    return stored
