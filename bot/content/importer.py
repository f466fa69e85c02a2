"""Turn a quiz in plain text (title line, numbered questions, bulleted choices) into a YAML pack skeleton."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.content.drafts import DraftPack, assign_ids, at_line, build_question, pack_id_from, source_lines, to_yaml
from bot.errors import InvalidPack, Problem
from bot.wording import imports as words

_QUESTION = re.compile(r"^\s*(\d+)[.)]\s+(?P<text>\S.*)$")
_CHOICE = re.compile(r"^\s*(?:[•*\-–]|[A-Ja-j][.)])\s+(?P<text>\S.*)$")


@dataclass(slots=True)
class ParsedQuestion:
    """A question as read from the text: prompt and choices, nothing else; `line` is where it starts."""

    prompt: str
    choices: list[str] = field(default_factory=list)
    line: int = 0
    choice_lines: list[int] = field(default_factory=list)


@dataclass(slots=True)
class ParsedQuiz:
    """A quiz as read from the text."""

    title: str
    questions: list[ParsedQuestion]


def parse_plain_quiz(text: str, *, source: str = "<text>") -> ParsedQuiz:
    """Read the plain-text quiz form: a title line, then `N. prompt` lines each followed by bulleted choices.

    Lines before the first question other than the title (such as an intro sentence) are ignored.
    """
    title: str | None = None
    questions: list[ParsedQuestion] = []
    for number, line in enumerate(source_lines(text), start=1):
        if not line.strip():
            continue
        if match := _QUESTION.match(line):
            questions.append(ParsedQuestion(prompt=match["text"].strip(), line=number))
        elif match := _CHOICE.match(line):
            if not questions:
                raise InvalidPack(Problem(words.plain_choice_first, where=[source, at_line(number)]))
            questions[-1].choices.append(match["text"].strip())
            questions[-1].choice_lines.append(number)
        elif title is None:
            title = line.strip()
        elif questions:
            raise InvalidPack(Problem(words.plain_not_understood, where=[source, at_line(number)]))
    if title is None or not questions:
        raise InvalidPack(Problem(words.plain_no_questions, where=[source]))
    for index, question in enumerate(questions, start=1):
        if len(question.choices) < 2:
            where: list[str | Problem] = [source, at_line(question.line)]
            raise InvalidPack(
                Problem(words.plain_too_few_choices, where=where, number=index, count=len(question.choices))
            )
    return ParsedQuiz(title=title, questions=questions)


def plain_draft(quiz: ParsedQuiz, *, pack_id: str | None = None, source: str = "<text>") -> DraftPack:
    """The draft of a plain-text quiz: its title, prompts and choices; answers and explanations are blanks."""
    draft = DraftPack(
        id=pack_id or pack_id_from(quiz.title),
        title=quiz.title,
        description=None,
        questions=[
            build_question(
                source=source,
                where=at_line(q.line),
                line=q.line,
                prompt=q.prompt,
                choices=q.choices,
                choice_wheres=[at_line(n) for n in q.choice_lines],
                answer=None,
            )
            for q in quiz.questions
        ],
    )
    assign_ids(draft.id, draft.questions, source=source, unique=True)
    return draft


def skeleton_yaml(quiz: ParsedQuiz, *, pack_id: str | None = None) -> str:
    """A YAML pack with every question and choice, and TODO blanks for the answer and explanation."""
    return to_yaml(plain_draft(quiz, pack_id=pack_id))
