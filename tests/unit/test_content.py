"""Content packs: the shipped packs, the schema's errors, and the `quizbot content` commands."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from bot.cli import main
from bot.content import Catalog, load_catalog, load_pack
from bot.content.curricula import Curriculum
from bot.content.importer import parse_plain_quiz, skeleton_yaml
from bot.content.loader import parse_pack
from bot.domain import Pack, Question
from bot.errors import InvalidPack, UnknownPack
from tests.conftest import CONTENT, REPO
from tests.unit.test_curriculum import CURRICULUM_ANSWER_KEY
from tests.unit.test_inference_curriculum import INFERENCE_ANSWER_KEY

SEEDS = REPO / "tests" / "data" / "seeds"  # copies of ../shared/seeds, the source texts of the packs
SHIPPED = sorted(CONTENT.glob("*.yaml"))

SEED_TITLES = {
    "data-parallelism": "Data Parallelism Quiz",
    "model-pipeline-parallelism": "Model and Pipeline Parallelism Quiz",
}

# The answer key, reviewed by hand against the literature (PyTorch DDP notes, NCCL docs, Megatron-LM and GPipe
# papers). A pack edit that changes an answer must change this table too, on purpose.
ANSWER_KEY = {
    "data-parallelism": [
        "A complete copy of the model, processing a different slice of the batch",
        "All-reduce, which averages gradients across all GPUs",
        "Each GPU keeps model parameters and optimizer state replicated, limiting the model size that fits",
        "Message size and topology",
        "By overlapping gradient all-reduce with the ongoing backward pass",
        "B multiplied by W, before any gradient-accumulation factor",
        "Gradient communication, data loading, and synchronization add overhead",
        "Combine gradients from multiple microbatches before an optimizer update",
    ],
    "model-pipeline-parallelism": [
        "A model being too large to fit in a single GPU's memory",
        "It splits the math inside a layer, like a matrix multiply, across GPUs",
        "Idle time when downstream GPUs wait for upstream stages to produce activations",
        "By splitting each batch into micro-batches that flow through stages in a staggered way",
        "Because its frequent all-reduce of partial results benefits from fast intra-node links like NVLink",
        "NVIDIA Megatron-LM",
        "Activation tensors produced by one stage and consumed by the next",
        "Devices exchange partial results or activations within layers during computation",
    ],
}

VALID = {
    "id": "tiny",
    "title": "Tiny",
    "questions": [
        {"id": "q-one", "prompt": "One?", "choices": ["a", "b"], "answer": 1, "explanation": "Because a."},
        {
            "id": "q-two",
            "prompt": "Two?",
            "choices": ["c", "d", "e"],
            "answer": 3,
            "explanation": "Because e.",
        },
    ],
}


def _write(tmp_path: Path, data: object, name: str = "pack.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


def test_every_shipped_pack_loads() -> None:
    catalog = load_catalog(CONTENT)
    keys = CURRICULUM_ANSWER_KEY | INFERENCE_ANSWER_KEY
    assert {p.id for p in catalog.packs} == set(ANSWER_KEY) | set(keys)
    for pack in catalog.packs:
        assert len(pack.questions) == (8 if pack.id in ANSWER_KEY else len(keys[pack.id]))
        for question in pack.questions:
            assert 2 <= len(question.choices) <= 10
            assert len(re.findall(r"[.!?](\s|$)", question.explanation)) >= 2, question.key


@pytest.mark.parametrize("pack_id", sorted(ANSWER_KEY))
def test_answer_key(pack_id: str) -> None:
    pack = load_catalog(CONTENT).get(pack_id)
    assert [q.correct_choice for q in pack.questions] == ANSWER_KEY[pack_id]


@pytest.mark.parametrize("pack_id", sorted(ANSWER_KEY))
def test_packs_carry_every_seed_question_and_choice_word_for_word(pack_id: str) -> None:
    seeds = {parse_plain_quiz(p.read_text(encoding="utf-8")).title: p for p in SEEDS.glob("*.txt")}
    assert seeds, f"no seed texts in {SEEDS}"
    seed = parse_plain_quiz(seeds[SEED_TITLES[pack_id]].read_text(encoding="utf-8"))
    pack = load_catalog(CONTENT).get(pack_id)
    assert pack.title == seed.title
    assert [q.prompt for q in pack.questions] == [q.prompt for q in seed.questions]
    assert [list(q.choices) for q in pack.questions] == [q.choices for q in seed.questions]


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d["questions"][1].pop("explanation"), "question q-two (#2): explanation: Field required"),
        (
            lambda d: d["questions"][0].update(answer=3),
            "question q-one (#1): answer: answer 3 is not one of the 2 choices",
        ),
        (lambda d: d["questions"][1].update(answer=0), "question q-two (#2): answer"),
        (
            lambda d: d["questions"][1].update(answer=None),
            "question q-two (#2): answer: answer is still a TODO blank",
        ),
        (lambda d: d["questions"][0].update(choices=["only"]), "question q-one (#1): choices"),
        (
            lambda d: d["questions"][0].update(choices=[str(i) for i in range(11)]),
            "question q-one (#1): choices",
        ),
        (lambda d: d["questions"][0].update(choices=["a", "A"]), "question q-one (#1): choices"),
        (
            lambda d: d["questions"][1].update(id="q-one"),
            "pack: questions: question q-one (#2): id is already used by #1",
        ),
        (lambda d: d["questions"][0].update(id="Not A Slug"), "question Not A Slug (#1): id"),
        (
            lambda d: d["questions"][0].update(explanation="TODO: write me"),
            "question q-one (#1): explanation",
        ),
        (lambda d: d["questions"][0].update(colour="red"), "question q-one (#1): colour: Extra inputs"),
        (lambda d: d["questions"][0].update(difficulty="brutal"), "question q-one (#1): difficulty"),
        (lambda d: d["questions"][0].pop("id"), "question (no id) (#1): id: Field required"),
        (lambda d: d.update(questions=[]), "pack: questions"),
        (lambda d: d.pop("title"), "pack: title: Field required"),
    ],
)
def test_schema_errors_name_file_question_and_field(tmp_path: Path, mutate: object, expected: str) -> None:
    data = json.loads(json.dumps(VALID))
    mutate(data)  # type: ignore[operator]
    path = _write(tmp_path, data)
    with pytest.raises(InvalidPack) as caught:
        load_pack(path)
    assert str(path) in str(caught.value)
    assert expected in str(caught.value)


def test_valid_pack_converts_answer_to_zero_based_index(tmp_path: Path) -> None:
    pack = load_pack(_write(tmp_path, VALID))
    assert pack.questions[1].correct_index == 2
    assert pack.questions[1].correct_choice == "e"


def test_broken_yaml_names_the_line() -> None:
    with pytest.raises(InvalidPack, match=r"x.yaml: not valid YAML at line 2"):
        parse_pack("id: a\n  title: [oops\n", source="x.yaml")


def test_not_a_mapping() -> None:
    with pytest.raises(InvalidPack, match="must be a mapping"):
        parse_pack("- just\n- a list\n", source="x.yaml")


def test_content_check_passes_on_shipped_packs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["content", "check", str(CONTENT)]) == 0
    out = capsys.readouterr().out
    assert "ok   data-parallelism" in out
    assert "ok   model-pipeline-parallelism" in out


def test_content_check_lists_every_problem_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = json.loads(json.dumps(VALID))
    bad["questions"][0]["answer"] = 9
    bad["questions"][1]["explanation"] = ""
    _write(tmp_path, bad, "bad.yaml")
    _write(tmp_path, VALID, "good.yaml")
    _write(tmp_path, VALID, "twin.yaml")
    assert main(["content", "check", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "bad.yaml: question q-one (#1)" in err
    assert "bad.yaml: question q-two (#2): explanation" in err
    assert "twin.yaml: pack: id: 'tiny' is already used by" in err
    assert "3 problems found" in err


def test_content_check_of_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["content", "check", str(tmp_path / "nope.yaml")]) == 1
    assert "no such file" in capsys.readouterr().err


@pytest.mark.parametrize("seed", sorted(SEEDS.glob("*.txt")), ids=lambda p: p.name)
def test_import_turns_a_seed_into_a_skeleton_that_check_refuses_until_filled(
    tmp_path: Path, seed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "new.yaml"
    assert main(["content", "import", str(seed), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.count("TODO") >= 17  # description + an answer and an explanation per question
    assert main(["content", "check", str(out)]) == 1
    err = capsys.readouterr().err
    assert "answer is still a TODO blank" in err
    assert "explanation is still a TODO placeholder" in err

    data = yaml.safe_load(text)
    seed_quiz = parse_plain_quiz(seed.read_text(encoding="utf-8"))
    assert [q["prompt"] for q in data["questions"]] == [q.prompt for q in seed_quiz.questions]
    assert [q["choices"] for q in data["questions"]] == [q.choices for q in seed_quiz.questions]
    data["description"] = "Filled in."
    for question in data["questions"]:
        question["answer"] = 1
        question["explanation"] = "Filled in by a person. Twice."
    out.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    assert main(["content", "check", str(out)]) == 0


def test_import_refuses_text_that_is_not_a_quiz(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "notes.txt"
    source.write_text("Just some notes\nwith no questions\n", encoding="utf-8")
    assert main(["content", "import", str(source)]) == 2
    assert "expected a title line and at least one numbered question" in capsys.readouterr().err


def test_import_requires_two_choices() -> None:
    with pytest.raises(InvalidPack, match="line 2: question 1 has 1 choice; at least 2"):
        parse_plain_quiz("T\n1. Q?\n   • only\n")


def test_skeleton_round_trips_quotes_and_unicode() -> None:
    quiz = parse_plain_quiz("Quiz\n1. What is the \"best\" 'bubble'?\n   • It’s A\n   • B: c\n")
    data = yaml.safe_load(skeleton_yaml(quiz))
    assert data["questions"][0]["prompt"] == "What is the \"best\" 'bubble'?"
    assert data["questions"][0]["choices"] == ["It’s A", "B: c"]


def test_schema_command_prints_a_json_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["content", "schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$schema"].startswith("https://json-schema.org/")
    assert set(schema["required"]) >= {"id", "title", "questions"}
    question = schema["$defs"]["QuestionModel"]
    assert set(question["required"]) == {"id", "prompt", "choices", "answer", "explanation"}
    assert question["properties"]["choices"]["maxItems"] == 10


# --- issue 12: pack names as people type them ------------------------------------------------------------------


def _catalog(*ids: str) -> Catalog:
    question = Question(pack_id="p", key="q", prompt="Q?", choices=("a", "b"), correct_index=0, explanation="E.")
    return Catalog(packs=tuple(Pack(id=i, title=i.title(), description="", questions=(question,)) for i in ids))


def test_a_pack_is_found_in_any_case_and_by_a_unique_prefix() -> None:
    catalog = _catalog("data-parallelism", "data-loading", "model-pipeline-parallelism")
    assert catalog.resolve("data-parallelism").id == "data-parallelism"
    assert catalog.resolve("Data-Parallelism").id == "data-parallelism"
    assert catalog.resolve("MODEL").id == "model-pipeline-parallelism"
    assert catalog.resolve("data-p").id == "data-parallelism"


def test_an_ambiguous_prefix_lists_the_candidates() -> None:
    catalog = _catalog("data-parallelism", "data-loading", "model-pipeline-parallelism")
    with pytest.raises(
        UnknownPack, match=re.escape("More than one pack starts with `data`: `data-parallelism`, `data-loading`")
    ):
        catalog.resolve("data")


def test_a_missed_pack_suggests_the_nearest_and_lists_them_all() -> None:
    catalog = _catalog("data-parallelism", "model-pipeline-parallelism")
    with pytest.raises(UnknownPack) as missed:
        catalog.resolve("data-paralelism")
    assert str(missed.value) == (
        "There is no pack called `data-paralelism`. Did you mean `data-parallelism`? "
        "Packs: data-parallelism, model-pipeline-parallelism."
    )
    with pytest.raises(UnknownPack, match=r"There is no pack called `x{40}…`\. Packs:"):
        catalog.resolve("x" * 5000)


def test_a_curriculum_expands_in_any_case_and_its_packs_resolve() -> None:
    catalog = replace(
        _catalog("data-parallelism", "model-pipeline-parallelism"),
        curricula=(Curriculum(id="onboarding", title="O", description="", packs=("model-pipeline-parallelism",)),),
    )
    assert catalog.expand(["Onboarding", "DATA"]) == ["model-pipeline-parallelism", "data-parallelism"]
    with pytest.raises(UnknownPack, match="no pack called `nope`"):
        catalog.expand(["nope"])


BROKEN_PACK = "id: broken\ntitle: Broken\nquestions:\n  - id: q\n    prompt: P\n"


def _folder_with_one_broken_pack(tmp_path: Path) -> Path:
    folder = tmp_path / "content"
    folder.mkdir()
    (folder / "data-parallelism.yaml").write_text(
        (REPO / "tests/data/seed-content/data-parallelism.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (folder / "broken.yaml").write_text(BROKEN_PACK, encoding="utf-8")
    return folder


def test_one_invalid_pack_is_left_out_and_named_while_the_others_load(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = _folder_with_one_broken_pack(tmp_path)
    with caplog.at_level("WARNING"):
        catalog = load_catalog(folder)
    assert [pack.id for pack in catalog.packs] == ["data-parallelism"]
    assert catalog.problems and all("broken.yaml: question q (#1)" in problem for problem in catalog.problems)
    assert any(problem.endswith("choices: Field required") for problem in catalog.problems)
    assert any("broken.yaml" in record.getMessage() for record in caplog.records if record.levelname == "WARNING")


def test_a_folder_without_one_valid_pack_still_refuses_to_load(tmp_path: Path) -> None:
    folder = tmp_path / "content"
    folder.mkdir()
    (folder / "broken.yaml").write_text(BROKEN_PACK, encoding="utf-8")
    with pytest.raises(InvalidPack, match=r"broken\.yaml"):
        load_catalog(folder)


def test_a_curriculum_naming_a_pack_that_did_not_load_is_left_out_and_named(tmp_path: Path) -> None:
    folder = _folder_with_one_broken_pack(tmp_path)
    (folder / "curricula").mkdir()
    (folder / "curricula" / "track.yaml").write_text(
        "id: track\ntitle: Track\ndescription: A track.\npacks: [data-parallelism, broken]\n", encoding="utf-8"
    )
    catalog = load_catalog(folder)
    assert catalog.curricula == ()
    assert any("track.yaml: curriculum track: no such pack: broken" in problem for problem in catalog.problems)


def test_content_check_still_fails_on_the_pack_the_bot_leaves_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder_with_one_broken_pack(tmp_path)
    assert main(["content", "check", str(folder)]) != 0
    assert "broken.yaml" in capsys.readouterr().err
