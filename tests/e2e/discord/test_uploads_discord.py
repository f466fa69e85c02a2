"""`/quiz import` through the real discord.py client against the loopback fake Discord: the file is an attachment
option, read from the fake's CDN on 127.0.0.1; an .xlsx in Kahoot's template becomes a workspace pack (and drafts) that `/quiz now PACK` posts from;
a bad upload (a formula, a zip bomb, one over the size limit) is refused with nothing stored, the oversize one
before a byte is downloaded; a member may not import."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from adapters.discord.adapter import DiscordAdapter
from bot.db.models import DraftRow, QuestionRow, WorkspacePackRow
from bot.runtime import Runtime
from tests.discord_support import card_messages, embed_text, serving, slash, text_of
from tests.fakes.discord_api import FakeDiscord
from tests.upload_support import KAHOOT_EXPLANATIONS, KAHOOT_ROWS, kahoot_workbook, zip_bomb

ATTACHMENT = 11
MANAGE_SERVER = 1 << 5


def attach(fake: FakeDiscord, filename: str, data: bytes, *, size: int | None = None) -> dict[str, Any]:
    """The interaction's keyword arguments for `/quiz import` with `data` attached (stored on the fake's CDN)."""
    attachment_id = fake.next_id()
    fake.attachments[attachment_id] = data
    url = f"{fake.base_url}/attachments/{fake.channel_id}/{attachment_id}/{filename}"
    described = {
        "id": attachment_id,
        "filename": filename,
        "size": len(data) if size is None else size,
        "url": url,
        "proxy_url": url,
        "content_type": "application/octet-stream",
    }
    return {
        "options": {"file": {"type": ATTACHMENT, "value": attachment_id}},
        "resolved": {"attachments": {attachment_id: described}},
    }


def downloads(fake: FakeDiscord) -> list[str]:
    return list(fake.attachment_downloads)


async def counts(runtime: Runtime) -> tuple[int, int, int]:
    async with runtime.db.transaction() as session:
        return (
            int((await session.execute(select(func.count()).select_from(WorkspacePackRow))).scalar_one()),
            int((await session.execute(select(func.count()).select_from(QuestionRow))).scalar_one()),
            int((await session.execute(select(func.count()).select_from(DraftRow))).scalar_one()),
        )


async def test_an_attached_kahoot_workbook_becomes_a_pack_and_bad_ones_are_refused(
    runtime: Runtime, fake: FakeDiscord
) -> None:
    managers = fake.add_role("managers", permissions=MANAGE_SERVER)
    fake.add_user("ada", user_id=1001, roles=[managers["id"]])
    fake.add_user("ben", user_id=1002)
    ada = {"user_id": 1001, "user_name": "ada", "roles": [managers["id"]]}
    async with serving(DiscordAdapter(runtime), fake):
        before = await counts(runtime)
        workbook = kahoot_workbook(explanations=KAHOOT_EXPLANATIONS[:3])
        done = await slash(fake, "import", **attach(fake, "Team Ops.xlsx", workbook), **ada)
        assert done.ephemeral
        assert text_of(done).startswith("pack team-ops: 3 questions added, 1 draft to complete in /quiz drafts")
        assert len(downloads(fake)) == 1
        packs, questions, drafts = await counts(runtime)
        assert (packs, questions - before[1], drafts) == (1, 3, 1)
        async with runtime.db.transaction() as session:
            prompts = await session.execute(select(QuestionRow.prompt).where(QuestionRow.pack_id.like("%:team-ops")))
            assert sorted(prompts.scalars()) == sorted(str(row[0]) for row in KAHOOT_ROWS[:3])

        posted = await slash(fake, "now", {"pack": "team-ops"}, user_id=1002)  # anyone, from the new pack
        assert posted is not None
        [card] = card_messages(fake)
        assert any(str(row[0]) in embed_text(card) for row in KAHOOT_ROWS[:3]), embed_text(card)

        stored = await counts(runtime)
        formula = await slash(fake, "import", **attach(fake, "f.xlsx", kahoot_workbook(formula="=1+1")), **ada)
        assert text_of(formula).startswith("f.xlsx was not imported: cell I12 of sheet 'Sheet1' holds a formula")
        bomb = await slash(fake, "import", **attach(fake, "bomb.xlsx", zip_bomb()), **ada)
        assert text_of(bomb).startswith("bomb.xlsx was not imported: the workbook would unpack to")
        fetched = len(downloads(fake))
        big = await slash(fake, "import", **attach(fake, "big.csv", b"x", size=2_000_000), **ada)
        assert text_of(big) == (
            "big.csv was not imported: the file has 2000000 bytes; uploads are limited to 1000000 bytes: "
            "split the pack into smaller files"
        )
        assert len(downloads(fake)) == fetched  # refused by its size, never downloaded
        member = await slash(fake, "import", **attach(fake, "ok.xlsx", workbook), user_id=1002)
        assert text_of(member).startswith("Only leads and admins can import packs")
        assert await counts(runtime) == stored

        typed_alone = await slash(fake, "import", **ada)
        assert text_of(typed_alone).startswith("To import a pack, attach its file:")
