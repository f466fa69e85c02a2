"""A workspace's own packs on SQLite and PostgreSQL: stored whole or a question at a time, versioned, kept apart per
workspace under the same slug, never under a shipped pack's id, and left alone by content sync."""

from __future__ import annotations

import pytest

from bot.domain import Pack, Question
from bot.domain.drafts import DraftContent, DraftOrigin, DraftStatus, workspace_pack_key
from bot.errors import UserInputError
from bot.runtime import Runtime


def question(key: str, prompt: str = "Which collective sums gradients across ranks?", answer: int = 0) -> Question:
    return Question(
        pack_id="runbooks",
        key=key,
        prompt=prompt,
        choices=("all-reduce", "broadcast", "scatter"),
        correct_index=answer,
        explanation="All-reduce sums and shares. Every rank ends with the total.",
        tags=("ddp",),
        difficulty="easy",
        references=("https://pytorch.org/docs/stable/distributed.html",),
    )


def pack(*questions: Question, title: str = "Our runbooks") -> Pack:
    return Pack(id="runbooks", title=title, description="What on-call needs.", questions=questions)


async def workspace(runtime: Runtime, external: str) -> int:
    async with runtime.uow() as uow:
        row = await uow.places.workspace_id("fake", external, runtime.clock.now())
        await uow.commit()
    return row


async def test_a_pack_is_stored_whole_then_again_with_edits_and_removals(runtime: Runtime) -> None:
    ws = await workspace(runtime, "W1")
    now = runtime.clock.now()
    async with runtime.uow() as uow:
        stored = await uow.workspace_packs.store_pack(
            ws, pack(question("q1"), question("q2", "Second?")), by="ada", now=now
        )
        await uow.commit()
    assert (stored.created, stored.added, stored.changed, stored.retired) == (True, 2, 0, 0)
    assert stored.pack.key == workspace_pack_key(ws, "runbooks") and stored.pack.questions == 2
    async with runtime.uow() as uow:
        again = await uow.workspace_packs.store_pack(
            ws, pack(question("q1", "Edited?"), title="Runbooks v2"), by="ada", now=now
        )
        await uow.commit()
    assert (again.created, again.added, again.changed, again.retired) == (False, 0, 1, 1)
    async with runtime.uow() as uow:
        found = await uow.workspace_packs.get(ws, "RUNBOOKS")
        assert found is not None and found.title == "Runbooks v2" and found.questions == 1
        exported = await uow.workspace_packs.as_pack(found)
        assert [q.prompt for q in exported.questions] == ["Edited?"]
        assert exported.questions[0].references == ("https://pytorch.org/docs/stable/distributed.html",)
        row = await uow.questions.any(found.key, "q1")
        assert row is not None
        versions = {(await uow.questions.current_version(row, now)).prompt}
    assert versions == {"Edited?"}


async def test_two_workspaces_share_a_slug_and_sync_leaves_their_packs_alone(runtime: Runtime) -> None:
    first, second = await workspace(runtime, "W1"), await workspace(runtime, "W2")
    now = runtime.clock.now()
    async with runtime.uow() as uow:
        await uow.workspace_packs.store_pack(first, pack(question("q1")), by="ada", now=now)
        await uow.workspace_packs.store_pack(second, pack(question("q1"), question("q2", "Other?")), by="bo", now=now)
        await uow.commit()
    await runtime.app.sync_content()
    async with runtime.uow() as uow:
        mine = await uow.workspace_packs.of_workspace(first)
        theirs = await uow.workspace_packs.of_workspace(second)
        assert [(p.slug, p.questions) for p in mine] == [("runbooks", 1)]
        assert [(p.slug, p.questions) for p in theirs] == [("runbooks", 2)]
        row = await uow.questions.pack(mine[0].key)
        assert row is not None and row.active  # sync did not retire it
        assert await uow.questions.active(mine[0].key, "q1") is not None


async def test_a_shipped_id_or_a_bad_slug_is_refused(runtime: Runtime) -> None:
    ws = await workspace(runtime, "W1")
    shipped = runtime.app.quiz.catalog.packs[0].id
    async with runtime.uow() as uow:
        with pytest.raises(UserInputError, match="is a shipped pack"):
            await uow.workspace_packs.create(ws, shipped, title="x", by="ada", now=runtime.clock.now())
        with pytest.raises(UserInputError, match="cannot name a pack"):
            await uow.workspace_packs.create(ws, "Not A Slug", title="x", by="ada", now=runtime.clock.now())


async def test_drafts_are_queued_edited_and_decided_once(runtime: Runtime) -> None:
    ws = await workspace(runtime, "W1")
    now = runtime.clock.now()
    content = DraftContent("Which?", ("a", "b"), None)
    async with runtime.uow() as uow:
        draft = await uow.drafts.add_draft(
            ws, "team", content, author_id="U-ann", author_name="ann", now=now, origin=DraftOrigin.UPLOADED
        )
        await uow.commit()
    assert not draft.content.complete
    async with runtime.uow() as uow:
        assert [d.id for d in await uow.drafts.pending(ws)] == [draft.id]
        assert await uow.drafts.get(ws + 1000, draft.id) is None  # another workspace's id is no draft here
        done = DraftContent("Which?", ("a", "b"), 1, "Because b. It is so.")
        assert await uow.drafts.edit(ws, draft.id, done)
        assert await uow.drafts.decide(ws, draft.id, DraftStatus.REJECTED, by="lee", now=now, reason="dup")
        assert not await uow.drafts.decide(ws, draft.id, DraftStatus.APPROVED, by="lee", now=now)
        await uow.commit()
    async with runtime.uow() as uow:
        decided = await uow.drafts.get(ws, draft.id)
        assert decided is not None and decided.status is DraftStatus.REJECTED and decided.reason == "dup"
        assert decided.content.correct_index == 1 and await uow.drafts.pending(ws) == []
