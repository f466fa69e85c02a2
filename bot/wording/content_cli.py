"""What the `quizbot content ...` commands say to the person running them (bot/content/cli.py, output.py): their
help, the lines of a check, what an import or export wrote, and why a file cannot be written."""

from __future__ import annotations

from collections.abc import Sequence

from bot.wording.i18n import plural
from bot.wording.i18n import translate as _

# --- help (argparse) ---------------------------------------------------------------------------------------------

HELP = {
    "content": "quiz packs",
    "check": "validate packs (default: the configured content folder) and report quality warnings",
    "check.paths": "pack files or folders",
    "check.strict": "fail on quality warnings too (not on seed packs)",
    "check.json": "print the result as one JSON object on stdout (schema: docs/json.md)",
    "check.against": "packs to look for near-duplicate prompts in, without checking them (default: the content folder)",
    "import": "turn a quiz file (text, GIFT, Aiken, Open Trivia DB JSON, CSV) into a YAML pack skeleton",
    "import.format": "the format of FILE (default: from its extension and content)",
    "import.output": "write here instead of standard output",
    "import.id": "pack id (default: the file's, or from its title or name)",
    "import.force": "overwrite OUT if it exists",
    "export": "write a pack as GIFT or CSV (importing that gives the pack back)",
    "export.pack": "a pack id in the content folder, or a YAML pack file",
    "export.format": "default: from the extension of OUT",
    "export.output": "write here instead of standard output",
    "export.force": "overwrite OUT if it exists",
    "schema": "print the JSON Schema of a pack file",
    "schema.force": "overwrite the -o file if it exists",
}
"""The `quizbot content` commands' and options' help, by `command` or `command.option`."""


def help_for(key: str) -> str:
    """The help of a `content` command or option (`check`, `check.strict`)."""
    return _(HELP[key])


# --- content check -----------------------------------------------------------------------------------------------


def not_compared(reason: str) -> str:
    """Checking named files without a content folder to compare their prompts with."""
    return _("note: prompts not compared with the content folder: {reason}", reason=reason)


def pack_summary(pack_id: str, title: str, questions: int, warnings: int, *, seed: bool) -> str:
    """`id: title (N questions, M warnings)`, saying so when the quality rules were skipped."""
    details = [plural(questions, "question")]
    if seed:
        details.append(_("verbatim seed: quality rules skipped"))
    elif warnings:
        details.append(plural(warnings, "warning"))
    return _("{id}: {title} ({details})", id=pack_id, title=title, details=", ".join(details))


def problems_found(count: int) -> str:
    """The last line of a check with problems."""
    return _("{problems} found", problems=plural(count, "problem"))


def warnings_found(count: int, *, strict: bool) -> str:
    """The last line of a check with warnings: whether they fail it."""
    consequence = _("failing with --strict") if strict else _("--strict would fail on them")
    return _("{warnings}: {consequence}", warnings=plural(count, "warning"), consequence=consequence)


# --- content import and export -----------------------------------------------------------------------------------


def skipped(message: str) -> str:
    """A question the import left out, and why."""
    return _("skipped {message}", message=message)


def imported(output: str, questions: int, fmt: str, skipped: int, blanks: int) -> str:
    """What an import wrote, and what to do next."""
    todo = _("fill in {blanks}, then run", blanks=plural(blanks, "TODO blank")) if blanks else _("now run")
    skipped_count = _(", {count} skipped", count=skipped) if skipped else ""
    return _(
        "wrote {output}: {questions} from {fmt}{skipped}; {todo} `quizbot content check {output}`",
        output=output,
        questions=plural(questions, "question"),
        fmt=fmt,
        skipped=skipped_count,
        todo=todo,
    )


def exported(output: str, fmt: str) -> str:
    """What an export wrote."""
    return _("wrote {output}: the pack as {fmt}", output=output, fmt=fmt)


def export_format_needed() -> str:
    """An export with no format to write."""
    return _("give --format gift, csv or yaml (or an OUT ending in .gift, .csv or .yaml)")


def no_such_pack_file(path: str) -> str:
    """An export of a pack file that does not exist."""
    return _("{path}: no such pack file", path=path)


def no_valid_pack(pack: str, folder: str, known: Sequence[str]) -> str:
    """An export of a pack id that is not in the content folder."""
    return _(
        "there is no valid pack called {pack!r} in {folder}; packs: {known}",
        pack=pack,
        folder=folder,
        known=", ".join(known) or _("none"),
    )


# --- writing the result (bot/content/output.py) ------------------------------------------------------------------


def file_exists(path: str) -> str:
    """An output that would overwrite a file."""
    return _("{path} exists; pass --force to overwrite it, or give another -o", path=path)


def no_such_folder(path: str, folder: str) -> str:
    """An output in a folder that does not exist."""
    return _(
        "cannot write {path}: the folder {folder} does not exist; create it or give another -o",
        path=path,
        folder=folder,
    )


def is_a_folder(path: str) -> str:
    """An output that names a folder."""
    return _("cannot write {path}: it is a folder; give a file name with -o", path=path)


def cannot_write(path: str, reason: str) -> str:
    """An output the system refused to write."""
    return _("cannot write {path}: {reason}", path=path, reason=reason)
