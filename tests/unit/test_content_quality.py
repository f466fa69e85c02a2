"""Quality rules of `quizbot content check`: each rule flags what it should and nothing else, seed packs are
exempt but still count for near-duplicates, and `--strict` turns warnings into failures."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.cli import main
from bot.content import quality
from bot.content.check import check_paths
from bot.content.loader import parse_pack_model
from bot.content.quality import (
    PromptEntry,
    count_sentences,
    near_duplicates,
    pack_warnings,
    similarity,
    unique_longest,
)
from bot.content.schema import PackModel
from bot.errors import InvalidPack
from tests.conftest import CONTENT

PROMPTS = [
    "Which collective averages gradients across every worker?",
    "What limits the largest model plain data parallelism can train?",
    "How does DDP hide the cost of communication?",
    "What is the global batch size with W workers of local batch B?",
    "Why does throughput grow less than linearly with more GPUs?",
    "What does gradient accumulation trade for a larger effective batch?",
    "Which NCCL setting picks the ring or tree algorithm?",
    "Where do pipeline bubbles come from?",
]


def _question(number: int, answer: int) -> dict[str, Any]:
    return {
        "id": f"q{number}",
        "prompt": PROMPTS[number - 1],
        "choices": [f"choice {letter} of question {number}" for letter in "abcd"],  # all the same length
        "answer": answer,
        "explanation": f"Choice {answer} is right for a reason. The others are wrong for other reasons.",
        "references": [f"https://docs.nvidia.com/nccl/{number}"],
    }


def good_pack(pack_id: str = "good", answers: tuple[int, ...] = (1, 2, 3, 4, 1, 2, 3, 4)) -> dict[str, Any]:
    """A pack that breaks no quality rule: balanced positions, same-length choices, references, 2 sentences."""
    return {
        "id": pack_id,
        "title": "A good pack",
        "description": "Questions with nothing to complain about.",
        "questions": [_question(number, answer) for number, answer in enumerate(answers, start=1)],
    }


def model(data: dict[str, Any]) -> PackModel:
    return PackModel.model_validate(data)


def rules(data: dict[str, Any]) -> list[str]:
    return [w.rule for w in pack_warnings(model(data), source="p.yaml")]


def write(folder: Path, data: dict[str, Any], name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def test_a_good_pack_has_no_warnings() -> None:
    assert pack_warnings(model(good_pack()), source="p.yaml") == []


def test_the_seed_packs_pass_strict(capsys: pytest.CaptureFixture[str]) -> None:
    seeds = [CONTENT / "data-parallelism.yaml", CONTENT / "model-pipeline-parallelism.yaml"]
    assert main(["content", "check", "--strict", *map(str, seeds)]) == 0
    captured = capsys.readouterr()
    assert captured.out.count("verbatim seed: quality rules skipped") == 2
    assert "WARN" not in captured.err


# longest-correct


def _make_longest(data: dict[str, Any], numbers: list[int]) -> dict[str, Any]:
    for question in data["questions"]:
        if int(question["id"][1:]) in numbers:
            question["choices"][question["answer"] - 1] += " and then some more words"
    return data


def test_longest_correct_flags_more_than_40_percent() -> None:
    data = _make_longest(good_pack(), [1, 2, 3, 4])  # 4 of 8 = 50%
    warnings = pack_warnings(model(data), source="p.yaml")
    assert [w.rule for w in warnings] == ["longest-correct"]
    assert warnings[0].question_id is None
    assert "4 of 8 questions" in warnings[0].message
    assert "q1, q2, q3, q4" in warnings[0].message


def test_longest_correct_allows_40_percent_and_ties() -> None:
    data = _make_longest(good_pack(), [1, 2, 3])  # 3 of 8 = 37.5%
    assert rules(data) == []
    tied = _make_longest(good_pack(), [1, 2, 3, 4, 5])
    for question in tied["questions"][:2]:  # a wrong choice as long as the right one: not "unique longest"
        right = question["choices"][question["answer"] - 1]
        question["choices"][question["answer"] % 4] = "x" * len(right)
    assert rules(tied) == []  # 3 of 8 left


def test_longest_correct_ignores_two_choice_questions() -> None:
    data = good_pack()
    for question in data["questions"]:
        question["choices"] = ["True", "False"]  # "False" is the longer one: chance alone would be 50%
        question["answer"] = 2 if int(question["id"][1:]) % 2 else 1
    assert "longest-correct" not in rules(data)
    assert unique_longest(["True", "False"]) == 1
    assert unique_longest(["ab", "cd"]) is None


# answer-balance and answer-run


@pytest.mark.parametrize(
    ("answers", "flagged"),
    [
        ((1, 1, 1, 2, 1, 3, 1, 4), True),  # position 1 in 5 of 8 4-choice questions: more than half
        ((1, 2, 1, 3, 1, 4, 1, 2), False),  # exactly half
        ((1, 2, 3, 1, 2, 3, 1, 2), True),  # position 4 never used though chance would use it twice
        ((1, 2, 3, 1, 2, 3, 1), False),  # 7 questions: too few to judge balance
    ],
)
def test_answer_balance_with_four_choices(answers: tuple[int, ...], flagged: bool) -> None:
    assert ("answer-balance" in rules(good_pack(answers=answers))) is flagged


def test_answer_balance_is_fair_to_two_and_ten_choices() -> None:
    def pack(choices: int, answers: list[int]) -> dict[str, Any]:
        data = good_pack(answers=tuple(answers))
        for question in data["questions"]:
            question["choices"] = [f"option {n:02d}" for n in range(1, choices + 1)]
        return data

    # Two choices: the fair share is 4 of 8; up to 5 is chance, 6 is not.
    assert "answer-balance" not in rules(pack(2, [1, 2, 1, 1, 2, 1, 2, 1]))
    assert "answer-balance" in rules(pack(2, [1, 2, 1, 1, 2, 1, 1, 1]))
    # Ten choices and 8 questions: most positions are unused by necessity, and that is fine.
    assert "answer-balance" not in rules(pack(10, [1, 3, 5, 7, 9, 2, 4, 6]))
    # ... but 4 of 8 at one position is far above its fair share of 0.8.
    assert "answer-balance" in rules(pack(10, [1, 3, 1, 7, 1, 2, 1, 6]))


def test_answer_run_flags_more_than_three_in_a_row() -> None:
    warnings = pack_warnings(model(good_pack(answers=(2, 2, 2, 2, 1, 3, 4, 1))), source="p.yaml")
    assert [w.rule for w in warnings] == ["answer-run"]
    assert warnings[0].question_id == "q1"
    assert "q1, q2, q3, q4" in warnings[0].message
    assert "position 2" in warnings[0].message
    assert rules(good_pack(answers=(2, 2, 2, 1, 4, 3, 4, 1))) == []  # three in a row is fine


def test_answer_run_applies_to_short_packs_too() -> None:
    assert rules(good_pack(answers=(3, 3, 3, 3))) == ["answer-run"]


# placeholder, no-reference, short-explanation


@pytest.mark.parametrize(
    ("mutate", "where"),
    [
        (lambda d: d.update(description="Covers TODO topics."), None),
        (lambda d: d.update(title="Networking FIXME"), None),
        (lambda d: d["questions"][2]["choices"].__setitem__(1, "TODO: a wrong choice"), "q3"),
        (lambda d: d["questions"][3].update(explanation="Right because. TODO say why the others are wrong."), "q4"),
        (lambda d: d["questions"][4].update(prompt="Lorem ipsum dolor sit amet?"), "q5"),
        (lambda d: d["questions"][5].update(references=["https://example.com/source"]), "q6"),
        (lambda d: d["questions"][6].update(references=["https://docs.invalid/x"]), "q7"),
    ],
)
def test_placeholders_are_flagged_anywhere(mutate: Any, where: str | None) -> None:
    data = good_pack()
    mutate(data)
    warnings = pack_warnings(model(data), source="p.yaml")
    assert [(w.rule, w.question_id) for w in warnings] == [("placeholder", where)]


def test_a_todo_title_or_description_is_a_schema_error_not_just_a_warning(tmp_path: Path) -> None:
    for field in ("title", "description"):
        data = good_pack()
        data[field] = "TODO: write it"
        with pytest.raises(InvalidPack, match=f"pack: {field}: {field} is still a TODO placeholder"):
            parse_pack_model(yaml.safe_dump(data), source="p.yaml")


def test_no_reference() -> None:
    data = good_pack()
    data["questions"][1]["references"] = []
    warnings = pack_warnings(model(data), source="p.yaml")
    assert [(w.rule, w.question_id) for w in warnings] == [("no-reference", "q2")]


@pytest.mark.parametrize(
    ("explanation", "sentences"),
    [
        ("Because a.", 1),
        ("Because a", 1),
        ("It is a, e.g. the first one. The others are not.", 2),
        ("One! Two? Three.", 3),
        ('He said "stop." Then it stopped.', 2),
        ("Version 2.5 is newer than 2.4 and fixes it.", 1),
        ("...", 0),
        ("Compare memory_reserved() instead. memory_allocated() counts only tensors.", 2),
        ("So m >= 70 works. m = 63 solves the other form.", 2),
        ("As Smith et al. show, i.e. in most cases, vs. the baseline etc. it wins.", 1),
        ("Wait... then it stops.", 2),
    ],
)
def test_count_sentences(explanation: str, sentences: int) -> None:
    assert count_sentences(explanation) == sentences


def test_short_explanation() -> None:
    data = good_pack()
    data["questions"][7]["explanation"] = "Because the bubble is idle time, e.g. at the start."
    warnings = pack_warnings(model(data), source="p.yaml")
    assert [(w.rule, w.question_id) for w in warnings] == [("short-explanation", "q8")]
    assert "1 sentence;" in warnings[0].message


# near-duplicate


def test_similarity_measure_and_threshold() -> None:
    assert similarity("What is the capital of France?", "what is the capital of FRANCE") == 1.0
    assert similarity("What is the capital of France?", "What is the capital city of France?") >= 0.9
    assert similarity("What is the capital of France?", "What is the capital of Spain?") < 0.9
    entries = [
        PromptEntry("a.yaml", "a", "a1", "What is the capital of France?"),
        PromptEntry("a.yaml", "a", "a2", "What is the capital of Spain?"),
        PromptEntry("b.yaml", "b", "b1", "What is the capital city of France?"),
    ]
    assert [(x.question_id, y.question_id) for x, y, _ in near_duplicates(entries)] == [("a1", "b1")]


def test_near_duplicates_across_packs_name_both_questions(tmp_path: Path) -> None:
    first = write(tmp_path, good_pack("first"), "first.yaml")
    second_data = good_pack("second")
    second_data["questions"] = [_question(1, 1)]
    second_data["questions"][0]["id"] = "s1"
    second_data["questions"][0]["prompt"] = "Which collective averages the gradients across every worker?"
    second = write(tmp_path, second_data, "second.yaml")
    report = check_paths([first, second])
    duplicates = [w for w in report.warnings if w.rule == "near-duplicate"]
    assert len(duplicates) == 1
    assert duplicates[0].source == str(second)
    assert duplicates[0].question_id == "s1"
    assert f"{first} question q1 (pack first)" in duplicates[0].message


def test_near_duplicates_within_one_pack(tmp_path: Path) -> None:
    data = good_pack()
    data["questions"][5]["prompt"] = data["questions"][2]["prompt"].upper()
    report = check_paths([write(tmp_path, data, "p.yaml")])
    assert [(w.rule, w.question_id) for w in report.warnings] == [("near-duplicate", "q6")]
    assert "the same prompt as" in report.warnings[0].message
    assert "question q3" in report.warnings[0].message


def test_new_packs_are_compared_with_seed_prompts_but_seeds_are_not_reported(tmp_path: Path) -> None:
    seed = good_pack("seed")
    seed["verbatim_seed"] = True
    twin = copy.deepcopy(seed)
    twin["id"] = "seed-twin"
    new = good_pack("new")
    new["questions"] = [_question(1, 1)]
    seeds_only = check_paths([write(tmp_path / "a", seed, "seed.yaml"), write(tmp_path / "a", twin, "twin.yaml")])
    assert seeds_only.warnings == []
    with_new = check_paths([tmp_path / "a", write(tmp_path / "b", new, "new.yaml")])
    assert [(w.source, w.rule, w.question_id) for w in with_new.warnings] == [
        (str(tmp_path / "b" / "new.yaml"), "near-duplicate", "q1"),
        (str(tmp_path / "b" / "new.yaml"), "near-duplicate", "q1"),
    ]


def test_checking_one_file_compares_it_with_the_content_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = good_pack("drafts")
    data["questions"][0]["prompt"] = "In standard data parallelism, what does each GPU hold?"  # a seed prompt
    path = write(tmp_path, data, "drafts.yaml")
    assert main(["content", "check", str(path)]) == 0
    err = capsys.readouterr().err
    assert f"WARN {path}: question q1: near-duplicate: the same prompt as" in err
    assert "question dp-gpu-holds (pack data-parallelism)" in err
    assert "1 warning: --strict would fail on them" in err
    assert main(["content", "check", str(path), "--against", str(tmp_path)]) == 0
    assert "WARN" not in capsys.readouterr().err


def test_near_duplicate_search_scales_and_still_finds_every_pair(monkeypatch: pytest.MonkeyPatch) -> None:

    rng = random.Random(7)
    vocabulary = [f"{a}{b}{c}" for a in "bcdfghklmnprst" for b in "aeiou" for c in "nrstlm"]
    common = ["what", "is", "the", "of", "a", "in", "which", "does", "how", "why"]
    prompts = [
        " ".join(
            rng.choice(common) if rng.random() < 0.4 else rng.choice(vocabulary) for _ in range(rng.randint(6, 20))
        )
        for _ in range(2000)
    ]
    entries = [PromptEntry("p.yaml", "p", f"q{n}", prompt + "?") for n, prompt in enumerate(prompts)]
    entries.append(PromptEntry("new.yaml", "new", "typo", prompts[10].replace(" ", "  ", 1) + " really?"))
    entries.append(PromptEntry("new.yaml", "new", "case", prompts[20].upper()))
    # Scaling is counted, not timed (a loaded machine took 15 s for what takes 1): the pairs handed to the
    # SequenceMatcher, the costly measure, are a tiny part of the two million there are (a few hundred here).
    compared = 0

    class Counting(quality.SequenceMatcher):
        def set_seq1(self, a: str) -> None:
            nonlocal compared
            compared += 1
            super().set_seq1(a)

    monkeypatch.setattr(quality, "SequenceMatcher", Counting)
    pairs = {(x.question_id, y.question_id) for x, y, _ in near_duplicates(entries)}
    all_pairs = len(entries) * (len(entries) - 1) // 2
    assert 0 < compared < all_pairs // 1000
    assert {("q10", "typo"), ("q20", "case")} <= pairs
    # The filter drops no pair the measure alone would flag, on a sample compared the slow way.
    sample = entries[:150] + entries[-2:]
    slow = {
        (x.question_id, y.question_id)
        for n, x in enumerate(sample)
        for y in sample[n + 1 :]
        if similarity(x.prompt, y.prompt) >= 0.9
    }
    assert slow <= pairs


# seed opt-out and --strict


def test_seed_packs_skip_quality_rules_but_not_schema_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = good_pack(answers=(1, 1, 1, 1, 1, 1, 1, 1))
    data["questions"][0]["references"] = []
    data["verbatim_seed"] = True
    path = write(tmp_path, data, "seed.yaml")
    assert pack_warnings(model(data), source="seed.yaml") == []
    assert main(["content", "check", "--strict", str(path)]) == 0
    data["questions"][0]["answer"] = 7
    write(tmp_path, data, "seed.yaml")
    assert main(["content", "check", "--strict", str(path)]) == 1
    assert "question q1 (#1): answer: answer 7 is not one of the 4 choices" in capsys.readouterr().err


def test_verbatim_seed_must_be_a_boolean() -> None:
    data = good_pack()
    data["verbatim_seed"] = "sometimes"
    with pytest.raises(InvalidPack, match="pack: verbatim_seed"):
        parse_pack_model(yaml.safe_dump(data), source="p.yaml")


def test_strict_fails_on_warnings_and_counts_are_pluralised(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = good_pack()
    data["questions"][1]["references"] = []
    path = write(tmp_path, data, "p.yaml")
    assert main(["content", "check", str(path), "--against", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "ok   good: A good pack (8 questions, 1 warning)" in captured.out
    assert f"WARN {path}: question q2: no-reference: " in captured.err
    assert "1 warning: --strict would fail on them" in captured.err
    assert main(["content", "check", "--strict", str(path), "--against", str(tmp_path)]) == 1
    assert "1 warning: failing with --strict" in capsys.readouterr().err

    data["questions"][2]["explanation"] = "Too short."
    write(tmp_path, data, "p.yaml")
    assert main(["content", "check", "--strict", str(path), "--against", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert "(8 questions, 2 warnings)" in captured.out
    assert "2 warnings: failing with --strict" in captured.err
    lines = [line for line in captured.err.splitlines() if line.startswith("WARN")]
    assert lines == [
        f"WARN {path}: question q2: no-reference: no references: add a link that backs the answer",
        f"WARN {path}: question q3: short-explanation: the explanation has 1 sentence; write at least 2: why the "
        "answer is right, and why the tempting others are wrong",
    ]


def test_problems_are_pluralised(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = good_pack()
    data["questions"][0]["answer"] = 9
    write(tmp_path, data, "p.yaml")
    assert main(["content", "check", str(tmp_path)]) == 1
    assert "1 problem found" in capsys.readouterr().err
