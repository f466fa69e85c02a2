"""Moodle Aiken: a question line, lettered choices (`A.` or `A)`), then `ANSWER: B`; a blank line between.

Aiken has no explanations, tags or ids: the skeleton gets TODO explanations and made-up ids. A prompt may
run over several lines (they are joined with spaces) as long as no blank line interrupts it.
"""

from __future__ import annotations

import re

from bot.content.drafts import DraftQuestion, build_question, refuse, source_lines

_CHOICE = re.compile(r"^\s*(?P<letter>[A-Za-z])\s*[.)]\s*(?P<text>\S.*?)\s*$")
_ANSWER = re.compile(r"^\s*ANSWER\s*:\s*(?P<value>.*?)\s*$", re.IGNORECASE)


def parse(text: str, *, source: str) -> list[DraftQuestion]:
    """Read an Aiken file into questions (ids not yet assigned)."""
    questions: list[DraftQuestion] = []
    prompt: list[str] = []
    choices: list[str] = []
    wheres: list[str] = []
    start = 0
    for number, line in enumerate(source_lines(text), start=1):
        where = f"line {number}"
        if not line.strip():
            if prompt and not choices:
                raise refuse(source, f"line {start}", "the question has no choices (lines like `A. text`)")
            continue
        if answer := _ANSWER.match(line):
            if not prompt:
                raise refuse(source, where, "ANSWER: comes before any question")
            if not choices:
                raise refuse(source, where, "ANSWER: comes before any choice (lines like `A. text`)")
            letter = answer["value"]
            last = chr(ord("A") + len(choices) - 1)
            if len(letter) != 1 or not "A" <= letter.upper() <= last:
                raise refuse(source, where, f"ANSWER: {letter!r} is not one of the choices A-{last}")
            questions.append(
                build_question(
                    source=source,
                    where=f"line {start}",
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
                raise refuse(source, where, f"expected choice {expected} or an ANSWER: line, found {line.strip()!r}")
            if choice["letter"].upper() != expected:
                raise refuse(source, where, f"expected choice {expected}, found choice {choice['letter'].upper()}")
            choices.append(choice["text"])
            wheres.append(where)
        elif prompt and choice is not None:
            if choice["letter"].upper() != "A":
                raise refuse(source, where, f"expected choice A, found choice {choice['letter'].upper()}")
            choices.append(choice["text"])
            wheres.append(where)
        elif choice is not None:
            raise refuse(source, where, f"choice {choice['letter'].upper()} comes before any question")
        else:
            if not prompt:
                start = number
            prompt.append(line.strip())
    if prompt:
        raise refuse(source, f"line {start}", "the question has no ANSWER: line (like `ANSWER: B`)")
    return questions
