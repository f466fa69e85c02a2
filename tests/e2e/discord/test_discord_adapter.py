"""The Discord adapter end to end: the real discord.py client against the loopback fake Discord, on both databases."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from adapters.discord.adapter import DiscordAdapter
from bot.clock import ManualClock
from bot.commands import Command
from bot.domain import AnswerResult, ChannelRef
from bot.ports import Message, PlatformError
from bot.runtime import Runtime
from bot.service.facade import Context, Reply
from bot.wording.errors import POSTED_ELSEWHERE
from tests.discord_support import (
    ANSWER_ID,
    answer_rows,
    card_messages,
    click,
    custom_ids,
    embed_text,
    post_refs,
    serving,
    slash,
    text_of,
)
from tests.fakes.discord_api import DISCORD_EPOCH_MS, WAIT, FakeDiscord


@pytest.fixture
def adapter(runtime: Runtime) -> DiscordAdapter:
    return DiscordAdapter(runtime)


async def test_quiz_now_posts_an_embed_with_one_button_per_choice(
    runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    async with serving(adapter, fake):
        callback = await slash(fake, "now", {"pack": "data-parallelism"}, user_name="alice")
        assert callback.type == 4
        assert callback.ephemeral
        assert "Posted question" in text_of(callback)

        [post] = fake.requests_to("POST", "/channels/{id}/messages")
        body = post.json
        assert body["allowed_mentions"] == {"parse": []}
        [embed] = body["embeds"]
        [(post_id, message_ref)] = await post_refs(runtime)
        _, _, card = await runtime.app.card(post_id)
        [message] = card_messages(fake)
        assert message_ref == message["id"]
        assert embed["title"] == card.prompt
        assert (
            embed["footer"]["text"]
            == f"Data Parallelism Quiz · question {card.question_number} · 8 questions in the pack · 0 answers"
        )
        assert embed["description"].endswith("\n\n-# On demand · open until revealed")
        ids = [c["custom_id"] for row in body["components"] for c in row["components"]]
        assert ids == [f"quiz:answer:{post_id}:{choice}" for choice in card.choice_ids]
        assert all(len(i) <= 100 for i in ids)
        labels = [c["label"] for row in body["components"] for c in row["components"]]
        assert len(labels) == len(card.choices)
        assert all(len(label) <= 80 for label in labels)


def _correct_and_wrong(runtime: Runtime, prompt: str) -> tuple[int, int]:
    """The pack index of the correct choice of the question with this prompt, and of one wrong choice."""
    question = next(q for pack in runtime.catalog.packs for q in pack.questions if q.prompt == prompt)
    wrong = next(i for i in range(len(question.choices)) if i != question.correct_index)
    return question.correct_index, wrong


async def _post(runtime: Runtime, fake: FakeDiscord, **kw: object) -> tuple[dict[str, object], int, int, int]:
    """`/quiz now` by alice; returns the card message, its post id, and the correct and a wrong choice id."""
    before = len(card_messages(fake))
    callback = await slash(fake, "now", {"pack": "data-parallelism"}, user_name="alice", **kw)
    assert callback.ephemeral, text_of(callback)
    message = (await fake.wait_for(lambda: card_messages(fake)[before:], what="the card"))[0]
    post_id = int(ANSWER_ID.fullmatch(custom_ids(message)[0]).group(1))  # type: ignore[union-attr]
    _, _, card = await runtime.app.card(post_id)
    correct, wrong = _correct_and_wrong(runtime, card.prompt)
    return message, post_id, correct, wrong


async def test_clicks_get_private_verdicts_and_only_first_answers_count(
    runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    async with serving(adapter, fake):
        message, post_id, correct, wrong = await _post(runtime, fake)
        right_id, wrong_id = f"quiz:answer:{post_id}:{correct}", f"quiz:answer:{post_id}:{wrong}"

        alice = await click(fake, message, right_id, user_id=1001, user_name="alice")
        bob = await click(fake, message, wrong_id, user_id=1002, user_name="bob")
        carol = await click(fake, message, right_id, user_id=1003, user_name="carol")
        bob_again = await click(fake, message, right_id, user_id=1002, user_name="bob")

        for callback in (alice, bob, carol, bob_again):
            assert callback.type == 4
            assert callback.flags == 64  # ephemeral: only the clicker sees it
            assert callback.data["allowed_mentions"] == {"parse": []}
        assert text_of(alice).startswith("Correct!")
        assert text_of(bob).startswith("Not quite.")
        assert text_of(carol).startswith("Correct!")
        assert "You already answered" in text_of(bob_again)
        assert "(wrong)" in text_of(bob_again)
        explanation = next(
            q.explanation for p in runtime.catalog.packs for q in p.questions if q.correct_index == correct
        )
        assert explanation
        assert alice.embeds[0]["description"]  # the explanation follows the verdict
        assert alice.embeds[0]["color"] != bob.embeds[0]["color"]  # right and wrong look different

        rows = await answer_rows(runtime)
        assert rows == [
            (post_id, "1001", correct, True),
            (post_id, "1002", wrong, False),
            (post_id, "1003", correct, True),
        ]


async def test_a_burst_of_clicks_is_one_coalesced_edit_sent_before_disconnecting(
    runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    runtime.cards.interval = 60.0  # no edit runs on its own during the test: the stop must send it
    async with serving(adapter, fake):
        message, post_id, correct, wrong = await _post(runtime, fake)
        for user_id, choice in ((1001, correct), (1002, wrong), (1003, correct), (1002, correct)):
            await click(fake, message, f"quiz:answer:{post_id}:{choice}", user_id=user_id, user_name=f"u{user_id}")
        edits = f"/channels/{fake.channel_id}/messages/{message['id']}"
        assert fake.requests_to("PATCH", edits) == []
    [edit] = fake.requests_to("PATCH", edits)
    assert edit.json["embeds"][0]["footer"]["text"].endswith("· 3 answers")
    assert "components" not in edit.json  # the buttons stay as they are
    assert "content" not in edit.json  # embeds never ping, so an edit without content needs no allowed_mentions
    assert adapter.client.is_closed()


async def test_answer_count_edit_runs_after_the_interval(
    runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    runtime.cards.interval = 0.05
    async with serving(adapter, fake):
        message, post_id, correct, _ = await _post(runtime, fake)
        await click(fake, message, f"quiz:answer:{post_id}:{correct}", user_id=1001, user_name="alice")
        edit = await fake.wait_for_request("PATCH", f"/channels/{fake.channel_id}/messages/{message['id']}")
        assert edit.json["embeds"][0]["footer"]["text"].endswith("· 1 answer")
        assert custom_ids(fake.get_message(message["id"])) == custom_ids(message)


async def test_reveal_edits_the_card_with_the_answer_and_removes_the_buttons(
    runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    async with serving(adapter, fake):
        message, post_id, correct, wrong = await _post(runtime, fake)
        await click(fake, message, f"quiz:answer:{post_id}:{correct}", user_id=1001, user_name="alice")
        await click(fake, message, f"quiz:answer:{post_id}:{wrong}", user_id=1002, user_name="bob")

        callback = await slash(fake, "reveal", user_name="alice")
        assert callback.ephemeral
        assert text_of(callback).startswith("Revealed:")

        edit = fake.requests_to("PATCH", f"/channels/{fake.channel_id}/messages/{message['id']}")[-1]
        assert edit.json["components"] == []
        revealed = fake.get_message(message["id"])
        assert revealed["components"] == []
        text = embed_text(revealed)
        assert "✅" in text
        assert "— 1 (50%)" in text
        assert "Got it right: alice" in text
        assert text.endswith("2 answers · closed")

        again = await slash(fake, "reveal", user_name="alice")
        assert "no open question" in text_of(again)


async def test_buttons_posted_before_a_restart_still_record_answers(runtime: Runtime, fake: FakeDiscord) -> None:
    first = DiscordAdapter(runtime)
    async with serving(first, fake):
        message, post_id, correct, wrong = await _post(runtime, fake)
        await click(fake, message, f"quiz:answer:{post_id}:{correct}", user_id=1001, user_name="alice")
    assert first.client.is_closed()
    await fake.wait_for(lambda: all(c.closed for c in fake.connections), what="the old connection closed")

    second = DiscordAdapter(runtime)  # a new process would build a new adapter on the same database
    async with serving(second, fake):
        assert len(fake.identifies) == 2
        bob = await click(fake, message, f"quiz:answer:{post_id}:{wrong}", user_id=1002, user_name="bob")
        assert bob.ephemeral
        assert text_of(bob).startswith("Not quite.")
    assert [(row[1], row[3]) for row in await answer_rows(runtime)] == [("1001", True), ("1002", False)]


async def _post_raw_buttons(fake: FakeDiscord, *ids: str) -> dict[str, object]:
    """A message with buttons the running bot never made (an old version, or a forged custom_id)."""
    import aiohttp

    body = {
        "content": "an old message",
        "components": [{"type": 1, "components": [{"type": 2, "style": 2, "label": "x", "custom_id": i} for i in ids]}],
    }
    async with aiohttp.ClientSession() as session:
        url = f"{fake.api_base}/channels/{fake.channel_id}/messages"
        async with session.post(url, json=body, headers={"Authorization": "Bot fake-bot-token"}) as response:
            assert response.status == 200, await response.text()
            return dict(await response.json())


async def test_unknown_and_malformed_buttons_get_a_polite_private_reply(
    runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    async with serving(adapter, fake):
        _, post_id, correct, _ = await _post(runtime, fake)
        forged = await _post_raw_buttons(
            fake,
            "quiz:answer:999999:0",  # no such post
            f"quiz:answer:{post_id}:9",  # no such choice
            "quiz:answer:abc:1",  # not a post id
            "quiz:answer:1234567890123456789012345:1",  # longer than any database id
            "quiz:vote:1",  # not ours at all
        )
        replies = [await click(fake, forged, custom_id, user_name="mallory") for custom_id in custom_ids(forged)]
        for reply in replies:
            assert reply.type == 4
            assert reply.ephemeral
            assert "Traceback" not in text_of(reply)
        assert "no longer exists" in text_of(replies[0])
        assert "does not match a choice" in text_of(replies[1])
        for reply in replies[2:]:
            assert "not one I know" in text_of(reply)
        assert await answer_rows(runtime) == []

        # the client is still fine
        message = card_messages(fake)[0]
        ok = await click(fake, message, f"quiz:answer:{post_id}:{correct}", user_id=1001, user_name="alice")
        assert text_of(ok).startswith("Correct!")


async def test_a_click_on_a_closed_question_is_told_so(
    runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    async with serving(adapter, fake):
        message, post_id, correct, _ = await _post(runtime, fake)
        # Closed (by another replica, or its time ran out) before the card's edit reached Discord.
        async with runtime.uow() as uow:
            await runtime.quiz.close_post(uow, post_id)
            await uow.commit()
        late = await click(fake, message, f"quiz:answer:{post_id}:{correct}", user_id=1001, user_name="alice")
        assert late.ephemeral
        assert "This question is closed" in text_of(late)
        assert "The answer:" in text_of(late)
        assert await answer_rows(runtime) == []


async def test_database_down_gets_a_retry_message_and_nothing_crashes(
    runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    from bot.db import Database

    async with serving(adapter, fake):
        message, post_id, correct, _ = await _post(runtime, fake)
        good_engine = runtime.db.engine
        down = Database.from_url("postgresql+asyncpg://postgres@127.0.0.1:1/quizbot")
        runtime.db.engine, runtime.db.sessions = down.engine, down.sessions
        try:
            clicked = await click(fake, message, f"quiz:answer:{post_id}:{correct}", user_id=1001, user_name="alice")
            assert clicked.ephemeral
            assert "Could not record your answer" in text_of(clicked)
            assert "try again" in text_of(clicked)
            board = await slash(fake, "leaderboard", user_name="alice")
            assert board.ephemeral
            assert "Could not reach the quiz database" in text_of(board)
        finally:
            await down.dispose()
            restored = Database(good_engine)
            runtime.db.engine, runtime.db.sessions = restored.engine, restored.sessions
        retried = await click(fake, message, f"quiz:answer:{post_id}:{correct}", user_id=1001, user_name="alice")
        assert text_of(retried).startswith("Correct!")
    assert len(await answer_rows(runtime)) == 1


async def test_slow_work_is_deferred_then_the_answer_edits_the_deferred_reply(
    runtime: Runtime, fake: FakeDiscord
) -> None:
    adapter = DiscordAdapter(runtime, defer_after=0.0)  # as if the core took longer than the defer threshold
    async with serving(adapter, fake):
        data = fake.slash_command_interaction("quiz", subcommand="now", user_name="alice")
        deferred = await fake.send_interaction(data)
        assert deferred is not None
        assert deferred.type == 5
        assert deferred.ephemeral
        await fake.wait_for_request("PATCH", "/webhooks/{app}/{token}/messages/@original")
        original = fake.original_response(data["id"])
        assert original is not None
        assert "Posted question" in original["embeds"][0]["title"]
        assert original["flags"] & 64

        message = card_messages(fake)[-1]
        post_id = int(ANSWER_ID.fullmatch(custom_ids(message)[0]).group(1))  # type: ignore[union-attr]
        _, _, card = await runtime.app.card(post_id)
        correct, _ = _correct_and_wrong(runtime, card.prompt)
        click_data = fake.component_interaction(message, f"quiz:answer:{post_id}:{correct}", user_name="bob")
        clicked = await fake.send_interaction(click_data)
        assert clicked is not None
        assert clicked.type == 5  # "thinking", visible only to bob
        assert clicked.ephemeral
        await fake.wait_for(lambda: (fake.original_response(click_data["id"]) or {}).get("embeds"), what="answer")
        assert fake.original_response(click_data["id"])["embeds"][0]["title"].startswith("Correct!")
    assert len(await answer_rows(runtime)) == 1


async def test_leaderboard_me_packs_and_help_answer_privately(
    runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    async with serving(adapter, fake):
        message, post_id, correct, _ = await _post(runtime, fake)
        await click(fake, message, f"quiz:answer:{post_id}:{correct}", user_id=1001, user_name="alice")

        board = await slash(fake, "leaderboard", {"window": "week", "scope": "workspace"}, user_id=1001)
        assert board.ephemeral
        assert "Leaderboard (workspace, this week)" in text_of(board)
        assert "1\\. alice" in text_of(board)  # escaped, so Discord shows the rank as written

        me = await slash(fake, "me", user_id=1001, user_name="alice")
        assert "Your quiz record, alice" in text_of(me)
        assert "Answered: 1" in text_of(me)

        packs = await slash(fake, "packs", user_name="alice")
        assert "data-parallelism" in text_of(packs)
        assert "model-pipeline-parallelism" in text_of(packs)

        one = await slash(fake, "help", {"command": "now"}, user_name="alice")
        assert "/quiz now [pack]" in text_of(one)
        everything = await slash(fake, "help", user_name="alice")
        assert "/quiz leaderboard" in text_of(everything)

        unknown_pack = await slash(fake, "now", {"pack": "no-such-pack"}, user_name="alice")
        assert unknown_pack.ephemeral
        assert "no-such-pack" in text_of(unknown_pack)
        odd_pack = await slash(fake, "now", {"pack": "two words"}, user_name="alice")
        assert "two words" in text_of(odd_pack)  # one option value, refused as an unknown pack
        for callback in (board, me, packs, one, everything, unknown_pack, odd_pack):
            assert callback.ephemeral
    assert len(card_messages(fake)) == 1


async def test_pack_autocomplete_offers_matching_packs(
    runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    async with serving(adapter, fake):
        typed = await fake.send_interaction(fake.autocomplete_interaction("quiz", "now", {"pack": "pipeline"}))
        assert typed is not None
        assert typed.type == 8
        assert [c["value"] for c in typed.data["choices"]] == ["model-pipeline-parallelism"]
        empty = await fake.send_interaction(fake.autocomplete_interaction("quiz", "now", {"pack": ""}))
        assert empty is not None
        assert sorted(c["value"] for c in empty.data["choices"]) == ["data-parallelism", "model-pipeline-parallelism"]
        assert all(len(c["name"]) <= 100 for c in empty.data["choices"])


async def test_admin_is_manage_server_or_the_configured_role(
    runtime: Runtime, fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    role = fake.add_role("quizmaster")
    manager_role = fake.add_role("managers", permissions=1 << 5)  # Manage Server
    runtime.settings = runtime.settings.model_copy(update={"discord_admin_role_id": int(role["id"])})
    seen: list[tuple[str, bool]] = []
    execute = runtime.app.execute

    async def recording(command: Command, context: Context) -> Reply:
        seen.append((context.user.display_name, context.is_admin))
        return await execute(command, context)

    monkeypatch.setattr(runtime.app, "execute", recording)
    async with serving(DiscordAdapter(runtime), fake):
        await slash(fake, "packs", user_name="member")
        await slash(fake, "packs", user_name="quizmaster", roles=[role["id"]])
        await slash(fake, "packs", user_name="manager", roles=[manager_role["id"]])
        await slash(fake, "packs", user_name="owner", user_id=fake.owner_id)
        await slash(fake, "packs", user_name="dm-user", dm=True)
    assert seen == [("member", False), ("quizmaster", True), ("manager", True), ("owner", True), ("dm-user", False)]


async def test_direct_messages_are_their_own_channel(
    runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    async with serving(adapter, fake):
        callback = await slash(fake, "now", user_id=1001, user_name="alice", dm=True)
        assert callback.ephemeral
        dm_channel = callback.interaction["channel_id"]
        [message] = [m for m in fake.channel_messages(dm_channel) if m["embeds"] and not m.get("interaction_metadata")]
        post_id = int(ANSWER_ID.fullmatch(custom_ids(message)[0]).group(1))  # type: ignore[union-attr]
        channel, _, card = await runtime.app.card(post_id)
        assert (channel.workspace_id, channel.channel_id) == (f"dm-{dm_channel}", dm_channel)  # a workspace of its own
        correct, _ = _correct_and_wrong(runtime, card.prompt)
        clicked = await click(fake, message, f"quiz:answer:{post_id}:{correct}", user_id=1001)
        assert text_of(clicked).startswith("Correct!")


async def test_a_stranger_in_a_direct_message_sees_nobody_elses_names_or_scores(
    runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    async with serving(adapter, fake):
        posted = await slash(fake, "now", user_id=1001, user_name="alice", dm=True)
        [message] = [m for m in fake.channel_messages(posted.interaction["channel_id"]) if m.get("components")]
        post_id = int(ANSWER_ID.fullmatch(custom_ids(message)[0]).group(1))  # type: ignore[union-attr]
        _, _, card = await runtime.app.card(post_id)
        correct, _ = _correct_and_wrong(runtime, card.prompt)
        assert text_of(await click(fake, message, f"quiz:answer:{post_id}:{correct}", user_id=1001)).startswith(
            "Correct!"
        )
        mine = await slash(fake, "leaderboard", {"scope": "workspace"}, user_id=1001, user_name="alice", dm=True)
        assert "alice" in text_of(mine)  # her own direct messages: her own board
        for options in ({"scope": "workspace"}, {"scope": "channel"}, {"scope": "cohorts"}):
            board = await slash(fake, "leaderboard", options, user_id=1002, user_name="stranger", dm=True)
            assert "alice" not in text_of(board) and "20 pts" not in text_of(board), options
        report = await slash(fake, "report", user_id=1002, user_name="stranger", dm=True)
        assert "alice" not in text_of(report)
        me = await slash(fake, "me", user_id=1002, user_name="stranger", dm=True)
        assert "rank" not in text_of(me)  # no answers of their own, and nobody else's to be ranked among


async def test_a_click_carrying_another_guilds_or_channels_post_is_refused_and_records_nothing(
    runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    other_guild = fake.add_guild(name="Other")
    other_channel = fake.add_text_channel("random")
    async with serving(adapter, fake):
        message, post_id, correct, _ = await _post(runtime, fake)
        button = f"quiz:answer:{post_id}:{correct}"
        # The same card (so the same buttons) misrouted into another guild, and into another channel of this one.
        _, _, card = await runtime.app.card(post_id)
        places = [
            (ChannelRef("discord", other_guild["id"], other_guild["_text_channel_id"]), 2001),
            (ChannelRef("discord", fake.guild_id, other_channel["id"]), 2002),
        ]
        for where, user_id in places:
            fake.forget_nonces()  # Discord answers a repeated nonce with its first message for a few minutes only
            copy = fake.get_message(await adapter.post_card(where, card))
            callback = await click(fake, copy, button, user_id=user_id, user_name="mallory")
            assert callback.ephemeral
            assert text_of(callback) == POSTED_ELSEWHERE
        assert await answer_rows(runtime) == []
        ok = await click(fake, message, button, user_id=1001, user_name="alice")
        assert text_of(ok).startswith("Correct!")
        assert "20 points for this answer; you are now #1 on this channel's leaderboard." in text_of(ok)
        assert [row[1] for row in await answer_rows(runtime)] == ["1001"]


async def test_port_messages_and_private_messages(runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter) -> None:
    channel = ChannelRef("discord", fake.guild_id, fake.channel_id)
    user = fake.add_user("alice", user_id=1001)
    async with serving(adapter, fake):
        await adapter.post_message(channel, Message("Weekly leaderboard @everyone", ("1. alice — 20 pts",)))
        posted = fake.last_message()
        assert posted["embeds"][0]["title"] == "Weekly leaderboard @everyone"
        assert posted["mention_everyone"] is False
        assert fake.requests_to("POST", "/channels/{id}/messages")[-1].json["allowed_mentions"] == {"parse": []}

        await adapter.send_private(channel, user["id"], Message("Your streak", ("3 days",)))
        assert fake.requests_to("POST", "/users/@me/channels")
        dm = fake.requests_to("POST", "/channels/{id}/messages")[-1]
        assert dm.json["embeds"][0]["title"] == "Your streak"

        fake.fail_next("POST", "/channels/{id}/messages", "cannot_dm")
        with pytest.raises(PlatformError) as closed_dms:
            await adapter.send_private(channel, user["id"], Message("again"))
        assert closed_dms.value.permanent


async def test_a_channel_the_bot_may_not_post_in_gets_a_clear_reply_and_no_post(
    runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    async with serving(adapter, fake):
        fake.fail_next("POST", "/channels/{id}/messages", "missing_access")
        callback = await slash(fake, "now", user_name="alice")
        assert callback.ephemeral
        assert "Send Messages and Embed Links" in text_of(callback)
    assert await post_refs(runtime) == []


async def test_a_subcommand_discord_knows_but_the_bot_does_not_is_answered(
    runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    async with serving(adapter, fake):
        callback = await slash(fake, "frobnicate", user_name="alice")  # registered by a newer version, say
        assert callback.ephemeral
        assert "quizbot discord sync" in text_of(callback)


async def test_two_shards_in_one_process(runtime: Runtime) -> None:
    runtime.settings = runtime.settings.model_copy(update={"discord_shard_count": 2})
    async with FakeDiscord(guild_id=(10_000 << 22) | 1) as fake:
        second = fake.add_guild(guild_id=(10_001 << 22) | 1, name="Second")  # shard 1 of 2
        adapter = DiscordAdapter(runtime)
        async with serving(adapter, fake):
            assert sorted(s["shard"] for s in fake.identifies) == [[0, 2], [1, 2]]
            callback = await slash(fake, "now", user_name="alice", guild_id=second["id"])
            assert callback.ephemeral
            shard1 = await fake.wait_until_connected(1)
            assert "INTERACTION_CREATE" in [m.get("t") for m in shard1.sent]
            [message] = [
                m for m in fake.channel_messages(second["_text_channel_id"]) if not m.get("interaction_metadata")
            ]
            post_id = int(ANSWER_ID.fullmatch(custom_ids(message)[0]).group(1))  # type: ignore[union-attr]
            channel, _, card = await runtime.app.card(post_id)
            assert channel.workspace_id == second["id"]
            correct, _ = _correct_and_wrong(runtime, card.prompt)
            clicked = await click(fake, message, f"quiz:answer:{post_id}:{correct}", user_name="alice")
            assert text_of(clicked).startswith("Correct!")
        fake.assert_no_unknown_routes()


async def test_a_process_runs_only_its_configured_shards(runtime: Runtime) -> None:
    runtime.settings = runtime.settings.model_copy(update={"discord_shard_count": 2, "discord_shard_ids": [1]})
    async with FakeDiscord(guild_id=(10_001 << 22) | 1) as fake:
        async with serving(DiscordAdapter(runtime), fake):
            assert [s["shard"] for s in fake.identifies] == [[1, 2]]
            callback = await slash(fake, "packs", user_name="alice")
            assert "data-parallelism" in text_of(callback)


async def test_an_interaction_that_arrives_late_is_deferred_at_once(
    runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    async with serving(adapter, fake, discord_window=True):
        data = fake.slash_command_interaction("quiz", subcommand="packs", user_name="alice")
        # Created 2.5 s ago at Discord (a slow gateway): only 0.5 s of the 3 s window is left, so do not wait.
        created_ms = int(time.time() * 1000) - 2500 - DISCORD_EPOCH_MS
        late_id = str(created_ms << 22)
        fake.interactions[late_id] = fake.interactions.pop(data["id"])
        fake._interaction_by_token[data["token"]] = late_id  # the fake finds webhook calls by token
        data["id"] = late_id
        deferred = await fake.send_interaction(data)
        assert deferred is not None
        assert deferred.type == 5
        assert deferred.ephemeral
        await fake.wait_for(lambda: (fake.original_response(late_id) or {}).get("embeds"), what="the answer")
        assert "Quiz packs" in fake.original_response(late_id)["embeds"][0]["title"]


async def test_stopping_lets_an_answer_being_recorded_finish_before_disconnecting(
    runtime: Runtime, fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate, entered = asyncio.Event(), asyncio.Event()
    record = runtime.app.answer

    async def slow_answer(**kwargs: Any) -> AnswerResult:
        entered.set()
        await gate.wait()  # a database that is slow right when the bot is asked to stop
        return await record(**kwargs)

    adapter = DiscordAdapter(runtime, defer_after=0.0)
    async with serving(adapter, fake):
        message, post_id, correct, _ = await _post(runtime, fake)
        monkeypatch.setattr(runtime.app, "answer", slow_answer)
        data = fake.component_interaction(message, f"quiz:answer:{post_id}:{correct}", user_id=1001, user_name="alice")
        deferred = await fake.send_interaction(data)
        assert deferred is not None
        assert deferred.type == 5
        await asyncio.wait_for(entered.wait(), WAIT)

        runtime.stopping.set()
        for _ in range(50):
            await asyncio.sleep(0)
        assert not adapter.client.is_closed()  # still answering alice
        gate.set()
    assert adapter.client.is_closed()
    assert fake.original_response(data["id"])["embeds"][0]["title"].startswith("Correct!")
    assert len(await answer_rows(runtime)) == 1


# --- /quiz schedule, cohort, review, report: typed options built into the core's commands -----------------

MANAGE_SERVER = 1 << 5


async def test_schedule_add_by_an_admin_replies_with_the_rule_in_words_and_others_are_refused(
    runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter, clock: ManualClock
) -> None:
    clock.set(datetime(2026, 1, 5, 9, 0, tzinfo=UTC))  # Monday 11:00 in Helsinki
    managers = fake.add_role("managers", permissions=MANAGE_SERVER)
    options = {"when": "weekdays 09:30", "packs": "data-parallelism", "tz": "Europe/Helsinki", "close": "2h"}
    async with serving(adapter, fake):
        added = await slash(fake, "add", options, group="schedule", user_name="lead", roles=[managers["id"]])
        assert not added.ephemeral, text_of(added)  # the channel sees it is now on a schedule
        assert added.embeds[0]["title"] == (
            "Scheduled #1: a question every weekday (Mon–Fri) at 09:30, Europe/Helsinki time."
        )
        assert "Packs: data-parallelism; each question closes after 2 h." in text_of(added)
        assert "Next: Tue 6 Jan 2026 09:30 EET" in text_of(added)

        cron = await slash(fake, "add", {"when": "30 9 * * 1-5"}, group="schedule", roles=[managers["id"]])
        assert cron.embeds[0]["title"].startswith("Scheduled #2: "), text_of(cron)

        refused = await slash(fake, "add", {"when": "daily 10:00"}, group="schedule", user_name="member")
        paused = await slash(fake, "pause", {"id": 1}, group="schedule", user_name="member")
        for callback in (refused, paused):
            assert callback.ephemeral
            assert text_of(callback).startswith("Only leads and admins can"), text_of(callback)

        by_admin = await slash(fake, "pause", {"id": 1}, group="schedule", roles=[managers["id"]])
        assert "#1" in text_of(by_admin), text_of(by_admin)
        listing = await slash(fake, "list", {"all": True}, group="schedule", user_name="member")
        assert "Europe/Helsinki" in text_of(listing) and "paused" in text_of(listing).casefold()
        bad_zone = await slash(
            fake, "add", {"when": "daily 10:00", "tz": "Mars/Olympus"}, group="schedule", roles=[managers["id"]]
        )
        assert bad_zone.ephemeral and "Mars/Olympus" in text_of(bad_zone)
    async with runtime.uow() as uow:
        stored = sorted(await runtime.schedules.list(uow, runtime_channel(fake), everywhere=True), key=lambda s: s.id)
    assert [(s.id, s.timezone, s.pack_ids, s.close_after, s.enabled) for s in stored] == [
        (1, "Europe/Helsinki", ("data-parallelism",), timedelta(hours=2), False),
        (2, "UTC", (), None, True),
    ]


def runtime_channel(fake: FakeDiscord) -> ChannelRef:
    """The fake's default channel as the core addresses it."""
    return ChannelRef("discord", fake.guild_id, fake.channel_id)


async def test_cohort_create_join_add_and_show(runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter) -> None:
    ben = fake.add_user("ben", user_id=1002)
    async with serving(adapter, fake):
        created = await slash(
            fake,
            "create",
            {"name": "spring-26", "start": "2026-03-02", "packs": "data-parallelism, model-pipeline-parallelism"},
            group="cohort",
            user_id=1000,
            user_name="lead",
        )
        assert "Created cohort spring-26, starting 2026-03-02" in text_of(created), text_of(created)
        joined = await slash(fake, "join", {"name": "spring-26"}, group="cohort", user_id=1001, user_name="ann")
        assert "cohort spring-26" in text_of(joined), text_of(joined)
        # The creator may add members; Discord sends a mention typed in a string option as <@id>.
        added = await slash(
            fake, "add", {"name": "spring-26", "members": f"<@{ben['id']}>"}, group="cohort", user_id=1000
        )
        assert text_of(added) == f"Added {ben['id']} to cohort spring-26."
        shown = await slash(fake, "show", {"name": "spring-26"}, group="cohort", user_id=1001)
        assert "created by lead" in text_of(shown)
        assert "Data Parallelism Quiz (data-parallelism): 0/8" in text_of(shown)
        assert "ann — 0/0 answered" in text_of(shown)
        assert "1002 — 0/0 answered" in text_of(shown)  # added before speaking: shown by id
        listing = await slash(fake, "list", group="cohort", user_id=1001)
        assert "spring-26" in text_of(listing)
        bad_date = await slash(fake, "create", {"name": "autumn", "start": "next week"}, group="cohort")
        assert bad_date.ephemeral and "`next week` is not a date" in text_of(bad_date)


async def test_pack_list_options_complete_the_last_pack(
    runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    async with serving(adapter, fake):
        data = fake.autocomplete_interaction(
            "quiz", "create", {"name": "x", "packs": "data-parallelism, pipe"}, focused="packs", group="cohort"
        )
        typed = await fake.send_interaction(data)
        assert typed is not None and typed.type == 8
        assert [c["value"] for c in typed.data["choices"]] == ["data-parallelism, model-pipeline-parallelism"]


async def test_review_with_nothing_due_then_a_missed_question_answered_by_number(
    runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter, clock: ManualClock
) -> None:
    async with serving(adapter, fake):
        nothing = await slash(fake, "review", user_id=1001, user_name="alice")
        assert nothing.ephemeral
        assert text_of(nothing) == "Nothing to review: questions you get wrong come back here."

        message, post_id, _, wrong = await _post(runtime, fake)
        await click(fake, message, f"quiz:answer:{post_id}:{wrong}", user_id=1001, user_name="alice")
        clock.advance(timedelta(minutes=11))
        asked = await slash(fake, "review", user_id=1001, user_name="alice")
        assert asked.ephemeral and text_of(asked).startswith("Review · "), text_of(asked)
        answered = await slash(fake, "review", {"answer": 1}, user_id=1001, user_name="alice")
        assert answered.ephemeral
        assert "box" in text_of(answered), text_of(answered)  # right moves it up a box, wrong back to box 1


async def test_report_and_leaderboard_cohort_scopes(
    runtime: Runtime, fake: FakeDiscord, adapter: DiscordAdapter
) -> None:
    async with serving(adapter, fake):
        empty = await slash(fake, "report", user_name="alice")
        assert text_of(empty).startswith("Report: no answers yet."), text_of(empty)

        await slash(fake, "create", {"name": "spring"}, group="cohort", user_id=1001, user_name="alice")
        await slash(fake, "join", {"name": "spring"}, group="cohort", user_id=1001, user_name="alice")
        message, post_id, correct, _ = await _post(runtime, fake)
        await click(fake, message, f"quiz:answer:{post_id}:{correct}", user_id=1001, user_name="alice")

        report = await slash(fake, "report", user_name="alice")
        assert not report.ephemeral  # posted for the channel
        assert "accuracy 100%" in text_of(report) and "Leaders: 1. alice (20)" in text_of(report), text_of(report)
        cohort_report = await slash(fake, "report", {"cohort": "spring"}, user_name="alice")
        assert text_of(cohort_report).startswith("Report: Cohort spring"), text_of(cohort_report)

        board = await slash(fake, "leaderboard", {"window": "week", "cohort": "spring"}, user_id=1001)
        assert "Leaderboard (cohort spring from " in text_of(board), text_of(board)
        assert "1\\. alice" in text_of(board)
        by_scope = await slash(fake, "leaderboard", {"scope": "cohort", "cohort": "spring"}, user_id=1001)
        assert text_of(by_scope) == text_of(board).replace("this week", "all time")
        versus = await slash(fake, "leaderboard", {"scope": "cohorts"}, user_id=1001)
        assert "Cohorts by points per active member" in text_of(versus), text_of(versus)
        unnamed = await slash(fake, "leaderboard", {"scope": "cohort"}, user_id=1001)
        assert unnamed.ephemeral and "Which cohort?" in text_of(unnamed)
        spaced = await slash(fake, "leaderboard", {"cohort": "Spring 2027"}, user_id=1001)
        assert "`Spring 2027` is not a cohort name" in text_of(spaced)  # refused whole by the validator
