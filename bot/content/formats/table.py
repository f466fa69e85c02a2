"""CSV with a header row: one question per row, the shape of a spreadsheet (see content/templates/).

Columns (names are case-insensitive; spaces and hyphens count as underscores; any order):

- `question` (or `prompt`): required.
- choices: `choice1` ... `choice10` (or `option1`..., `answer1`...), or `a` ... `j` (or `choice_a`...), without
  gaps; a row may leave its last choices empty.
- `correct` (or `answer`, `correct_answer`): the number of the right choice (1-based), its letter (A-J), or its
  text; a number or letter wins over a choice with that text. Empty: a TODO blank.
- `id`, `explanation` (or `feedback`), `tags` (comma-, semicolon- or space-separated), `difficulty`
  (easy, medium, hard), `references` (URLs separated by spaces or line breaks): optional.
- `image_url` (an https URL, or a file name under content/images/) and `image_alt`, and the same for the
  explanation (`explanation_image_url`, `explanation_image_alt`): optional. Code blocks are text like any other
  (a cell may hold line breaks).
- `pack_id`, `pack_title`, `pack_description`, `pack_tags`, `pack_verbatim_seed`: optional, about the whole
  pack; filled in on one row (the export uses the first), the same or empty on the others.

The delimiter is whichever of `,` `;` or tab the header uses most; a UTF-8 byte order mark is ignored.

The export writes a cell that a spreadsheet would run as a formula (it starts with `=`, `+`, `-`, `@`, a tab or a
line break, as a choice such as `-1` does) with an apostrophe in front, and the import takes it off again
(`bot.domain.text.formula_safe`), so a pack opened in Excel or Sheets shows its text and still round-trips.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from typing import NamedTuple

from bot.content.drafts import (
    DraftPack,
    DraftQuestion,
    Place,
    at_line,
    build_question,
    image_cells,
    image_from_cells,
    refuse,
)
from bot.content.schema import TODO_MARK
from bot.domain.text import formula_safe, spreadsheet_text, whole_number
from bot.errors import Problem
from bot.wording import formats as words

PACK_COLUMNS = ("pack_id", "pack_title", "pack_description", "pack_tags", "pack_verbatim_seed")
IMAGE_COLUMNS = ("image_url", "image_alt", "explanation_image_url", "explanation_image_alt")
_ALIASES = {
    "id": "id",
    "question_id": "id",
    "question": "question",
    "prompt": "question",
    "question_text": "question",
    "correct": "correct",
    "answer": "correct",
    "correct_answer": "correct",
    "correct_choice": "correct",
    "explanation": "explanation",
    "feedback": "explanation",
    "tags": "tags",
    "tag": "tags",
    "difficulty": "difficulty",
    "references": "references",
    "reference": "references",
    "refs": "references",
} | {name: name for name in PACK_COLUMNS + IMAGE_COLUMNS}
_NUMBERED = re.compile(r"^(?:choice|option|answer)_?(\d{1,2})$")
_LETTERED = re.compile(r"^(?:(?:choice|option)_?)?([a-j])$")


@dataclass(frozen=True, slots=True)
class _Columns:
    index: dict[str, int]
    choices: list[int]  # column index of choice 1, 2, ...
    width: int


class TableFile(NamedTuple):
    """A CSV pack: its questions (ids may be blank), the pack columns' values, and the line of each."""

    questions: list[DraftQuestion]
    pack: dict[str, str]
    lines: dict[str, int]


def parse(text: str, *, source: str) -> TableFile:
    """Read a CSV pack: its questions (ids may be blank), the pack columns' values and the line of each."""
    delimiter = _delimiter(text)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    rows: list[tuple[int, list[str]]] = []
    previous = 0
    try:
        for row in reader:
            rows.append((previous + 1, [spreadsheet_text(cell.strip()) for cell in row]))
            previous = reader.line_num
    except csv.Error as exc:
        raise refuse(source, at_line(previous + 1), Problem(words.table_not_csv, detail=str(exc))) from exc
    rows = [(line, row) for line, row in rows if any(cell.strip() for cell in row)]
    if not rows:
        raise refuse(source, at_line(1), Problem(words.table_empty))
    header_line, header = rows[0]
    columns = _columns(header, source, at_line(header_line))
    questions: list[DraftQuestion] = []
    pack: dict[str, str] = {}
    pack_lines: dict[str, int] = {}
    for line, row in rows[1:]:
        where = at_line(line)
        if len(row) > columns.width and any(cell.strip() for cell in row[columns.width :]):
            raise refuse(source, where, Problem(words.table_row_too_wide, cells=len(row), columns=columns.width))
        cells = row + [""] * (columns.width - len(row))

        def cell(name: str, cells: list[str] = cells) -> str:
            """The stripped value of a column of this row, empty when the header has no such column."""
            return cells[columns.index[name]].strip() if name in columns.index else ""

        for name in PACK_COLUMNS:
            value = cell(name)
            if not value:
                continue
            if name in pack and pack[name] != value:
                differs = Problem(
                    words.table_pack_value_differs,
                    name=name,
                    value=value,
                    earlier=pack[name],
                    line=pack_lines[name],
                )
                raise refuse(source, where, differs)
            pack[name], pack_lines[name] = value, line
        choices = [cells[index].strip() for index in columns.choices]
        while choices and not choices[-1]:
            choices.pop()
        if "" in choices:
            raise refuse(source, where, Problem(words.table_choice_gap, number=choices.index("") + 1))
        questions.append(
            build_question(
                source=source,
                where=where,
                line=line,
                prompt=cell("question"),
                choices=choices,
                answer=_answer(cell("correct"), choices, source, where),
                explanation=cell("explanation") or None,
                tags=re.split(r"[,;\s]+", cell("tags")),
                difficulty=cell("difficulty") or None,
                references=re.split(r"\s+|[,;](?=\s)", cell("references")),
                question_id=cell("id"),
                image=image_from_cells(cell("image_url"), cell("image_alt")),
                explanation_image=image_from_cells(cell("explanation_image_url"), cell("explanation_image_alt")),
            )
        )
    return TableFile(questions, pack, pack_lines)


def _delimiter(text: str) -> str:
    first = next((line for line in text.splitlines() if line.strip()), "")
    counts = {delimiter: first.count(delimiter) for delimiter in (",", ";", "\t")}
    return max(counts, key=lambda d: (counts[d], d == ","))


def _columns(header: list[str], source: str, where: Place) -> _Columns:
    index: dict[str, int] = {}
    choices: dict[int, int] = {}
    for position, raw in enumerate(header):
        name = re.sub(r"[\s-]+", "_", raw.strip().casefold())
        if not name:
            continue
        numbered, lettered = _NUMBERED.match(name), _LETTERED.match(name)
        if numbered or lettered:
            number = int(numbered[1]) if numbered else ord(lettered[1]) - ord("a") + 1  # type: ignore[index]
            if number in choices:
                second = Problem(words.table_second_choice_column, column=raw.strip(), number=number)
                raise refuse(source, where, second)
            choices[number] = position
            continue
        if name not in _ALIASES:
            raise refuse(source, where, Problem(words.table_unknown_column, column=raw.strip()))
        canonical = _ALIASES[name]
        if canonical in index:
            raise refuse(source, where, Problem(words.table_column_repeats, column=raw.strip(), canonical=canonical))
        index[canonical] = position
    if "question" not in index:
        raise refuse(source, where, Problem(words.table_no_question_column))
    if len(choices) < 2:
        raise refuse(source, where, Problem(words.table_too_few_choice_columns))
    for number in range(1, len(choices) + 1):
        if number not in choices:
            raise refuse(source, where, Problem(words.table_choice_columns_skip, number=number))
    return _Columns(index, [choices[n] for n in range(1, len(choices) + 1)], len(header))


def _answer(value: str, choices: list[str], source: str, where: Place) -> int | None:
    """A number, then a letter, then the text of a choice; empty is unknown (a TODO blank)."""
    if not value:
        return None
    if (number := whole_number(value)) is not None and 1 <= number <= len(choices):
        return number
    if len(value) == 1 and value.isalpha() and 1 <= ord(value.upper()) - ord("A") + 1 <= len(choices):
        return ord(value.upper()) - ord("A") + 1
    matches = [n for n, choice in enumerate(choices, start=1) if choice.casefold() == value.casefold()]
    if len(matches) == 1:
        return matches[0]
    last = chr(ord("A") + len(choices) - 1)
    raise refuse(source, where, Problem(words.table_bad_correct, value=value, choices=len(choices), last=last))


def dump(pack: DraftPack) -> str:
    """The pack as CSV with a header row, so that `parse` gives it back (pack columns on the first row)."""
    width = max(2, *(len(q.choices) for q in pack.questions))
    header = ["id", "question", *(f"choice{n}" for n in range(1, width + 1)), "correct", "explanation"]
    header += ["tags", "difficulty", "references", "pack_id", "pack_title", "pack_description", "pack_tags"]
    if pack.verbatim_seed:
        header.append("pack_verbatim_seed")
    images = any(q.image or q.explanation_image for q in pack.questions)
    if images:
        header += list(IMAGE_COLUMNS)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for number, question in enumerate(pack.questions):
        row = [question.id, question.prompt, *question.choices, *[""] * (width - len(question.choices))]
        row += [str(question.answer) if question.answer is not None else "", question.explanation or ""]
        row += [", ".join(question.tags), question.difficulty or "", " ".join(question.references)]
        if number == 0:
            description = pack.description if pack.description is not None else words.table_description_blank(TODO_MARK)
            row += [pack.id, pack.title or "", description, ", ".join(pack.tags)]
            row += ["true"] if pack.verbatim_seed else []
        else:
            row += [""] * (len(header) - len(row) - (len(IMAGE_COLUMNS) if images else 0))
        if images:
            row += [*image_cells(question.image), *image_cells(question.explanation_image)]
        writer.writerow([formula_safe(cell) for cell in row])
    return out.getvalue()
