"""A pack file uploaded in chat (`/quiz import`): refused safely, or read and checked as `content check` checks.

`read_upload(filename, data)` takes the bytes an adapter downloaded. Before anything parses them it refuses, each
with one line and nothing stored: a file over the size limit (QUIZBOT_UPLOAD_MAX_BYTES), an empty one, a name
whose extension is no format the bot reads (.xlsm and .xls named as such), content that is another kind of file
than its name says (sniffed from its first bytes: a PDF named .csv, a text named .xlsx), text that is not UTF-8 or
holds NUL bytes. An .xlsx is a zip: its member count, unpacked size and each member's compression ratio are checked
from the zip's directory before openpyxl opens it (and zipfile never unpacks a member past its declared size), its
XML may declare no entities, and a macro project (`vbaProject.bin`, a macro-enabled content type) is refused; the
Kahoot reader (formats/kahoot.py) then refuses any formula cell.

It reads every format `quizbot content import` reads (bot/content/formats: GIFT, Aiken, Open Trivia DB JSON, CSV,
plain text), YAML packs (the schema of bot/content/schema.py, TODO blanks allowed) and Kahoot's spreadsheet
template. `check_upload` then sorts the questions: one without a correct answer is a problem; one lacking only an
explanation (Open Trivia DB, Aiken and Kahoot never carry one) is a draft for a lead to complete; the rest form the
pack, validated by the pack schema (loader.parse_pack_model, as `content check` loads a file) and given the quality
warnings of `content check` (quality.py), near-duplicates against the packs already there included.
"""

from __future__ import annotations

import dataclasses
import io
import re
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from bot.content.drafts import DraftPack, DraftQuestion, Skipped, at_line, draft_from_mapping, draft_from_model, to_yaml
from bot.content.encoding import load_yaml
from bot.content.formats import finish_pack, guess_format, import_text
from bot.content.formats import kahoot as kahoot_format
from bot.content.loader import parse_pack_model
from bot.content.quality import PromptEntry, QualityWarning, duplicate_warnings, pack_warnings, prompt_entries
from bot.content.schema import PackModel
from bot.content.upload_limits import UploadLimits
from bot.domain import Pack
from bot.errors import InvalidPack, Problem
from bot.wording import imports as import_words
from bot.wording import uploads as words

DUPLICATES_SHOWN = 20
"""Near-duplicate pairs looked for at most in an upload (its reply shows a few warnings; a file of near-identical
prompts would otherwise cost a comparison for every two of them)."""

EXTENSIONS: dict[str, str | None] = {
    ".yaml": "yaml",
    ".yml": "yaml",
    ".gift": "gift",
    ".aiken": "aiken",
    ".json": "opentdb",
    ".csv": "csv",
    ".tsv": "csv",
    ".txt": None,  # recognised by its content, as `quizbot content import` does
    ".xlsx": "kahoot",
}
"""The extensions an upload may have, and the format each names (None: guessed from the text)."""
MACRO_EXTENSIONS = frozenset({".xlsm", ".xltm", ".xlam", ".docm", ".pptm"})
OLD_EXCEL = frozenset({".xls", ".xlt"})

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"PK\x03\x04", "zip"),
    (b"PK\x05\x06", "zip"),
    (b"PK\x07\x08", "zip"),
    (b"%PDF", "pdf"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "ole"),
    (b"\x89PNG", "png"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"GIF8", "gif"),
    (b"\x7fELF", "executable"),
)
_DTD = re.compile(rb"<!(?:DOCTYPE|ENTITY)", re.IGNORECASE)
_MACRO_CONTENT = re.compile(rb"macroEnabled|vbaProject", re.IGNORECASE)


@dataclass(slots=True)
class Upload:
    """A file read into a draft pack: its format, and the questions its format could not import (skipped)."""

    filename: str
    format: str
    pack: DraftPack
    skipped: list[Skipped] = field(default_factory=list)


@dataclass(slots=True)
class CheckedUpload:
    """An upload sorted and checked: `pack` holds its complete questions (None if it has none), `drafts` those
    lacking only an explanation, `warnings` what `content check` would warn about the pack."""

    upload: Upload
    pack: PackModel | None
    drafts: list[DraftQuestion]
    warnings: list[QualityWarning] = field(default_factory=list)

    @property
    def pack_id(self) -> str:
        """The pack the questions go to."""
        return self.upload.pack.id


def sniff(data: bytes) -> str | None:
    """What kind of binary file `data` is by its first bytes (`zip`, `pdf`, `ole`...), or None for anything else."""
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            return kind
    return None


def read_upload(filename: str, data: bytes, limits: UploadLimits | None = None) -> Upload:
    """Read an uploaded file into a draft pack, or InvalidPack: one refusal about the file itself, or the problems
    of its content (each with its line, record or row). Pure: nothing is stored."""
    limits = limits or UploadLimits()
    name = PurePath(filename.replace("\\", "/")).name or filename
    if len(data) > limits.max_bytes:
        raise InvalidPack(Problem(words.too_large, size=len(data), limit=limits.max_bytes))
    if not data:
        raise InvalidPack(Problem(words.empty_file))
    extension = PurePath(name).suffix.casefold()
    if extension in MACRO_EXTENSIONS:
        raise InvalidPack(Problem(words.macro_enabled))
    if extension in OLD_EXCEL:
        raise InvalidPack(Problem(words.old_excel))
    if extension not in EXTENSIONS:
        raise InvalidPack(Problem(words.unknown_type, extension=extension, known=tuple(EXTENSIONS)))
    kind = sniff(data)
    if extension == ".xlsx":
        if kind != "zip":
            found = words.binary_kind(kind) if kind is not None else words.binary_kind("text")
            raise InvalidPack(Problem(words.content_not_extension, extension=extension, found=found))
        check_zip(data, limits)
        questions = kahoot_format.parse(data, source=name, max_rows=limits.max_rows)
        draft = _finish(questions, name)
        return Upload(name, "kahoot", draft)
    if kind is not None:
        raise InvalidPack(Problem(words.content_not_extension, extension=extension, found=words.binary_kind(kind)))
    if b"\x00" in data:
        raise InvalidPack(Problem(words.binary_in_text, extension=extension))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        at = Problem(import_words.bad_byte, byte=data[exc.start], line=line, column=column)
        raise InvalidPack(Problem(words.not_utf8, at=at)) from exc
    fmt = EXTENSIONS[extension] or guess_format(Path(name), text)
    if fmt == "yaml":
        return Upload(name, "yaml", _yaml_draft(text, name))
    result = import_text(text, fmt, source=name, name=name)
    return Upload(name, result.format, result.pack, result.skipped)


def check_zip(data: bytes, limits: UploadLimits) -> None:
    """Refuse a zip (an .xlsx) that is damaged, holds too many members, would unpack to too much or compresses a
    member as only a zip bomb does, carries macros, or whose XML declares entities; from its directory first, so
    nothing is unpacked before the sizes are known (and zipfile stops each member at its declared size)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise InvalidPack(Problem(words.not_a_workbook, detail=str(exc) or type(exc).__name__)) from exc
    with archive:
        members = archive.infolist()
        if len(members) > limits.max_members:
            raise InvalidPack(Problem(words.zip_too_many_members, count=len(members), limit=limits.max_members))
        unpacked = sum(member.file_size for member in members)
        if unpacked > limits.max_unpacked:
            raise InvalidPack(Problem(words.zip_too_large, size=unpacked, limit=limits.max_unpacked))
        for member in members:
            ratio = member.file_size / max(member.compress_size, 1)
            if member.file_size > 1024 and ratio > limits.max_ratio:
                name = member.filename[:80]
                raise InvalidPack(Problem(words.zip_ratio, member=name, ratio=int(ratio), limit=limits.max_ratio))
        names = {member.filename.casefold() for member in members}
        if any(name.endswith("vbaproject.bin") for name in names):
            raise InvalidPack(Problem(words.macro_enabled))
        try:
            for member in members:
                if member.is_dir():
                    continue
                content = archive.read(member)  # bounded: the sizes above were checked
                if member.filename == "[Content_Types].xml" and _MACRO_CONTENT.search(content):
                    raise InvalidPack(Problem(words.macro_enabled))
                if member.filename.casefold().endswith((".xml", ".rels", ".vml")) and _DTD.search(content):
                    raise InvalidPack(Problem(words.xml_entities))
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError, ValueError, OSError, EOFError) as exc:
            raise InvalidPack(Problem(words.not_a_workbook, detail=str(exc) or type(exc).__name__)) from exc


def title_from(filename: str) -> str:
    """A pack title made from a file name: `team-runbooks_v2.xlsx` -> `team runbooks v2`."""
    stem = PurePath(filename).stem
    return " ".join(re.sub(r"[_\-.]+", " ", stem).split()) or stem or "pack"


def _finish(questions: list[DraftQuestion], name: str) -> DraftPack:
    """A draft pack of questions from a format with no pack fields (Kahoot): id and title from the file name."""
    return finish_pack({}, {}, questions, source=name, name=name, pack_id=None)


def _yaml_draft(text: str, name: str) -> DraftPack:
    """A YAML pack as a draft: a valid pack as it is, a skeleton with TODO explanations as drafts; any other
    problem as the schema reports it (every problem, with the question and field)."""
    try:
        return draft_from_model(parse_pack_model(text, source=name))
    except InvalidPack as invalid:
        try:
            raw = load_yaml(text)
            draft = draft_from_mapping(raw) if isinstance(raw, dict) else None
        except Exception:  # a mapping that is no pack at all: the schema's problems say why
            draft = None
        if draft is None or not any(q.explanation is None for q in draft.questions):
            raise invalid from None
        return draft


def check_upload(upload: Upload, existing: Iterable[Pack] = ()) -> CheckedUpload:
    """Sort an upload's questions and check them as `content check` does; InvalidPack lists every problem.

    A question without a correct answer is a problem. One lacking only its explanation becomes a draft, validated
    with the pack in every other field. `existing` (the packs already there) take part in near-duplicate detection.
    """
    draft = upload.pack
    missing = [q for q in draft.questions if q.answer is None]
    if missing:
        raise InvalidPack(
            problems=[
                Problem(words.no_answer, where=[upload.filename], line=_place(upload, q).worded()) for q in missing
            ]
        )
    files = [
        Problem(words.image_file, where=[upload.filename, q.id], file=image["file"])
        for q in draft.questions
        for image in (q.image, q.explanation_image)
        if image is not None and "file" in image
    ]
    if files:  # an upload brings no image files: an image is shown from its https URL
        raise InvalidPack(problems=files)
    title = draft.title or title_from(upload.filename)
    stand_in = "-"  # any valid text: it stands for the explanation a draft lacks, only while validating
    whole = dataclasses.replace(
        draft,
        title=title,
        description=draft.description or "",
        questions=[
            dataclasses.replace(q, explanation=q.explanation if q.explanation is not None else stand_in)
            for q in draft.questions
        ],
    )
    model = parse_pack_model(to_yaml(whole), source=upload.filename)  # the schema, as `content check` loads a file
    complete_ids = {q.id for q in draft.questions if q.explanation is not None}
    drafts = [q for q in draft.questions if q.explanation is None]
    complete = [q for q in model.questions if q.id in complete_ids]
    pack = model.model_copy(update={"questions": complete}) if complete else None
    warnings: list[QualityWarning] = []
    if pack is not None:
        warnings = pack_warnings(pack, source=upload.filename)
        entries = prompt_entries(pack, source=upload.filename)
        entries += [
            PromptEntry(pack_id=p.id, source=p.id, question_id=q.key, prompt=q.prompt, reported=False)
            for p in existing
            if p.id != pack.id
            for q in p.questions
        ]
        warnings += duplicate_warnings(entries, limit=DUPLICATES_SHOWN)
    return CheckedUpload(upload, pack, drafts, warnings)


def _place(upload: Upload, question: DraftQuestion) -> Problem:
    if upload.format == "kahoot":
        return kahoot_format.at_row(question.line)
    return at_line(question.line)


def problems_of(error: InvalidPack) -> list[str]:
    """An InvalidPack's problems, worded now, one each."""
    return [problem.worded() if isinstance(problem, Problem) else str(problem) for problem in error.problems] or [
        str(error)
    ]
