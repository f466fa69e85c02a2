"""Loading packs from YAML files, with errors that name the file, the question id and the field."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import yaml
from pydantic import ValidationError

from bot.content.curricula import Curriculum, read_curricula
from bot.content.encoding import load_yaml, read_utf8
from bot.content.schema import PackModel, Refused
from bot.domain import Pack, Question
from bot.domain.names import match_name
from bot.errors import InvalidPack, Problem, UnknownPack
from bot.wording import content as words
from bot.wording import help as help_words

log = logging.getLogger(__name__)

PACK_SUFFIXES = (".yaml", ".yml")


def _location(raw: Any, loc: Sequence[int | str]) -> tuple[str | Problem, ...]:
    """Where a pydantic error is, using the raw document: a question (its id and number) and a field, or the pack
    and a field."""
    if len(loc) >= 2 and loc[0] == "questions" and isinstance(loc[1], int):
        index = loc[1]
        question_id = None
        if isinstance(raw, dict) and isinstance(raw.get("questions"), list) and index < len(raw["questions"]):
            item = raw["questions"][index]
            if isinstance(item, dict) and isinstance(item.get("id"), str):
                question_id = item["id"]
        field = ".".join(str(part) for part in loc[2:])
        place = Problem(words.question_at, question_id=question_id, number=index + 1)
        return place, field or Problem(words.whole_question)
    field = ".".join(str(part) for part in loc)
    return Problem(words.pack), field or Problem(words.whole_document)


def _schema_problem(raw: Any, error: Mapping[str, Any], source: str) -> Problem:
    """A pydantic error as a Problem: a validator's own (Refused), or pydantic's words as it said them."""
    refused = (error.get("ctx") or {}).get("error")
    if isinstance(refused, Refused):
        problem = refused.problem
    else:
        problem = Problem(words.schema_says, message=str(error["msg"]).removeprefix("Value error, "))
    return problem.at(source, *_location(raw, error["loc"]))


def parse_pack(text: str, *, source: str) -> Pack:
    """Validate the YAML text of one pack; `source` names it in error messages."""
    return parse_pack_model(text, source=source).to_domain()


def parse_pack_model(text: str, *, source: str) -> PackModel:
    """Validate the YAML text of one pack into the schema model (which keeps pack-level flags such as
    `verbatim_seed` that the domain pack does not carry)."""
    try:
        raw = load_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        detail = str(getattr(exc, "problem", None) or exc)
        place = {"line": mark.line + 1, "column": mark.column + 1} if mark is not None else {}
        raise InvalidPack(Problem(words.not_yaml, where=[source], detail=detail, **place)) from exc
    if not isinstance(raw, dict):
        raise InvalidPack(Problem(words.not_a_mapping, where=[source]))
    try:
        model = PackModel.model_validate(raw)
    except ValidationError as exc:
        raise InvalidPack(problems=[_schema_problem(raw, err, source) for err in exc.errors()]) from exc
    return model


def load_pack(path: Path) -> Pack:
    """Load and validate one pack file."""
    return load_pack_model(path).to_domain()


def load_pack_model(path: Path) -> PackModel:
    """Load and validate one pack file into the schema model."""
    return parse_pack_model(read_utf8(path, pack=True), source=str(path))


def pack_files(paths: Iterable[Path]) -> Iterator[Path]:
    """The pack files named by `paths`: files as given, folders searched for *.yaml / *.yml."""
    for path in paths:
        if path.is_dir():
            yield from sorted(p for p in path.iterdir() if p.suffix in PACK_SUFFIXES and p.is_file())
        else:
            yield path


def holds_packs(path: Path) -> bool:
    """Whether `path` is a pack file or a folder with one at least (what QUIZBOT_CONTENT_DIR must name)."""
    return path.exists() and next(iter(pack_files([path])), None) is not None


class Validated(NamedTuple):
    """The packs that passed, and every problem found in the others (worded, one line each)."""

    packs: list[Pack]
    problems: list[str]


def validate_paths(paths: Iterable[Path]) -> Validated:
    """Validate every pack under `paths`; returns the good packs and every problem found, worded now (for an
    operator's report: `quizbot doctor`)."""
    found, problems = validate_pack_files(paths)
    return Validated([model.to_domain() for _, model in found], [str(problem) for problem in problems])


class ValidatedFiles(NamedTuple):
    """Each pack that passed with its file, and every problem found in the others."""

    found: list[tuple[Path, PackModel]]
    problems: list[str | Problem]


def validate_pack_files(paths: Iterable[Path]) -> ValidatedFiles:
    """Validate every pack under `paths`; returns each good pack's file and model, and every problem found."""
    paths = list(paths)
    packs: list[tuple[Path, PackModel]] = []
    problems: list[str | Problem] = []
    owners: dict[str, Path] = {}
    files = list(pack_files(paths))
    if not files:
        problems.append(Problem(words.no_pack_files, paths=tuple(str(p) for p in paths)))
    for file in files:
        if not file.exists():
            problems.append(Problem(words.no_such_file, where=[str(file)]))
            continue
        try:
            model = load_pack_model(file)
        except InvalidPack as exc:
            problems.extend(exc.problems)
            continue
        if model.id in owners:
            where = (str(file), Problem(words.pack), "id")
            problems.append(Problem(words.pack_id_used, where=where, pack_id=model.id, other=str(owners[model.id])))
            continue
        owners[model.id] = file
        packs.append((file, model))
    return ValidatedFiles(packs, problems)


@dataclass(frozen=True, slots=True)
class Catalog:
    """The loaded packs, by id, in a stable order."""

    packs: tuple[Pack, ...]
    curricula: tuple[Curriculum, ...] = ()
    problems: tuple[str, ...] = ()
    """Why the pack (and curriculum) files that were left out did not load: one problem each, naming the file
    (worded when the catalog is loaded: admins read it in `/quiz packs`, operators in the log)."""

    def get(self, pack_id: str) -> Pack:
        """The pack with this id, or UnknownPack listing the ones there are."""
        for pack in self.packs:
            if pack.id == pack_id:
                return pack
        raise UnknownPack(help_words.unknown_pack(pack_id, [p.id for p in self.packs]))

    def resolve(self, name: str) -> Pack:
        """The pack a user means by `name`: its id in any case, or the start of one id only.

        This is the one place a typed pack name is matched (`/quiz now`, schedules, cohort curricula). A miss
        raises UnknownPack with the nearest ids and every id; a start shared by several ids lists them.
        """
        match = match_name(name, [pack.id for pack in self.packs])
        if match.found is not None:
            return self.get(match.found)
        if match.candidates:
            raise UnknownPack(help_words.ambiguous_pack(name, match.candidates))
        raise UnknownPack(help_words.unknown_pack(name, [p.id for p in self.packs], match.suggestions))

    def resolve_key(self, name: str, team: Mapping[str, str]) -> str:
        """The stored pack id a user means by `name` among the shipped packs and a workspace's own (`team`: each
        team pack's stored key by its slug, `uow.workspace_packs.keys`), matched as `resolve` matches: any case, or
        the start of one name only. A shipped pack wins over a team pack of the same name (a team pack may not take
        a shipped id, but a pack shipped later may take a team's slug). Misses raise UnknownPack as `resolve` does,
        naming the team's packs too."""
        shipped = [pack.id for pack in self.packs]
        names = list(dict.fromkeys([*shipped, *sorted(team)]))
        match = match_name(name, names)
        if match.found is not None:
            return match.found if match.found in shipped else team[match.found]
        if match.candidates:
            raise UnknownPack(help_words.ambiguous_pack(name, match.candidates))
        raise UnknownPack(help_words.unknown_pack(name, names, match.suggestions))

    def expand_keys(self, names: Sequence[str], team: Mapping[str, str]) -> list[str]:
        """`expand` among the shipped packs and a workspace's own (`team`, as `resolve_key` takes it): stored pack
        ids, each curriculum replaced by its packs, duplicates dropped."""
        curricula = {curriculum.id.casefold(): curriculum.packs for curriculum in self.curricula}
        expanded = [
            pack for name in names for pack in curricula.get(name.casefold()) or (self.resolve_key(name, team),)
        ]
        return list(dict.fromkeys(expanded))

    def expand(self, names: Sequence[str]) -> list[str]:
        """Pack ids, with each curriculum id among them replaced by its packs in order (duplicates dropped).

        Curriculum ids match in any case; every other name is resolved as a pack (`resolve`: any case, a unique
        prefix), so an unknown name raises UnknownPack with suggestions.
        """
        curricula = {curriculum.id.casefold(): curriculum.packs for curriculum in self.curricula}
        expanded = [pack for name in names for pack in curricula.get(name.casefold()) or (self.resolve(name).id,)]
        return list(dict.fromkeys(expanded))

    def question(self, pack_id: str, key: str) -> Question | None:
        """A question by pack and stable id."""
        try:
            return self.get(pack_id).question(key)
        except UnknownPack:
            return None


def load_catalog(directory: Path) -> Catalog:
    """Load the valid packs and curricula in `directory`, leaving the invalid ones out (each problem is logged and
    kept on the catalog for `/quiz packs` and `quizbot doctor`). With no valid pack at all, InvalidPack lists
    every problem: a bot with nothing to ask does not start."""
    found, problems = validate_pack_files([directory])
    packs = [model.to_domain() for _, model in found]
    if not packs:
        raise InvalidPack(problems=problems)
    curricula, curriculum_problems = read_curricula(directory, {pack.id for pack in packs})
    problems += curriculum_problems
    for problem in problems:
        log.warning("left out of the catalog: %s", problem)
    log.info("loaded %d packs and %d curricula from %s", len(packs), len(curricula), directory)
    return Catalog(packs=tuple(packs), curricula=curricula, problems=tuple(str(problem) for problem in problems))
