"""Open Trivia DB: the JSON the API returns (`{"response_code": 0, "results": [...]}`).

HTML entities are decoded; each question's category becomes a tag and its difficulty is kept. The API gives
the correct answer apart from the incorrect ones, so the choices are laid out with the correct one at a
rotating position (record 1 first, record 2 second, ...: balanced for `answer-balance`), the incorrect ones
in their given order around it. True/false questions get the choices True, False in that order.
"""

from __future__ import annotations

import html
import json
from typing import Any, NamedTuple

from bot.content.drafts import DraftQuestion, Place, at_line, at_record, build_question, refuse
from bot.errors import Problem
from bot.wording import formats as words
from bot.wording import imports as import_words


class TriviaFile(NamedTuple):
    """Open Trivia DB questions (ids not yet assigned) and the category, if all share one."""

    questions: list[DraftQuestion]
    category: str | None


def parse(text: str, *, source: str) -> TriviaFile:
    """Read Open Trivia DB JSON: its questions (ids not yet assigned) and the category, if all share one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        where = Problem(import_words.line_and_column, line=exc.lineno, column=exc.colno)
        raise refuse(source, where, Problem(words.trivia_not_json, detail=exc.msg)) from exc
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise refuse(source, at_line(1), Problem(words.trivia_not_a_response))
    code = data.get("response_code", 0)
    if code != 0:
        number = code if isinstance(code, int) else None
        raise refuse(source, "response_code", Problem(words.trivia_response_code, code=repr(code), number=number))
    questions: list[DraftQuestion] = []
    categories: set[str] = set()
    for number, record in enumerate(data["results"], start=1):
        where = at_record(number)
        if not isinstance(record, dict):
            raise refuse(source, where, Problem(words.trivia_result_not_object))
        kind = _field(record, "type", source, where)
        prompt = _field(record, "question", source, where)
        correct = _field(record, "correct_answer", source, where)
        incorrect = record.get("incorrect_answers")
        if not isinstance(incorrect, list) or not all(isinstance(item, str) for item in incorrect):
            raise refuse(source, where, Problem(words.trivia_incorrect_not_list))
        wrong = [html.unescape(item) for item in incorrect]
        category = html.unescape(record["category"]) if isinstance(record.get("category"), str) else ""
        difficulty = record.get("difficulty")
        if difficulty is not None and not isinstance(difficulty, str):
            raise refuse(source, where, Problem(words.trivia_bad_difficulty))
        if kind == "boolean":
            if correct.casefold() not in ("true", "false"):
                raise refuse(source, where, Problem(words.trivia_not_true_or_false, correct=correct))
            choices, answer = ["True", "False"], 1 if correct.casefold() == "true" else 2
        elif kind == "multiple":
            slot = (number - 1) % (len(wrong) + 1)
            choices = [*wrong[:slot], correct, *wrong[slot:]]
            answer = slot + 1
        else:
            raise refuse(source, where, Problem(words.trivia_unknown_type, kind=kind))
        categories.add(category)
        questions.append(
            build_question(
                source=source,
                where=where,
                line=number,
                prompt=prompt,
                choices=choices,
                answer=answer,
                tags=[category] if category else [],
                difficulty=difficulty,
            )
        )
    title = next(iter(categories)) if len(categories) == 1 and "" not in categories else None
    return TriviaFile(questions, title)


def _field(record: dict[str, Any], name: str, source: str, where: Place) -> str:
    value = record.get(name)
    if not isinstance(value, str):
        raise refuse(source, where, Problem(words.trivia_missing_field, name=name))
    return html.unescape(value)
