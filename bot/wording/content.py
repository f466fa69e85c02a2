"""What `quizbot content check`, `content import` and the pack loader say about packs: the words of each Problem.

Content (bot/content) reports what is wrong as a `Problem` (bot/errors.py): the key of a function here (or in
imports.py and formats.py, for importing), its values, and where. The words are built when the problem is shown,
in the reader's language. Places (`line 12`, a question) are problems too, so that they are worded the same way;
typed text and file paths are values, quoted as the function says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.wording.i18n import plural
from bot.wording.i18n import translate as _

# --- places ----------------------------------------------------------------------------------------------------


def line(number: int) -> str:
    """A place in a source file: `line 12`."""
    return _("line {number}", number=number)


def pack() -> str:
    """The pack as a whole, where a warning is about no one question."""
    return _("pack")


def question(question_id: str) -> str:
    """A question of a pack, by its id: `question q3`."""
    return _("question {id}", id=question_id)


# --- quality warnings (bot/content/quality.py) -----------------------------------------------------------------


RULE_SUMMARIES: Mapping[str, str] = {
    "longest-correct": "the correct choice is the unique longest choice in more than 40% of the questions "
    "that have 3 or more choices",
    "answer-balance": "in a pack of 8 or more questions, one answer position is used far more than its fair "
    "share, or a position that should come up at least twice by chance is never used",
    "answer-run": "the correct choice sits at the same position in more than 3 questions in a row",
    "near-duplicate": "two prompts, in any of the loaded packs, share half their words and are 90% or more alike",
    "placeholder": "a TODO or FIXME mark, lorem ipsum, or an example.com reference is left in the text",
    "no-reference": "the question has no reference",
    "short-explanation": "the explanation is shorter than two sentences",
}
"""What each quality rule flags, by its name (the names are bot/content/quality.py's RULE_NAMES)."""


def rule_summary(rule: str) -> str:
    """What the quality rule `rule` flags, in a line."""
    return _(RULE_SUMMARIES[rule])


def no_reference() -> str:
    """`no-reference`: a question without a link that backs it."""
    return _("no references: add a link that backs the answer")


def short_explanation(sentences: int, least: int) -> str:
    """`short-explanation`: fewer sentences than the least."""
    return _(
        "the explanation has {sentences}; write at least {least}: why the answer is right, and why the tempting "
        "others are wrong",
        sentences=plural(sentences, "sentence"),
        least=least,
    )


def near_duplicate(ratio: float, source: str, question_id: str, pack_id: str, snippet: str) -> str:
    """`near-duplicate`: the other question whose prompt this one's is (nearly) the same as."""
    alike = _("the same prompt as") if ratio >= 1 else _("{percent}% like the prompt of", percent=int(ratio * 100))
    return _(
        "{alike} {source} question {id} (pack {pack}): {snippet}",
        alike=alike,
        source=source,
        id=question_id,
        pack=pack_id,
        snippet=snippet,
    )


def longest_correct(hits: Sequence[str], eligible: int, share: int, limit: str) -> str:
    """`longest-correct`: the questions whose correct choice is their unique longest."""
    return _(
        "the correct choice is the longest in {hits} of {eligible} with 3 or more choices ({share}%, more than "
        "{limit}%): {ids}; make a wrong choice as long, or the right one shorter",
        hits=len(hits),
        eligible=plural(eligible, "question"),
        share=share,
        limit=limit,
        ids=", ".join(hits),
    )


def position_overused(position: int, used: int, possible: int, expected: float, limit: float) -> str:
    """`answer-balance`: one position holds the correct choice far more than its fair share."""
    return _(
        "position {position} holds the correct choice in {used} of {possible} (fair share {expected:.1f}, at most "
        "{limit:.1f}): move some answers to other positions",
        position=position,
        used=used,
        possible=plural(possible, "question"),
        expected=expected,
        limit=limit,
    )


def position_unused(position: int, possible: int, expected: float) -> str:
    """`answer-balance`: a position that chance would use is never used."""
    return _(
        "position {position} never holds the correct choice, though chance would put it there {expected:.1f} "
        "times in these {possible}",
        position=position,
        possible=plural(possible, "question"),
        expected=expected,
    )


def answer_run(ids: Sequence[str], position: int, limit: int) -> str:
    """`answer-run`: too many questions in a row with the correct choice at one position."""
    return _(
        "this and the next {others} questions ({ids}) all have the correct choice at position {position}: at most "
        "{limit} in a row",
        others=len(ids) - 1,
        ids=", ".join(ids),
        position=position,
        limit=limit,
    )


def still_holds(field: str, mark: str, snippet: str) -> str:
    """`placeholder`: a field with a TODO, FIXME or lorem ipsum left in it."""
    return _("the {field} still holds {mark!r}: {snippet}", field=field, mark=mark, snippet=snippet)


def example_image(field: str, url: str) -> str:
    """`placeholder`: an image at an example address."""
    return _("the {field} {url} is an example address: link the real image", field=field, url=url)


def example_reference(url: str) -> str:
    """`placeholder`: a reference to an example address."""
    return _("the reference {url} is an example address: link the real source", url=url)


def warning_line(source: str, rule: str, message: str, question_id: str | None) -> str:
    """A quality warning as one line: `FILE: question ID: RULE: message` (or `FILE: pack: RULE: message`)."""
    where = question(question_id) if question_id is not None else pack()
    return f"{source}: {where}: {rule}: {message}"


# --- the pack schema and loading (bot/content/schema.py, loader.py, curricula.py, check.py) ------------------------


def question_at(question_id: str | None, number: int) -> str:
    """A question of a pack file by its id and its number in the file: `question q3 (#3)`."""
    if question_id is None:
        return _("question (no id) (#{number})", number=number)
    return _("question {id} (#{number})", id=question_id, number=number)


def whole_question() -> str:
    """Where a problem is about a question as a whole rather than one of its fields."""
    return _("(question)")


def whole_document() -> str:
    """Where a problem is about a pack file as a whole."""
    return _("(document)")


def schema_says(message: str) -> str:
    """A refusal worded by the schema library itself (`Field required`), as it said it."""
    return message


def fence_not_a_fence(what: str, number: int) -> str:
    """A line starting with ``` that neither opens nor closes a code block."""
    return _("{what}: line {number} starts with ``` but is not a fence (``` or ```language)", what=what, number=number)


def code_line_too_long(what: str, number: int, limit: int) -> str:
    """A line of code too long to be kept whole."""
    return _(
        "{what}: line {number} of a code block is longer than {limit} characters", what=what, number=number, limit=limit
    )


def code_not_closed(what: str) -> str:
    """A code block that is never closed."""
    return _("{what} opens a code block (```) that it does not close: add a line of ``` after the code", what=what)


def image_needs_one_source() -> str:
    """An image with both a url and a file, or neither."""
    return _("an image needs exactly one of url (https) and file (under content/images/)")


def image_needs_alt() -> str:
    """An image without alt text."""
    return _("an image needs its alt text")


def blank(what: str) -> str:
    """A text left blank."""
    return _("{what} is blank", what=what)


def still_a_placeholder(what: str, mark: str) -> str:
    """A text that still starts with the importer's TODO."""
    return _("{what} is still a {mark} placeholder: write it", what=what, mark=mark)


def answer_blank(mark: str) -> str:
    """An answer left as the importer's blank."""
    return _("answer is still a {mark} blank: write the number of the correct choice", mark=mark)


def answer_not_a_number(value: str) -> str:
    """An answer that is not a choice's number (`value` as the file has it, quoted)."""
    return _("answer must be the number of the correct choice, not {value}", value=value)


def choice_holds_code(choice: str) -> str:
    """A choice with a fenced code block."""
    return _("choice {choice!r} holds a code block: a choice may hold `inline code` only", choice=choice[:40])


def choice_twice(choice: str) -> str:
    """The same choice twice in a question."""
    return _("choice {choice!r} is listed twice", choice=choice)


def answer_not_a_choice(answer: int, choices: int) -> str:
    """An answer past the last choice."""
    return _("answer {answer} is not one of the {choices}", answer=answer, choices=plural(choices, "choice"))


def description_placeholder(mark: str) -> str:
    """A pack description that still starts with the importer's TODO."""
    return _("description is still a {mark} placeholder: write it (or leave it out)", mark=mark)


def question_id_used(question_id: str, number: int, first: int) -> str:
    """Two questions of a pack with one id."""
    return _("question {id} (#{number}): id is already used by #{first}", id=question_id, number=number, first=first)


def not_yaml(detail: str, line: int | None = None, column: int | None = None) -> str:
    """A pack file that is not YAML, with where the parser stopped when it knows."""
    if line is None:
        return _("not valid YAML: {detail}", detail=detail)
    return _("not valid YAML at line {line}, column {column}: {detail}", line=line, column=column, detail=detail)


def not_a_mapping() -> str:
    """A YAML file that is no pack."""
    return _("a pack must be a mapping with id, title and questions")


def no_pack_files(paths: Sequence[str]) -> str:
    """Nothing to load."""
    return _("no pack files (*.yaml) found in {paths}", paths=", ".join(paths))


def no_such_file() -> str:
    """A pack file or folder named that does not exist."""
    return _("no such file or folder")


def pack_id_used(pack_id: str, other: str) -> str:
    """Two pack files with one id."""
    return _("{id!r} is already used by {other}", id=pack_id, other=other)


def image_file_missing(file: str, folder: str) -> str:
    """An image file a pack names that is not in its images folder."""
    return _("file {file!r} is not in {folder}", file=file, folder=folder)


def curriculum() -> str:
    """Where a problem is in a curriculum file."""
    return _("curriculum")


def curriculum_named(curriculum_id: str) -> str:
    """A curriculum by its id."""
    return _("curriculum {id}", id=curriculum_id)


def no_such_pack(packs: Sequence[str]) -> str:
    """Packs a curriculum names that are not loaded."""
    return _("no such pack: {packs}", packs=", ".join(packs))


# --- the pack file's fields, as the JSON Schema describes them (bot/content/schema.py) ------------------------------

FIELD_DESCRIPTIONS: Mapping[str, str] = {
    "image.url": "An https URL of the image (no other scheme).",
    "image.file": "A png, jpg or gif file under content/images/, uploaded once by the bot instead of a url.",
    "image.alt": "What the image shows, for people who cannot see it (Slack's alt_text; the terminal shows it).",
    "question.id": "Stable id, unique in the pack; answers refer to it, so never reuse one.",
    "question.prompt": (
        "The question. Code shows as code: `inline code` in backticks, and fenced blocks (a line of ``` with "
        "an optional language, the code, a line of ```; lines of code at most 200 characters)."
    ),
    "question.answer": "1-based number of the correct choice, as listed in `choices`.",
    "question.explanation": (
        "Why the answer is right and the tempting alternatives are wrong; code as in the prompt. Choices may "
        "hold `inline code`."
    ),
    "question.image": "An image shown with the prompt.",
    "question.explanation_image": "An image shown with the explanation, once the answer is revealed.",
    "pack.verbatim_seed": (
        "The questions and choices are seed text kept word for word: `quizbot content check` applies the "
        "schema rules only and skips the quality rules for this pack (its prompts still count for near-"
        "duplicate detection against other packs)."
    ),
}
"""What each documented field of a pack file holds, by `model.field` (the JSON Schema's descriptions)."""


def field_description(field: str) -> str:
    """The description of a pack file's field (`question.prompt`), for the JSON Schema editors read."""
    return _(FIELD_DESCRIPTIONS[field])
