"""`quizbot content import` and `export`: every format's samples, the round trips, the errors (with their line
or record), and the all-or-nothing writing of the output."""

from __future__ import annotations

import csv
import string
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.cli import main
from bot.content.drafts import DraftPack, DraftQuestion, draft_from_mapping, draft_from_model, to_yaml
from bot.content.formats import export_text, guess_format, import_file, import_text
from bot.content.loader import load_pack_model, parse_pack_model
from bot.errors import InvalidPack
from tests.conftest import CONTENT, REPO

FORMATS_DIR = REPO / "tests" / "data" / "formats"
SAMPLES = {
    "sample-text.txt": "text",
    "sample.gift": "gift",
    "sample-aiken.txt": "aiken",
    "sample-opentdb.json": "opentdb",
    "sample.csv": "csv",
}
SHIPPED = sorted(CONTENT.glob("*.yaml"))
TEMPLATE = CONTENT / "templates" / "pack-template.csv"


def _import(text: str, fmt: str, name: str = "in.txt") -> DraftPack:
    return import_text(text, fmt, source=name, name=name).pack


def _error(text: str, fmt: str, name: str = "in.txt") -> str:
    with pytest.raises(InvalidPack) as caught:
        import_text(text, fmt, source=name, name=name)
    return str(caught.value)


# Round trips


@pytest.mark.parametrize("fmt", ["gift", "csv"])
@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_pack_round_trips(path: Path, fmt: str) -> None:
    model = load_pack_model(path)
    draft = draft_from_model(model)
    back = _import(export_text(draft, fmt), fmt, name=f"exported.{fmt}")
    assert back == draft
    # ... and the YAML written from the re-import is the very same pack, seed flag and all.
    assert parse_pack_model(to_yaml(back), source="again.yaml") == model


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_samples_import_in_their_format_and_round_trip(name: str) -> None:
    result = import_file(FORMATS_DIR / name)
    assert result.format == SAMPLES[name]
    draft = result.pack
    assert draft.questions
    assert draft_from_mapping(yaml.safe_load(to_yaml(draft))) == draft  # the YAML skeleton keeps everything
    assert _import(export_text(draft, "csv"), "csv", "x.csv") == draft
    if all(q.answer is not None for q in draft.questions):
        assert _import(export_text(draft, "gift"), "gift", "x.gift") == draft
    else:
        with pytest.raises(ValueError, match="has no answer"):
            export_text(draft, "gift")


def test_cli_export_then_import_gives_the_same_pack(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = load_pack_model(CONTENT / "data-parallelism.yaml")
    for fmt in ("gift", "csv"):
        exported = tmp_path / f"dp.{fmt}"
        assert main(["content", "export", "data-parallelism", "--format", fmt, "-o", str(exported)]) == 0
        imported = tmp_path / f"dp-{fmt}.yaml"
        assert main(["content", "import", str(exported), "-o", str(imported)]) == 0
        assert "now run `quizbot content check" in capsys.readouterr().err
        assert load_pack_model(imported) == original
        assert main(["content", "check", "--strict", str(imported), "--against", str(tmp_path / "none")]) == 0


def test_cli_csv_export_writes_no_live_formula_and_reads_back_the_same_pack(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A choice such as `-1` or a prompt such as `=SUM(...)` would run as a formula in Excel or Sheets: the CSV
    export writes it with an apostrophe in front, and the import takes the apostrophe off again."""
    pack = tmp_path / "formulas.yaml"
    pack.write_text(
        yaml.safe_dump(
            {
                "id": "formulas",
                "title": "Formulas",
                "description": "Cells a spreadsheet would run",
                "questions": [
                    {
                        "id": "signs",
                        "prompt": "=SUM(A1:A2) is what?",
                        "choices": ["-1", "+1", "@0", "'quoted"],
                        "answer": 2,
                        "explanation": "-1 and +1 differ in sign.",
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    exported = tmp_path / "formulas.csv"
    assert main(["content", "export", str(pack), "--format", "csv", "-o", str(exported)]) == 0
    with exported.open(encoding="utf-8", newline="") as handle:
        cells = [cell for row in csv.reader(handle) for cell in row]
    assert "'=SUM(A1:A2) is what?" in cells and "'-1" in cells and "'+1" in cells and "''quoted" in cells
    assert not [cell for cell in cells if cell.startswith(("=", "+", "-", "@", "\t", "\r"))]
    imported = tmp_path / "again.yaml"
    assert main(["content", "import", str(exported), "-o", str(imported)]) == 0
    assert load_pack_model(imported) == load_pack_model(pack)
    capsys.readouterr()


def test_export_by_path_to_stdout_and_format_from_the_extension(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["content", "export", str(CONTENT / "model-pipeline-parallelism.yaml"), "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("id,question,choice1,choice2,choice3,choice4,correct,")
    assert main(["content", "export", "model-pipeline-parallelism", "-o", str(tmp_path / "mp.gift")]) == 0
    assert (tmp_path / "mp.gift").read_text(encoding="utf-8").startswith("// Exported by `quizbot content export`")
    assert main(["content", "export", "model-pipeline-parallelism"]) == 2
    # every format it writes, yaml too, as the file's suffix would choose it
    assert "give --format gift, csv or yaml (or an OUT ending in .gift, .csv or .yaml)" in capsys.readouterr().err


def test_export_of_an_unknown_pack_lists_the_packs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["content", "export", "nope", "--format", "gift"]) == 2
    err = capsys.readouterr().err
    assert "there is no valid pack called 'nope'" in err
    assert "; packs: " in err and "data-parallelism" in err and "model-pipeline-parallelism" in err
    assert main(["content", "export", "missing/pack.yaml", "--format", "gift"]) == 2
    assert "missing/pack.yaml: no such pack file" in capsys.readouterr().err


def test_export_refuses_an_invalid_pack(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: bad\ntitle: Bad\nquestions: []\n", encoding="utf-8")
    assert main(["content", "export", str(bad), "--format", "csv"]) == 2
    assert "bad.yaml: pack: questions" in capsys.readouterr().err


def test_the_spreadsheet_template_imports_into_a_pack_that_passes_strict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "example.yaml"
    assert main(["content", "import", str(TEMPLATE), "-o", str(out)]) == 0
    assert main(["content", "check", "--strict", str(out)]) == 0
    pack = load_pack_model(out)
    assert pack.id == "example-pack"
    assert [q.answer for q in pack.questions] == [2, 2, 1]  # a number, a letter, the text of the choice
    assert len(pack.questions[2].choices) == 3  # its fourth choice is left empty


def test_the_catalog_does_not_load_the_template_as_a_pack() -> None:
    from bot.content import load_catalog

    ids = {p.id for p in load_catalog(CONTENT).packs}
    assert "example-pack" not in ids
    assert len(ids) == len(list(CONTENT.glob("*.yaml")))


# Format guessing


def test_format_is_guessed_from_the_extension_and_then_the_content(tmp_path: Path) -> None:
    for name, fmt in SAMPLES.items():
        path = FORMATS_DIR / name
        assert guess_format(path, path.read_text(encoding="utf-8")) == fmt
    gift_txt = (FORMATS_DIR / "sample.gift").read_text(encoding="utf-8")
    assert guess_format(Path("moodle.txt"), gift_txt) == "gift"
    assert guess_format(Path("export"), (FORMATS_DIR / "sample-opentdb.json").read_text(encoding="utf-8")) == "opentdb"
    assert guess_format(Path("sheet.txt"), "question;choice1;choice2;correct\nQ;a;b;1\n") == "csv"
    assert guess_format(Path("notes.txt"), "just some notes\n") == "text"  # whose reader says what it expected


def test_explicit_format_wins(tmp_path: Path) -> None:
    path = tmp_path / "quiz.data"
    path.write_text((FORMATS_DIR / "sample-aiken.txt").read_text(encoding="utf-8"), encoding="utf-8")
    assert import_file(path, "aiken").format == "aiken"


# What each format reads


def test_gift_sample_reads_titles_feedback_categories_and_skips_the_rest() -> None:
    result = import_file(FORMATS_DIR / "sample.gift")
    by_id = {q.id: q for q in result.pack.questions}
    assert list(by_id) == ["nccl-allreduce", "ring-steps", "ddp-broadcast", "zero-stage-1", "s-q5"]
    allreduce = by_id["nccl-allreduce"]
    assert allreduce.choices == ["AllReduce", "Broadcast", "ReduceScatter", "AllGather"]
    assert allreduce.answer == 1
    assert allreduce.explanation is not None and allreduce.explanation.startswith("AllReduce reduces the buffers")
    assert allreduce.tags == ["networking", "collectives", "nccl"]  # $CATEGORY parts, then [tag:...]
    assert allreduce.difficulty == "medium"
    assert allreduce.references == ["https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/usage/collectives.html"]
    assert by_id["ring-steps"].choices[2] == "2(N - 1)"
    assert by_id["ddp-broadcast"].choices == ["True", "False"]
    assert by_id["ddp-broadcast"].answer == 1
    assert by_id["ddp-broadcast"].explanation is not None
    assert by_id["ddp-broadcast"].explanation.startswith("DDP broadcasts the parameters")  # the right-answer one
    assert by_id["zero-stage-1"].answer == 2
    assert by_id["zero-stage-1"].explanation == (
        "Stage 1 shards only the optimizer state. Stage 3 is the one that shards the parameters."
    )  # general feedback, for want of answer feedback
    assert by_id["zero-stage-1"].tags == ["training"]
    missing_word = by_id["s-q5"]
    assert missing_word.prompt == (
        "Gradient accumulation _____ the gradients of several micro-batches before one optimizer step."
    )
    assert missing_word.explanation is None
    assert [(s.line, s.reason.split(" question")[0]) for s in result.skipped] == [
        (34, "short-answer"),
        (36, "matching"),
        (38, "numerical"),
        (40, "essay"),
        (42, "description skipped: it has no answers"),
        (44, "partial-credit (several right answers)"),
    ]


def test_gift_import_lists_skipped_questions_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "gift.yaml"
    assert main(["content", "import", str(FORMATS_DIR / "sample.gift"), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "skipped line 34: short-answer question (short) skipped: only multiple-choice and true/false" in err
    assert "skipped line 44: partial-credit (several right answers) question (several) skipped" in err
    assert f"wrote {out}: 5 questions from gift, 6 skipped; fill in 3 TODO blanks" in err
    assert main(["content", "check", str(out)]) == 1  # the title, the description, one explanation


def test_gift_escapes_html_markers_ids_and_several_right_answers() -> None:
    text = (
        "// [id:my-id] [tag:Web Basics]\n"
        "::Ignored title::[html]<p>What does <b>&lt;br&gt;</b> do?</p>{\n"
        "  =Breaks the line \\= a new line#Right\\: it ends the line.\n"
        "  ~Makes text bold \\{b\\}\n"
        "  ~Nothing \\~ at all\\\\\n"
        "}\n\n"
        "Two right answers?{=a =b ~c}\n"
    )
    result = import_text(text, "gift", source="x.gift", name="x.gift")
    (question,) = result.pack.questions
    assert question.id == "my-id"
    assert question.tags == ["web-basics"]
    assert question.prompt == "What does <br> do?"
    assert question.choices == ["Breaks the line = a new line", "Makes text bold {b}", "Nothing ~ at all\\"]
    assert question.explanation == "Right: it ends the line."
    assert [s.line for s in result.skipped] == [8]
    assert "several-right-answers question skipped" in result.skipped[0].reason


def test_gift_export_writes_true_false_and_escapes() -> None:
    draft = DraftPack(
        id="p",
        title="P: a pack",
        description="Line one\nline two \\ done",
        questions=[
            DraftQuestion("tf", "Is 1 {one}?", ["True", "False"], 1, "Yes: # it is."),
            DraftQuestion("mc", "%50% or [html]?", ["%50%", "[html]x", "a=b"], 3, None, ["t"], "hard"),
        ],
    )
    text = export_text(draft, "gift")
    assert "::tf::Is 1 \\{one\\}? {TRUE##Yes\\: \\# it is.}" in text
    assert "\t~[plain]%50%" in text
    assert "\t~[plain][html]x" in text
    assert "\t=a\\=b" in text
    assert "// pack_description: Line one\\nline two \\\\ done" in text
    assert _import(text, "gift", "x.gift") == draft


def test_aiken_sample() -> None:
    pack = import_file(FORMATS_DIR / "sample-aiken.txt").pack
    assert [q.answer for q in pack.questions] == [2, 3, 1]
    assert pack.questions[2].prompt == "What does activation checkpointing trade for lower memory use?"
    assert pack.questions[1].choices[0] == "Whole layers to different GPUs"
    assert all(q.explanation is None for q in pack.questions)
    assert pack.title is None and pack.description is None
    assert [q.id for q in pack.questions] == ["sa-q1", "sa-q2", "sa-q3"]


def test_opentdb_sample_decodes_entities_and_keeps_category_and_difficulty() -> None:
    pack = import_file(FORMATS_DIR / "sample-opentdb.json").pack
    first, boolean, third, _ = pack.questions
    assert first.prompt == 'What does "GPU" stand for?'
    assert first.choices[first.answer - 1] == "Graphics Processing Unit"  # type: ignore[operator]
    assert first.tags == ["science-computers"]
    assert [q.difficulty for q in pack.questions] == ["easy", "medium", "hard", "easy"]
    assert boolean.choices == ["True", "False"] and boolean.answer == 1
    assert third.prompt == "Which of these is a 'collective' operation in MPI?"
    assert third.answer == 3  # the correct answer rotates through the positions: record 3, position 3
    assert third.choices == ["MPI_Send", "MPI_Recv", "MPI_Allreduce", "MPI_Probe"]
    assert pack.title == "Science: Computers"  # the one category all records share


def test_csv_sample_reads_numbers_letters_texts_and_pack_columns() -> None:
    pack = import_file(FORMATS_DIR / "sample.csv").pack
    assert (pack.id, pack.title, pack.description) == (
        "sharded-training",
        "Sharded Training",
        "ZeRO, FSDP and what they shard.",
    )
    assert [q.answer for q in pack.questions] == [1, 3, 1]
    assert [len(q.choices) for q in pack.questions] == [4, 3, 2]
    assert pack.questions[0].tags == ["fsdp", "memory"]
    assert pack.questions[2].tags == ["fsdp", "collectives"]
    assert pack.questions[2].id == "st-q3"
    assert pack.questions[2].explanation is None


def test_csv_with_semicolons_letter_columns_and_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "sheet.csv"
    path.write_bytes(
        "\ufeffQuestion;A;B;C;Correct;References\nWhich?;x;y;z;c;https://a.org/1, https://a.org/2\n".encode()
    )
    (question,) = import_file(path).pack.questions
    assert question.choices == ["x", "y", "z"]
    assert question.answer == 3
    assert question.references == ["https://a.org/1", "https://a.org/2"]


def test_csv_correct_prefers_the_number_over_a_choice_with_that_text() -> None:
    pack = _import("question,choice1,choice2,choice3,correct\nHow many?,2,4,6,2\nAnd now?,10,20,30,20\n", "csv")
    assert [q.answer for q in pack.questions] == [2, 2]  # "2" is choice 2 (4); "20" is no number, so its text


def test_text_import_keeps_working_with_an_explicit_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "mixed.yaml"
    assert main(["content", "import", str(FORMATS_DIR / "sample-text.txt"), "--id", "mixed", "-o", str(out)]) == 0
    data = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert data["id"] == "mixed"
    assert [q["id"] for q in data["questions"]] == ["m-q1", "m-q2"]
    assert main(["content", "import", str(FORMATS_DIR / "sample-text.txt"), "--id", "Not A Slug"]) == 2
    assert "--id: pack id 'Not A Slug' is not lowercase letters" in capsys.readouterr().err


# Malformed inputs: the exact line or record, and the reason


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Q? {=a ~b", "line 1: the answers opened with '{' are not closed with '}'"),
        ("Q? =a ~b}", "line 1: '}' without an opening '{' (write \\} for a brace)"),
        ("// c\nQ1 {=a ~b}\nQ2 {=c ~d}", "line 3: a second '{' after the answers: put a blank line between questions"),
        ("Q {~a ~b}", "line 1: no right answer: mark the correct choice with = instead of ~"),
        ("::t Q {=a ~b}", "line 1: the question name opened with :: is not closed with ::"),
        ("\n\nQ {\n  =a\n  ~\n}", "line 5: answer 2 is empty"),
        ("Q {\n=a\n~A\n}", "line 3: choice 2 'A' repeats choice 1"),
        ("Q {=a {~b}", "line 1: '{' inside the answers (write \\{ for a brace)"),
        ("Q {oops =a ~b}", "line 1: text before the first answer: 'oops' (start each with = or ~)"),
        ("// difficulty: brutal\n::q::Q {=a ~b}", "line 2: difficulty 'brutal' is not one of easy, medium, hard"),
        ("// references: see the docs\nQ {=a ~b}", "line 2: reference 'see' is not an http(s) URL"),
        ("// pack_id: a\n// pack_id: b\n\nQ {=a ~b}", "line 2: pack_id is given twice (first on line 1)"),
        ("// pack_id: Bad Id\n\nQ {=a ~b}", "line 1: pack id 'Bad Id' is not lowercase letters, digits and hyphens"),
        ("// pack_verbatim_seed: maybe\n\nQ {=a ~b}", "line 1: pack_verbatim_seed 'maybe' is not true or false"),
        ("Q {=a ~b}\n\nWhat \ufdd0? {=a ~b}", "line 3: the character U+FDD0 is not text"),
    ],
)
def test_gift_errors(text: str, message: str) -> None:
    assert _error(text, "gift", "x.gift") == f"x.gift: {message}"


def test_gift_with_nothing_to_import() -> None:
    assert _error("Q {=a =b}\n", "gift", "x.gift") == (
        "x.gift: no question to import (only multiple-choice and true/false questions are)"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Q?\nA. a\nB. b\n", "line 1: the question has no ANSWER: line (like `ANSWER: B`)"),
        ("Q?\nA. a\nB. b\nC. c\nD. d\nANSWER: E\n", "line 6: ANSWER: 'E' is not one of the choices A-D"),
        ("Q?\nA. a\nC. c\nANSWER: A\n", "line 3: expected choice B, found choice C"),
        ("Q?\nB. b\nANSWER: A\n", "line 2: expected choice A, found choice B"),
        ("Q?\n\nA. a\n", "line 1: the question has no choices (lines like `A. text`)"),
        ("Q?\nANSWER: A\n", "line 2: ANSWER: comes before any choice (lines like `A. text`)"),
        ("ANSWER: A\n", "line 1: ANSWER: comes before any question"),
        ("A. a\n", "line 1: choice A comes before any question"),
        ("Q?\nA. a\nB. b\nnot a choice\n", "line 4: expected choice C or an ANSWER: line, found 'not a choice'"),
        ("Q?\nA. a\nANSWER: A\n", "line 1: the question has 1 choice; at least 2"),
        ("Q1?\nA. a\nB. b\nANSWER: A\n\nQ2?\nA. x\nB. x\nANSWER: B\n", "line 8: choice 2 'x' repeats choice 1"),
    ],
)
def test_aiken_errors(text: str, message: str) -> None:
    assert _error(text, "aiken", "x.txt") == f"x.txt: {message}"


def _tdb(*records: Any, code: int = 0) -> str:
    import json

    return json.dumps({"response_code": code, "results": list(records)})


GOOD_RECORD = {
    "type": "multiple",
    "difficulty": "easy",
    "category": "General",
    "question": "Q?",
    "correct_answer": "a",
    "incorrect_answers": ["b", "c"],
}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"response_code": 0, "results": [}', "line 1, column 34: not valid JSON: Expecting value"),
        ("[1, 2]", 'line 1: expected an object like {"response_code": 0, "results": [...]}'),
        (
            _tdb(code=1),
            "response_code: 1 (no results: the API could not return that many questions); nothing to import",
        ),
        (_tdb(GOOD_RECORD, {**GOOD_RECORD, "type": "essay"}), "record 2: type 'essay' is not multiple or boolean"),
        (
            _tdb(GOOD_RECORD, GOOD_RECORD, {**GOOD_RECORD, "correct_answer": None}),
            "record 3: correct_answer is missing or not a text",
        ),
        (_tdb({**GOOD_RECORD, "incorrect_answers": "b"}), "record 1: incorrect_answers must be a list of texts"),
        (
            _tdb({**GOOD_RECORD, "type": "boolean", "correct_answer": "Yes"}),
            "record 1: correct_answer 'Yes' of a boolean question is not True or False",
        ),
        (
            _tdb({**GOOD_RECORD, "correct_answer": "A &amp; B", "incorrect_answers": ["A & B"]}),
            "record 1: choice 2 'A & B' repeats choice 1",
        ),
        (
            _tdb({**GOOD_RECORD, "difficulty": "impossible"}),
            "record 1: difficulty 'impossible' is not one of easy, medium, hard",
        ),
        (_tdb("not an object"), "record 1: a result must be an object with type, question, correct_answer..."),
    ],
)
def test_opentdb_errors(text: str, message: str) -> None:
    assert _error(text, "opentdb", "x.json") == f"x.json: {message}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "question,choice1,choice2,colour\n",
            "line 1: unknown column 'colour'; the columns are question, "
            "choice1..choice10 (or a..j), correct, id, explanation, tags, difficulty, references, pack_id...",
        ),
        ("prompt,choice1,question\n", "line 1: column 'question' repeats the question column"),
        ("choice1,choice2\n", "line 1: no question column: the header needs question, choice1, choice2, ... correct"),
        ("question,choice1,choice3\n", "line 1: the choice columns skip choice 2"),
        ("question,a,choice1\n", "line 1: column 'choice1' is a second column for choice 1"),
        ("question,choice1\n", "line 1: fewer than 2 choice columns (choice1, choice2, ... or a, b, ...)"),
        (
            "question,a,b,c,d,correct\nQ?,w,x,y,z,1\nQ2?,w,x,y,z,E\n",
            "line 3: correct 'E' is not a choice number (1-4), letter (A-D) or choice text",
        ),
        ("question,a,b,correct\nQ?,x,y,1,extra\n", "line 2: 5 cells, but the header has 4 columns"),
        ("question,a,b,c,correct\nQ?,x,,z,1\n", "line 2: choice 2 is empty but a later choice is not"),
        ('question,a,b,correct\n"Q?\nstill Q?,x,y,1\n', "line 2: not valid CSV: unexpected end of data"),
        ("id,question,a,b,correct\nq1,Q?,x,y,1\n\nq1,Q2?,x,y,2\n", "line 4: id q1 is already used on line 2"),
        (
            "question,a,b,correct,difficulty\nQ?,x,y,1,tricky\n",
            "line 2: difficulty 'tricky' is not one of easy, medium, hard",
        ),
        (
            "question,a,b,correct,pack_title\nQ?,x,y,1,One\nQ2?,x,y,1,Two\n",
            "line 3: pack_title 'Two' differs from 'One' on line 2",
        ),
        ("question,a,b,correct\n,x,y,1\n", "line 2: the question is empty"),
        # a digit int() refuses, and more digits than it converts: the file's problem, not a crash
        (
            "question,a,b,correct\nQ?,x,y,²\n",
            "line 2: correct '²' is not a choice number (1-2), letter (A-B) or choice text",
        ),
        (
            "question,a,b,correct\nQ?,x,y," + "1" * 5000 + "\n",
            "line 2: correct '" + "1" * 5000 + "' is not a choice number (1-2), letter (A-B) or choice text",
        ),
        (
            "question,a,b,correct\nQ?,x,y,1,\n" + "Q?," + "x" * 301 + ",y,1\n",
            "line 3: choice 1 has 301 characters; at most 300",
        ),
        ("", "line 1: the file is empty: expected a header row (question, choice1, choice2, ...)"),
    ],
)
def test_csv_errors(text: str, message: str) -> None:
    assert _error(text, "csv", "x.csv") == f"x.csv: {message}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Title\n  • a\n1. Q?\n  • b\n", "line 2: a choice comes before any numbered question"),
        ("Title\n1. Q?\n  • a\n  • b\nstray text\n", "line 5: neither a numbered question nor a bulleted choice"),
        ("Title\n1. Q?\n  • a\n  • b\n2. R?\n  • c\n", "line 5: question 2 has 1 choice; at least 2"),
        ("Title\n1. Q?\n  • a\n  • A\n", "line 4: choice 2 'A' repeats choice 1"),
    ],
)
def test_text_errors(text: str, message: str) -> None:
    assert _error(text, "text", "x.txt") == f"x.txt: {message}"


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_non_utf8_input_is_one_clear_line(tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / name
    source.write_bytes((FORMATS_DIR / name).read_bytes().replace(b"\n", "\ncaf\u00e9 ".encode("latin-1"), 1))
    out = tmp_path / "out.yaml"
    assert main(["content", "import", str(source), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"quizbot: {source} is not UTF-8 text (byte 0xe9 at line 2, column 4); save it as UTF-8 and try again\n"
    )
    assert not out.exists()


# Writing: all or nothing, no overwrite without --force


def test_a_malformed_input_leaves_nothing_behind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "bad.gift"
    source.write_text("Q {=a ~b}\n\nR {~c ~d}\n", encoding="utf-8")
    out = tmp_path / "out" / "pack.yaml"
    out.parent.mkdir()
    assert main(["content", "import", str(source), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == f"quizbot: {source}: line 3: no right answer: mark the correct choice with = instead of ~\n"
    assert "Traceback" not in err
    assert list(out.parent.iterdir()) == []


def test_an_existing_output_is_kept_unless_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "pack.yaml"
    out.write_text("mine\n", encoding="utf-8")
    source = str(FORMATS_DIR / "sample-aiken.txt")
    assert main(["content", "import", source, "-o", str(out)]) == 2
    assert f"quizbot: {out} exists; pass --force to overwrite it, or give another -o" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "mine\n"
    assert main(["content", "import", source, "-o", str(out), "--force"]) == 0
    assert out.read_text(encoding="utf-8").startswith("# Generated by `quizbot content import` from sample-aiken.txt")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pack.yaml"]  # no temporary file left
    gift = tmp_path / "p.gift"
    gift.write_text("mine\n", encoding="utf-8")
    assert main(["content", "export", "data-parallelism", "-o", str(gift)]) == 2
    assert gift.read_text(encoding="utf-8") == "mine\n"
    assert main(["content", "export", "data-parallelism", "-o", str(gift), "--force"]) == 0
    assert gift.read_text(encoding="utf-8").startswith("// Exported")


def test_output_into_a_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "nope" / "pack.yaml"
    assert main(["content", "import", str(FORMATS_DIR / "sample-aiken.txt"), "-o", str(out)]) == 2
    assert f"cannot write {out}: the folder {out.parent} does not exist; create it or give another -o" in (
        capsys.readouterr().err
    )


def test_new_files_get_the_usual_permissions(tmp_path: Path) -> None:
    import os

    out = tmp_path / "pack.yaml"
    assert main(["content", "import", str(FORMATS_DIR / "sample-aiken.txt"), "-o", str(out)]) == 0
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask


def test_import_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["content", "import", str(FORMATS_DIR / "sample.csv")]) == 0
    captured = capsys.readouterr()
    assert yaml.safe_load(captured.out)["id"] == "sharded-training"
    assert captured.err == ""


def test_a_missing_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["content", "import", str(tmp_path / "nope.gift")]) == 2
    assert capsys.readouterr().err == f"quizbot: {tmp_path / 'nope.gift'}: cannot read: No such file or directory\n"


# Properties: any input imports or is refused with InvalidPack; any pack round-trips through GIFT and CSV


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["text", "gift", "aiken", "opentdb", "csv"]),
    st.lists(
        st.one_of(
            st.text(max_size=40),
            st.sampled_from(
                [
                    "{",
                    "}",
                    "=a",
                    "~b",
                    "::t::",
                    "// [tag:x]",
                    "ANSWER: A",
                    "A. x",
                    "B) y",
                    "1. Q?",
                    "  • c",
                    "question,a,b,correct",
                    "Q,x,y,1",
                    '"',
                    "#f",
                    "$CATEGORY: a/b",
                    "\\",
                ]
            ),
        ),
        max_size=15,
    ),
)
def test_any_input_imports_or_is_refused_cleanly(fmt: str, parts: list[str]) -> None:
    text = "\n".join(parts)
    try:
        result = import_text(text, fmt, source="fuzz", name="fuzz.txt")
    except InvalidPack as exc:
        message = str(exc)
    else:
        assert draft_from_mapping(yaml.safe_load(to_yaml(result.pack))) == result.pack
        return
    assert message.startswith("fuzz")
    assert "\n" not in message


_plain = (
    st.text(
        alphabet=st.characters(
            blacklist_categories=("Cs",), blacklist_characters="\r\ufdd0\ufdd1\ufdd2\ufdd3\ufdd4\ufdd5\ufdd6\ufdd7"
        ),
        min_size=1,
        max_size=40,
    )
    .map(str.strip)
    .filter(lambda s: bool(s) and not s.startswith("TODO"))
)
_slug = st.from_regex(r"\A[a-z0-9][a-z0-9-]{0,20}\Z")
_url = st.builds(
    lambda path: f"https://example.org/{path}", st.text(alphabet=string.ascii_letters + "/-_.?=&%", max_size=20)
)


@st.composite
def _drafts(draw: st.DrawFn) -> DraftPack:
    questions = []
    ids = draw(st.lists(_slug, min_size=1, max_size=4, unique=True))
    for question_id in ids:
        choices = draw(st.lists(_plain.filter(lambda s: len(s) <= 300), min_size=2, max_size=5, unique_by=str.casefold))
        questions.append(
            DraftQuestion(
                id=question_id,
                prompt=draw(_plain),
                choices=choices,
                answer=draw(st.integers(1, len(choices))),
                explanation=draw(st.none() | _plain),
                tags=draw(st.lists(_slug, max_size=3, unique=True)),
                difficulty=draw(st.none() | st.sampled_from(["easy", "medium", "hard"])),
                references=draw(st.lists(_url, max_size=2)),
            )
        )
    return DraftPack(
        id=draw(_slug),
        title=draw(st.none() | _plain),
        description=draw(st.none() | st.just("") | _plain),
        tags=draw(st.lists(_slug, max_size=3, unique=True)),
        verbatim_seed=draw(st.booleans()),
        questions=questions,
    )


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(_drafts(), st.sampled_from(["gift", "csv"]))
def test_any_pack_round_trips(draft: DraftPack, fmt: str) -> None:
    assert _import(export_text(draft, fmt), fmt, f"x.{fmt}") == draft
    assert draft_from_mapping(yaml.safe_load(to_yaml(draft))) == draft


def test_a_non_utf8_pack_fails_check_with_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = tmp_path / "latin.yaml"
    pack.write_bytes("id: latin\ntitle: Caf\u00e9\n".encode("latin-1"))
    assert main(["content", "check", str(pack)]) == 1
    err = capsys.readouterr().err
    assert f"FAIL {pack}: cannot read: not utf-8 text (byte 0xe9 at line 2, column 11); save it as UTF-8" in err
