"""Curricula: an ordered list of packs for a cohort, one YAML file each under `<content>/curricula/`.

    id: ml-infrastructure-onboarding
    title: ML infrastructure onboarding
    description: ...
    packs: [data-parallelism, collective-communication, ...]

`/quiz cohort create NAME packs:ml-infrastructure-onboarding` (or `curriculum:ml-infrastructure-onboarding`) puts a
cohort on it; a curriculum's id may stand among pack ids and expands to its packs in place.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.content.encoding import load_yaml
from bot.content.schema import Slug, Text
from bot.errors import Problem
from bot.wording import content as words

CURRICULA_FOLDER = "curricula"


class CurriculumModel(BaseModel):
    """A curriculum file: id, title, description, and its packs in teaching order."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    id: Slug
    title: Text
    description: str = ""
    packs: list[Slug] = Field(min_length=1)


@dataclass(frozen=True, slots=True)
class Curriculum:
    """Packs in the order a cohort walks them."""

    id: str
    title: str
    description: str
    packs: tuple[str, ...]


def load_curricula(directory: Path, pack_ids: set[str]) -> tuple[tuple[Curriculum, ...], list[str]]:
    """`read_curricula` with its problems worded now, one line each (for an operator's report: `quizbot doctor`)."""
    found, problems = read_curricula(directory, pack_ids)
    return found, [str(problem) for problem in problems]


def read_curricula(directory: Path, pack_ids: set[str]) -> tuple[tuple[Curriculum, ...], list[Problem]]:
    """The curricula under `directory/curricula/` that are valid and name only loaded packs, and the problems of
    the others (each names its file)."""
    folder = directory / CURRICULA_FOLDER
    if not folder.is_dir():
        return (), []
    found: list[Curriculum] = []
    problems: list[Problem] = []
    for path in sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file()):
        try:
            model = CurriculumModel.model_validate(load_yaml(path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError, yaml.YAMLError, ValidationError) as exc:
            first = exc.errors()[0] if isinstance(exc, ValidationError) else None
            where: tuple[str | Problem, ...] = (str(path), Problem(words.curriculum))
            if first is not None:
                where += (".".join(str(part) for part in first["loc"]),)
            problems.append(Problem(words.schema_says, where=where, message=str(first["msg"] if first else exc)))
            continue
        missing = [pack for pack in model.packs if pack not in pack_ids]
        if missing:
            where = (str(path), Problem(words.curriculum_named, curriculum_id=model.id))
            problems.append(Problem(words.no_such_pack, where=where, packs=tuple(missing)))
            continue
        found.append(Curriculum(model.id, model.title, model.description, tuple(dict.fromkeys(model.packs))))
    return tuple(found), problems
