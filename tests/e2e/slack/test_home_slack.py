"""The App Home tab and `/quiz report`'s charts through the real slack-bolt app against the loopback fake Slack:
signed `app_home_opened` events, views.publish validated against Block Kit's view limits, the review button in the
tab and under `/quiz me`, and the charts uploaded with files_upload_v2 (upload URL on 127.0.0.1)."""

from __future__ import annotations

import io
import json
import logging
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

import pytest
from PIL import Image

from adapters.slack.home import REVIEW_ACTION
from bot.clock import ManualClock
from bot.runtime import Runtime
from tests.fakes.slack_api import (
    JSON_CONTENT_TYPE,
    FakeSlack,
    event_callback_body,
    poll_until,
    validate_blocks,
    view_block_actions_payload,
)
from tests.slack_harness import RunningSlack, choice_action, running_adapter


def home_opened(user_id: str = "U0ALICE", tab: str = "home") -> str:
    return event_callback_body(
        {"type": "app_home_opened", "user": user_id, "channel": "D" + user_id[1:], "tab": tab, "event_ts": "1.0"}
    )


async def open_home(slack: RunningSlack, user_id: str = "U0ALICE", tab: str = "home") -> None:
    status, _ = await slack.post(home_opened(user_id, tab), headers={"Content-Type": JSON_CONTENT_TYPE})
    assert status == 200


def text_of(blocks: list[dict[str, Any]]) -> str:
    return json.dumps(blocks, ensure_ascii=False)


def buttons(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [element for block in blocks if block["type"] == "actions" for element in block["elements"]]


async def answer(slack: RunningSlack, runtime: Runtime, *, correct: bool, user_id: str = "U0ALICE", nth: int) -> None:
    await slack.command("now data-parallelism")
    card = await slack.posted_card(nth)
    await slack.click(card, choice_action(runtime, card, correct=correct), user_id=user_id)
    await slack.ephemerals(nth)


async def test_the_home_tab_is_published_when_opened_and_after_an_answer_and_starts_a_review(
    runtime: Runtime, fake: FakeSlack, clock: ManualClock
) -> None:
    async with running_adapter(runtime, fake) as slack:
        slack.adapter.home.min_interval = 0.05
        await answer(slack, runtime, correct=False, nth=1)

        await open_home(slack, tab="messages")  # the Messages tab: nothing to publish
        await open_home(slack)
        [first] = await fake.wait_for_calls("views.publish", 1, ok=True)
        assert first.args["user_id"] == "U0ALICE"
        view = fake.published_views[0]
        assert view["type"] == "home" and validate_blocks(view["blocks"], max_blocks=100) == []
        shown = text_of(view["blocks"])
        assert view["blocks"][0] == {
            "type": "header",
            "text": {"type": "plain_text", "text": "Your quiz record, alice"},
            "block_id": view["blocks"][0]["block_id"],
        }
        assert "Answered: 1 · correct: 0 · accuracy: 0%" in shown
        assert "<#C0001>  0 points · rank 1 of 1 · 0 of 1 right" in shown
        assert "*Weakest topics*" in shown and "0% right of 1 answer" in shown
        assert "nothing due now · 1 learning · 0 mastered" in shown
        assert buttons(view["blocks"]) == []  # nothing due yet: no review button

        clock.advance(timedelta(minutes=11))  # the missed question is due for review now
        await answer(slack, runtime, correct=True, nth=2)
        await fake.wait_for_calls("views.publish", 2, ok=True)  # rebuilt after the answer
        view = fake.published_views[-1]
        shown = text_of(view["blocks"])
        assert "Answered: 2 · correct: 1 · accuracy: 50%" in shown
        assert "1 question due now · 1 learning · 0 mastered" in shown
        [review] = buttons(view["blocks"])
        assert review["action_id"] == review["value"] == REVIEW_ACTION and review["text"]["text"] == "Start a review"

        # The button in the tab (a click from a view: no channel) sends the review question as a DM.
        payload = view_block_actions_payload(view, REVIEW_ACTION, user_id="U0ALICE")
        assert (await slack.post(urlencode({"payload": json.dumps(payload)})))[0] == 200
        await poll_until(lambda: fake.messages_in("D0ALICE"), message="a review question in the DM")
        [question] = fake.messages_in("D0ALICE")
        assert question["text"].startswith("Review · ") and "/quiz review N" in question["text"]
        await slack.idle()
        assert len(fake.calls_to("views.publish")) == 2  # a review answer is not a channel answer: no rebuild


async def test_answers_in_a_burst_rebuild_the_home_once_not_per_click(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake) as slack:
        slack.adapter.home.min_interval = 3600  # nothing is published twice within the test
        await open_home(slack)
        await fake.wait_for_calls("views.publish", 1, ok=True)
        for nth in range(1, 4):
            await answer(slack, runtime, correct=True, nth=nth)
        await slack.idle()
        assert len(fake.calls_to("views.publish")) == 1  # the rebuild waits for the rate limit, coalesced
        assert slack.adapter.home.pending() == 1


async def test_quiz_me_shows_the_home_with_its_review_button(
    runtime: Runtime, fake: FakeSlack, clock: ManualClock
) -> None:
    async with running_adapter(runtime, fake) as slack:
        await answer(slack, runtime, correct=False, nth=1)
        clock.advance(timedelta(minutes=11))
        await slack.command("me")
        me = (await slack.ephemerals(2))[-1]
        assert validate_blocks(me["blocks"]) == []
        assert "Your quiz record, alice" in me["text"] and "Answered: 1" in me["text"]
        [review] = buttons(me["blocks"])
        assert review["action_id"] == REVIEW_ACTION
        clicked = {"ts": me["message_ts"], "blocks": me["blocks"]}
        await slack.click(clicked, REVIEW_ACTION, user_id="U0ALICE", channel_id="C0001", is_ephemeral=True)
        asked = (await slack.ephemerals(3))[-1]
        assert asked["user"] == "U0ALICE" and asked["text"].startswith("Review · ")


async def test_a_workspace_without_the_home_tab_gets_one_log_line_and_nothing_breaks(
    runtime: Runtime, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    fake.fail_next("views.publish", "not_enabled", times=2)
    async with running_adapter(runtime, fake) as slack:
        slack.adapter.home.min_interval = 0.05
        with caplog.at_level(logging.DEBUG, logger="adapters.slack.home"):
            await open_home(slack)
            await fake.wait_for_calls("views.publish", 1)
            await open_home(slack)
            await fake.wait_for_calls("views.publish", 2)
            await poll_until(lambda: not slack.adapter.home.pending(), message="publishes settled")
        warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(warnings) == 1 and "not_enabled" in warnings[0].getMessage()
        assert fake.published_views == []
        await slack.command("me")  # everything else carries on
        assert "no answers yet" in (await slack.ephemerals(1))[0]["text"]


async def test_quiz_report_uploads_its_charts_into_the_channel(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake) as slack:
        await answer(slack, runtime, correct=True, nth=1)
        await answer(slack, runtime, correct=False, user_id="U0BOB", nth=2)
        await slack.command("report")
        await fake.wait_for_calls("files.completeUploadExternal", 1, ok=True, timeout=60)  # matplotlib loads first
        [summary] = [m for m in fake.messages_in("C0001") if m["text"].startswith("Report: ")]
        assert "2 people answered twice" in summary["text"]
        files = fake.uploaded_files("C0001")
        assert [f["name"] for f in files] == ["participation.png", "questions.png", "tags.png"]
        assert [f["title"] for f in files] == ["Participation over time", "Accuracy per question", "Accuracy per tag"]
        for uploaded in files:
            image = Image.open(io.BytesIO(uploaded["data"]))
            assert image.format == "PNG" and image.width >= 1000
            assert 0 < len(uploaded["alt_txt"]) <= 1000
        assert "2 answers by 2 people" in files[0]["alt_txt"]
        [shared] = [m for m in fake.messages_in("C0001") if m.get("files")]
        assert [f["id"] for f in shared["files"]] == [f["id"] for f in files]


async def test_without_files_write_the_report_says_so_and_posts_the_text_alone(
    runtime: Runtime, fake: FakeSlack
) -> None:
    fake.fail_next("files.getUploadURLExternal", "missing_scope", extra={"needed": "files:write"})
    async with running_adapter(runtime, fake) as slack:
        await answer(slack, runtime, correct=True, nth=1)
        await slack.command("report")
        await poll_until(lambda: len(fake.ephemeral) >= 2, timeout=60, message="the notice")
        notice = fake.ephemeral[-1]
        assert notice["text"].startswith("The report's charts were not posted: I need the files:write permission.")
        assert [m for m in fake.messages_in("C0001") if m["text"].startswith("Report: ")]
        assert fake.uploaded_files() == []


async def test_a_person_the_bot_does_not_know_yet_sees_a_header_without_an_empty_name(
    runtime: Runtime, fake: FakeSlack
) -> None:
    async with running_adapter(runtime, fake) as slack:
        await open_home(slack, user_id="U0BOB")
        await fake.wait_for_calls("views.publish", 1, ok=True)
        header = fake.published_views[0]["blocks"][0]["text"]["text"]
        assert not header.startswith(":") and not header.startswith(" ")
        assert header == "No answers yet."
