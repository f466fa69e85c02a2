"""The `quizbot content ...` commands: check, import, export and schema. `bot.cli` only wires them in.

Every handler takes the parsed arguments and a function giving the configured content folder (called only
when a command needs it, so `content check FILE` works without settings). Errors are raised as the
project's own errors, which `bot.cli.main` turns into one line and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bot.content.format_names import EXPORT_FORMATS, IMPORT_FORMATS
from bot.content.loader import PACK_SUFFIXES, load_pack_model, validate_pack_files
from bot.content.output import write_new_file
from bot.content.schema import pack_json_schema
from bot.errors import ConfigError, QuizError
from bot.progress import Progress
from bot.wording import content_cli as words
from bot.wording import drafts as team_words

if TYPE_CHECKING:
    from bot.content.schema import PackModel

# The checker, the formats and the drafts are imported by the command that uses them: every `quizbot` command
# (`run` included) builds this parser, and only `content` commands need them.

ContentDir = Callable[[], Path]


def add_content_commands(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse._SubParsersAction[argparse.ArgumentParser]:
    """Add `content` and its subcommands to the `quizbot` parser; returns them, for commands that need the database."""
    content = commands.add_parser("content", help=words.help_for("content"))
    content_commands = content.add_subparsers(dest="content_command", required=True)
    check = content_commands.add_parser("check", help=words.help_for("check"))
    check.add_argument("paths", nargs="*", type=Path, metavar="PATH", help=words.help_for("check.paths"))
    check.add_argument("--strict", action="store_true", help=words.help_for("check.strict"))
    check.add_argument("--json", action="store_true", help=words.help_for("check.json"))
    check.add_argument("--against", action="append", type=Path, metavar="PATH", help=words.help_for("check.against"))
    importer = content_commands.add_parser("import", help=words.help_for("import"))
    importer.add_argument("source", type=Path, metavar="FILE")
    importer.add_argument("--format", choices=IMPORT_FORMATS, help=words.help_for("import.format"))
    importer.add_argument("-o", "--output", type=Path, metavar="OUT", help=words.help_for("import.output"))
    importer.add_argument("--id", dest="pack_id", metavar="ID", help=words.help_for("import.id"))
    importer.add_argument("--force", action="store_true", help=words.help_for("import.force"))
    importer.add_argument("--workspace", metavar="PLATFORM:ID", help=team_words.cli_help_import_workspace())
    exporter = content_commands.add_parser("export", help=words.help_for("export"))
    exporter.add_argument("pack", metavar="PACK", help=words.help_for("export.pack"))
    exporter.add_argument("--format", choices=(*EXPORT_FORMATS, "yaml"), help=words.help_for("export.format"))
    exporter.add_argument("-o", "--output", type=Path, metavar="OUT", help=words.help_for("export.output"))
    exporter.add_argument("--force", action="store_true", help=words.help_for("export.force"))
    exporter.add_argument("--workspace", metavar="PLATFORM:ID", help=team_words.cli_help_export_workspace())
    schema = content_commands.add_parser("schema", help=words.help_for("schema"))
    schema.add_argument("-o", "--output", type=Path)
    schema.add_argument("--force", action="store_true", help=words.help_for("schema.force"))
    return content_commands


def run_content_command(args: argparse.Namespace, content_dir: ContentDir) -> int:
    """Run the parsed `content` subcommand; returns the exit status."""
    if args.content_command == "check":
        return content_check(args.paths, content_dir, strict=args.strict, against=args.against, as_json=args.json)
    if args.content_command == "import":
        return content_import(args.source, args.format, args.output, pack_id=args.pack_id, force=args.force)
    if args.content_command == "export":
        return content_export(args.pack, args.format, args.output, content_dir, force=args.force)
    text = json.dumps(pack_json_schema(), indent=2) + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        write_new_file(args.output, text, force=args.force)
    return 0


def content_check(
    paths: list[Path], content_dir: ContentDir, *, strict: bool, against: list[Path] | None, as_json: bool = False
) -> int:
    """`content check`: `ok` lines on stdout; FAIL and WARN lines and the counts on stderr (or all of it as one JSON
    object on stdout, docs/json.md); 1 if it fails."""
    from bot.content.check import check_paths

    if not paths:
        targets, references = [content_dir()], against or []
    else:
        targets, references = paths, against or []
        if against is None:
            try:
                references = [content_dir()]
            except ConfigError as exc:
                print(words.not_compared(str(exc)), file=sys.stderr)
    report = check_paths(targets, against=references)
    if as_json:
        document = {
            "ok": not report.failed(strict=strict),
            "strict": strict,
            "packs": [
                {
                    "id": pack.model.id,
                    "title": pack.model.title,
                    "path": str(pack.path),
                    "questions": len(pack.model.questions),
                    "verbatim_seed": bool(pack.model.verbatim_seed),
                    "warnings": len(pack.warnings),
                }
                for pack in report.packs
            ],
            "problems": [problem if isinstance(problem, str) else problem.worded() for problem in report.problems],
            "warnings": [
                {"source": w.source, "question_id": w.question_id, "rule": w.rule, "message": w.message}
                for w in report.warnings
            ],
        }
        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        return 1 if report.failed(strict=strict) else 0
    for pack in report.packs:
        print(f"ok   {pack.summary()}")
    for problem in report.problems:
        print(f"FAIL {problem}", file=sys.stderr)
    for warning in report.warnings:
        print(f"WARN {warning.line()}", file=sys.stderr)
    if report.problems:
        print(words.problems_found(len(report.problems)), file=sys.stderr)
    if report.warnings:
        print(words.warnings_found(len(report.warnings), strict=strict), file=sys.stderr)
    return 1 if report.failed(strict=strict) else 0


IMPORT_STEPS = 3
"""The steps `content import` shows: the file read and converted, the YAML skeleton built, the skeleton written."""


def content_import(source: Path, fmt: str | None, output: Path | None, *, pack_id: str | None, force: bool) -> int:
    """`content import`: the YAML skeleton to OUT (or stdout); skipped questions and what to do on stderr."""
    from bot.content.drafts import to_yaml
    from bot.content.formats import import_file

    # The bar only when the skeleton goes to a file: on standard output it would share the terminal with the YAML.
    with Progress("content import", IMPORT_STEPS, enabled=None if output is not None else False) as bar:
        result = import_file(source, fmt, pack_id=pack_id)
        bar.advance()
        skeleton = to_yaml(result.pack, origin=source.name, fmt=result.format)
        bar.advance()
        if output is not None:
            write_new_file(output, skeleton, force=force)
            bar.advance()
    for skipped in result.skipped:
        print(words.skipped(skipped.message()), file=sys.stderr)
    if output is None:
        sys.stdout.write(skeleton)
        return 0
    wrote = words.imported(
        str(output), len(result.pack.questions), result.format, len(result.skipped), result.pack.blanks()
    )
    print(wrote, file=sys.stderr)
    return 0


def content_export(pack: str, fmt: str | None, output: Path | None, content_dir: ContentDir, *, force: bool) -> int:
    """`content export`: a pack (by id from the content folder, or a YAML file) as GIFT, CSV or YAML."""
    from bot.content.drafts import draft_from_model
    from bot.content.formats import export_text

    if fmt is None:
        fmt = export_format(output)
    model = find_pack(pack, content_dir)
    if fmt == "yaml":
        import yaml

        data = model.model_dump(mode="json", exclude_defaults=True)
        text = str(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000))
    else:
        text = export_text(draft_from_model(model), fmt)
    if output is None:
        sys.stdout.write(text)
        return 0
    write_new_file(output, text, force=force)
    print(words.exported(str(output), fmt), file=sys.stderr)
    return 0


def export_format(output: Path | None) -> str:
    """The export format an output file's suffix says (`.gift`, `.csv`, `.yaml`), or QuizError asking for one."""
    suffix = output.suffix.casefold() if output is not None else ""
    fmt = {".gift": "gift", ".csv": "csv", ".yaml": "yaml", ".yml": "yaml"}.get(suffix)
    if fmt is None:
        raise QuizError(words.export_format_needed())
    return fmt


def find_pack(pack: str, content_dir: ContentDir) -> PackModel:
    """The pack named on the command line: a YAML file when it looks like a path, else an id in the content folder."""
    path = Path(pack)
    if path.suffix in PACK_SUFFIXES or path.exists() or "/" in pack or "\\" in pack:
        if not path.is_file():
            raise QuizError(words.no_such_pack_file(str(path)))
        return load_pack_model(path)
    folder = content_dir()
    found, _ = validate_pack_files([folder])
    for _, model in found:
        if model.id == pack:
            return model
    raise QuizError(words.no_valid_pack(pack, str(folder), [model.id for _, model in found]))
