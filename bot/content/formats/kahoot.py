"""Kahoot's quiz spreadsheet template (.xlsx), read with openpyxl.

The template's first sheet has a banner and instructions at the top, then a header row (`Question - max 120
characters`, `Answer 1 - max 75 characters` ... `Time limit (sec)`, `Correct answer(s) - choose at least one`),
then one question a row: column A its number, B the question, C to F answers 1 to 4 (3 and 4 may be empty), G the
time limit in seconds (Kahoot's; a quiz card has its own close time, so it is read and not kept), H the correct
answer's number, or several (`1,3`). The header is found by its words (`question` in column B); without one, the
questions start at row 8, as Kahoot's own exports do.

Kahoot's template ends at column H. A column after it whose header says `Explanation` (or `Feedback`) is read as
each question's explanation, a team's own addition; without one, every question comes back without an explanation,
a draft for the lead to complete.

A question here has exactly one correct answer, so a row with several is refused with its row number (so is one
whose correct answer is empty or no answer's number).

Only call this on a workbook that bot/content/upload.py has checked as a zip (members, sizes, ratios, no DTD).
The workbook is opened read-only with formulas as written (`data_only=False`): a cell holding one is refused, on any
sheet, before anything else is read from it.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator, Sequence
from datetime import date, datetime, time
from typing import Any

from bot.content.drafts import DraftQuestion, build_question, refuse
from bot.errors import InvalidPack, Problem
from bot.wording import uploads as words

QUESTION, FIRST_ANSWER, ANSWERS, TIME_LIMIT, CORRECT = 1, 2, 4, 6, 7
"""Zero-based columns: B the question, C to F the answers, G the time limit, H the correct answer(s)."""
COLUMNS = "ABCDEFGH"
EXTRA_COLUMNS = 8
"""Columns after H looked at for an explanation header (I to P)."""
_EXPLANATION = re.compile(r"^\s*(?:explanation|feedback)\b", re.IGNORECASE)
FIRST_DATA_ROW = 8
"""Where the questions start when the sheet has no header row."""
HEADER_SEARCH = 20
"""The header row is looked for in this many rows at the top."""
_NUMBERS = re.compile(r"^\s*\d+(?:\s*[,;/ ]\s*\d+)*\s*$")


def at_row(number: int) -> Problem:
    """The place `row N` of a spreadsheet."""
    return Problem(words.row, number=number)


def cell_text(value: Any) -> str:
    """A cell's value as the text a person sees: whole numbers without `.0`, booleans as True/False."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    return str(value).strip()


def _is_formula(cell: Any) -> bool:
    value = getattr(cell, "value", None)
    return getattr(cell, "data_type", None) == "f" or (isinstance(value, str) and value.startswith("="))


def _rows(sheet: Any, title: str, source: str) -> Iterator[tuple[int, list[Any]]]:
    """Each row's number and values (the first eight columns), refusing the first formula met in any column."""
    for number, row in enumerate(sheet.iter_rows(), start=1):
        values: list[Any] = [None] * (len(COLUMNS) + EXTRA_COLUMNS)
        for index, cell in enumerate(row):
            if _is_formula(cell):
                coordinate = getattr(cell, "coordinate", f"row {number}")
                raise InvalidPack(Problem(words.formula_cell, where=[source], cell=coordinate, sheet=title))
            if index < len(values):
                values[index] = cell.value
        yield number, values


def parse(data: bytes, *, source: str, max_rows: int = 1000) -> list[DraftQuestion]:
    """The questions of a workbook in Kahoot's template (ids not yet assigned; no explanations), every problem of
    its rows reported at once (InvalidPack), or the first formula cell of any sheet refused."""
    from openpyxl import load_workbook  # 0.3 s to import: only when a workbook is uploaded

    try:
        workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=False, keep_links=False)
    except (zipfile.BadZipFile, KeyError, ValueError, TypeError, OSError) as exc:
        raise InvalidPack(Problem(words.not_a_workbook, where=[source], detail=type(exc).__name__)) from exc
    try:
        sheets = list(workbook.worksheets)
        if not sheets:
            raise InvalidPack(Problem(words.kahoot_no_questions, where=[source]))
        rows = list(_rows(sheets[0], str(sheets[0].title), source))
        for sheet in sheets[1:]:
            for _row in _rows(sheet, str(sheet.title), source):
                pass  # the other sheets are read only to refuse a formula in them
    except InvalidPack:
        raise
    except Exception as exc:  # openpyxl's errors on a damaged workbook are of many kinds (XML, zip, values)
        raise InvalidPack(Problem(words.not_a_workbook, where=[source], detail=type(exc).__name__)) from exc
    finally:
        workbook.close()
    return _questions(rows, source=source, max_rows=max_rows)


def _header(rows: Sequence[tuple[int, list[Any]]]) -> tuple[int, int | None]:
    """The first question row, and the explanation's column if the header names one."""
    for number, values in rows[:HEADER_SEARCH]:
        if cell_text(values[QUESTION]).casefold().startswith("question"):
            extra = [i for i in range(len(COLUMNS), len(values)) if _EXPLANATION.match(cell_text(values[i]))]
            return number + 1, extra[0] if extra else None
    return FIRST_DATA_ROW, None


def _questions(rows: Sequence[tuple[int, list[Any]]], *, source: str, max_rows: int) -> list[DraftQuestion]:
    start, explained = _header(rows)
    questions: list[DraftQuestion] = []
    problems: list[str | Problem] = []
    for number, values in rows:
        texts = [cell_text(value) for value in values]
        if number < start or not any(texts[QUESTION : len(COLUMNS)]):
            continue  # the banner, instructions and header; an empty row (column A's number alone too)
        if len(questions) + len(problems) >= max_rows:
            raise InvalidPack(Problem(words.too_many_rows, where=[source], limit=max_rows))
        try:
            explanation = texts[explained] if explained is not None else None
            questions.append(_question(number, texts, source, explanation or None))
        except InvalidPack as exc:
            problems.extend(exc.problems)
    if problems:
        raise InvalidPack(problems=problems)
    if not questions:
        raise InvalidPack(Problem(words.kahoot_no_questions, where=[source]))
    return questions


def _question(number: int, texts: list[str], source: str, explanation: str | None) -> DraftQuestion:
    where = at_row(number)
    if not texts[QUESTION]:
        raise refuse(source, where, Problem(words.kahoot_no_question, column=COLUMNS[QUESTION]))
    answers = texts[FIRST_ANSWER : FIRST_ANSWER + ANSWERS]
    correct = texts[CORRECT]
    if not correct:
        raise refuse(source, where, Problem(words.kahoot_no_correct, column=COLUMNS[CORRECT]))
    if not _NUMBERS.match(correct):
        raise refuse(source, where, Problem(words.kahoot_bad_correct, value=correct, column=COLUMNS[CORRECT]))
    numbers = list(dict.fromkeys(int(part) for part in re.findall(r"\d+", correct)))
    if any(not 1 <= n <= ANSWERS for n in numbers):
        raise refuse(source, where, Problem(words.kahoot_bad_correct, value=correct, column=COLUMNS[CORRECT]))
    if len(numbers) > 1:
        raise refuse(source, where, Problem(words.kahoot_several_correct, numbers=", ".join(map(str, numbers))))
    answer = numbers[0]
    if not answers[answer - 1]:
        raise refuse(source, where, Problem(words.kahoot_correct_is_empty, number=answer))
    # Empty answer cells are left out (Kahoot needs two, 3 and 4 are optional); the correct one moves with them.
    kept = [(position, text) for position, text in enumerate(answers, start=1) if text]
    return build_question(
        source=source,
        where=where,
        line=number,
        prompt=texts[QUESTION],
        choices=[text for _, text in kept],
        answer=[position for position, _ in kept].index(answer) + 1,
        explanation=explanation,
    )
