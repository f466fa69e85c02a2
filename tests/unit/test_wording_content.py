"""Content's problems are data (a key, values, where) worded at the edge by bot/wording/content.py."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from bot.content.cli import content_check
from bot.content.formats import import_text
from bot.content.loader import parse_pack_model
from bot.content.quality import RULE_NAMES, pack_warnings
from bot.content.schema import PackModel
from bot.errors import InvalidPack, Problem
from bot.wording import content as words
from bot.wording.i18n import use_translator
from bot.wording.problems import from_data


def _pack(explanation: str) -> PackModel:
    question = {"id": "q1", "prompt": "Which?", "choices": ["a", "b"], "answer": 1, "explanation": explanation}
    return PackModel.model_validate({"id": "p", "title": "P", "questions": [question]})


def test_a_quality_warning_carries_its_key_and_values_and_is_worded_when_shown() -> None:
    [reference, short] = pack_warnings(_pack("Too short."), source="p.yaml")
    assert (short.problem.key, short.problem.values) == ("content.short_explanation", {"sentences": 1, "least": 2})
    assert reference.problem.key == "content.no_reference"
    marked: Callable[[str], str] = lambda template: "» " + template  # noqa: E731 - a translator stand-in
    use_translator(marked)
    try:
        assert short.message.startswith("» the explanation has 1 » sentence; write at least 2")
        assert short.line() == f"p.yaml: » question q1: short-explanation: {short.message}"
    finally:
        use_translator(None)
    assert short.message.startswith("the explanation has 1 sentence; write at least 2: why")


def test_a_problem_is_plain_data_that_reads_back_to_the_same_words() -> None:
    problem = Problem(words.example_reference, url="https://example.com/x").at("p.yaml", Problem(words.line, number=3))
    data = json.loads(json.dumps(problem.as_data()))
    assert data == {
        "key": "content.example_reference",
        "values": {"url": "https://example.com/x"},
        "where": ["p.yaml", {"key": "content.line", "values": {"number": 3}, "where": []}],
    }
    again = from_data(data)
    assert again == problem
    assert (
        str(again) == "p.yaml: line 3: the reference https://example.com/x is an example address: link the real source"
    )


def test_an_invalid_pack_is_its_problems_one_a_line() -> None:
    first, second = Problem(words.line, number=1), Problem(words.line, number=2)
    assert str(InvalidPack(problems=[first, second])) == "line 1\nline 2"
    assert str(InvalidPack(first)) == "line 1" and InvalidPack(first).problems == [first]


def test_every_quality_rule_has_a_summary() -> None:
    assert [words.rule_summary(rule) for rule in RULE_NAMES]
    assert set(words.RULE_SUMMARIES) == set(RULE_NAMES)


def test_a_schema_refusal_is_a_problem_placed_in_its_file_question_and_field() -> None:
    text = "id: p\ntitle: P\nquestions:\n- {id: q1, prompt: Which?, choices: [a, A], answer: 1, explanation: E.}\n"
    with pytest.raises(InvalidPack) as refused:
        parse_pack_model(text, source="p.yaml")
    [problem] = refused.value.problems
    assert isinstance(problem, Problem)
    assert (problem.key, problem.values) == ("content.choice_twice", {"choice": "A"})
    assert problem.as_data()["where"] == [
        "p.yaml",
        {"key": "content.question_at", "values": {"question_id": "q1", "number": 1}, "where": []},
        "choices",
    ]
    assert str(refused.value) == "p.yaml: question q1 (#1): choices: choice 'A' is listed twice"


def test_an_import_refusal_is_a_problem_placed_at_its_line() -> None:
    with pytest.raises(InvalidPack) as refused:
        import_text("Which?\nA. one\nC. two\nANSWER: A\n", "aiken", source="q.txt", name="q.txt")
    [problem] = refused.value.problems
    assert isinstance(problem, Problem)
    assert problem.as_data() == {
        "key": "formats.aiken_expected_choice",
        "values": {"expected": "B", "found": "C"},
        "where": ["q.txt", {"key": "content.line", "values": {"number": 3}, "where": []}],
    }
    assert str(refused.value) == "q.txt: line 3: expected choice B, found choice C"


def test_every_line_of_a_content_check_is_worded_through_the_hook(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    question = {"id": "q1", "prompt": "Which?", "choices": ["a", "b"], "answer": 1, "explanation": "Short."}
    (tmp_path / "warned.yaml").write_text(yaml.safe_dump({"id": "warned", "title": "W", "questions": [question]}))
    broken = {"id": "broken", "title": "B", "questions": [{**question, "choices": ["a", "A"]}]}
    (tmp_path / "broken.yaml").write_text(yaml.safe_dump(broken))
    marked: Callable[[str], str] = lambda template: "» " + template  # noqa: E731 - a translator stand-in
    use_translator(marked)
    try:
        status = content_check([tmp_path], lambda: tmp_path, strict=True, against=[])
    finally:
        use_translator(None)
    out, err = capsys.readouterr()
    assert status == 1
    assert out.startswith("ok   » warned: W (")
    lines = err.splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == ["FAIL", "WARN", "WARN", "»", "»"]
    for line in lines[:3]:  # FILE: PLACE: [RULE:] WHAT, each part that is words marked
        assert line.split(": ", 1)[1].startswith("» question"), line
        assert ": » " in line.split(": ", 2)[2], line
