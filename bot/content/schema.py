"""The YAML pack format, as a pydantic model: the one source of truth for validation and the JSON Schema."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)

from bot.domain import Image, Pack, Question
from bot.errors import Problem
from bot.wording import content as words

SLUG = r"^[a-z0-9][a-z0-9-]{0,63}$"
TODO_MARK = "TODO"
"""Blanks left by `quizbot content import` start with this; `content check` refuses them."""

Slug = Annotated[str, StringConstraints(pattern=SLUG)]
Text = Annotated[str, StringConstraints(min_length=1, max_length=2000)]
ChoiceText = Annotated[str, StringConstraints(min_length=1, max_length=300)]
Tag = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]{0,39}$")]


CODE_LINE_MAX = 200
"""The longest line of a fenced code block: each line is kept whole when a platform continues the text."""
FENCE_LINE = re.compile(r"^```")
FENCE_OPEN = re.compile(r"^```[A-Za-z0-9_+#.-]{0,30}[ \t]*$")
"""A code block opens with a line of three backticks and an optional language (`c`, `python`, `yaml`, ...)."""
IMAGE_FILE = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.(png|jpe?g|gif)$"


class Refused(ValueError):
    """A validator's refusal: pydantic takes it as a ValueError; the loader reports the Problem it carries."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.worded())
        self.problem = problem


def _code_well_formed(value: str, what: str) -> str:
    """Refuse an unclosed code fence and a line of code too long to keep whole."""
    inside = False
    for number, line in enumerate(value.split("\n"), start=1):
        if FENCE_LINE.match(line):
            if not (FENCE_OPEN if not inside else re.compile(r"^```[ \t]*$")).match(line):
                raise Refused(Problem(words.fence_not_a_fence, what=what, number=number))
            inside = not inside
        elif inside and len(line) > CODE_LINE_MAX:
            raise Refused(Problem(words.code_line_too_long, what=what, number=number, limit=CODE_LINE_MAX))
    if inside:
        raise Refused(Problem(words.code_not_closed, what=what))
    return value


class ImageModel(BaseModel):
    """An image shown with a question: an https `url` or a `file` under content/images/, and its alt text."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    url: Annotated[str, StringConstraints(pattern=r"^https://[^\s<>|`]+$", max_length=2000)] | None = Field(
        default=None, description=words.field_description("image.url")
    )
    file: Annotated[str, StringConstraints(pattern=IMAGE_FILE)] | None = Field(
        default=None,
        description=words.field_description("image.file"),
    )
    alt: Annotated[str, StringConstraints(min_length=1, max_length=1000)] = Field(
        description=words.field_description("image.alt")
    )

    @model_validator(mode="after")
    def _one_source(self) -> ImageModel:
        if (self.url is None) == (self.file is None):
            raise Refused(Problem(words.image_needs_one_source))
        if not self.alt.strip():
            raise Refused(Problem(words.image_needs_alt))
        return self

    def to_domain(self) -> Image:
        """The image as a domain object."""
        return Image(alt=self.alt, url=self.url, file=self.file)


def _not_blank(value: str, what: str) -> str:
    """Refuse a blank value and a TODO placeholder left by the importer."""
    if not value.strip():
        raise Refused(Problem(words.blank, what=what))
    if value.lstrip().startswith(TODO_MARK):
        raise Refused(Problem(words.still_a_placeholder, what=what, mark=TODO_MARK))
    return value


class QuestionModel(BaseModel):
    """One question: a stable id, the prompt, 2-10 choices, the 1-based number of the correct one."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    id: Slug = Field(description=words.field_description("question.id"))
    prompt: Text = Field(description=words.field_description("question.prompt"))
    choices: list[ChoiceText] = Field(min_length=2, max_length=10)
    answer: int = Field(ge=1, description=words.field_description("question.answer"))
    explanation: Text = Field(description=words.field_description("question.explanation"))
    tags: list[Tag] = Field(default_factory=list)
    difficulty: Literal["easy", "medium", "hard"] | None = None
    references: list[Annotated[str, StringConstraints(pattern=r"^https?://\S+$")]] = Field(default_factory=list)
    image: ImageModel | None = Field(default=None, description=words.field_description("question.image"))
    explanation_image: ImageModel | None = Field(
        default=None, description=words.field_description("question.explanation_image")
    )

    @field_validator("answer", mode="before")
    @classmethod
    def _answer_given(cls, value: object) -> object:
        if value is None:
            raise Refused(Problem(words.answer_blank, mark=TODO_MARK))
        if isinstance(value, bool) or not isinstance(value, int):
            raise Refused(Problem(words.answer_not_a_number, value=repr(value)))
        return value

    @field_validator("prompt")
    @classmethod
    def _prompt_filled(cls, value: str) -> str:
        return _code_well_formed(_not_blank(value, "prompt"), "prompt")

    @field_validator("explanation")
    @classmethod
    def _explanation_filled(cls, value: str) -> str:
        return _code_well_formed(_not_blank(value, "explanation"), "explanation")

    @field_validator("choices")
    @classmethod
    def _choices_distinct(cls, value: list[str]) -> list[str]:
        seen: set[str] = set()
        for choice in value:
            if any(FENCE_LINE.match(line) for line in choice.split("\n")):
                raise Refused(Problem(words.choice_holds_code, choice=choice))
            if choice.casefold() in seen:
                raise Refused(Problem(words.choice_twice, choice=choice))
            seen.add(choice.casefold())
        return value

    @field_validator("answer")
    @classmethod
    def _answer_in_range(cls, value: int, info: ValidationInfo) -> int:
        choices = info.data.get("choices")
        if choices is not None and value > len(choices):
            raise Refused(Problem(words.answer_not_a_choice, answer=value, choices=len(choices)))
        return value

    def to_domain(self, pack_id: str) -> Question:
        """The validated question as the domain's, in pack `pack_id`."""
        return Question(
            pack_id=pack_id,
            key=self.id,
            prompt=self.prompt,
            choices=tuple(self.choices),
            correct_index=self.answer - 1,
            explanation=self.explanation,
            tags=tuple(self.tags),
            difficulty=self.difficulty,
            references=tuple(self.references),
            image=self.image.to_domain() if self.image else None,
            explanation_image=self.explanation_image.to_domain() if self.explanation_image else None,
        )


class PackModel(BaseModel):
    """A quiz pack file: id, title, description, tags and its questions."""

    model_config = ConfigDict(
        extra="forbid",
        str_strip_whitespace=True,
        json_schema_extra={"$schema": "https://json-schema.org/draft/2020-12/schema"},
    )

    id: Slug
    title: Text
    description: str = ""
    tags: list[Tag] = Field(default_factory=list)
    verbatim_seed: StrictBool = Field(
        default=False,
        description=words.field_description("pack.verbatim_seed"),
    )
    questions: list[QuestionModel] = Field(min_length=1)

    @field_validator("title")
    @classmethod
    def _title_filled(cls, value: str) -> str:
        return _not_blank(value, "title")

    @field_validator("description")
    @classmethod
    def _description_filled(cls, value: str) -> str:
        if value.lstrip().startswith(TODO_MARK):
            raise Refused(Problem(words.description_placeholder, mark=TODO_MARK))
        return value

    @field_validator("questions")
    @classmethod
    def _question_ids_unique(cls, value: list[QuestionModel]) -> list[QuestionModel]:
        first: dict[str, int] = {}
        for number, question in enumerate(value, start=1):
            if question.id in first:
                raise Refused(
                    Problem(words.question_id_used, question_id=question.id, number=number, first=first[question.id])
                )
            first[question.id] = number
        return value

    def to_domain(self) -> Pack:
        """The validated pack as a domain object (answers become zero-based indexes)."""
        return Pack(
            id=self.id,
            title=self.title,
            description=self.description,
            tags=tuple(self.tags),
            questions=tuple(q.to_domain(self.id) for q in self.questions),
        )


def pack_json_schema() -> dict[str, Any]:
    """The JSON Schema of a pack file, for editors (e.g. the YAML language server)."""
    schema = PackModel.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "quizbot pack"
    return schema


def slugify(text: str, *, max_length: int = 48) -> str:
    """A slug usable as a pack or question id."""
    slug = re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-")
    return slug[:max_length].rstrip("-") or "pack"
