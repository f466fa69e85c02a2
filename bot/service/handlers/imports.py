"""`/quiz import`: a pack file uploaded in chat (leads and admins) becomes a workspace pack and drafts.

The adapter downloaded the file; here it is read and checked (bot/content/upload.py: the safety refusals, every
format `quizbot content import` reads, the pack schema and the quality rules of `content check`). Everything is
decided before anything is stored: a file with any problem gets one reply listing its first problems, and nothing
is written. Otherwise, in this one unit of work: the complete questions join the workspace pack named by the file
(created if new; a question whose id the pack already uses for another prompt gets a fresh id, so an upload never
overwrites a different question), and each question lacking only its explanation becomes a draft in
`/quiz drafts` for a lead to complete, unless a draft with the same prompt and choices already waits in that pack
(the same file uploaded twice queues its drafts once; the reply counts those already waiting).
"""

from __future__ import annotations

import asyncio
import dataclasses

from bot.clock import Clock
from bot.commands import ImportPack
from bot.content.loader import Catalog
from bot.content.upload_limits import UploadLimits
from bot.domain import Pack
from bot.domain.drafts import DraftContent, DraftOrigin
from bot.errors import InvalidPack, Problem, UserInputError
from bot.service.facade import Context, Reply
from bot.service.handlers.routing import handles
from bot.service.uow import UnitOfWork
from bot.wording import uploads as words


def _worded(error: InvalidPack) -> list[str]:
    return [problem.worded() if isinstance(problem, Problem) else str(problem) for problem in error.problems] or [
        str(error)
    ]


def _free_key(key: str, used: set[str]) -> str:
    suffix = 2
    while f"{key[:58]}-{suffix}" in used:
        suffix += 1
    return f"{key[:58]}-{suffix}"


@handles(ImportPack)
async def import_pack(
    command: ImportPack,
    context: Context,
    uow: UnitOfWork,
    *,
    catalog: Catalog,
    clock: Clock,
    upload_limits: UploadLimits,
) -> Reply:
    """`/quiz import` with a file: `pack X: N questions added, M drafts to complete in /quiz drafts`; without one,
    how to attach one."""
    if not command.filename and not command.data:
        return Reply(words.how_to_upload(upload_limits.max_bytes))
    from bot.content.upload import check_upload, read_upload  # noqa: PLC0415 - every format's reader: at the first upload

    filename = command.filename or "upload"
    now = clock.now()
    try:
        # Parsing (openpyxl above all) and the near-duplicate search are CPU work: a worker thread, not the loop.
        upload = await asyncio.to_thread(read_upload, filename, command.data, upload_limits)
        workspace = await uow.places.workspace_id(context.channel.platform, context.channel.workspace_id, now)
        own = [await uow.workspace_packs.as_pack(pack) for pack in await uow.workspace_packs.of_workspace(workspace)]
        checked = await asyncio.to_thread(check_upload, upload, [*catalog.packs, *own])
    except InvalidPack as exc:
        name = upload_name(filename)
        problems = [problem.removeprefix(f"{name}: ") for problem in _worded(exc)]
        if len(problems) == 1:
            return Reply(words.refused_line(name, problems[0]), ok=False)
        return Reply(words.refused(name, problems), ok=False)
    slug = checked.pack_id
    existing = await uow.workspace_packs.get(workspace, slug)
    try:
        if existing is None:
            await uow.workspace_packs.refuse_shipped(slug)
    except UserInputError as exc:
        return Reply(words.refused_line(upload_name(filename), str(exc)), ok=False)
    by = context.user.display_name or context.user.user_id
    added = 0
    if checked.pack is not None:
        model = checked.pack
        stored = existing or await uow.workspace_packs.create(
            workspace, slug, title=model.title, description=model.description, tags=model.tags, by=by, now=now
        )
        used = await uow.workspace_packs.question_keys(stored)
        current = {q.key: q.prompt for q in await uow.workspace_packs.questions(stored)}
        pack: Pack = model.to_domain()
        for question in pack.questions:
            key = question.key
            if key in used and current.get(key) != question.prompt:
                key = _free_key(key, used)
            used.add(key)
            stored_question = dataclasses.replace(question, key=key, pack_id=slug)
            await uow.workspace_packs.add_question(stored, stored_question, now=now)
            added += 1
    waiting = await uow.drafts.pending_questions(workspace, slug)
    queued = already = 0
    for draft in checked.drafts:
        assert draft.answer is not None  # check_upload refuses a question without one
        if (draft.prompt, tuple(draft.choices)) in waiting:
            already += 1  # the same file uploaded again: its drafts already wait in the queue
            continue
        waiting.add((draft.prompt, tuple(draft.choices)))
        content = DraftContent(
            prompt=draft.prompt,
            choices=tuple(draft.choices),
            correct_index=draft.answer - 1,
            explanation="",
            references=tuple(draft.references),
            tags=tuple(draft.tags),
            difficulty=draft.difficulty,
        )
        images = {"image": draft.image, "explanation_image": draft.explanation_image}
        await uow.drafts.add_draft(
            workspace,
            slug,
            content,
            author_id=context.user.user_id,
            author_name=by,
            now=now,
            origin=DraftOrigin.UPLOADED,
            extra={name: image for name, image in images.items() if image} or None,
        )
        queued += 1
    await uow.commit()
    name = upload_name(filename)
    warnings = [warning.line().removeprefix(f"{name}: ") for warning in checked.warnings]
    joined = existing is not None and added > 0
    return Reply(words.imported(slug, added, queued, warnings, joined=joined, already_waiting=already))


def upload_name(filename: str) -> str:
    """The file's own name, without any folder a platform put before it."""
    return filename.replace("\\", "/").rsplit("/", 1)[-1] or filename
