"""Quiz formats for `quizbot content import` and `export`: which there are, how each file is recognised,
and the pack-level fields every format's reader shares.

Import: text (the plain-text form of the seed texts), gift (Moodle GIFT), aiken (Moodle Aiken), opentdb (Open
Trivia DB JSON), csv (a spreadsheet with a header row). Export: gift and csv, which carry every field of a
pack, so importing an export gives the same pack back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from bot.content.drafts import (
    DraftPack,
    DraftQuestion,
    ImportResult,
    Place,
    Skipped,
    assign_ids,
    at_line,
    check_pack_id,
    pack_id_from,
    refuse,
    tag_list,
)
from bot.content.encoding import read_utf8
from bot.content.format_names import EXPORT_FORMATS as EXPORT_FORMATS
from bot.content.format_names import IMPORT_FORMATS as IMPORT_FORMATS
from bot.content.formats import aiken, gift, opentdb, table
from bot.content.importer import parse_plain_quiz, plain_draft
from bot.content.schema import TODO_MARK
from bot.errors import InvalidPack, Problem
from bot.wording import content as words
from bot.wording import imports as import_words

EXTENSIONS = {".gift": "gift", ".aiken": "aiken", ".json": "opentdb", ".csv": "csv", ".tsv": "csv"}
"""File extensions that name their format; anything else (.txt above all) is recognised by its content."""

_GIFT_SIGNS = re.compile(r"^\s*(?:::|\$CATEGORY:)|\{\s*(?:[=~]|T\b|F\b|TRUE\b|FALSE\b)", re.MULTILINE)
_AIKEN_ANSWER = re.compile(r"^\s*ANSWER\s*:\s*[A-Za-z]\s*$", re.MULTILINE)
_NUMBERED = re.compile(r"^\s*\d+[.)]\s+\S", re.MULTILINE)


def read_source(path: Path) -> str:
    """The text of an input file: UTF-8 (a byte order mark is dropped), or one clear error line."""
    return read_utf8(path)


def guess_format(path: Path, text: str) -> str:
    """The format of an input: by extension (.gift .aiken .json .csv .tsv), else by what the text looks like
    (GIFT braces or `::titles::`, Aiken `ANSWER:` lines, a CSV header naming a question column), else text."""
    if path.suffix.casefold() in EXTENSIONS:
        return EXTENSIONS[path.suffix.casefold()]
    stripped = text.lstrip()
    if stripped.startswith("{") and '"results"' in stripped:
        return "opentdb"
    if _GIFT_SIGNS.search(text):
        return "gift"
    if _AIKEN_ANSWER.search(text):
        return "aiken"
    first = stripped.split("\n", 1)[0].casefold()
    if not _NUMBERED.search(text) and "question" in first and any(delimiter in first for delimiter in ",;\t"):
        return "csv"
    return "text"  # the original import format: its reader says what it expected when this is not it


def import_file(path: Path, fmt: str | None = None, *, pack_id: str | None = None) -> ImportResult:
    """Read a quiz file in any import format (guessed when `fmt` is None) into a draft pack."""
    text = read_source(path)
    return import_text(text, fmt or guess_format(path, text), source=str(path), name=path.name, pack_id=pack_id)


def import_text(text: str, fmt: str, *, source: str, name: str, pack_id: str | None = None) -> ImportResult:
    """Read `text` as `fmt`; `name` (the file name) gives the pack id when neither `pack_id` nor the file does."""
    if pack_id is not None:
        check_pack_id(pack_id, source=source, where="--id")
    skipped: list[Skipped] = []
    if fmt == "text":
        draft = plain_draft(parse_plain_quiz(text, source=source), pack_id=pack_id, source=source)
        return ImportResult(draft, fmt)
    if fmt == "gift":
        questions, skipped, header = gift.parse(text, source=source)
        draft = finish_pack(header.values, header.lines, questions, source=source, name=name, pack_id=pack_id)
    elif fmt == "aiken":
        draft = finish_pack({}, {}, aiken.parse(text, source=source), source=source, name=name, pack_id=pack_id)
    elif fmt == "opentdb":
        questions, category = opentdb.parse(text, source=source)
        values = {"pack_title": category} if category else {}
        draft = finish_pack(values, {}, questions, source=source, name=name, pack_id=pack_id)
    elif fmt == "csv":
        questions, values, lines = table.parse(text, source=source)
        draft = finish_pack(values, lines, questions, source=source, name=name, pack_id=pack_id, unique=True)
    else:
        raise InvalidPack(Problem(import_words.unknown_format, where=[source], fmt=fmt, formats=IMPORT_FORMATS))
    return ImportResult(draft, fmt, skipped)


def finish_pack(
    values: Mapping[str, str],
    lines: Mapping[str, int],
    questions: list[DraftQuestion],
    *,
    source: str,
    name: str,
    pack_id: str | None,
    unique: bool = False,
) -> DraftPack:
    """Make the draft from the questions and the `pack_*` values a file declared (GIFT comments, CSV columns).

    The pack id is `pack_id` (from --id), else the declared one, else made from the file name. A declared
    pack (one with a pack_id) has an empty description unless it gives one; an undeclared one gets a TODO
    blank. A title or description that starts with TODO is a blank, as in the YAML skeleton.
    """

    def where(key: str) -> Place:
        """Where a pack value was given, for errors about it."""
        return at_line(lines[key]) if key in lines else Problem(words.pack)

    if not questions:
        raise InvalidPack(Problem(import_words.nothing_to_import, where=[source]))
    declared = values.get("pack_id")
    if declared is not None:
        check_pack_id(declared, source=source, where=where("pack_id"))
    identifier = pack_id or declared or pack_id_from(Path(name).stem)
    title = _blank(values.get("pack_title"))
    description = values.get("pack_description", "" if declared is not None else None)
    seed = values.get("pack_verbatim_seed", "").strip().casefold()
    if seed not in ("", "true", "false", "yes", "no", "1", "0"):
        raise refuse(source, where("pack_verbatim_seed"), Problem(import_words.seed_not_a_flag, value=seed))
    draft = DraftPack(
        id=identifier,
        title=title,
        description=_blank(description),
        tags=tag_list(re.split(r"[,;\s]+", values.get("pack_tags", ""))),
        verbatim_seed=seed in ("true", "yes", "1"),
        questions=questions,
    )
    assign_ids(draft.id, draft.questions, source=source, unique=unique)
    return draft


def _blank(value: str | None) -> str | None:
    return None if value is None or value.lstrip().startswith(TODO_MARK) else value.strip()


def export_text(pack: DraftPack, fmt: str) -> str:
    """The pack written as `fmt` (gift or csv)."""
    if fmt == "gift":
        return gift.dump(pack)
    if fmt == "csv":
        return table.dump(pack)
    raise InvalidPack(Problem(import_words.cannot_export_as, fmt=fmt, formats=EXPORT_FORMATS))
