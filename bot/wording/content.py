"""What `quizbot content check`, `content import` and the pack loader say about packs: the words of each Problem.

Content (bot/content) reports what is wrong as a `Problem` (bot/errors.py): the key of a function here, its
values, and where. The words are built when the problem is shown, in the reader's language. Places (`line 12`,
`record 3`, a question) are problems too, so that they are worded the same way; typed text and file paths are
values, quoted as the function says.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

from bot.errors import Problem
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


# --- reading problems back -------------------------------------------------------------------------------------


def from_data(data: Mapping[str, Any]) -> Problem:
    """A problem from its plain data (`Problem.as_data()`): the words its key names here, its values, its places."""

    def problem_or_value(value: Any) -> Any:
        if isinstance(value, Mapping) and {"key", "values", "where"} <= value.keys():
            return from_data(value)
        if isinstance(value, list):
            return tuple(problem_or_value(item) for item in value)
        return value

    module, _dot, name = str(data["key"]).rpartition(".")
    if module != __name__.rpartition(".")[2] or name.startswith("_"):
        raise KeyError(data["key"])
    words = getattr(sys.modules[__name__], name)
    values = {key: problem_or_value(value) for key, value in data["values"].items()}
    return Problem(words, where=[problem_or_value(part) for part in data["where"]], **values)
