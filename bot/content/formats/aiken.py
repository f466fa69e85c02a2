"""Moodle Aiken: a question line, lettered choices (`A.` or `A)`), then `ANSWER: B`; a blank line between.

Aiken has no explanations, tags or ids: the skeleton gets TODO explanations and made-up ids. A prompt may
run over several lines (they are joined with spaces) as long as no blank line interrupts it.
"""

from __future__ import annotations

import re

from bot.content.drafts import DraftQuestion, Place, at_line, build_question, refuse, source_lines
from bot.errors import Problem
from bot.wording import formats as words

_CHOICE = re.compile(r"^\s*(?P<letter>[A-Za-z])\s*[.)]\s*(?P<text>\S.*?)\s*$")
_ANSWER = re.compile(r"^\s*ANSWER\s*:\s*(?P<value>.*?)\s*$", re.IGNORECASE)


def parse(text: str, *, source: str) -> list[DraftQuestion]:
    """Read an Aiken file into questions (ids not yet assigned)."""
    questions: list[DraftQuestion] = []
    prompt: list[str] = []
    choices: list[str] = []
    wheres: list[Place] = []
    start = 0
    for number, line in enumerate(source_lines(text), start=1):
        where = at_line(number)
        if not line.strip():
            if prompt and not choices:
                raise refuse(source, at_line(start), Problem(words.aiken_no_choices))
            continue
        if answer := _ANSWER.match(line):
            if not prompt:
                raise refuse(source, where, Problem(words.aiken_answer_before_question))
            if not choices:
                raise refuse(source, where, Problem(words.aiken_answer_before_choice))
            letter = answer["value"]
            last = chr(ord("A") + len(choices) - 1)
            if len(letter) != 1 or not "A" <= letter.upper() <= last:
                raise refuse(source, where, Problem(words.aiken_answer_not_a_choice, letter=letter, last=last))
            questions.append(
                build_question(
                    source=source,
                    where=at_line(start),
                    line=start,
                    prompt=" ".join(prompt),
                    choices=choices,
                    choice_wheres=wheres,
                    answer=ord(letter.upper()) - ord("A") + 1,
                )
            )
            prompt, choices, wheres = [], [], []
            continue
        choice = _CHOICE.match(line)
        expected = chr(ord("A") + len(choices))
        if choices:
            if choice is None:
                found = Problem(words.aiken_expected_choice_or_answer, expected=expected, found=line.strip())
                raise refuse(source, where, found)
            if choice["letter"].upper() != expected:
                found = Problem(words.aiken_expected_choice, expected=expected, found=choice["letter"].upper())
                raise refuse(source, where, found)
            choices.append(choice["text"])
            wheres.append(where)
        elif prompt and choice is not None:
            if choice["letter"].upper() != "A":
                found = Problem(words.aiken_expected_choice, expected="A", found=choice["letter"].upper())
                raise refuse(source, where, found)
            choices.append(choice["text"])
            wheres.append(where)
        elif choice is not None:
            raise refuse(source, where, Problem(words.aiken_choice_before_question, letter=choice["letter"].upper()))
        else:
            if not prompt:
                start = number
            prompt.append(line.strip())
    if prompt:
        raise refuse(source, at_line(start), Problem(words.aiken_no_answer_line))
    return questions
