"""`quizbot content check`: the schema problems and the quality warnings of a set of pack files."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.content.curricula import read_curricula
from bot.content.loader import validate_pack_files
from bot.content.quality import QualityWarning, duplicate_warnings, pack_warnings, prompt_entries
from bot.content.schema import PackModel
from bot.domain import IMAGES_DIR
from bot.errors import Problem
from bot.wording import content as words
from bot.wording import content_cli as cli_words


@dataclass(frozen=True, slots=True)
class CheckedPack:
    """A pack that passed the schema, with its file and its quality warnings."""

    path: Path
    model: PackModel
    warnings: tuple[QualityWarning, ...] = ()

    def summary(self) -> str:
        """`id: title (N questions, M warnings)`, saying so when the quality rules were skipped."""
        return cli_words.pack_summary(
            self.model.id,
            self.model.title,
            len(self.model.questions),
            len(self.warnings),
            seed=self.model.verbatim_seed,
        )


@dataclass(frozen=True, slots=True)
class CheckReport:
    """What a check found: the good packs, every schema problem, every quality warning (in file order)."""

    packs: list[CheckedPack]
    problems: list[str | Problem]
    warnings: list[QualityWarning]
    notes: list[str] = field(default_factory=list)

    def failed(self, *, strict: bool) -> bool:
        """Whether the check fails: any schema problem, or with `strict` any warning too."""
        return bool(self.problems) or (strict and bool(self.warnings))


def missing_images(path: Path, model: PackModel) -> list[str | Problem]:
    """A problem for each image file the pack at `path` names that is not in the `images/` folder next to it."""
    folder = path.parent / IMAGES_DIR
    problems: list[str | Problem] = []
    for question in model.questions:
        for field_name, image in (("image", question.image), ("explanation_image", question.explanation_image)):
            if image is not None and image.file is not None and not (folder / image.file).is_file():
                where = (str(path), Problem(words.question, question_id=question.id), field_name)
                problems.append(Problem(words.image_file_missing, where=where, file=image.file, folder=str(folder)))
    return problems


def check_paths(paths: Iterable[Path], *, against: Sequence[Path] = ()) -> CheckReport:
    """Check the packs under `paths` against the schema and the quality rules.

    Near-duplicate prompts are looked for across every pack checked and every pack under `against` (the
    catalog the new packs will join). Warnings are only reported on the packs checked, never on a
    `verbatim_seed` pack; an `against` pack with the same file or the same id as a checked pack is left
    out (the checked one is its new version).
    """
    paths = list(paths)
    found, problems = validate_pack_files(paths)
    for path, model in found:
        problems += missing_images(path, model)
    ids = {model.id for _, model in found}
    for folder in (path for path in paths if path.is_dir()):  # a content folder's curricula name its packs
        problems += read_curricula(folder, ids)[1]
    by_source = {str(path): pack_warnings(model, source=str(path)) for path, model in found}
    entries = [entry for path, model in found for entry in prompt_entries(model, source=str(path))]
    checked_files = {path.resolve() for path, _ in found}
    checked_ids = {model.id for _, model in found}
    if against:
        references, _ = validate_pack_files(against)
        for path, model in references:
            if path.resolve() not in checked_files and model.id not in checked_ids:
                entries.extend(prompt_entries(model, source=str(path), reported=False))
    for warning in duplicate_warnings(entries):
        by_source[warning.source].append(warning)
    packs: list[CheckedPack] = []
    warnings: list[QualityWarning] = []
    for path, model in found:
        own = _in_question_order(model, by_source[str(path)])
        packs.append(CheckedPack(path, model, tuple(own)))
        warnings.extend(own)
    return CheckReport(packs=packs, problems=problems, warnings=warnings)


def _in_question_order(model: PackModel, warnings: list[QualityWarning]) -> list[QualityWarning]:
    """Pack-wide warnings first, then each question's in the order of the file (stable within a question)."""
    rank = {question.id: number for number, question in enumerate(model.questions, start=1)}
    return sorted(warnings, key=lambda w: 0 if w.question_id is None else rank.get(w.question_id, len(rank) + 1))
