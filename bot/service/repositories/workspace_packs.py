"""A workspace's own packs (`uow.workspace_packs`): created in chat when a draft is approved, or stored whole from an
uploaded or imported pack.

A workspace pack is a PackRow and QuestionRows under the qualified id `<workspace row>:<slug>`
(bot.domain.drafts.workspace_pack_key), plus a `workspace_packs` row saying whose it is. Storing a question records
its current version at once, so an edit is a new version and posts already made keep theirs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

from sqlalchemy import func, select

from bot.db.models import PackRow, QuestionRow, WorkspacePackRow
from bot.domain import Image, Pack, Question
from bot.domain.drafts import StoredPack, WorkspacePack, is_workspace_slug, workspace_pack_key
from bot.errors import UserInputError
from bot.service.repositories.base import Repository
from bot.service.repositories.directory import insert_ignoring_conflict
from bot.service.repositories.questions import Questions
from bot.wording import drafts as words


def _image(stored: Mapping[str, object] | None, name: str) -> Image | None:
    if not stored or not isinstance(stored.get(name), Mapping):
        return None
    image = stored[name]
    assert isinstance(image, Mapping)
    return Image(alt=str(image.get("alt", "")), url=image.get("url"), file=image.get("file"))


def question_of(row: QuestionRow, slug: str) -> Question:
    """A stored question as a domain question of the pack named `slug` (as a pack file would say it)."""
    return Question(
        pack_id=slug,
        key=row.key,
        prompt=row.prompt,
        choices=tuple(row.choices),
        correct_index=row.correct_index,
        explanation=row.explanation,
        tags=tuple(row.tags or ()),
        difficulty=row.difficulty,
        references=tuple(row.references or ()),
        image=_image(row.images, "prompt"),
        explanation_image=_image(row.images, "explanation"),
    )


def _fields(question: Question, position: int) -> dict[str, object]:
    return {
        "position": position,
        "prompt": question.prompt,
        "choices": list(question.choices),
        "correct_index": question.correct_index,
        "explanation": question.explanation,
        "tags": list(question.tags),
        "difficulty": question.difficulty,
        "active": True,
        "images": question.images_json(),
        "references": list(question.references),
    }


class WorkspacePacks(Repository):
    """The packs that belong to one workspace (a repository over `workspace_packs`, `packs` and `questions`)."""

    async def _view(self, row: WorkspacePackRow, pack: PackRow | None = None) -> WorkspacePack:
        pack = pack or await self._session.get(PackRow, row.pack_id)
        assert pack is not None
        count = await Questions(self._session).active_count(row.pack_id)
        return WorkspacePack(
            workspace=row.workspace_id,
            slug=row.slug,
            key=row.pack_id,
            title=pack.title,
            description=pack.description,
            tags=tuple(pack.tags or ()),
            questions=count,
            created_by=row.created_by,
            created_at=row.created_at,
        )

    async def _row(self, workspace: int, slug: str) -> WorkspacePackRow | None:
        query = select(WorkspacePackRow).where(
            WorkspacePackRow.workspace_id == workspace, WorkspacePackRow.slug == slug.casefold()
        )
        return (await self._session.execute(query)).scalar()

    async def get(self, workspace: int, slug: str) -> WorkspacePack | None:
        """The workspace's pack named `slug` (any case), or None."""
        row = await self._row(workspace, slug)
        return None if row is None else await self._view(row)

    async def of_workspace(self, workspace: int) -> list[WorkspacePack]:
        """The workspace's packs, by slug."""
        query = (
            select(WorkspacePackRow, PackRow)
            .join(PackRow, PackRow.id == WorkspacePackRow.pack_id)
            .where(WorkspacePackRow.workspace_id == workspace)
            .order_by(WorkspacePackRow.slug)
        )
        return [await self._view(row, pack) for row, pack in (await self._session.execute(query)).all()]

    async def keys(self, workspace: int) -> dict[str, str]:
        """The workspace's packs: their stored key (what rotation, schedules and cohorts hold) by slug."""
        query = select(WorkspacePackRow.slug, WorkspacePackRow.pack_id).where(
            WorkspacePackRow.workspace_id == workspace
        )
        return {str(slug): str(key) for slug, key in (await self._session.execute(query)).all()}

    async def all_keys(self) -> set[str]:
        """The stored key of every workspace's pack (content sync leaves these alone)."""
        return {str(key) for key in (await self._session.execute(select(WorkspacePackRow.pack_id))).scalars()}

    async def refuse_shipped(self, slug: str) -> None:
        """Refuse a slug that is (or was) a shipped pack's id, or is no valid slug: one line each."""
        if not is_workspace_slug(slug):
            raise UserInputError(words.bad_pack_slug(slug))
        shipped = await self._session.get(PackRow, slug)
        if shipped is not None:
            raise UserInputError(words.shipped_pack(slug))

    async def create(
        self,
        workspace: int,
        slug: str,
        *,
        title: str,
        description: str = "",
        tags: Iterable[str] = (),
        by: str,
        now: datetime,
    ) -> WorkspacePack:
        """A new, empty pack of the workspace; the existing one if the slug is taken there already. A slug that is
        a shipped pack's id, or no valid slug, is refused (UserInputError, one line)."""
        slug = slug.casefold()
        existing = await self._row(workspace, slug)
        if existing is not None:
            return await self._view(existing)
        await self.refuse_shipped(slug)
        key = workspace_pack_key(workspace, slug)
        # ON CONFLICT DO NOTHING: a lead creating the same pack at the same moment (two drafts approved at once)
        # waits for the other's commit, then finds its pack, instead of failing on the key.
        pack = {"id": key, "title": title, "description": description, "tags": list(tags), "active": True}
        await self._session.execute(insert_ignoring_conflict(self._session, PackRow, pack | {"synced_at": now}, ["id"]))
        values = {"workspace_id": workspace, "slug": slug, "pack_id": key, "created_by": by, "created_at": now}
        await self._session.execute(insert_ignoring_conflict(self._session, WorkspacePackRow, values, ["pack_id"]))
        row = await self._row(workspace, slug)
        assert row is not None
        return await self._view(row)

    async def add_question(self, pack: WorkspacePack, question: Question, *, now: datetime) -> QuestionRow:
        """Store a question in a workspace pack under `question.key`: a new one goes last; an existing key (active
        or retired) takes the new text, which becomes a new version (posts made before keep theirs). The question's
        current version is recorded now."""
        questions = Questions(self._session)
        row = await questions.any(pack.key, question.key)
        if row is None:
            position = await self._next_position(pack.key)
            row = QuestionRow(pack_id=pack.key, key=question.key, **_fields(question, position))
            self._session.add(row)
        else:
            for name, value in _fields(question, row.position).items():
                if getattr(row, name) != value:
                    setattr(row, name, value)
        await self._session.flush()
        await questions.current_version(row, now)
        return row

    async def _next_position(self, pack_key: str) -> int:
        query = select(func.max(QuestionRow.position)).where(QuestionRow.pack_id == pack_key)
        last = (await self._session.execute(query)).scalar()
        return 0 if last is None else int(last) + 1

    async def question_keys(self, pack: WorkspacePack) -> set[str]:
        """Every question id used in the pack, retired ones included (a new question takes another)."""
        query = select(QuestionRow.key).where(QuestionRow.pack_id == pack.key)
        return {str(key) for key in (await self._session.execute(query)).scalars()}

    async def questions(self, pack: WorkspacePack) -> list[Question]:
        """The pack's active questions, in its order, as a pack file says them."""
        query = (
            select(QuestionRow)
            .where(QuestionRow.pack_id == pack.key, QuestionRow.active.is_(True))
            .order_by(QuestionRow.position, QuestionRow.id)
        )
        return [question_of(row, pack.slug) for row in (await self._session.execute(query)).scalars()]

    async def as_pack(self, pack: WorkspacePack) -> Pack:
        """The whole pack as a domain pack, named by its slug (for export, and for the quality rules)."""
        return Pack(
            id=pack.slug,
            title=pack.title,
            description=pack.description,
            tags=pack.tags,
            questions=tuple(await self.questions(pack)),
        )

    async def store_pack(self, workspace: int, pack: Pack, *, by: str, now: datetime) -> StoredPack:
        """Store a whole validated pack as the workspace's pack `pack.id` (its slug): created if new, else its
        title, description and tags replaced, its questions stored by id in the file's order (a changed text is a
        new version) and the questions no longer in it retired. The caller validates the pack first (the rules of
        `quizbot content check`) and commits; a slug that is a shipped pack's id is refused (UserInputError)."""
        slug = pack.id.casefold()
        existing = await self._row(workspace, slug)
        created = existing is None
        stored = await self.create(
            workspace, slug, title=pack.title, description=pack.description, tags=pack.tags, by=by, now=now
        )
        row = await self._session.get(PackRow, stored.key)
        assert row is not None
        row.title, row.description, row.tags, row.synced_at = pack.title, pack.description, list(pack.tags), now
        questions = Questions(self._session)
        before = {
            q.key: q
            for q in (await self._session.execute(select(QuestionRow).where(QuestionRow.pack_id == stored.key)))
            .scalars()
            .all()
        }
        added = changed = 0
        for position, question in enumerate(pack.questions):
            fields = _fields(question, position)
            old = before.get(question.key)
            if old is None:
                new = QuestionRow(pack_id=stored.key, key=question.key, **fields)
                self._session.add(new)
                added += 1
            elif any(getattr(old, name) != value for name, value in fields.items()):
                for name, value in fields.items():
                    setattr(old, name, value)
                changed += 1
        keys = {question.key for question in pack.questions}
        retired = 0
        for key, old in before.items():
            if key not in keys and old.active:
                old.active = False
                retired += 1
        await self._session.flush()
        for question in pack.questions:
            found = await questions.any(stored.key, question.key)
            assert found is not None
            await questions.current_version(found, now)
        pack_row = await self._row(workspace, slug)
        assert pack_row is not None
        return StoredPack(
            pack=await self._view(pack_row, row),
            added=added,
            changed=changed,
            retired=retired,
            created=created,
            keys=tuple(question.key for question in pack.questions),
        )
