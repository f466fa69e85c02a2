"""`/quiz me` as the personal home and `/quiz report`'s charts, through the real discord.py client against the loopback
fake Discord: an ephemeral embed with a "Start a review" button (a DynamicItem), and the charts as PNG attachments
shown in embeds, or a private notice naming Attach Files when Discord refuses them (50013)."""

from __future__ import annotations

import asyncio
import io
from datetime import timedelta
from typing import Any

import pytest
from PIL import Image

import adapters.discord.interactions
from adapters.discord.adapter import DiscordAdapter, invite_permissions
from bot.chart_images import ChartImage
from bot.clock import ManualClock
from bot.runtime import Runtime
from tests.discord_support import card_messages, custom_ids, embed_text, serving, slash, text_of
from tests.fakes.discord_api import FakeDiscord, InteractionCallback


async def press(fake: FakeDiscord, message: dict[str, Any], custom_id: str, **kw: Any) -> InteractionCallback:
    data = fake.component_interaction(message, custom_id, **kw)
    callback = await fake.send_interaction(data, timeout=30)
    assert callback is not None
    callback.interaction_id = data["id"]  # type: ignore[attr-defined]
    return callback


async def answer(fake: FakeDiscord, *, nth: int, user_id: int, name: str, choice: int = 0) -> None:
    """Post a question with `/quiz now` and click its `choice`-th button as the user."""
    await slash(fake, "now", {"pack": "data-parallelism"}, user_name=name)
    cards = await fake.wait_for(lambda: len(card_messages(fake)) >= nth and card_messages(fake), what="the card")
    card = cards[nth - 1]
    await press(fake, card, custom_ids(card)[choice], user_id=user_id, user_name=name)


async def summary_posted(fake: FakeDiscord, report: InteractionCallback) -> None:
    """The report's summary is public: the interaction's answer, or (when it was deferred) a channel message."""
    if report.type == 4:
        assert not report.ephemeral and "Report: " in text_of(report)
        return
    await fake.wait_for(
        lambda: [m for m in fake.channel_messages() if "Report: " in embed_text(m)], timeout=30, what="the summary"
    )


def fields(callback: InteractionCallback) -> dict[str, str]:
    return {field["name"]: field["value"] for embed in callback.embeds for field in embed.get("fields") or []}


async def test_quiz_me_is_the_home_with_a_review_button_that_starts_a_review(
    runtime: Runtime, fake: FakeDiscord, clock: ManualClock
) -> None:
    adapter = DiscordAdapter(runtime)
    async with serving(adapter, fake):
        for choice in range(4):  # alice tries every choice of four questions: some wrong ones go to review
            await answer(fake, nth=choice + 1, user_id=1001, name="alice", choice=choice)
        clock.advance(timedelta(minutes=11))
        me = await slash(fake, "me", user_id=1001, user_name="alice")
        assert me.ephemeral
        assert "Your quiz record, alice" in text_of(me) and "Answered: 4" in text_of(me)
        shown = fields(me)
        assert shown["Your channels"].startswith(f"<#{fake.channel_id}>  ")
        assert "rank 1 of 1" in shown["Your channels"]
        assert "due now" in shown["Review"]
        assert "Weakest topics" in shown
        assert custom_ids({"components": me.components}) == ["quiz:review:start"]
        [[button]] = [row["components"] for row in me.components]
        assert button["label"] == "Start a review"

        reply = fake.original_response(me.interaction_id)
        assert reply is not None
        review = await press(fake, reply, "quiz:review:start", user_id=1001, user_name="alice")
        assert review.ephemeral and text_of(review).startswith("Review · ")


async def test_quiz_report_posts_its_charts_as_attachments_in_embeds(runtime: Runtime, fake: FakeDiscord) -> None:
    adapter = DiscordAdapter(runtime)
    async with serving(adapter, fake):
        await answer(fake, nth=1, user_id=1001, name="alice")
        await answer(fake, nth=2, user_id=1002, name="bob", choice=1)
        report = await slash(fake, "report", user_id=1001, user_name="alice")
        await summary_posted(fake, report)
        posted = await fake.wait_for(
            lambda: [m for m in fake.channel_messages() if m.get("attachments")], timeout=60, what="the charts"
        )
        [charts] = posted
        names = [a["filename"] for a in charts["attachments"]]
        assert names == ["participation.png", "questions.png", "tags.png"]
        assert [e["image"]["url"] for e in charts["embeds"]] == [f"attachment://{name}" for name in names]
        assert [e["title"] for e in charts["embeds"]] == [
            "Participation over time",
            "Accuracy per question",
            "Accuracy per tag",
        ]
        [request] = [r for r in fake.requests_to("POST", "/channels/{channel_id}/messages") if r.files]
        for attachment, sent in zip(charts["attachments"], request.files, strict=True):
            assert 0 < len(attachment["description"]) <= 1024  # the alt text
            image = Image.open(io.BytesIO(sent["data"]))
            assert image.format == "PNG" and image.width >= 1000


async def test_without_attach_files_the_report_posts_the_text_alone_and_says_which_permission(
    runtime: Runtime, fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The charts are held until the summary is out, so that the refusal meets the charts' message: a report
    # deferred on a busy machine posts its summary as a channel message too.
    summary_out = asyncio.Event()
    render_charts = adapters.discord.interactions.render_charts

    async def held_render(charts: Any) -> list[ChartImage]:
        await summary_out.wait()
        return await render_charts(charts)

    monkeypatch.setattr(adapters.discord.interactions, "render_charts", held_render)
    adapter = DiscordAdapter(runtime)
    async with serving(adapter, fake):
        await answer(fake, nth=1, user_id=1001, name="alice")
        report = await slash(fake, "report", user_id=1001, user_name="alice")
        await summary_posted(fake, report)
        fake.fail_next("POST", "/channels/{channel_id}/messages", "missing_permissions")
        summary_out.set()
        notices = await fake.wait_for(lambda: fake.followups(report.interaction_id), timeout=60, what="the notice")
        [notice] = notices
        assert notice["flags"] & 64  # ephemeral: only the person who asked sees it
        assert "I need the Attach Files permission" in embed_text(notice)
        assert not [m for m in fake.channel_messages() if m.get("attachments")]


def test_the_invite_asks_for_attach_files() -> None:
    assert invite_permissions().attach_files
