"""Quality rules for packs: what the schema accepts but a reviewer would send back.

Each rule has a name that appears in its warnings (`longest-correct`, `answer-balance`, `answer-run`,
`near-duplicate`, `placeholder`, `no-reference`, `short-explanation`). `quizbot content check` reports them
as warnings, and `--strict` makes them fail. A pack with `verbatim_seed: true` is exempt from every rule
(its text is pinned), but its prompts still take part in near-duplicate detection, so that a new pack that
repeats a seed question is caught. docs/content/checking.md documents each rule and its threshold.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from fractions import Fraction
from urllib.parse import urlsplit

from bot.content.schema import TODO_MARK, PackModel, QuestionModel
from bot.errors import Problem
from bot.wording import content as words

RULE_NAMES = (
    "longest-correct",
    "answer-balance",
    "answer-run",
    "near-duplicate",
    "placeholder",
    "no-reference",
    "short-explanation",
)
"""Every quality rule by name (what each flags: bot/wording/content.py `rule_summary`)."""

LONGEST_SHARE = Fraction(2, 5)
"""`longest-correct` flags a pack when more than this share of its 3+-choice questions have the longest answer."""

RUN_LIMIT = 3
"""`answer-run` flags more than this many consecutive questions with the answer at the same position."""

BALANCE_MIN_QUESTIONS = 8
"""`answer-balance` looks only at packs with at least this many questions."""

UNUSED_MIN_EXPECTED = 2
"""`answer-balance` flags a never-used position only when chance alone would use it at least this often."""

SIMILARITY_THRESHOLD = 0.9
"""`near-duplicate` flags two prompts whose normalised texts have a SequenceMatcher ratio of at least this."""

MIN_SENTENCES = 2
"""`short-explanation` flags an explanation with fewer sentences than this."""

_PLACEHOLDER = re.compile(rf"\b(?:{TODO_MARK}|FIXME)\b|(?i:lorem ipsum)")
_PLACEHOLDER_HOSTS = frozenset({"example.com", "example.org", "example.net", "localhost"})
_PLACEHOLDER_TLDS = frozenset({"example", "invalid", "test", "localhost"})
# A sentence ends at . ! ? or … (perhaps followed by closing quotes or brackets) and whitespace, unless the
# dot ends one of these abbreviations. What follows may be lowercase: technical sentences often start with
# an identifier (`memory_allocated()`, `m = 70`).
_SENTENCE_BREAK = re.compile(r"[.!?…]+[\"'”’)\]]*\s+(?=\S)")
_ABBREVIATIONS = frozenset(
    {"e.g", "i.e", "etc", "vs", "cf", "approx", "fig", "figs", "eq", "eqs", "al", "resp", "incl"}
)
_LAST_WORD = re.compile(r"([\w.]+)$")


@dataclass(frozen=True, slots=True)
class QualityWarning:
    """One finding of a quality rule: the file, the question (None for the pack as a whole), rule, problem."""

    source: str
    rule: str
    problem: Problem
    question_id: str | None = None

    @property
    def message(self) -> str:
        """What the rule found, worded now."""
        return self.problem.worded()

    def line(self) -> str:
        """The warning as one line: `FILE: question ID: RULE: message` (or `FILE: pack: RULE: message`)."""
        return words.warning_line(self.source, self.rule, self.message, self.question_id)


@dataclass(frozen=True, slots=True)
class PromptEntry:
    """A prompt taking part in near-duplicate detection; `reported` is False for seed and reference packs."""

    source: str
    pack_id: str
    question_id: str
    prompt: str
    reported: bool = True


def pack_warnings(pack: PackModel, *, source: str) -> list[QualityWarning]:
    """Every quality warning of one pack except near-duplicates (which need all packs); none for seed packs."""
    if pack.verbatim_seed:
        return []
    warnings = [*_placeholder_warnings_for_pack(pack, source)]
    warnings.extend(_longest_correct(pack, source))
    warnings.extend(_answer_balance(pack, source))
    warnings.extend(_answer_runs(pack, source))
    for question in pack.questions:
        warnings.extend(_placeholder_warnings_for_question(question, source))
        if not question.references:
            warnings.append(QualityWarning(source, "no-reference", Problem(words.no_reference), question.id))
        sentences = count_sentences(question.explanation)
        if sentences < MIN_SENTENCES:
            warnings.append(
                QualityWarning(
                    source,
                    "short-explanation",
                    Problem(words.short_explanation, sentences=sentences, least=MIN_SENTENCES),
                    question.id,
                )
            )
    return warnings


def count_sentences(text: str) -> int:
    """How many sentences `text` has: a sentence ends at . ! ? or … followed by a space, except the dot of an
    abbreviation such as e.g., i.e., etc., vs., cf. or et al."""
    text = text.strip()
    if not any(ch.isalnum() for ch in text):
        return 0
    breaks = 0
    for match in _SENTENCE_BREAK.finditer(text):
        word = _LAST_WORD.search(text, 0, match.start())
        if match[0].startswith(".") and word is not None and word[1].casefold().rstrip(".") in _ABBREVIATIONS:
            continue
        breaks += 1
    return breaks + 1


def unique_longest(choices: Sequence[str]) -> int | None:
    """The zero-based index of the choice strictly longer (in characters) than every other, if there is one."""
    lengths = [len(choice.strip()) for choice in choices]
    longest = max(lengths)
    return lengths.index(longest) if lengths.count(longest) == 1 else None


def placeholder_in(text: str) -> str | None:
    """The placeholder mark found in `text` (TODO, FIXME, lorem ipsum), or None."""
    match = _PLACEHOLDER.search(text)
    return match.group(0) if match else None


def is_placeholder_reference(url: str) -> bool:
    """True for a reference to a reserved example host (example.com, *.example, *.invalid, localhost...)."""
    host = (urlsplit(url).hostname or "").rstrip(".").casefold()
    if host in _PLACEHOLDER_HOSTS or any(host.endswith("." + name) for name in _PLACEHOLDER_HOSTS):
        return True
    return host.rsplit(".", 1)[-1] in _PLACEHOLDER_TLDS


def normalise_prompt(text: str) -> str:
    """The form prompts are compared in: NFKC, case-folded, punctuation dropped, whitespace collapsed."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.sub(r"[^\w\s]|_", " ", folded).split())


def similarity(first: str, second: str) -> float:
    """The near-duplicate measure: difflib's SequenceMatcher ratio of the two normalised prompts (0 to 1)."""
    return SequenceMatcher(None, normalise_prompt(first), normalise_prompt(second), autojunk=False).ratio()


def near_duplicates(
    entries: Sequence[PromptEntry], *, threshold: float = SIMILARITY_THRESHOLD, limit: int | None = None
) -> list[tuple[PromptEntry, PromptEntry, float]]:
    """Every pair of near-duplicate prompts, at least one of them `reported`, earlier entry first.

    Two prompts are near-duplicates when their normalised texts share at least half of the words of the
    longer one and their SequenceMatcher ratio is at least `threshold`. The shared-words condition lets a
    prefix filter (each prompt is indexed by the rarest half of its words plus one: two prompts sharing half
    their words must share one of those) pick the few pairs worth comparing, so thousands of prompts stay quick.
    With `limit`, the search stops once that many pairs are found (a pack of near-identical prompts has a pair for
    almost every two of them: an upload shows a few, and stays quick).
    """
    texts = [normalise_prompt(entry.prompt) for entry in entries]
    words = [frozenset(text.split()) for text in texts]
    frequency = Counter(word for bag in words for word in bag)
    postings: dict[str, list[int]] = defaultdict(list)
    matcher = SequenceMatcher(None, autojunk=False)
    pairs: list[tuple[int, int, float]] = []
    for i, bag in enumerate(words):
        if not bag:
            continue
        prefix = sorted(bag, key=lambda word: (frequency[word], word))[: len(bag) - (len(bag) + 1) // 2 + 1]
        candidates = sorted({j for word in prefix for j in postings[word]})
        for word in prefix:
            postings[word].append(i)
        matcher.set_seq2(texts[i])
        for j in candidates:
            if not (entries[i].reported or entries[j].reported):
                continue
            if 2 * len(bag & words[j]) < max(len(bag), len(words[j])):
                continue
            shorter, longer = sorted((len(texts[i]), len(texts[j])))
            if 2 * shorter < threshold * (shorter + longer):
                continue  # the ratio is at most 2 * shorter / (shorter + longer)
            matcher.set_seq1(texts[j])
            if matcher.real_quick_ratio() < threshold or matcher.quick_ratio() < threshold:
                continue
            ratio = matcher.ratio()
            if ratio >= threshold:
                pairs.append((j, i, ratio))
                if limit is not None and len(pairs) >= limit:
                    break
        if limit is not None and len(pairs) >= limit:
            break
    pairs.sort()
    return [(entries[i], entries[j], ratio) for i, j, ratio in pairs]


def duplicate_warnings(
    entries: Sequence[PromptEntry], *, threshold: float = SIMILARITY_THRESHOLD, limit: int | None = None
) -> list[QualityWarning]:
    """One `near-duplicate` warning per pair, on the later reported question, naming the other one (the first
    `limit` pairs found, when given)."""
    warnings: list[QualityWarning] = []
    for first, second, ratio in near_duplicates(entries, threshold=threshold, limit=limit):
        warned, other = (second, first) if second.reported else (first, second)
        warnings.append(
            QualityWarning(
                warned.source,
                "near-duplicate",
                Problem(
                    words.near_duplicate,
                    ratio=ratio,
                    source=other.source,
                    question_id=other.question_id,
                    pack_id=other.pack_id,
                    snippet=_snippet(other.prompt),
                ),
                warned.question_id,
            )
        )
    return warnings


def prompt_entries(pack: PackModel, *, source: str, reported: bool = True) -> list[PromptEntry]:
    """The prompts of a pack for near-duplicate detection; a seed pack's are never reported on."""
    return [
        PromptEntry(source, pack.id, question.id, question.prompt, reported and not pack.verbatim_seed)
        for question in pack.questions
    ]


def _longest_correct(pack: PackModel, source: str) -> Iterable[QualityWarning]:
    eligible = [q for q in pack.questions if len(q.choices) >= 3]
    hits = [q for q in eligible if unique_longest(q.choices) == q.answer - 1]
    if eligible and len(hits) > LONGEST_SHARE * len(eligible):
        share = round(100 * len(hits) / len(eligible))
        yield QualityWarning(
            source,
            "longest-correct",
            Problem(
                words.longest_correct,
                hits=tuple(q.id for q in hits),
                eligible=len(eligible),
                share=share,
                limit=str(LONGEST_SHARE * 100),
            ),
        )


def _answer_balance(pack: PackModel, source: str) -> Iterable[QualityWarning]:
    questions = pack.questions
    if len(questions) < BALANCE_MIN_QUESTIONS:
        return
    for position in range(1, max(len(q.choices) for q in questions) + 1):
        possible = [q for q in questions if len(q.choices) >= position]
        expected = sum((Fraction(1, len(q.choices)) for q in possible), Fraction(0))
        used = sum(q.answer == position for q in possible)
        limit = expected + (len(possible) - expected) / 3
        if used > limit:
            yield QualityWarning(
                source,
                "answer-balance",
                Problem(
                    words.position_overused,
                    position=position,
                    used=used,
                    possible=len(possible),
                    expected=float(expected),
                    limit=float(limit),
                ),
            )
        elif used == 0 and expected >= UNUSED_MIN_EXPECTED:
            yield QualityWarning(
                source,
                "answer-balance",
                Problem(words.position_unused, position=position, possible=len(possible), expected=float(expected)),
            )


def _answer_runs(pack: PackModel, source: str) -> Iterable[QualityWarning]:
    questions = pack.questions
    start = 0
    for end in range(1, len(questions) + 1):
        if end < len(questions) and questions[end].answer == questions[start].answer:
            continue
        run = questions[start:end]
        if len(run) > RUN_LIMIT:
            yield QualityWarning(
                source,
                "answer-run",
                Problem(words.answer_run, ids=tuple(q.id for q in run), position=run[0].answer, limit=RUN_LIMIT),
                run[0].id,
            )
        start = end


def _placeholder_warnings_for_pack(pack: PackModel, source: str) -> Iterable[QualityWarning]:
    for field, text in (("title", pack.title), ("description", pack.description)):
        if mark := placeholder_in(text):
            yield QualityWarning(
                source, "placeholder", Problem(words.still_holds, field=field, mark=mark, snippet=_snippet(text))
            )


_CODE = re.compile(r"^```[^\n]*\n.*?^```[ \t]*$|`[^`\n]+`", re.MULTILINE | re.DOTALL)


def without_code(text: str) -> str:
    """The text without its fenced code blocks and inline code: a `# TODO` in code shown to people is content."""
    return _CODE.sub(" ", text)


def _placeholder_warnings_for_question(question: QuestionModel, source: str) -> Iterable[QualityWarning]:
    fields = [("prompt", question.prompt)]
    fields.extend((f"choice {number}", choice) for number, choice in enumerate(question.choices, start=1))
    fields.append(("explanation", question.explanation))
    for name, image in (("image", question.image), ("explanation_image", question.explanation_image)):
        if image is not None:
            fields.append((f"{name} alt text", image.alt))
            if image.url is not None and is_placeholder_reference(image.url):
                yield QualityWarning(
                    source,
                    "placeholder",
                    Problem(words.example_image, field=name, url=image.url),
                    question.id,
                )
    for field, text in fields:
        if mark := placeholder_in(without_code(text)):
            yield QualityWarning(
                source,
                "placeholder",
                Problem(words.still_holds, field=field, mark=mark, snippet=_snippet(text)),
                question.id,
            )
    for url in question.references:
        if is_placeholder_reference(url):
            yield QualityWarning(source, "placeholder", Problem(words.example_reference, url=url), question.id)


def _snippet(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")
