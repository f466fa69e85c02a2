"""What a lead reads about a pack uploaded in chat (`/quiz import`, a file shared with the bot): the refusals of a
file (size, type, zip bomb, formulas, macros, encoding), the Kahoot spreadsheet's problems, and the reply saying
what was added and what waits in `/quiz drafts` (bot/content/upload.py, formats/kahoot.py,
bot/service/handlers/imports.py, the adapters' upload paths)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.ports import Message
from bot.wording.i18n import echo, plural
from bot.wording.i18n import translate as _

OPTION_FILE = "The pack file: YAML, GIFT, Aiken, Open Trivia DB JSON, CSV, text, or a Kahoot .xlsx"
"""The description of `/quiz import`'s file option (a wording key: bot/wording/commands.py `option_words`)."""

PROBLEMS_SHOWN = 5
"""How many of a refused upload's problems the reply lists; it says how many more there are."""

# --- places ------------------------------------------------------------------------------------------------------


def row(number: int) -> str:
    """A place in a spreadsheet: `row 12`."""
    return _("row {number}", number=number)


def sheet_row(sheet: str, number: int) -> str:
    """A place in a workbook with several sheets: `sheet 'Quiz', row 12`."""
    return _("sheet {sheet!r}, row {number}", sheet=sheet, number=number)


# --- refusals of the file itself -----------------------------------------------------------------------------------


def too_large(size: int, limit: int) -> str:
    """A file over the upload limit (QUIZBOT_UPLOAD_MAX_BYTES)."""
    return _(
        "the file has {size} bytes; uploads are limited to {limit} bytes: split the pack into smaller files",
        size=size,
        limit=limit,
    )


def empty_file() -> str:
    """A file with nothing in it."""
    return _("the file is empty: attach the pack file itself")


def unknown_type(extension: str, known: Sequence[str]) -> str:
    """A file whose name says no format the bot reads."""
    shown = extension or _("no extension")
    return _(
        "{extension} files cannot be imported; upload one of {known}",
        extension=shown,
        known=", ".join(known),
    )


def content_not_extension(extension: str, found: str) -> str:
    """A file whose content is another kind of file than its name says (`quiz.csv` holding a PDF)."""
    return _(
        "the file is named {extension} but holds {found}; export the pack as {extension} and upload that",
        extension=extension,
        found=found,
    )


def binary_kind(kind: str) -> str:
    """What a sniffed binary file is: `a PDF document`, `a ZIP archive`, `binary data`."""
    return _(
        {
            "pdf": "a PDF document",
            "zip": "a ZIP archive (perhaps an .xlsx or .docx file renamed)",
            "ole": "an old Office file (.xls or .doc)",
            "png": "a PNG image",
            "jpeg": "a JPEG image",
            "gif": "a GIF image",
            "executable": "a program",
            "binary": "binary data",
            "text": "text",
        }.get(kind, "binary data")
    )


def old_excel() -> str:
    """An .xls (Excel 97-2003) file."""
    return _("old .xls spreadsheets cannot be read; save it as .xlsx (Excel Workbook) and upload that")


def macro_enabled() -> str:
    """An .xlsm, or an .xlsx that carries macros."""
    return _("the workbook carries macros, which are never opened; save it as .xlsx (Excel Workbook) without macros")


def not_a_workbook(detail: str) -> str:
    """An .xlsx that is not a readable Excel workbook."""
    return _("the file is not a readable .xlsx workbook ({detail}); save it again from Excel or Sheets", detail=detail)


def zip_too_many_members(count: int, limit: int) -> str:
    """A zip (an .xlsx) with more files inside than a quiz spreadsheet has."""
    return _(
        "the workbook holds {count} files inside; a quiz spreadsheet has at most {limit}: it was not opened",
        count=count,
        limit=limit,
    )


def zip_too_large(size: int, limit: int) -> str:
    """A zip (an .xlsx) that unpacks to more than the limit."""
    return _(
        "the workbook would unpack to {size} bytes, more than {limit}: it was not opened",
        size=size,
        limit=limit,
    )


def zip_ratio(member: str, ratio: int, limit: int) -> str:
    """A zip member compressed far more than real spreadsheets are: a zip bomb."""
    return _(
        "{member} inside the workbook is compressed {ratio}:1 (at most {limit}:1), as a zip bomb is: it was not opened",
        member=member,
        ratio=ratio,
        limit=limit,
    )


def xml_entities() -> str:
    """An .xlsx whose XML declares its own entities (a document type)."""
    return _("the workbook's XML declares entities, which spreadsheets never need: it was not opened")


def formula_cell(cell: str, sheet: str) -> str:
    """A cell holding a formula."""
    return _(
        "cell {cell} of sheet {sheet!r} holds a formula; formulas are refused: paste the values instead "
        "(Paste special > Values) and upload again",
        cell=cell,
        sheet=sheet,
    )


def not_utf8(at: str) -> str:
    """A text file that is not UTF-8."""
    return _("the file is not UTF-8 text ({at}); save it as UTF-8 and upload it again", at=at)


def binary_in_text(extension: str) -> str:
    """A text file holding NUL bytes."""
    return _(
        "the file is named {extension} but holds binary data (NUL bytes); upload the text file", extension=extension
    )


# --- the Kahoot spreadsheet (bot/content/formats/kahoot.py) --------------------------------------------------------


def kahoot_no_questions() -> str:
    """A workbook without a question row."""
    return _(
        "no question found: Kahoot's template has the question in column B and answers in columns C to F, "
        "from the row under its header (row 8 or 9) on"
    )


def kahoot_no_question(column: str) -> str:
    """A row with answers but no question."""
    return _("the question (column {column}) is empty", column=column)


def kahoot_no_correct(column: str) -> str:
    """A row without the number of its correct answer."""
    return _("no correct answer: write its number (1 to 4) in column {column}", column=column)


def kahoot_bad_correct(value: str, column: str) -> str:
    """A correct-answer cell that is no answer number."""
    return _(
        "the correct answer {value!r} in column {column} is not an answer's number (1 to 4)",
        value=echo(value),
        column=column,
    )


def kahoot_several_correct(numbers: str) -> str:
    """A question with several correct answers (Kahoot allows it; a quiz card has one)."""
    return _(
        "{numbers} are all marked correct; a question here has exactly one correct answer: keep one number, "
        "or split it into separate questions",
        numbers=numbers,
    )


def kahoot_correct_is_empty(number: int) -> str:
    """A correct answer whose cell is empty."""
    return _("answer {number} is marked correct but its cell is empty", number=number)


def too_many_rows(limit: int) -> str:
    """A spreadsheet with more question rows than an upload takes."""
    return _("the spreadsheet has more than {limit} question rows; split it into several files", limit=limit)


# --- the upload as a whole (bot/content/upload.py) -----------------------------------------------------------------


def no_answer(line: str) -> str:
    """A question of an upload whose source did not say which choice is right."""
    return _("{line}: no correct answer is marked; mark it in the file and upload again", line=line)


def image_file(file: str) -> str:
    """An uploaded question naming an image file (an upload brings no files beside it)."""
    return _(
        "the image {file!r} is a file on the server, which an upload cannot bring: give its https URL instead",
        file=file,
    )


def shipped_pack(pack_id: str) -> str:
    """An upload whose pack id is a pack shipped with the bot."""
    return _(
        "{pack_id} is a pack shipped with the bot, and a workspace pack never replaces one: rename the file "
        "(or set another pack id in it) and upload again",
        pack_id=pack_id,
    )


# --- the replies (bot/service/handlers/imports.py) -----------------------------------------------------------------


def refused(filename: str, problems: Sequence[str]) -> Message:
    """An upload refused, with its first problems (nothing was stored)."""
    shown = list(problems[:PROBLEMS_SHOWN])
    more = len(problems) - len(shown)
    lines = [f"• {problem}" for problem in shown]
    if more:
        lines.append(_("… and {more}", more=plural(more, "more problem")))
    lines.append(_("Nothing was stored: fix the file and upload it again."))
    return Message(_("{filename} was not imported:", filename=echo(filename, 80)), tuple(lines))


def refused_line(filename: str, problem: str) -> Message:
    """An upload refused for one reason about the file itself (nothing was stored)."""
    return Message(_("{filename} was not imported: {problem}", filename=echo(filename, 80), problem=problem))


def imported(
    pack_id: str, added: int, drafts: int, warnings: Sequence[str], *, joined: bool, already_waiting: int = 0
) -> Message:
    """What an upload added: `pack X: N questions added, M drafts to complete in /quiz drafts`; and how many of
    its drafts were not queued again because the same ones already wait."""
    if drafts:
        text = _(
            "pack {pack_id}: {added} added, {drafts} to complete in /quiz drafts",
            pack_id=pack_id,
            added=plural(added, "question"),
            drafts=plural(drafts, "draft"),
        )
    else:
        text = _("pack {pack_id}: {added} added", pack_id=pack_id, added=plural(added, "question"))
    lines: list[str] = []
    if joined:
        lines.append(_("They joined the workspace pack {pack_id} as its new version.", pack_id=pack_id))
    if drafts:
        lines.append(_("The drafts lack only an explanation: add one in /quiz drafts and approve them."))
    if already_waiting == 1:
        lines.append(_("1 draft was already waiting in /quiz drafts: not queued again."))
    elif already_waiting:
        lines.append(_("{count} drafts were already waiting in /quiz drafts: not queued again.", count=already_waiting))
    if added:
        lines.append(_("Post one with /quiz now {pack_id}.", pack_id=pack_id))
    shown = list(warnings[:PROBLEMS_SHOWN])
    if shown:
        lines.append(_("The checker's warnings (they do not stop the import):"))
        lines.extend(f"• {warning}" for warning in shown)
        if len(warnings) > len(shown):
            lines.append(_("… and {more}", more=plural(len(warnings) - len(shown), "more warning")))
    return Message(text, tuple(lines))


def how_to_upload(limit: int) -> Message:
    """`/quiz import` with no file: how to send one."""
    return Message(
        _("To import a pack, attach its file:"),
        (
            _("Slack: share the file with the bot in a direct message (no command needed)."),
            _("Discord: /quiz import with the file as its attachment."),
            _(
                "Formats: YAML pack, GIFT, Aiken, Open Trivia DB JSON, CSV, plain text, or an .xlsx in Kahoot's "
                "template; at most {limit} bytes.",
                limit=limit,
            ),
        ),
    )


def download_failed() -> Message:
    """The platform did not hand over the file."""
    return Message(_("The file could not be downloaded from the platform; share it again in a moment."))


def leads_only_upload() -> Message:
    """A member shares a file with the bot."""
    return Message(_("Only leads and admins can import packs; ask one to grant you the lead role."))
