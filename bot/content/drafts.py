"""Draft packs: what an importer reads before a person completes it, and the YAML skeleton written from it.

A draft may lack what the source format cannot say (the answer of a plain-text quiz, the explanation of an
Aiken file, the pack's title and description...). The YAML skeleton writes each missing piece as a `TODO`
blank, which `quizbot content check` refuses until someone fills it in. Everything else is validated while
importing, with the line or record it came from, so a skeleton fails the check only on its blanks.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.content.schema import TODO_MARK, PackModel
from bot.errors import InvalidPack, Problem
from bot.wording import content as words
from bot.wording import imports as import_words

DIFFICULTIES = ("easy", "medium", "hard")
MAX_CHOICES = 10
MAX_TEXT = 2000
MAX_CHOICE = 300
_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
_TAG = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
_URL = re.compile(r"^https?://\S+$")
_SURROGATE = re.compile(r"[\ud800-\udfff]")

Place = str | Problem
"""Where in a source something is: a place's words (`line 12`, `record 3`: bot/wording/content.py), or a name that
is no sentence (`--id`, `response_code`)."""


def description_blank() -> str:
    """The description placeholder of a YAML skeleton."""
    return import_words.description_blank(TODO_MARK)


def explanation_blank() -> str:
    """The explanation placeholder of a YAML skeleton."""
    return import_words.explanation_blank(TODO_MARK)


def title_blank(source_name: str | None) -> str:
    """The title placeholder of a pack imported from a format that has no pack title."""
    return import_words.title_blank(TODO_MARK, source_name)


def at_line(number: int) -> Problem:
    """The place `line N` of a source file."""
    return Problem(words.line, number=number)


def at_record(number: int) -> Problem:
    """The place `record N` of a JSON source."""
    return Problem(import_words.record, number=number)


@dataclass(slots=True)
class DraftQuestion:
    """A question as imported: `answer` is 1-based; None marks what the source did not say."""

    id: str
    prompt: str
    choices: list[str]
    answer: int | None = None
    explanation: str | None = None
    tags: list[str] = field(default_factory=list)
    difficulty: str | None = None
    references: list[str] = field(default_factory=list)
    image: dict[str, str] | None = None
    """`{url or file, alt}` as in a pack file (the schema checks it when the pack is checked)."""
    explanation_image: dict[str, str] | None = None
    line: int = field(default=0, compare=False)
    """Where the question starts in the source (line, or record for JSON); not part of equality."""


@dataclass(slots=True)
class DraftPack:
    """A pack as imported; None for a title or description the source did not give."""

    id: str
    title: str | None
    description: str | None
    questions: list[DraftQuestion]
    tags: list[str] = field(default_factory=list)
    verbatim_seed: bool = False

    def blanks(self) -> int:
        """How many TODO blanks the YAML skeleton of this draft has (answers, explanations, title, description)."""
        count = (self.title is None) + (self.description is None)
        return count + sum((q.answer is None) + (q.explanation is None) for q in self.questions)


@dataclass(frozen=True, slots=True)
class Skipped:
    """A question of the source that was not imported, and why (e.g. a GIFT short-answer question)."""

    line: int
    problem: Problem

    @property
    def reason(self) -> str:
        """Why it was skipped, worded now."""
        return self.problem.worded()

    def message(self) -> str:
        """`line 12: short-answer question skipped: ...`, worded now."""
        return self.problem.at(at_line(self.line)).worded()


@dataclass(slots=True)
class ImportResult:
    """What an import produced: the draft, the format it was read as, and the questions it skipped."""

    pack: DraftPack
    format: str
    skipped: list[Skipped] = field(default_factory=list)


def source_lines(text: str) -> list[str]:
    """The lines of a text file as an editor numbers them (only \\n, \\r\\n and \\r end a line)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def refuse(source: str, where: Place, reason: Problem) -> InvalidPack:
    """The error for a malformed input: `SOURCE: WHERE: REASON`, one line, worded when shown."""
    return InvalidPack(reason.at(source, where))


def clean_text(value: str, *, what: Problem, source: str, where: Place, limit: int = MAX_TEXT) -> str:
    """A stripped, non-empty text of at most `limit` characters, or an error naming where it came from."""
    text = value.strip()
    if not text:
        raise refuse(source, where, Problem(import_words.text_empty, what=what))
    if _SURROGATE.search(text):
        raise refuse(source, where, Problem(import_words.text_has_surrogate, what=what))
    if len(text) > limit:
        raise refuse(source, where, Problem(import_words.text_too_long, what=what, length=len(text), limit=limit))
    return text


def build_question(
    *,
    source: str,
    where: Place,
    line: int,
    prompt: str,
    choices: Iterable[str],
    answer: int | None,
    explanation: str | None = None,
    tags: Iterable[str] = (),
    difficulty: str | None = None,
    references: Iterable[str] = (),
    question_id: str = "",
    choice_wheres: Sequence[Place] | None = None,
    image: dict[str, str] | None = None,
    explanation_image: dict[str, str] | None = None,
) -> DraftQuestion:
    """Validate one imported question; every error names `source` and `where` (e.g. `line 12`, `record 3`).

    Tags are turned into slugs; `question_id` (a title, an id column) too, and may be empty (one is made up
    later by `assign_ids`). `choice_wheres`, when given, says where each choice is, for errors about one.
    """
    choices = list(choices)
    at = list(choice_wheres) if choice_wheres is not None and len(choice_wheres) == len(choices) else []
    at = at or [where] * len(choices)
    texts = [
        clean_text(
            choice,
            what=Problem(import_words.choice_number, number=number),
            source=source,
            where=at[number - 1],
            limit=MAX_CHOICE,
        )
        for number, choice in enumerate(choices, start=1)
    ]
    if len(texts) < 2:
        raise refuse(source, where, Problem(import_words.too_few_choices, count=len(texts)))
    if len(texts) > MAX_CHOICES:
        raise refuse(source, where, Problem(import_words.too_many_choices, count=len(texts), limit=MAX_CHOICES))
    seen: dict[str, int] = {}
    for number, text in enumerate(texts, start=1):
        if text.casefold() in seen:
            repeated = Problem(import_words.choice_repeats, number=number, text=text, first=seen[text.casefold()])
            raise refuse(source, at[number - 1], repeated)
        seen[text.casefold()] = number
    if answer is not None and not 1 <= answer <= len(texts):
        raise refuse(source, where, Problem(import_words.answer_out_of_range, answer=answer, choices=len(texts)))
    if explanation is not None and (not explanation.strip() or explanation.lstrip().startswith(TODO_MARK)):
        explanation = None  # a blank, or a TODO blank written back by an export
    if explanation is not None:
        explanation = clean_text(explanation, what=Problem(import_words.the_explanation), source=source, where=where)
    if difficulty is not None:
        difficulty = difficulty.strip().casefold() or None
        if difficulty is not None and difficulty not in DIFFICULTIES:
            raise refuse(source, where, Problem(import_words.bad_difficulty, value=difficulty, allowed=DIFFICULTIES))
    urls = [url.strip() for url in references if url.strip()]
    for url in urls:
        if not _URL.match(url):
            raise refuse(source, where, Problem(import_words.bad_reference, url=url))
    return DraftQuestion(
        id=question_id.strip() if _SLUG.match(question_id.strip()) else to_slug(question_id),
        prompt=clean_text(prompt, what=Problem(import_words.the_question), source=source, where=where),
        choices=texts,
        answer=answer,
        explanation=explanation,
        tags=tag_list(tags),
        difficulty=difficulty,
        references=urls,
        image=image or None,
        explanation_image=explanation_image or None,
        line=line,
    )


def tag_list(tags: Iterable[str]) -> list[str]:
    """Tags as slugs (at most 40 characters), without blanks or repeats, in their order."""
    result: list[str] = []
    for tag in tags:
        slug = tag.strip() if _TAG.match(tag.strip()) else to_slug(tag, max_length=40)
        if slug and slug not in result:
            result.append(slug)
    return result


def to_slug(text: str, *, max_length: int = 64) -> str:
    """`Science: Computers` -> `science-computers`; accents dropped (`é` -> `e`); empty if nothing is left."""
    decomposed = unicodedata.normalize("NFKD", text)
    ascii_text = "".join(char for char in decomposed if not unicodedata.combining(char))
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.casefold()).strip("-")
    return slug[:max_length].rstrip("-")


def assign_ids(pack_id: str, questions: list[DraftQuestion], *, source: str, unique: bool) -> None:
    """Give every question without an id one made from the pack id (`dp-q3`); make ids unique.

    With `unique`, a repeated id is an error (ids written by the author); otherwise (ids made from GIFT
    titles, which Moodle does not require to be unique) a repeat gets `-2`, `-3`...
    """
    prefix = "".join(word[0] for word in pack_id.split("-") if word)[:4] or "q"
    used: dict[str, int] = {}
    for question in questions:
        if question.id:
            if question.id in used:
                if unique:
                    used_on = Problem(import_words.id_used_on_line, question_id=question.id, line=used[question.id])
                    raise refuse(source, at_line(question.line), used_on)
                question.id = _next_free(question.id, used)
            used[question.id] = question.line
    for number, question in enumerate(questions, start=1):
        if not question.id:
            question.id = _next_free(f"{prefix}-q{number}", used)
            used[question.id] = question.line


def _next_free(base: str, used: Mapping[str, int]) -> str:
    if base not in used:
        return base
    suffix = 2
    while f"{base[:60]}-{suffix}" in used:
        suffix += 1
    return f"{base[:60]}-{suffix}"


def pack_id_from(text: str) -> str:
    """A pack id made from a title or a file name (`Data Parallelism Quiz` -> `data-parallelism`)."""
    return to_slug(re.sub(r"\bquiz\b", "", text, flags=re.IGNORECASE), max_length=48) or "pack"


def check_pack_id(pack_id: str, *, source: str, where: Place) -> str:
    """The pack id given by the user or the file, which must already be a slug."""
    if not _SLUG.match(pack_id):
        raise refuse(source, where, Problem(import_words.bad_pack_id, pack_id=pack_id))
    return pack_id


def draft_from_model(model: PackModel) -> DraftPack:
    """The draft of a validated pack, for export."""
    return DraftPack(
        id=model.id,
        title=model.title,
        description=model.description,
        tags=list(model.tags),
        verbatim_seed=model.verbatim_seed,
        questions=[
            DraftQuestion(
                id=q.id,
                prompt=q.prompt,
                choices=list(q.choices),
                answer=q.answer,
                explanation=q.explanation,
                tags=list(q.tags),
                difficulty=q.difficulty,
                references=list(q.references),
                image=q.image.model_dump(exclude_none=True) if q.image else None,
                explanation_image=q.explanation_image.model_dump(exclude_none=True) if q.explanation_image else None,
            )
            for q in model.questions
        ],
    )


def _image(value: Any) -> dict[str, str] | None:
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, Mapping) else None


def image_from_cells(where: str, alt: str) -> dict[str, str] | None:
    """An image from an import's cells: `where` is an https URL or a file name under content/images/."""
    where, alt = where.strip(), alt.strip()
    if not where and not alt:
        return None
    image = {"url" if "://" in where else "file": where} if where else {}
    return image | ({"alt": alt} if alt else {})


def image_cells(image: dict[str, str] | None) -> tuple[str, str]:
    """The inverse of `image_from_cells`: (URL or file, alt text)."""
    if image is None:
        return "", ""
    return image.get("url") or image.get("file") or "", image.get("alt", "")


def draft_from_mapping(raw: Mapping[str, Any]) -> DraftPack:
    """Read back a YAML skeleton (as loaded by yaml.safe_load): TODO blanks and null answers become None."""

    def text(value: Any) -> str | None:
        """The value, or None for a missing value or a TODO blank."""
        return None if value is None or str(value).lstrip().startswith(TODO_MARK) else str(value)

    return DraftPack(
        id=str(raw["id"]),
        title=text(raw.get("title")),
        description=text(raw.get("description", "")),
        tags=[str(t) for t in raw.get("tags") or []],
        verbatim_seed=bool(raw.get("verbatim_seed", False)),
        questions=[
            DraftQuestion(
                id=str(q["id"]),
                prompt=str(q["prompt"]),
                choices=[str(c) for c in q["choices"]],
                answer=q.get("answer"),
                explanation=text(q.get("explanation")),
                tags=[str(t) for t in q.get("tags") or []],
                difficulty=q.get("difficulty"),
                references=[str(r) for r in q.get("references") or []],
                image=_image(q.get("image")),
                explanation_image=_image(q.get("explanation_image")),
            )
            for q in raw["questions"]
        ],
    )


def to_yaml(draft: DraftPack, *, origin: str = "", fmt: str = "") -> str:
    """The YAML pack of a draft, with a TODO blank for each missing piece and a header saying what to do.

    `origin` (the source file's name) and `fmt` (its format) appear in the header and the title blank.
    """
    lines = import_words.skeleton_header(origin, fmt, blanks=bool(draft.blanks()))
    lines.append(f"id: {quoted(draft.id)}")
    lines.append(f"title: {quoted(draft.title if draft.title is not None else title_blank(origin or None))}")
    lines.append(f"description: {quoted(draft.description if draft.description is not None else description_blank())}")
    if draft.verbatim_seed:
        lines.append("verbatim_seed: true")
    lines.append(f"tags: {_flow(draft.tags)}")
    lines.append("questions:")
    for question in draft.questions:
        lines.append(f"  - id: {quoted(question.id)}")
        lines.append(f"    prompt: {quoted(question.prompt)}")
        lines.append("    choices:")
        lines.extend(f"      - {quoted(choice)}" for choice in question.choices)
        if question.answer is None:
            lines.append(f"    answer: null  # {import_words.answer_blank_comment(TODO_MARK, len(question.choices))}")
        else:
            lines.append(f"    answer: {question.answer}")
        lines.append(f"    explanation: {quoted(question.explanation or explanation_blank())}")
        lines.append(f"    tags: {_flow(question.tags)}")
        if question.difficulty is not None:
            lines.append(f"    difficulty: {question.difficulty}")
        if question.references:
            lines.append("    references:")
            lines.extend(f"      - {quoted(url)}" for url in question.references)
        else:
            lines.append(f"    references: []  # {import_words.references_blank_comment(TODO_MARK)}")
        for name, image in (("image", question.image), ("explanation_image", question.explanation_image)):
            if image is not None:
                lines.append(f"    {name}:")
                lines.extend(f"      {key}: {quoted(value)}" for key, value in image.items())
    return "\n".join(lines) + "\n"


_YAML_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


def quoted(text: str) -> str:
    """A double-quoted YAML scalar that reads back as exactly `text` (control and break characters escaped)."""
    out: list[str] = []
    for char in text:
        if char in _YAML_ESCAPES:
            out.append(_YAML_ESCAPES[char])
        elif _needs_escape(char):
            code = ord(char)
            out.append(f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _needs_escape(char: str) -> bool:
    code = ord(char)
    printable = code in (0x09, 0x0A, 0x0D) or 0x20 <= code <= 0x7E or code == 0xA0
    printable = printable or 0xA1 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or 0x10000 <= code <= 0x10FFFF
    return not printable or code in (0x2028, 0x2029, 0xFEFF)


def _flow(items: Iterable[str]) -> str:
    return "[" + ", ".join(quoted(item) for item in items) + "]"
