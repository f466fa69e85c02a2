"""Reading an uploaded pack file (bot/content/upload.py, formats/kahoot.py): every format `content import` reads, YAML
packs and Kahoot's .xlsx template; and the refusals of unsafe files (size, type, zip bombs, formulas, macros,
encoding), each one clear line, with nothing parsed past it."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from bot.content.loader import load_catalog
from bot.content.upload import DUPLICATES_SHOWN, check_upload, read_upload, sniff
from bot.content.upload_limits import UploadLimits
from bot.errors import InvalidPack
from tests.upload_support import (
    KAHOOT_EXPLANATIONS,
    KAHOOT_ROWS,
    kahoot_workbook,
    many_members,
    replaced_member,
    with_member,
    zip_bomb,
)

FORMATS = Path(__file__).resolve().parents[1] / "data" / "formats"
CONTENT = Path(__file__).resolve().parents[2] / "content"


def refusal(filename: str, data: bytes, limits: UploadLimits | None = None) -> str:
    with pytest.raises(InvalidPack) as caught:
        read_upload(filename, data, limits)
    return str(caught.value)


# --- Kahoot's template ------------------------------------------------------------------------------------------


def test_kahoot_template_reads_each_question_row() -> None:
    upload = read_upload("Team Runbooks.xlsx", kahoot_workbook())
    assert upload.format == "kahoot"
    assert upload.pack.id == "team-runbooks"
    questions = upload.pack.questions
    assert [q.prompt for q in questions] == [row[0] for row in KAHOOT_ROWS]
    assert questions[0].choices == [
        "Deletes the deployment",
        "Rolls back to the previous revision",
        "Restarts every pod",
        "Scales to zero",
    ]
    assert questions[0].answer == 2
    assert questions[1].choices == ["80", "443", "8080", "22"] and questions[1].answer == 2
    assert questions[2].choices == ["True", "False"] and questions[2].answer == 1
    assert questions[3].choices == ["RabbitMQ", "Nginx", "Grafana"]
    assert [q.line for q in questions] == [9, 10, 11, 12]
    assert all(q.explanation is None for q in questions)


def test_kahoot_explanation_column_makes_complete_questions() -> None:
    upload = read_upload("ops.xlsx", kahoot_workbook(explanations=KAHOOT_EXPLANATIONS))
    assert [q.explanation for q in upload.pack.questions] == list(KAHOOT_EXPLANATIONS)
    checked = check_upload(upload)
    assert checked.pack is not None and len(checked.pack.questions) == len(KAHOOT_ROWS) and not checked.drafts
    half = check_upload(read_upload("ops.xlsx", kahoot_workbook(explanations=KAHOOT_EXPLANATIONS[:2])))
    assert checked.pack is not None and len(half.drafts) == 2


def test_kahoot_without_a_header_reads_from_row_8() -> None:
    upload = read_upload("quiz.xlsx", kahoot_workbook(header_row=None, first_row=8))
    assert len(upload.pack.questions) == len(KAHOOT_ROWS)
    assert upload.pack.questions[0].line == 8


def test_kahoot_header_on_row_7_is_found() -> None:
    upload = read_upload("quiz.xlsx", kahoot_workbook(header_row=7, first_row=8))
    assert [q.line for q in upload.pack.questions] == [8, 9, 10, 11]


def test_kahoot_several_correct_answers_are_refused_with_their_rows() -> None:
    rows = [*KAHOOT_ROWS, ("Which are clouds?", "AWS", "GCP", "Vim", "Azure", 20, "1,2,4")]
    message = refusal("quiz.xlsx", kahoot_workbook(rows))
    assert "quiz.xlsx: row 13: 1, 2, 4 are all marked correct" in message
    assert "exactly one correct answer" in message


def test_kahoot_lists_every_bad_row() -> None:
    rows = [
        ("Fine?", "yes", "no", None, None, 20, 1),
        ("No answer marked", "a", "b", None, None, 20, None),
        ("Out of range", "a", "b", None, None, 20, 7),
        ("Empty correct cell", "a", "b", None, None, 20, 3),
        (None, "orphan", "answers", None, None, 20, 1),
    ]
    with pytest.raises(InvalidPack) as caught:
        read_upload("quiz.xlsx", kahoot_workbook(rows))
    lines = [str(problem) for problem in caught.value.problems]
    assert len(lines) == 4
    assert lines[0].startswith("quiz.xlsx: row 10: no correct answer")
    assert lines[1].startswith("quiz.xlsx: row 11: the correct answer '7'")
    assert lines[2].startswith("quiz.xlsx: row 12: answer 3 is marked correct but its cell is empty")
    assert lines[3].startswith("quiz.xlsx: row 13: the question (column B) is empty")


def test_kahoot_formula_cell_is_refused() -> None:
    message = refusal("quiz.xlsx", kahoot_workbook(formula='=HYPERLINK("http://x","click")'))
    assert "cell I12 of sheet 'Sheet1' holds a formula" in message


def test_kahoot_formula_in_another_sheet_is_refused() -> None:
    from openpyxl import Workbook

    book = Workbook()
    assert book.active is not None
    book.active["B9"] = "q"
    other = book.create_sheet("Hidden")
    other["C3"] = "=1+1"
    import io

    buffer = io.BytesIO()
    book.save(buffer)
    assert "cell C3 of sheet 'Hidden' holds a formula" in refusal("quiz.xlsx", buffer.getvalue())


def test_kahoot_empty_workbook_says_where_questions_go() -> None:
    assert "no question found" in refusal("quiz.xlsx", kahoot_workbook(rows=[]))


# --- hostile files ------------------------------------------------------------------------------------------------


def test_zip_bomb_is_refused_before_it_is_opened(monkeypatch: pytest.MonkeyPatch) -> None:
    bomb = zip_bomb()
    assert len(bomb) < 200_000

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("unpacked")

    monkeypatch.setattr("openpyxl.load_workbook", never)
    monkeypatch.setattr(zipfile.ZipFile, "read", never)
    monkeypatch.setattr(zipfile.ZipFile, "open", never)
    message = refusal("quiz.xlsx", bomb)
    assert message == "the workbook would unpack to 50000029 bytes, more than 20000000: it was not opened"


def test_highly_compressed_member_is_refused_by_its_ratio() -> None:
    message = refusal("quiz.xlsx", zip_bomb(unpacked=5_000_000))
    assert "xl/worksheets/sheet1.xml inside the workbook is compressed" in message
    assert "as a zip bomb is" in message


def test_zip_with_too_many_members_is_refused() -> None:
    assert "holds 500 files inside" in refusal("quiz.xlsx", many_members(500))


def test_macro_workbooks_are_refused() -> None:
    assert "carries macros" in refusal("quiz.xlsm", kahoot_workbook())
    assert "carries macros" in refusal("quiz.xlsx", with_member(kahoot_workbook(), "xl/vbaProject.bin", b"\1" * 64))


def test_xml_entities_are_refused() -> None:
    laughs = (
        b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]><sst>&lol2;</sst>'
    )
    crafted = replaced_member(kahoot_workbook(), "xl/workbook.xml", laughs)
    assert "declares entities" in refusal("quiz.xlsx", crafted)


def test_oversize_file_is_refused_before_reading() -> None:
    message = refusal("quiz.csv", b"question,a,b,correct\n" + b"x" * 2_000_000)
    assert message == (
        "the file has 2000021 bytes; uploads are limited to 1000000 bytes: split the pack into smaller files"
    )
    assert "limited to 100 bytes" in refusal("quiz.gift", b"x" * 101, UploadLimits(max_bytes=100))


@pytest.mark.parametrize(
    ("filename", "data", "expected"),
    [
        ("quiz.pdf", b"%PDF-1.7", ".pdf files cannot be imported; upload one of .yaml, .yml"),
        ("quiz", b"question", "no extension files cannot be imported"),
        ("quiz.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "old .xls spreadsheets cannot be read"),
        ("quiz.csv", b"%PDF-1.7 binary", "the file is named .csv but holds a PDF document"),
        ("quiz.txt", kahoot_workbook(), "the file is named .txt but holds a ZIP archive"),
        ("quiz.xlsx", b"question,a,b\n", "the file is named .xlsx but holds text"),
        ("quiz.xlsx", b"\x89PNG\r\n", "the file is named .xlsx but holds a PNG image"),
        ("quiz.gift", b"::q:: a {=b ~c}\x00", "holds binary data (NUL bytes)"),
        ("quiz.gift", b"::q:: caf\xe9 {=b ~c}", "the file is not UTF-8 text (byte 0xe9 at line 1, column 10)"),
        ("quiz.yaml", b"", "the file is empty"),
    ],
)
def test_unsafe_or_unknown_files_get_one_line(filename: str, data: bytes, expected: str) -> None:
    message = refusal(filename, data)
    assert expected in message
    assert "\n" not in message


def test_sniff_knows_the_common_binaries() -> None:
    assert sniff(b"PK\x03\x04rest") == "zip"
    assert sniff(b"%PDF-1.4") == "pdf"
    assert sniff(b"question,answer") is None


# --- the formats content import reads, and YAML -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("sample-aiken.txt", "aiken"),
        ("sample-opentdb.json", "opentdb"),
        ("sample-text.txt", "text"),
        ("sample.csv", "csv"),
        ("sample.gift", "gift"),
    ],
)
def test_every_import_format_reads(name: str, fmt: str) -> None:
    upload = read_upload(name, (FORMATS / name).read_bytes())
    assert upload.format == fmt
    assert upload.pack.questions


def test_yaml_pack_reads_whole_and_checks_clean() -> None:
    data = (CONTENT / "data-parallelism.yaml").read_bytes()
    upload = read_upload("data-parallelism.yaml", data)
    assert upload.format == "yaml"
    checked = check_upload(upload)
    assert checked.pack is not None and not checked.drafts
    assert checked.pack.id == "data-parallelism"


def test_yaml_skeleton_with_todo_explanations_becomes_drafts() -> None:
    skeleton = b"""id: team-ops
title: Team ops
description: ""
questions:
  - id: q1
    prompt: Which command shows pods?
    choices: [kubectl get pods, kubectl logs]
    answer: 1
    explanation: "`kubectl get pods` lists them. Logs show a pod's output."
  - id: q2
    prompt: Which port is SSH?
    choices: ["22", "80"]
    answer: 1
    explanation: "TODO: explain why the answer is right"
"""
    checked = check_upload(read_upload("team-ops.yaml", skeleton))
    assert checked.pack is not None and [q.id for q in checked.pack.questions] == ["q1"]
    assert [q.id for q in checked.drafts] == ["q2"]


def test_yaml_with_a_schema_error_lists_it() -> None:
    bad = b"id: team-ops\ntitle: T\nquestions:\n  - id: q1\n    prompt: P\n    choices: [a, b]\n    answer: 5\n"
    with pytest.raises(InvalidPack) as caught:
        check_upload(read_upload("team.yaml", bad))
    assert str(caught.value) == "team.yaml: question q1 (#1): answer: answer 5 is not one of the 2 choices"


# --- sorting: complete questions, drafts, problems ----------------------------------------------------------------


def test_kahoot_questions_become_drafts_with_a_title_from_the_file() -> None:
    checked = check_upload(read_upload("team_runbooks.xlsx", kahoot_workbook()))
    assert checked.pack is None
    assert len(checked.drafts) == len(KAHOOT_ROWS)
    assert checked.pack_id == "team-runbooks"


def test_aiken_questions_are_drafts_and_gift_questions_with_feedback_are_complete() -> None:
    aiken = check_upload(read_upload("a.txt", (FORMATS / "sample-aiken.txt").read_bytes()))
    assert aiken.pack is None and aiken.drafts
    gift = check_upload(read_upload("sample.gift", (FORMATS / "sample.gift").read_bytes()))
    assert gift.pack is not None


def test_plain_text_without_answers_is_refused_with_each_line() -> None:
    upload = read_upload("quiz.txt", (FORMATS / "sample-text.txt").read_bytes())
    with pytest.raises(InvalidPack) as caught:
        check_upload(upload)
    lines = [str(problem) for problem in caught.value.problems]
    assert lines and all("no correct answer is marked" in line for line in lines)
    assert lines[0].startswith("quiz.txt: line ")


def test_near_duplicates_of_existing_packs_are_warned() -> None:
    catalog = load_catalog(CONTENT)
    data = (CONTENT / "fsdp.yaml").read_bytes().replace(b"id: fsdp", b"id: copy-of-fsdp", 1)
    checked = check_upload(read_upload("copy.yaml", data), catalog.packs)
    assert any(w.rule == "near-duplicate" for w in checked.warnings)


def test_a_file_of_near_identical_prompts_stops_the_duplicate_search_early() -> None:
    rows = [(f"Which port does service number {i} use?", "1", "2", "3", "4", 20, (i % 4) + 1) for i in range(300)]
    explanations = [f"Service {i} uses its own port. The runbook says which." for i in range(300)]
    checked = check_upload(read_upload("ports.xlsx", kahoot_workbook(rows, explanations=explanations)))
    duplicates = [w for w in checked.warnings if w.rule == "near-duplicate"]
    assert len(duplicates) == DUPLICATES_SHOWN  # not one for each of the ~45,000 similar pairs


def test_an_image_file_is_refused_and_an_image_url_is_kept() -> None:
    pack = b"""id: team-ops
title: Team ops
questions:
  - id: q1
    prompt: Which dashboard is this?
    choices: [Grafana, Kibana]
    answer: 1
    explanation: "Grafana draws it. Kibana looks different."
    image: {file: dashboard.png, alt: a dashboard}
  - id: q2
    prompt: Which logo is this?
    choices: [Postgres, MySQL]
    answer: 1
    explanation: "The elephant is Postgres. MySQL has a dolphin."
    image: {url: "https://www.postgresql.org/media/img/about/press/elephant.png", alt: an elephant}
"""
    with pytest.raises(InvalidPack) as caught:
        check_upload(read_upload("team-ops.yaml", pack))
    assert [str(p) for p in caught.value.problems] == [
        "team-ops.yaml: q1: the image 'dashboard.png' is a file on the server, which an upload cannot bring: "
        "give its https URL instead"
    ]
    kept = check_upload(
        read_upload("team-ops.yaml", pack.replace(b"{file: dashboard.png", b'{url: "https://grafana.com/a.png"'))
    )
    assert kept.pack is not None and kept.pack.questions[0].image is not None
