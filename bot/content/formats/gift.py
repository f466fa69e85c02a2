"""Moodle GIFT: multiple-choice and true/false questions in, multiple-choice and true/false questions out.

Read: `::title::` (the question id, made a slug), `//` comment lines, `=right` / `~wrong` answers with
`#feedback` (the correct answer's feedback, or else the general `####feedback`, becomes the explanation),
`{T}` / `{FALSE}` with `#wrong feedback#right feedback`, `$CATEGORY:` lines (each part of the path becomes a
tag of the questions that follow), the `\\` escapes of `~ = # { } :` and `\\n`, `[html]` and the other
format markers, and the missing-word form (`Grant is {~buried =entombed} in Grant's tomb.`). Other question
types (essay, description, short answer, numerical, matching, several right answers or partial credit) are
skipped and listed with their line numbers.

Comments carry what GIFT has no syntax for; Moodle ignores them except its own `[tag:...]` and `[id:...]`:

    // pack_id: data-parallelism          pack_title: ...   pack_description: ...   (one per line)
    // pack_tags: distributed-training, data-parallelism
    // pack_verbatim_seed: true
    // [tag:collectives] [tag:communication]      (in the question's own block: no blank line before it)
    // difficulty: easy
    // references: https://example.org/a https://example.org/b
    // image: https://example.org/ring.png Eight GPUs in a ring      (an https URL or a file, then the alt text)
    // explanation_image: ring-steps.png The ring, step by step

Code travels in the question text with GIFT's escaping (`\\n` for each line break, `\\{`, `\\=` ...); Moodle
shows it as text, not as a code block, unless the question is marked `[markdown]`. GIFT has no image syntax
(Moodle's needs `[html]` and a file in its own store), so images live in the comments above.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from bot.content.drafts import (
    DraftPack,
    DraftQuestion,
    Place,
    Skipped,
    at_line,
    build_question,
    description_blank,
    image_cells,
    image_from_cells,
    refuse,
    source_lines,
    tag_list,
)
from bot.errors import Problem
from bot.wording import formats as words

# Escaped characters are swapped for placeholders while parsing, then swapped back. The placeholders are
# Unicode noncharacters (reserved for exactly this kind of internal use; a file holding one is refused), and
# never a newline, so line numbers are unchanged.
_ESCAPES = {"\\": "\ufdd0", ":": "\ufdd1", "#": "\ufdd2", "=": "\ufdd3", "{": "\ufdd4", "}": "\ufdd5", "~": "\ufdd6"}
_NEWLINE = "\ufdd7"
_RESERVED = re.compile("[\ufdd0-\ufdd7]")
_RESTORE = {placeholder: char for char, placeholder in _ESCAPES.items()} | {_NEWLINE: "\n"}
_ESCAPE = re.compile(r"\\([\\:#={}~n])")
_FORMAT_MARKER = re.compile(r"^\s*\[(html|moodle|plain|markdown)\]", re.IGNORECASE)
_WEIGHT = re.compile(r"^%(-?\d+(?:\.\d+)?)%")
_TAG = re.compile(r"\[tag:((?:\\\]|[^\]\x00-\x1f])+)\]")
_ID = re.compile(r"\[id:((?:\\\]|[^\]\x00-\x1f])+)\]")
_KEY = re.compile(r"^//\s*(?P<key>[a-z_]+)\s*:\s*(?P<value>.*?)\s*$", re.IGNORECASE)
_PACK_KEYS = ("pack_id", "pack_title", "pack_description", "pack_tags", "pack_verbatim_seed")
_TRUE = ("T", "TRUE")
_FALSE = ("F", "FALSE")
TRUE_FALSE = ["True", "False"]


@dataclass(slots=True)
class PackHeader:
    """Pack-level values found in `// pack_...:` comments, with the line each came from."""

    values: dict[str, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class _Block:
    start: int  # line number of the block's first line
    lines: list[str]


class GiftFile(NamedTuple):
    """What a GIFT file holds: its questions (ids not yet assigned), the questions skipped, the pack header."""

    questions: list[DraftQuestion]
    skipped: list[Skipped]
    header: PackHeader


def parse(text: str, *, source: str) -> GiftFile:
    """Read a GIFT file: its questions (ids not yet assigned), the questions skipped, and the pack header."""
    header = PackHeader()
    questions: list[DraftQuestion] = []
    skipped: list[Skipped] = []
    category: list[str] = []
    for block in _blocks(text):
        comments = [(block.start + n, line.strip()) for n, line in enumerate(block.lines) if _is_comment(line)]
        _read_pack_keys(comments, header, source)
        body = ["" if _is_comment(line) else line for line in block.lines]
        first = next((n for n, line in enumerate(body) if line.strip()), None)
        if first is None:
            continue
        if body[first].strip().startswith("$CATEGORY:"):
            category = _category_tags(body[first].strip().removeprefix("$CATEGORY:"))
            body[first] = ""
            first = next((n for n, line in enumerate(body) if line.strip()), None)
            if first is None:
                continue
        result = _question(block.start, body, comments, category, source)
        if isinstance(result, Skipped):
            skipped.append(result)
        else:
            questions.append(result)
    return GiftFile(questions, skipped, header)


def _blocks(text: str) -> Iterator[_Block]:
    """The blank-line separated blocks of the file."""
    current: _Block | None = None
    for number, line in enumerate(source_lines(text), start=1):
        if not line.strip():
            if current is not None:
                yield current
            current = None
        elif current is None:
            current = _Block(number, [line])
        else:
            current.lines.append(line)
    if current is not None:
        yield current


def _is_comment(line: str) -> bool:
    return line.strip().startswith("//")


def _read_pack_keys(comments: list[tuple[int, str]], header: PackHeader, source: str) -> None:
    for number, comment in comments:
        match = _KEY.match(comment)
        if match is None or match["key"].casefold() not in _PACK_KEYS:
            continue
        key = match["key"].casefold()
        if key in header.values:
            raise refuse(source, at_line(number), Problem(words.gift_key_twice, key=key, first=header.lines[key]))
        header.values[key] = unescape_comment(match["value"])
        header.lines[key] = number


def _category_tags(path: str) -> list[str]:
    """`$course$/top/Networking/TCP basics` -> [networking, tcp-basics]."""
    parts = [part.strip() for part in path.split("/")]
    return tag_list(p for p in parts if p and not (p.startswith("$") and p.endswith("$")) and p.casefold() != "top")


def _question(
    start: int, body: list[str], comments: list[tuple[int, str]], category: list[str], source: str
) -> DraftQuestion | Skipped:
    text = "\n".join(body)

    def line_at(position: int) -> int:
        """The line of the file a position of the block's text is on."""
        return start + text.count("\n", 0, position)

    if reserved := _RESERVED.search(text):
        not_text = Problem(words.gift_not_text, code=f"{ord(reserved[0]):04X}")
        raise refuse(source, at_line(line_at(reserved.start())), not_text)
    text = _ESCAPE.sub(lambda m: _NEWLINE if m[1] == "n" else _ESCAPES[m[1]], text)

    position = len(text) - len(text.lstrip())
    first_line = line_at(position)
    where = at_line(first_line)
    title = ""
    if text.startswith("::", position):
        end = text.find("::", position + 2)
        if end < 0:
            raise refuse(source, where, Problem(words.gift_name_not_closed))
        title = _restore(text[position + 2 : end]).strip()
        position = end + 2
    opening = text.find("{", position)
    closing = text.find("}", position)
    if opening < 0 and closing < 0:
        return Skipped(first_line, Problem(words.gift_description_skipped, title=title))
    if closing >= 0 and (opening < 0 or closing < opening):
        raise refuse(source, at_line(line_at(closing)), Problem(words.gift_brace_not_opened))
    if closing < 0:
        raise refuse(source, at_line(line_at(opening)), Problem(words.gift_answers_not_closed))
    if (nested := text.find("{", opening + 1, closing)) >= 0:
        raise refuse(source, at_line(line_at(nested)), Problem(words.gift_brace_inside_answers))
    if (second := _find_any(text, "{}", closing + 1)) >= 0:
        raise refuse(source, at_line(line_at(second)), Problem(words.gift_second_brace, brace=text[second]))
    before, block, after = text[position:opening], text[opening + 1 : closing], text[closing + 1 :]
    prompt = before + ("_____" + after if after.strip() else "")
    block, general = _split_general_feedback(block)
    answers = block.strip()
    kind = _kind(answers)
    if kind not in ("multiple-choice", "true/false"):
        return Skipped(first_line, Problem(words.gift_kind_skipped, kind=kind, title=title))
    metadata = _question_metadata(comments, source)
    if kind == "true/false":
        value, _wrong, right = ([*answers.split("#", 2), "", ""])[:3]
        choices, wheres = list(TRUE_FALSE), list[Place]([where, where])
        answer = 1 if value.strip().upper() in _TRUE else 2
        explanation = _text(right) or _text(general)
    else:
        parsed = _multiple_choice(block, opening + 1, line_at, source)
        if not isinstance(parsed, tuple):
            return Skipped(first_line, Problem(words.gift_several_right_skipped, kind=parsed, title=title))
        choices, wheres, answer, feedback = parsed
        explanation = feedback or _text(general)
    return build_question(
        source=source,
        where=where,
        line=first_line,
        prompt=_text(prompt),
        choices=choices,
        choice_wheres=wheres,
        answer=answer,
        explanation=explanation or None,
        tags=[*category, *metadata.tags],
        difficulty=metadata.difficulty,
        references=metadata.references,
        question_id=metadata.question_id or title,
        image=metadata.image,
        explanation_image=metadata.explanation_image,
    )


def _find_any(text: str, chars: str, start: int) -> int:
    found = [index for index in (text.find(char, start) for char in chars) if index >= 0]
    return min(found) if found else -1


def _split_general_feedback(answers: str) -> tuple[str, str]:
    marker = answers.rfind("####")
    if marker < 0:
        return answers, ""
    return answers[:marker], answers[marker + 4 :]


def _kind(answers: str) -> str:
    """What Moodle would make of the answer block (checked in Moodle's own order)."""
    if not answers:
        return "essay"
    if answers.startswith("#"):
        return "numerical"
    if "~" in answers:
        return "multiple-choice"
    if "=" in answers and "->" in answers:
        return "matching"
    if answers.split("#", 1)[0].strip().upper() in (*_TRUE, *_FALSE):
        return "true/false"
    return "short-answer"


def _multiple_choice(
    block: str, offset: int, line_at: Callable[[int], int], source: str
) -> tuple[list[str], list[Place], int, str] | str | Problem:
    """Choices, where each is, the 1-based right one and its feedback; or the name of the unsupported variant.

    `block` is the answer block as it stands in the text at `offset`, so errors name the answer's own line.
    """
    marks = [match.start() for match in re.finditer("[=~]", block)]
    if not marks or block[: marks[0]].strip():
        found = _text(block[: marks[0]] if marks else block)
        raise refuse(source, at_line(line_at(offset)), Problem(words.gift_text_before_answer, found=found))
    choices: list[str] = []
    wheres: list[Place] = []
    right: list[int] = []
    partial = False
    feedback = ""
    for number, begin in enumerate(marks, start=1):
        end = marks[number] if number < len(marks) else len(block)
        answer = block[begin:end].strip()
        where = at_line(line_at(offset + begin))
        correct = answer.startswith("=")
        answer = answer[1:]
        if not correct and (weight := _WEIGHT.match(answer)):
            value = float(weight[1])
            answer = answer[weight.end() :]
            correct = value == 100
            partial = partial or 0 < value < 100
        choice, _, note = answer.partition("#")
        if not _text(choice):
            raise refuse(source, where, Problem(words.gift_answer_empty, number=number))
        choices.append(_text(choice))
        wheres.append(where)
        if correct:
            right.append(number)
            feedback = _text(note)
    if partial:
        return Problem(words.gift_partial_credit)
    if len(right) > 1:
        return "several-right-answers"
    if not right:
        raise refuse(source, at_line(line_at(offset)), Problem(words.gift_no_right_answer))
    return choices, wheres, right[0], feedback


@dataclass(slots=True)
class _Metadata:
    tags: list[str] = field(default_factory=list)
    difficulty: str | None = None
    references: list[str] = field(default_factory=list)
    question_id: str = ""
    image: dict[str, str] | None = None
    explanation_image: dict[str, str] | None = None


def _image_comment(value: str) -> dict[str, str] | None:
    where, _, alt = unescape_comment(value).partition(" ")
    return image_from_cells(where, alt)


def _question_metadata(comments: list[tuple[int, str]], source: str) -> _Metadata:
    metadata = _Metadata()
    for _, comment in comments:
        metadata.tags.extend(tag.replace("\\]", "]") for tag in _TAG.findall(comment))
        if (found := _ID.search(comment)) and not metadata.question_id:
            metadata.question_id = found[1].replace("\\]", "]")
        match = _KEY.match(comment)
        if match is None:
            continue
        key, value = match["key"].casefold(), match["value"]
        if key == "difficulty":
            metadata.difficulty = value
        elif key == "references":
            metadata.references.extend(value.split())
        elif key == "tags":
            metadata.tags.extend(part for part in re.split(r"[,\s]+", value) if part)
        elif key == "image":
            metadata.image = _image_comment(value)
        elif key == "explanation_image":
            metadata.explanation_image = _image_comment(value)
    return metadata


def _text(raw: str) -> str:
    """Placeholders back to their characters, a format marker dropped (HTML made plain), lines joined."""
    text = raw.strip()
    marker = _FORMAT_MARKER.match(text)
    if marker is not None:
        text = text[marker.end() :]
    text = re.sub(r"\s*\n\s*", " ", text)
    if marker is not None and marker[1].casefold() == "html":
        text = html.unescape(re.sub(r"<[^>]*>", "", text))
    return _restore(text).strip()


def _restore(text: str) -> str:
    return "".join(_RESTORE.get(char, char) for char in text)


def unescape_comment(value: str) -> str:
    """A value written in a comment: `\\n` is a line break and `\\\\` a backslash."""
    return re.sub(r"\\([\\n])", lambda m: "\n" if m[1] == "n" else "\\", value)


def escape_comment(value: str) -> str:
    """The inverse of `unescape_comment`."""
    return value.replace("\\", "\\\\").replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")


def escape(text: str) -> str:
    """GIFT text: `~ = # { } :` and the backslash escaped, line breaks as `\\n`; a leading `%` or format
    marker is protected with `[plain]` (which Moodle and this reader drop)."""
    escaped = re.sub(r"([\\~=#{}:])", r"\\\1", text.replace("\r\n", "\n").replace("\r", "\n")).replace("\n", "\\n")
    if escaped.startswith("%") or _FORMAT_MARKER.match(escaped):
        escaped = "[plain]" + escaped
    return escaped


def dump(pack: DraftPack) -> str:
    """The pack as GIFT, so that `parse` gives it back: ids as `::id::`, the rest in comments (see above).

    Every question must have its answer (a draft without one cannot be written as GIFT).
    """
    lines = [words.gift_export_header(pack.id), f"// pack_id: {pack.id}"]
    if pack.title is not None:
        lines.append(f"// pack_title: {escape_comment(pack.title)}")
    description = pack.description if pack.description is not None else description_blank()
    lines.append(f"// pack_description: {escape_comment(description)}")
    if pack.tags:
        lines.append(f"// pack_tags: {', '.join(pack.tags)}")
    if pack.verbatim_seed:
        lines.append("// pack_verbatim_seed: true")
    for question in pack.questions:
        if question.answer is None:
            raise ValueError(words.gift_no_answer(question.id))
        lines.append("")
        if question.tags:
            lines.append("// " + " ".join(f"[tag:{tag}]" for tag in question.tags))
        if question.difficulty is not None:
            lines.append(f"// difficulty: {question.difficulty}")
        if question.references:
            lines.append(f"// references: {' '.join(question.references)}")
        for name, image in (("image", question.image), ("explanation_image", question.explanation_image)):
            if image is not None:
                lines.append(f"// {name}: {escape_comment(' '.join(part for part in image_cells(image) if part))}")
        head = f"::{question.id}::{escape(question.prompt)} "
        feedback = "#" + escape(question.explanation) if question.explanation is not None else ""
        if question.choices == TRUE_FALSE:
            value = "TRUE" if question.answer == 1 else "FALSE"
            lines.append(head + "{" + value + ("#" + feedback if feedback else "") + "}")
            continue
        lines.append(head + "{")
        for number, choice in enumerate(question.choices, start=1):
            mark, note = ("=", feedback) if number == question.answer else ("~", "")
            lines.append(f"\t{mark}{escape(choice)}{note}")
        lines.append("}")
    return "\n".join(lines) + "\n"
