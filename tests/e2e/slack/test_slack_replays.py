"""Replayed and oversized slash commands, through signed HTTP requests to the real Bolt app.

A byte-identical signed copy of `/quiz now` (valid for Slack's five minutes) must not post a second card, and a
900 KB `/quiz help WORD` must be refused before the grammar or the did-you-mean matcher reads it, while a click
sent with it is acked as usual.
"""

from __future__ import annotations

import asyncio
import difflib
import shlex
from typing import Any

import pytest
from sqlalchemy import func, select

from bot.commands import COMMAND_TEXT_MAX
from bot.db.models import Post
from bot.domain.names import WORD_MAX
from bot.runtime import Runtime
from tests.fakes.slack_api import SIGNING_SECRET, FakeSlack, signed_headers
from tests.slack_harness import choice_action, running_adapter


async def _post_count(runtime: Runtime) -> int:
    async with runtime.db.transaction() as session:
        return int((await session.execute(select(func.count(Post.id)))).scalar_one())


async def test_a_replayed_slash_command_is_acked_and_not_run_again(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake) as slack:
        body = fake.slash_command_body("now data-parallelism")
        headers = signed_headers(SIGNING_SECRET, body)  # one signature, sent twice: a byte-identical replay
        first = await slack.post(body, sign=False, headers=headers)
        await slack.posted_card()
        await slack.idle()
        replay = await slack.post(body, sign=False, headers=headers)
        await slack.idle()
        assert first == (200, "")
        assert replay == (200, "")  # the replay's sender sees nothing: an empty ack
        assert len(fake.calls_to("chat.postMessage")) == 1
        assert await _post_count(runtime) == 1
        assert fake.responses == []  # and nothing was said through the response_url either

        # A genuine second `/quiz now` (its own trigger_id) still posts.
        assert await slack.command("now data-parallelism") == (200, "")
        await slack.posted_card(2)
        assert await _post_count(runtime) == 2


async def test_a_replay_that_reaches_another_replica_is_not_run_again(runtime: Runtime, fake: FakeSlack) -> None:
    # Two adapters on one database, each with its own memory of trigger_ids: two replicas behind a load balancer.
    async with running_adapter(runtime, fake) as first, running_adapter(runtime, fake) as second:
        assert first.url != second.url
        body = fake.slash_command_body("now data-parallelism")
        headers = signed_headers(SIGNING_SECRET, body)
        assert await first.post(body, sign=False, headers=headers) == (200, "")
        await first.posted_card()
        await first.idle()
        assert await second.post(body, sign=False, headers=headers) == (200, "")
        await second.idle()
        assert len(fake.calls_to("chat.postMessage")) == 1
        assert await _post_count(runtime) == 1
        assert fake.responses == []  # the replay's sender is told nothing


class _Lengths:
    """The longest text the grammar's splitter and difflib were handed."""

    def __init__(self) -> None:
        self.split = 0
        self.matched = 0


@pytest.fixture
def lengths(monkeypatch: pytest.MonkeyPatch) -> _Lengths:
    """Record what shlex.split and difflib.SequenceMatcher are given (they run as before)."""
    seen = _Lengths()
    real_split = shlex.split

    def split(text: str, *args: Any, **kwargs: Any) -> list[str]:
        seen.split = max(seen.split, len(text))
        return real_split(text, *args, **kwargs)

    class Matcher(difflib.SequenceMatcher[str]):
        def set_seq1(self, a: Any) -> None:
            seen.matched = max(seen.matched, len(a))
            super().set_seq1(a)

        def set_seq2(self, b: Any) -> None:
            seen.matched = max(seen.matched, len(b))
            super().set_seq2(b)

    monkeypatch.setattr(shlex, "split", split)
    monkeypatch.setattr(difflib, "SequenceMatcher", Matcher)
    return seen


async def test_a_huge_help_word_is_refused_unread_and_a_click_beside_it_is_acked(
    runtime: Runtime, fake: FakeSlack, lengths: _Lengths
) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("now data-parallelism")
        card = await slack.posted_card()
        await slack.idle()
        huge = fake.slash_command_body("help " + "x" * 900_000)
        click = fake.block_actions_body(card, choice_action(runtime, card, correct=True), user_id="U0BOB")
        command_reply, click_reply = await asyncio.gather(slack.exchange(huge), slack.exchange(click))
        [refusal] = await fake.wait_for_response()
        await slack.idle()

    assert command_reply[:2] == (200, "")
    assert click_reply[0] == 200 and click_reply[2]["X-Quizbot-Answer"] == "recorded"
    assert refusal.body["text"].startswith("That command is too long to read (more than 8,000 characters).")
    assert "xxxx" not in str(refusal.body)
    # Neither the grammar's splitter nor the did-you-mean matcher saw more than their bounds.
    assert lengths.split <= COMMAND_TEXT_MAX
    assert lengths.matched <= WORD_MAX


async def test_a_long_but_bounded_help_word_still_gets_its_answer(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("help " + "y" * 300)
        [reply] = await fake.wait_for_response()
        await slack.idle()
    assert reply.body["text"].startswith("There is no command `yyy")
