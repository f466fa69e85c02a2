"""Acknowledge after commit and bounded intake through the real discord.py client against the loopback fake
Discord: the interaction response to a click goes out only once its answer is committed; past the deadline the
interaction is deferred, counted and answered when recorded; over the cap the click is told the bot is busy and
nothing is recorded."""

from __future__ import annotations

import asyncio

from adapters.discord.adapter import DiscordAdapter
from bot.runtime import Runtime
from tests.discord_support import ANSWER_ID, PATIENT, answer_rows, card_messages, custom_ids, serving, slash, text_of
from tests.fakes.discord_api import FakeDiscord
from tests.held_commits import held_commits, metric

HOLD = 1.0
"""How long a held click is watched for an early response (shorter than the deadline the tests set)."""


def _adapter(runtime: Runtime, deadline: float | None = None) -> DiscordAdapter:
    """An adapter with the ack deadline `deadline` (as the setting), or none the machine's speed can reach."""
    if deadline is not None:
        runtime.settings = runtime.settings.model_copy(update={"discord_ack_deadline": deadline})
    return DiscordAdapter(runtime)


async def _card(runtime: Runtime, fake: FakeDiscord) -> tuple[dict[str, object], str]:
    """`/quiz now`; the card message and the custom_id of its correct button."""
    await slash(fake, "now", {"pack": "data-parallelism"}, user_name="alice")
    message = card_messages(fake)[-1]
    post_id = int(ANSWER_ID.fullmatch(custom_ids(message)[0]).group(1))  # type: ignore[union-attr]
    _, _, card = await runtime.app.card(post_id)
    question = next(q for pack in runtime.catalog.packs for q in pack.questions if q.prompt == card.prompt)
    return message, f"quiz:answer:{post_id}:{question.correct_index}"


async def test_a_click_is_answered_only_once_its_answer_is_committed(runtime: Runtime, fake: FakeDiscord) -> None:
    async with serving(_adapter(runtime), fake):
        message, right = await _card(runtime, fake)
        with held_commits(runtime) as release:
            data = fake.component_interaction(message, right, user_id=1002, user_name="bob")
            response = asyncio.create_task(fake.send_interaction(data))
            done, _ = await asyncio.wait({response}, timeout=HOLD)
            assert not done  # no interaction response while the answer is not committed
            assert await answer_rows(runtime) == []
            release.set()
            callback = await response
        assert [row[1] for row in await answer_rows(runtime)] == ["1002"]  # stored before the response went out
        assert callback is not None and callback.type == 4 and callback.ephemeral  # the verdict itself, not a defer
        assert text_of(callback).startswith("Correct!")
        assert metric(runtime, "quizbot_late_acks_total", "discord") == 0


async def test_past_the_deadline_a_click_is_deferred_counted_and_answered_once_recorded(
    runtime: Runtime, fake: FakeDiscord
) -> None:
    async with serving(_adapter(runtime, 0.2), fake) as adapter:
        adapter.defer_after = PATIENT
        message, right = await _card(runtime, fake)
        adapter.defer_after = 0.2  # the setting's value, for the click
        with held_commits(runtime) as release:
            data = fake.component_interaction(message, right, user_id=1003, user_name="carol")
            deferred = await fake.send_interaction(data)
            assert deferred is not None and deferred.type == 5 and deferred.ephemeral  # "thinking", before the commit
            assert await answer_rows(runtime) == []
            assert metric(runtime, "quizbot_late_acks_total", "discord") == 1
            release.set()
            await fake.wait_for(lambda: (fake.original_response(data["id"]) or {}).get("embeds"), what="the answer")
        original = fake.original_response(data["id"])
        assert original is not None and original["embeds"][0]["title"].startswith("Correct!")
        assert [row[1] for row in await answer_rows(runtime)] == ["1003"]


async def test_over_the_pending_cap_a_click_is_told_busy_and_nothing_is_recorded(
    runtime: Runtime, fake: FakeDiscord
) -> None:
    runtime.app.max_pending_clicks = 1
    async with serving(_adapter(runtime), fake):
        message, right = await _card(runtime, fake)
        with held_commits(runtime) as release:
            first_data = fake.component_interaction(message, right, user_id=1001, user_name="alice")
            first = asyncio.create_task(fake.send_interaction(first_data))
            await fake.wait_for(lambda: runtime.app._inflight == 1, what="the first click to be pending")
            busy = await fake.send_interaction(
                fake.component_interaction(message, right, user_id=1002, user_name="bob")
            )
            assert busy is not None and busy.type == 4 and busy.ephemeral  # answered at once, while one is held
            assert text_of(busy) == (
                "The quiz bot is busy right now and did not record that click. Please click again in a moment."
            )
            release.set()
            answered = await first
        assert answered is not None and text_of(answered).startswith("Correct!")
        assert [row[1] for row in await answer_rows(runtime)] == ["1001"]  # nothing recorded for the refused click
        assert metric(runtime, "quizbot_busy_refusals_total", "discord") == 1
        again = await fake.send_interaction(fake.component_interaction(message, right, user_id=1002, user_name="bob"))
        assert again is not None and text_of(again).startswith("Correct!")
        assert sorted(row[1] for row in await answer_rows(runtime)) == ["1001", "1002"]
