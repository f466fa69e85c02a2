"""A pack uploaded in Slack, through the real slack-bolt app against the loopback fake Slack: a lead shares an .xlsx
in Kahoot's template with the bot in a DM (a signed `message` event with `files`); the bot downloads it from
`url_private_download` on 127.0.0.1 with its bot token, imports it, answers in the DM, and `/quiz now PACK` posts
from the new pack. A bad upload (a formula, a zip bomb, one over the limit) is refused with nothing stored, the
oversize one never downloaded; a member's file is refused; a file shared in a channel is not read; `/quiz import`
typed in a channel says how to upload."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from bot.db.models import DraftRow, QuestionRow, WorkspacePackRow
from bot.runtime import Runtime
from tests.fakes.slack_api import JSON_CONTENT_TYPE, FakeSlack, event_callback_body, poll_until
from tests.slack_harness import RunningSlack, running_adapter
from tests.upload_support import KAHOOT_EXPLANATIONS, kahoot_workbook, zip_bomb


async def share(slack: RunningSlack, user: str, file: dict[str, Any], *, channel_type: str = "im") -> None:
    channel = ("D" + user[1:]) if channel_type == "im" else "C0001"
    event = {
        "type": "message",
        "subtype": "file_share",
        "channel": channel,
        "channel_type": channel_type,
        "user": user,
        "text": "",
        "ts": "1700000000.000200",
        "event_ts": "1700000000.000200",
        "files": [file],
    }
    status, _ = await slack.post(event_callback_body(event), headers={"Content-Type": JSON_CONTENT_TYPE})
    assert status == 200


async def dm_replies(fake: FakeSlack, user: str, count: int) -> list[str]:
    channel = "D" + user[1:]
    await poll_until(lambda: len(fake.messages_in(channel)) >= count, message=f"{count} DM replies")
    return [message["text"] for message in fake.messages_in(channel)]


async def counts(runtime: Runtime) -> tuple[int, int, int]:
    async with runtime.db.transaction() as session:
        return (
            int((await session.execute(select(func.count()).select_from(WorkspacePackRow))).scalar_one()),
            int((await session.execute(select(func.count()).select_from(QuestionRow))).scalar_one()),
            int((await session.execute(select(func.count()).select_from(DraftRow))).scalar_one()),
        )


async def test_a_file_shared_in_a_dm_becomes_a_pack_and_bad_ones_are_refused(runtime: Runtime, fake: FakeSlack) -> None:
    fake.open_dm("U0ADMIN")
    fake.open_dm("U0BOB")
    async with running_adapter(runtime, fake) as slack:
        before = await counts(runtime)
        workbook = kahoot_workbook(explanations=KAHOOT_EXPLANATIONS[:3])
        await share(slack, "U0ADMIN", fake.share_file("Team Ops.xlsx", workbook))
        [done] = await dm_replies(fake, "U0ADMIN", 1)
        assert done.startswith("pack team-ops: 3 questions added, 1 draft to complete in /quiz drafts"), done
        assert fake.file_downloads == [(fake.file_downloads[0][0], fake.bot_token)]  # with the bot token
        packs, questions, drafts = await counts(runtime)
        assert (packs, questions - before[1], drafts) == (1, 3, 1)
        # a message event carries only the user id: the author is named as users.info (asked for the admin check) names
        # them, not stored as U0ADMIN, and the drafts queue says so
        async with runtime.db.transaction() as session:
            draft = (await session.execute(select(DraftRow))).scalar_one()
            pack = (await session.execute(select(WorkspacePackRow))).scalar_one()
        assert (draft.author_id, draft.author_name, pack.created_by) == ("U0ADMIN", "admin", "admin")
        await slack.command("drafts", user_id="U0ADMIN")
        [queue] = await slack.ephemerals(1)
        assert "(by admin)" in queue["text"] and "U0ADMIN" not in queue["text"], queue["text"]

        await slack.command("now team-ops", user_id="U0ALICE")
        card = await slack.posted_card(2)  # the first message the bot posted is its answer in the DM
        assert card in fake.messages_in("C0001")
        prompts = ("kubectl rollout undo", "Which port does HTTPS use by default?", "Is DNS served over UDP?")
        assert any(prompt in card["blocks"][0]["text"]["text"] for prompt in prompts), card["blocks"][0]

        stored = await counts(runtime)
        await share(slack, "U0ADMIN", fake.share_file("f.xlsx", kahoot_workbook(formula="=1+1")))
        formula = (await dm_replies(fake, "U0ADMIN", 2))[-1]
        assert formula.startswith("f.xlsx was not imported: cell I12 of sheet 'Sheet1' holds a formula"), formula
        await share(slack, "U0ADMIN", fake.share_file("bomb.xlsx", zip_bomb()))
        bomb = (await dm_replies(fake, "U0ADMIN", 3))[-1]
        assert bomb.startswith("bomb.xlsx was not imported: the workbook would unpack to"), bomb
        downloaded = len(fake.file_downloads)
        await share(slack, "U0ADMIN", fake.share_file("big.csv", b"x", size=2_000_000))
        big = (await dm_replies(fake, "U0ADMIN", 4))[-1]
        assert big.startswith("big.csv was not imported: the file has 2000000 bytes; uploads are limited to"), big
        assert len(fake.file_downloads) == downloaded  # refused by the size the event gave: never downloaded

        await share(slack, "U0BOB", fake.share_file("mine.xlsx", workbook))
        [member] = await dm_replies(fake, "U0BOB", 1)
        assert member.startswith("Only leads and admins can import packs"), member

        await share(slack, "U0ADMIN", fake.share_file("channel.xlsx", workbook), channel_type="channel")
        await slack.command("import", user_id="U0ADMIN")
        how = (await slack.ephemerals(2))[-1]["text"]  # after the drafts queue above
        assert how.startswith("To import a pack, attach its file:") and "direct message" in how
        await slack.idle()
        assert await counts(runtime) == stored
        assert "channel.xlsx" not in str(fake.file_downloads)  # a file shared in a channel is never read


async def test_an_upload_from_a_configured_admin_is_named_as_their_last_command_was(
    runtime: Runtime, fake: FakeSlack
) -> None:
    """A configured admin id skips users.info: the name comes from the `user_name` a slash command carried; before
    any, the author is known by id only (no extra API call for a name)."""
    fake.open_dm("U0CAROL")
    workbook = kahoot_workbook(explanations=KAHOOT_EXPLANATIONS[:3])  # a pack of 3 and a draft
    async with running_adapter(runtime, fake, slack_admin_user_ids=["U0CAROL"]) as slack:
        await share(slack, "U0CAROL", fake.share_file("Before.xlsx", workbook))
        await dm_replies(fake, "U0CAROL", 1)
        await slack.command("import", user_id="U0CAROL")
        await slack.ephemerals(1)
        await share(slack, "U0CAROL", fake.share_file("After.xlsx", workbook))
        await dm_replies(fake, "U0CAROL", 2)
        assert not fake.calls_to("users.info")
    async with runtime.db.transaction() as session:
        named = (await session.execute(select(WorkspacePackRow.slug, WorkspacePackRow.created_by))).all()
        authors = set((await session.execute(select(DraftRow.pack_slug, DraftRow.author_name))).all())
    assert sorted(named) == [("after", "carol"), ("before", "U0CAROL")]
    assert authors == {("after", "carol"), ("before", "U0CAROL")}
