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

from bot.content.check import check_paths
from bot.content.importer import parse_plain_quiz, skeleton_yaml
from bot.content.quality import plural
from bot.content.schema import pack_json_schema
from bot.errors import ConfigError, QuizError

ContentDir = Callable[[], Path]


def add_content_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `content` and its subcommands to the `quizbot` parser."""
    content = commands.add_parser("content", help="quiz packs").add_subparsers(dest="content_command", required=True)
    check = content.add_parser(
        "check", help="validate packs (default: the configured content folder) and report quality warnings"
    )
    check.add_argument("paths", nargs="*", type=Path)
    check.add_argument("--strict", action="store_true", help="fail on quality warnings too (not on seed packs)")
    check.add_argument(
        "--against",
        action="append",
        type=Path,
        metavar="PATH",
        help="packs to look for near-duplicate prompts in, without checking them (default: the content folder)",
    )
    importer = content.add_parser("import", help="turn a plain-text quiz into a YAML pack skeleton")
    importer.add_argument("source", type=Path)
    importer.add_argument("-o", "--output", type=Path, help="write here instead of standard output")
    importer.add_argument("--id", dest="pack_id", help="pack id (default: from the title)")
    schema = content.add_parser("schema", help="print the JSON Schema of a pack file")
    schema.add_argument("-o", "--output", type=Path)


def run_content_command(args: argparse.Namespace, content_dir: ContentDir) -> int:
    """Run the parsed `content` subcommand; returns the exit status."""
    if args.content_command == "check":
        return content_check(args.paths, content_dir, strict=args.strict, against=args.against)
    if args.content_command == "import":
        return content_import(args)
    text = json.dumps(pack_json_schema(), indent=2) + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
    return 0


def content_check(paths: list[Path], content_dir: ContentDir, *, strict: bool, against: list[Path] | None) -> int:
    """`content check`: `ok` lines on stdout; FAIL and WARN lines and the counts on stderr; 1 if it fails."""
    if not paths:
        targets, references = [content_dir()], against or []
    else:
        targets, references = paths, against or []
        if against is None:
            try:
                references = [content_dir()]
            except ConfigError as exc:
                print(f"note: prompts not compared with the content folder: {exc}", file=sys.stderr)
    report = check_paths(targets, against=references)
    for pack in report.packs:
        print(f"ok   {pack.summary()}")
    for problem in report.problems:
        print(f"FAIL {problem}", file=sys.stderr)
    for warning in report.warnings:
        print(f"WARN {warning.line()}", file=sys.stderr)
    if report.problems:
        print(f"{plural(len(report.problems), 'problem')} found", file=sys.stderr)
    if report.warnings:
        consequence = "failing with --strict" if strict else "--strict would fail on them"
        print(f"{plural(len(report.warnings), 'warning')}: {consequence}", file=sys.stderr)
    return 1 if report.failed(strict=strict) else 0


def content_import(args: argparse.Namespace) -> int:
    """`content import`: placeholder until the format registry lands."""
    source: Path = args.source
    output: Path | None = args.output
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise QuizError(f"{source}: cannot read: {exc}") from exc
    skeleton = skeleton_yaml(parse_plain_quiz(text, source=str(source)), pack_id=args.pack_id)
    if output is None:
        sys.stdout.write(skeleton)
    else:
        if output.exists():
            raise QuizError(f"{output} exists; not overwriting it")
        output.write_text(skeleton, encoding="utf-8")
        print(f"wrote {output}: fill in each TODO, then run `quizbot content check {output}`", file=sys.stderr)
    return 0
