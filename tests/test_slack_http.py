"""The Slack adapter in HTTP mode: signed requests to its own endpoint, the real slack-bolt app, a fake Web API."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import func, select

from bot.db.models import Answer, Post, User
from bot.runtime import Runtime
from tests.fakes.slack_api import FakeSlack, validate_blocks
from tests.slack_harness import (
    answer_buttons,
    choice_action,
    post_id_of,
    running_adapter,
    without_proxies,
)


@pytest.fixture(autouse=True)
def _no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in set(dict(__import__("os").environ)) - set(without_proxies()):
        monkeypatch.delenv(name)


@pytest.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    slack = FakeSlack()
    await slack.start()
    try:
        yield slack
    finally:
        await asyncio.wait_for(slack.stop(), 5)


async def _answers(runtime: Runtime) -> list[tuple[str, int, bool]]:
    async with runtime.db.transaction() as session:
        rows = await session.execute(
            select(User.external_id, Answer.choice_index, Answer.is_correct)
            .join(User, User.id == Answer.user_id)
            .order_by(Answer.id)
        )
        return [(row[0], row[1], row[2]) for row in rows]


async def _post_count(runtime: Runtime) -> int:
    async with runtime.db.transaction() as session:
        return int((await session.execute(select(func.count(Post.id)))).scalar_one())


async def test_a_whole_round_post_click_explain_count_reveal_leaderboard(runtime: Runtime, fake: FakeSlack) -> None:
    runtime.cards.interval = 3600  # count edits wait for flush(): the coalescing is then exact, not timed
    async with running_adapter(runtime, fake) as slack:
        status, text = await slack.command("now data-parallelism")
        assert (status, text) == (200, "")
        card = await slack.posted_card()
        assert validate_blocks(card["blocks"]) == []
        assert card["text"].startswith("Quiz: ")
        assert len(answer_buttons(card)) == 4
        assert "Data Parallelism Quiz · question" in card["blocks"][-1]["elements"][0]["text"]
        post_id = post_id_of(card)

        right, wrong = choice_action(runtime, card, correct=True), choice_action(runtime, card, correct=False)
        clicks = [("U0ALICE", right), ("U0BOB", wrong), ("U0CAROL", right), ("U0BOB", right)]
        for n, (user, action_id) in enumerate(clicks, start=1):
            assert (await slack.click(card, action_id, user_id=user))[0] == 200
            await slack.ephemerals(n)  # one private reply per click, before the next click
        replies = [(e["user"], e["text"].split("\n")[0]) for e in fake.ephemeral]
        assert [e["source"] for e in fake.ephemeral] == ["chat.postEphemeral"] * 4
        assert replies[0][0] == "U0ALICE" and replies[0][1].startswith("Correct!")
        assert replies[1][0] == "U0BOB" and replies[1][1].startswith("Not quite.")
        assert replies[2][0] == "U0CAROL" and replies[2][1].startswith("Correct!")
        assert replies[3][0] == "U0BOB" and replies[3][1].startswith("You already answered")
        # The explanation comes with the verdict.
        question_explanation = fake.ephemeral[0]["blocks"][1]["text"]["text"]
        assert len(question_explanation) > 100

        # Three answers, one card edit: the burst is coalesced.
        assert fake.calls_to("chat.update") == []
        await runtime.cards.flush()
        [update] = fake.calls_to("chat.update")
        assert update.ok and update.args["ts"] == card["ts"]
        assert "3 answers" in fake.message("C0001", card["ts"])["blocks"][-1]["elements"][0]["text"]
        assert answer_buttons(fake.message("C0001", card["ts"]))  # still open: buttons stay

        answers = await _answers(runtime)
        assert [(user, correct) for user, _, correct in answers] == [
            ("U0ALICE", True),
            ("U0BOB", False),
            ("U0CAROL", True),
        ]

        # Reveal: the card is edited to the answer, the distribution and who got it right; no buttons.
        assert (await slack.command("reveal", user_id="U0ADMIN"))[0] == 200
        await fake.wait_for_calls("chat.update", 2)
        revealed = fake.message("C0001", card["ts"])
        assert answer_buttons(revealed) == []
        body = "\n".join(b["text"]["text"] for b in revealed["blocks"] if b["type"] == "section")
        assert "Got it right: alice, carol" in body
        assert "— 2 (67%)" in body and "— 1 (33%)" in body
        assert "closed" in revealed["blocks"][-1]["elements"][0]["text"]
        assert validate_blocks(revealed["blocks"]) == []

        # A click on the closed card (an old client) is told so.
        assert (await slack.click(card, right, user_id="U0ADMIN", value=right))[0] == 200
        late = (await slack.ephemerals(5))[-1]
        assert late["user"] == "U0ADMIN" and "closed" in late["text"]

        # Leaderboard: an ephemeral reply through the command's response_url.
        assert (await slack.command("leaderboard", user_id="U0BOB"))[0] == 200
        board = (await slack.ephemerals(6))[-1]
        assert board["source"] == "response_url" and board["user"] == "U0BOB"
        lines = board["text"].splitlines()
        assert lines[0] == "Leaderboard (channel, all time)"
        # The manual clock does not move, so alice and carol are equally fast and share the first rank.
        assert sorted(lines[1:3]) == ["1. alice — 20 pts · 1/1 correct (100%)", "1. carol — 20 pts · 1/1 correct (100%)"]
        assert lines[3] == "3. bob — 0 pts · 0/1 correct (0%)"
    assert post_id > 0
