"""What the import formats say about a file they cannot read (bot/content/formats/: Aiken, Open Trivia DB, GIFT,
CSV), as the words of the Problems they raise, and the comments their exports begin with.
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.wording.i18n import plural
from bot.wording.i18n import translate as _

# --- Aiken -------------------------------------------------------------------------------------------------------


def aiken_no_choices() -> str:
    """Aiken: a question without lettered choices."""
    return _("the question has no choices (lines like `A. text`)")


def aiken_answer_before_question() -> str:
    """Aiken: an ANSWER line with no question above it."""
    return _("ANSWER: comes before any question")


def aiken_answer_before_choice() -> str:
    """Aiken: an ANSWER line with no choices above it."""
    return _("ANSWER: comes before any choice (lines like `A. text`)")


def aiken_answer_not_a_choice(letter: str, last: str) -> str:
    """Aiken: an ANSWER letter past the last choice."""
    return _("ANSWER: {letter!r} is not one of the choices A-{last}", letter=letter, last=last)


def aiken_expected_choice_or_answer(expected: str, found: str) -> str:
    """Aiken: a line that is neither the next choice nor the ANSWER."""
    return _("expected choice {expected} or an ANSWER: line, found {found!r}", expected=expected, found=found)


def aiken_expected_choice(expected: str, found: str) -> str:
    """Aiken: choices out of order."""
    return _("expected choice {expected}, found choice {found}", expected=expected, found=found)


def aiken_choice_before_question(letter: str) -> str:
    """Aiken: a lettered choice with no question above it."""
    return _("choice {letter} comes before any question", letter=letter)


def aiken_no_answer_line() -> str:
    """Aiken: a question that never says its answer."""
    return _("the question has no ANSWER: line (like `ANSWER: B`)")


def trivia_not_json(detail: str) -> str:
    """Open Trivia DB: a file that is not JSON."""
    return _("not valid JSON: {detail}", detail=detail)


def trivia_not_a_response() -> str:
    """Open Trivia DB: JSON that is not the API's answer."""
    return _('expected an object like {"response_code": 0, "results": [...]}')


TRIVIA_RESPONSE_CODES: Mapping[int, str] = {
    1: "no results: the API could not return that many questions",
    2: "invalid parameter",
    3: "session token not found",
    4: "session token exhausted: every question was returned already",
    5: "rate limit: too many requests",
}
"""What the Open Trivia DB API's response codes mean."""


def trivia_response_code(code: str, number: int | None) -> str:
    """Open Trivia DB: an answer that says the API failed (`code` as the file has it, quoted)."""
    if number is None:
        reason = _("not a number")
    else:
        reason = _(TRIVIA_RESPONSE_CODES[number]) if number in TRIVIA_RESPONSE_CODES else _("an error")
    return _("{code} ({reason}); nothing to import", code=code, reason=reason)


def trivia_result_not_object() -> str:
    """Open Trivia DB: a result that is not an object."""
    return _("a result must be an object with type, question, correct_answer...")


def trivia_incorrect_not_list() -> str:
    """Open Trivia DB: incorrect_answers that are not texts."""
    return _("incorrect_answers must be a list of texts")


def trivia_bad_difficulty() -> str:
    """Open Trivia DB: a difficulty that is not a text."""
    return _("difficulty must be easy, medium or hard")


def trivia_not_true_or_false(correct: str) -> str:
    """Open Trivia DB: a boolean question whose answer is not True or False."""
    return _("correct_answer {correct!r} of a boolean question is not True or False", correct=correct)


def trivia_unknown_type(kind: str) -> str:
    """Open Trivia DB: a question type that is not imported."""
    return _("type {kind!r} is not multiple or boolean", kind=kind)


def trivia_missing_field(name: str) -> str:
    """Open Trivia DB: a field that is missing or not a text."""
    return _("{name} is missing or not a text", name=name)


def gift_key_twice(key: str, first: int) -> str:
    """GIFT: a pack comment given twice."""
    return _("{key} is given twice (first on line {first})", key=key, first=first)


def gift_not_text(code: str) -> str:
    """GIFT: a character reserved for the reader's own use."""
    return _("the character U+{code} is not text", code=code)


def gift_name_not_closed() -> str:
    """GIFT: `::name` without its closing `::`."""
    return _("the question name opened with :: is not closed with ::")


def gift_brace_not_opened() -> str:
    """GIFT: a closing brace with no opening one."""
    return _("'}' without an opening '{' (write \\} for a brace)")


def gift_answers_not_closed() -> str:
    """GIFT: answers that are never closed."""
    return _("the answers opened with '{' are not closed with '}'")


def gift_brace_inside_answers() -> str:
    """GIFT: an opening brace inside the answers."""
    return _("'{' inside the answers (write \\{ for a brace)")


def gift_second_brace(brace: str) -> str:
    """GIFT: a brace after the answers."""
    return _("a second {brace!r} after the answers: put a blank line between questions", brace=brace)


def gift_text_before_answer(found: str) -> str:
    """GIFT: text between `{` and the first `=` or `~`."""
    return _("text before the first answer: {found!r} (start each with = or ~)", found=found)


def gift_answer_empty(number: int) -> str:
    """GIFT: an empty answer."""
    return _("answer {number} is empty", number=number)


def gift_no_right_answer() -> str:
    """GIFT: multiple choice with no `=`."""
    return _("no right answer: mark the correct choice with = instead of ~")


def gift_partial_credit() -> str:
    """GIFT: the kind of a question with weighted answers, as a skipped question names it."""
    return _("partial-credit (several right answers)")


def _named(title: str) -> str:
    return f" ({title})" if title else ""


def gift_description_skipped(title: str) -> str:
    """GIFT: a description (no answers), skipped."""
    return _("description{name} skipped: it has no answers", name=_named(title))


def gift_kind_skipped(kind: str, title: str) -> str:
    """GIFT: a question of a kind that is not imported, skipped."""
    return _(
        "{kind} question{name} skipped: only multiple-choice and true/false are imported", kind=kind, name=_named(title)
    )


def gift_several_right_skipped(kind: str, title: str) -> str:
    """GIFT: a question with several right answers, skipped."""
    return _("{kind} question{name} skipped: only one right answer is imported", kind=kind, name=_named(title))


def gift_export_header(pack_id: str) -> str:
    """The first comment of a GIFT export."""
    return _("// Exported by `quizbot content export` from the pack {id}.", id=pack_id)


def gift_no_answer(question_id: str) -> str:
    """A question without an answer cannot be written as GIFT."""
    return _("question {id} has no answer; GIFT cannot say so", id=question_id)


def table_not_csv(detail: str) -> str:
    """CSV: a file the CSV reader refuses."""
    return _("not valid CSV: {detail}", detail=detail)


def table_empty() -> str:
    """CSV: no rows."""
    return _("the file is empty: expected a header row (question, choice1, choice2, ...)")


def table_row_too_wide(cells: int, columns: int) -> str:
    """CSV: a row with more cells than the header."""
    return _("{cells}, but the header has {columns}", cells=plural(cells, "cell"), columns=plural(columns, "column"))


def table_pack_value_differs(name: str, value: str, earlier: str, line: int) -> str:
    """CSV: a pack column given two values."""
    return _(
        "{name} {value!r} differs from {earlier!r} on line {line}", name=name, value=value, earlier=earlier, line=line
    )


def table_choice_gap(number: int) -> str:
    """CSV: an empty choice before a filled one."""
    return _("choice {number} is empty but a later choice is not", number=number)


def table_second_choice_column(column: str, number: int) -> str:
    """CSV: two columns for one choice."""
    return _("column {column!r} is a second column for choice {number}", column=column, number=number)


def table_unknown_column(column: str) -> str:
    """CSV: a column that is not one of the table's."""
    return _(
        "unknown column {column!r}; the columns are question, choice1..choice10 (or a..j), correct, id, "
        "explanation, tags, difficulty, references, pack_id...",
        column=column,
    )


def table_column_repeats(column: str, canonical: str) -> str:
    """CSV: a column given twice (perhaps under another name)."""
    return _("column {column!r} repeats the {canonical} column", column=column, canonical=canonical)


def table_no_question_column() -> str:
    """CSV: no question column."""
    return _("no question column: the header needs question, choice1, choice2, ... correct")


def table_too_few_choice_columns() -> str:
    """CSV: fewer than two choice columns."""
    return _("fewer than 2 choice columns (choice1, choice2, ... or a, b, ...)")


def table_choice_columns_skip(number: int) -> str:
    """CSV: choice columns with a gap."""
    return _("the choice columns skip choice {number}", number=number)


def table_bad_correct(value: str, choices: int, last: str) -> str:
    """CSV: a `correct` cell that names no choice."""
    return _(
        "correct {value!r} is not a choice number (1-{choices}), letter (A-{last}) or choice text",
        value=value,
        choices=choices,
        last=last,
    )


def table_description_blank(mark: str) -> str:
    """The description blank of a CSV export."""
    return _("{mark}: describe the pack", mark=mark)
