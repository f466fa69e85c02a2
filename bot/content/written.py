"""A question written in chat (the `/quiz write` form) read into a draft, and checked by the pack rules.

The form has five fields (FIELDS): the prompt; the choices, one a line, the correct one marked with a leading `*`;
the explanation; the references, one URL a line; and the details, `tags: a, b; difficulty: medium`. Reading them
(`read_form`) finds what cannot be read at all; checking (`check_draft`) runs the very rules `quizbot content
check --strict` runs on a pack file: the schema (bot/content/schema.py) and the quality rules of a question
(bot/content/quality.py: placeholders, references, the explanation's sentences, near-duplicates of the
workspace's pack and of the shipped packs). Every problem comes back as one line keyed by the field it is about, so
the form shows it beside what was typed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from bot.content.quality import PromptEntry, duplicate_warnings, pack_warnings, prompt_entries
from bot.content.schema import PackModel, QuestionModel, Refused, slugify
from bot.domain import Pack, Question
from bot.domain.drafts import DraftContent
from bot.errors import Problem
from bot.wording import content as content_words
from bot.wording import drafts as words

PROMPT, CHOICES, EXPLANATION, REFERENCES, DETAILS = "prompt", "choices", "explanation", "references", "details"
FIELDS = (PROMPT, CHOICES, EXPLANATION, REFERENCES, DETAILS)
"""The write form's fields, by key, in the order it shows them."""

CORRECT_MARK = "*"
DIFFICULTIES = ("easy", "medium", "hard")
CHECKED_ID = "written"
"""The question id a written question is checked under (its id in the pack is chosen when it is approved)."""

Errors = dict[str, str]


def read_form(values: Mapping[str, str]) -> tuple[DraftContent, Errors]:
    """The draft the form's values say, and a line for each field that cannot be read (an unmarked or twice-marked
    choice, a details part that is neither tags nor difficulty)."""
    errors: Errors = {}
    prompt = values.get(PROMPT, "").strip()
    choices: list[str] = []
    marked: list[int] = []
    for line in values.get(CHOICES, "").splitlines():
        text = line.strip()
        if not text:
            continue
        if text.startswith(CORRECT_MARK):
            marked.append(len(choices))
            text = text.removeprefix(CORRECT_MARK).strip()
        choices.append(text)
    correct: int | None = None
    if len(marked) == 1:
        correct = marked[0]
    elif not marked:
        errors[CHOICES] = words.no_choice_marked(CORRECT_MARK)
    else:
        errors[CHOICES] = words.choices_marked_twice(CORRECT_MARK, len(marked))
    references = tuple(line.strip() for line in values.get(REFERENCES, "").splitlines() if line.strip())
    tags: tuple[str, ...] = ()
    difficulty: str | None = None
    for part in values.get(DETAILS, "").replace("\n", ";").split(";"):
        if not part.strip():
            continue
        name, colon, value = part.partition(":")
        name = name.strip().casefold()
        if colon and name in ("tags", "tag"):
            tags = tuple(dict.fromkeys(tag.strip().casefold() for tag in value.split(",") if tag.strip()))
        elif colon and name == "difficulty":
            difficulty = value.strip().casefold() or None
            if difficulty is not None and difficulty not in DIFFICULTIES:
                errors[DETAILS] = words.bad_difficulty(value.strip(), DIFFICULTIES)
        else:
            errors[DETAILS] = words.bad_details(part.strip())
    content = DraftContent(
        prompt=prompt,
        choices=tuple(choices),
        correct_index=correct,
        explanation=values.get(EXPLANATION, "").strip(),
        references=references,
        tags=tags,
        difficulty=difficulty,
    )
    return content, errors


def form_values(content: DraftContent) -> dict[str, str]:
    """A draft as the form's values (what an Edit opens prefilled)."""
    details = []
    if content.tags:
        details.append("tags: " + ", ".join(content.tags))
    if content.difficulty:
        details.append("difficulty: " + content.difficulty)
    return {
        PROMPT: content.prompt,
        CHOICES: "\n".join(
            (CORRECT_MARK if index == content.correct_index else "") + choice
            for index, choice in enumerate(content.choices)
        ),
        EXPLANATION: content.explanation,
        REFERENCES: "\n".join(content.references),
        DETAILS: "; ".join(details),
    }


def question_data(content: DraftContent, key: str) -> dict[str, Any]:
    """A draft as a pack file's question (what the schema validates)."""
    data: dict[str, Any] = {
        "id": key,
        "prompt": content.prompt,
        "choices": list(content.choices),
        "answer": None if content.correct_index is None else content.correct_index + 1,
        "explanation": content.explanation,
        "tags": list(content.tags),
        "references": list(content.references),
    }
    if content.difficulty is not None:
        data["difficulty"] = content.difficulty
    return data


def pack_data(pack: Pack) -> dict[str, Any]:
    """A domain pack as a pack file's data (for the schema, the quality rules and export)."""
    questions = []
    for q in pack.questions:
        data: dict[str, Any] = {
            "id": q.key,
            "prompt": q.prompt,
            "choices": list(q.choices),
            "answer": q.correct_index + 1,
            "explanation": q.explanation,
            "tags": list(q.tags),
            "references": list(q.references),
        }
        if q.difficulty is not None:
            data["difficulty"] = q.difficulty
        for name, image in (("image", q.image), ("explanation_image", q.explanation_image)):
            if image is not None:
                data[name] = image.as_json()
        questions.append(data)
    return {
        "id": pack.id,
        "title": pack.title,
        "description": pack.description,
        "tags": list(pack.tags),
        "questions": questions,
    }


def pack_model(pack: Pack) -> PackModel:
    """A stored pack as the schema's model (what export writes); its questions passed the schema when stored."""
    return PackModel.model_validate(pack_data(pack))


_FIELD_OF = {
    "id": PROMPT,
    "prompt": PROMPT,
    "choices": CHOICES,
    "answer": CHOICES,
    "explanation": EXPLANATION,
    "references": REFERENCES,
    "tags": DETAILS,
    "difficulty": DETAILS,
}


def _schema_errors(exc: ValidationError) -> Errors:
    errors: Errors = {}
    for error in exc.errors():
        loc = error["loc"]
        key = _FIELD_OF.get(str(loc[0]) if loc else "", PROMPT)
        refused = (error.get("ctx") or {}).get("error")
        if isinstance(refused, Refused):
            text = refused.problem.worded()
        else:
            text = content_words.schema_says(str(error["msg"]).removeprefix("Value error, "))
        if key == REFERENCES and len(loc) > 1:
            text = words.bad_reference(str(error.get("input", "")))
        errors.setdefault(key, text)
    return errors


def _warning_field(rule: str, problem: Problem) -> str:
    if rule == "no-reference":
        return REFERENCES
    if rule == "short-explanation":
        return EXPLANATION
    if rule == "near-duplicate":
        return PROMPT
    field = str(problem.values.get("field", ""))
    if problem.key == "content.example_reference":
        return REFERENCES
    if field.startswith("choice"):
        return CHOICES
    return EXPLANATION if field.startswith("explanation") else PROMPT


def check_draft(content: DraftContent, *, pack: Pack | None, others: Sequence[Pack] = ()) -> Errors:
    """The pack rules on a draft, as `content check --strict` runs them on a pack that holds it: the schema, then
    the quality rules that judge one question (placeholders, references, the explanation's sentences), and
    near-duplicates of `pack` (the workspace pack it is for, or None when that does not exist yet) and `others`
    (the shipped packs). The rules about a whole pack's balance judge a pack file, not one question, and are not
    run here. Empty when it passes."""
    try:
        question = QuestionModel.model_validate(question_data(content, CHECKED_ID))
    except ValidationError as exc:
        return _schema_errors(exc)
    existing = tuple(pack.questions) if pack is not None else ()
    model = PackModel.model_construct(
        id=pack.id if pack is not None else CHECKED_ID,
        title=pack.title if pack is not None else CHECKED_ID,
        description="",
        tags=[],
        verbatim_seed=False,
        questions=[question],
    )
    warnings = [w for w in pack_warnings(model, source=model.id) if w.question_id == CHECKED_ID]
    entries: list[PromptEntry] = [
        PromptEntry(other.id, other.id, q.key, q.prompt, reported=False)
        for other in [*others, Pack(model.id, model.title, "", existing)]
        for q in other.questions
    ]
    entries.extend(prompt_entries(model, source=model.id))
    warnings.extend(w for w in duplicate_warnings(entries) if w.question_id == CHECKED_ID)
    errors: Errors = {}
    for warning in warnings:
        errors.setdefault(_warning_field(warning.rule, warning.problem), warning.message)
    return errors


def question_key(content: DraftContent, taken: set[str]) -> str:
    """A question id for an approved draft: from its prompt, unique in its pack."""
    base = slugify(content.prompt, max_length=40)
    key, number = base, 2
    while key in taken:
        key, number = f"{base}-{number}", number + 1
    return key


IMAGE_FIELDS = ("image", "explanation_image")
"""What an uploaded draft may carry besides its content (`uow.drafts.extra`), as a pack file writes it."""


def as_question(content: DraftContent, *, pack: str, key: str, extra: Mapping[str, Any] | None = None) -> Question:
    """A checked, complete draft as a question of pack `pack` (validated by the schema once more), with the images
    an uploaded draft carried (`extra`: `image`, `explanation_image`, as a pack file writes them)."""
    data = question_data(content, key)
    data.update({name: value for name, value in (extra or {}).items() if name in IMAGE_FIELDS and value})
    return QuestionModel.model_validate(data).to_domain(pack)
