"""Files a lead might upload, made in the tests: a workbook in Kahoot's spreadsheet template (built with openpyxl,
the layout of Kahoot's own template: a banner and instructions, the header on row 8, questions from row 9), and
the hostile ones (a zip bomb, a formula cell, a macro workbook, an oversize file)."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence

from openpyxl import Workbook

KAHOOT_HEADER = (
    "",
    "Question - max 120 characters",
    "Answer 1 - max 75 characters",
    "Answer 2 - max 75 characters",
    "Answer 3 - max 75 characters",
    "Answer 4 - max 75 characters",
    "Time limit (sec) – 5, 10, 20, 30, 60, 90, 120, or 240 secs",
    "Correct answer(s) - choose at least one",
)

KAHOOT_ROWS: tuple[tuple[object, ...], ...] = (
    (
        "What does `kubectl rollout undo` do?",
        "Deletes the deployment",
        "Rolls back to the previous revision",
        "Restarts every pod",
        "Scales to zero",
        20,
        2,
    ),
    ("Which port does HTTPS use by default?", 80, 443, 8080, 22, 10, "2"),
    ("Is DNS served over UDP?", True, False, None, None, 5, 1),
    ("Which of these is a message queue?", "RabbitMQ", "Nginx", "Grafana", None, 30, 1),
)
"""Four questions as a lead fills the template: text, numbers and booleans as answers, answers 3-4 optional."""

KAHOOT_EXPLANATIONS = (
    "`kubectl rollout undo` returns a deployment to its previous revision. The pods are replaced as in any rollout.",
    "HTTPS listens on port 443 unless told otherwise. Port 80 is plain HTTP.",
    "DNS answers most queries over UDP port 53. Large answers and zone transfers use TCP.",
    "RabbitMQ is a message broker. Nginx serves HTTP and Grafana draws dashboards.",
)
"""What a team adds in a column of its own, headed `Explanation`."""


def kahoot_workbook(
    rows: Sequence[Sequence[object]] = KAHOOT_ROWS,
    *,
    header_row: int | None = 8,
    first_row: int = 9,
    formula: str | None = None,
    extra_sheet: bool = False,
    explanations: Sequence[str] | None = None,
) -> bytes:
    """A workbook in Kahoot's template: rows (question, answers 1-4, time limit, correct) from `first_row` on,
    column A numbering them; `formula` writes that formula into a cell of the last question row (column I);
    `explanations` adds a team's own column J headed `Explanation`."""
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Sheet1"
    sheet["B2"] = "Quiz template"
    sheet["B3"] = (
        "Add questions, at least two answer alternatives, time limit and choose correct answers (at least one). "
        "Have fun creating your awesome quiz!"
    )
    sheet["B4"] = (
        "Remember: questions have a limit of 120 characters and answers can have 75 characters max. "
        "If several answers are correct, separate them with a comma."
    )
    sheet["B5"] = "See an example question below (don't forget to overwrite this with your first question!)"
    sheet["B6"] = (
        "And remember,  if you're not using Excel you need to export to .xlsx format before you upload to Kahoot!"
    )
    if header_row is not None:
        for column, text in enumerate(KAHOOT_HEADER, start=1):
            sheet.cell(row=header_row, column=column, value=text or None)
    for offset, values in enumerate(rows):
        number = first_row + offset
        sheet.cell(row=number, column=1, value=offset + 1)
        for column, value in enumerate(values, start=2):
            sheet.cell(row=number, column=column, value=value)
    if explanations is not None:
        if header_row is not None:
            sheet.cell(row=header_row, column=10, value="Explanation")
        for offset, text in enumerate(explanations):
            sheet.cell(row=first_row + offset, column=10, value=text)
    if formula is not None:
        sheet.cell(row=first_row + len(rows) - 1, column=9, value=formula)
    if extra_sheet:
        other = book.create_sheet("Notes")
        other["A1"] = "notes"
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def zip_bomb(unpacked: int = 50_000_000) -> bytes:
    """A zip named like a workbook whose one sheet unpacks from a few KB to `unpacked` bytes of zeros."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types/>')
        with archive.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as member:
            chunk = b"\0" * 1_000_000
            for _ in range(unpacked // len(chunk)):
                member.write(chunk)
    return buffer.getvalue()


def many_members(count: int = 500) -> bytes:
    """A zip with `count` tiny members."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for number in range(count):
            archive.writestr(f"xl/media/{number}.txt", "x")
    return buffer.getvalue()


def with_member(workbook: bytes, name: str, content: bytes) -> bytes:
    """The workbook with one more member (a macro project, a crafted XML)."""
    buffer = io.BytesIO(workbook)
    with zipfile.ZipFile(buffer, "a") as archive:
        archive.writestr(name, content)
    return buffer.getvalue()


def replaced_member(workbook: bytes, name: str, content: bytes) -> bytes:
    """The workbook with one member's content replaced."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(workbook)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for member in source.infolist():
            target.writestr(member.filename, content if member.filename == name else source.read(member))
    return out.getvalue()
