"""Flagging through the real discord.py client and the loopback fake Discord: the "Report a problem" button under
an ephemeral answer reply (a DynamicItem, so it works after a restart), `/quiz flag` and `/quiz flags`."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import select

from adapters.discord.adapter import DiscordAdapter
from bot.db.models import QuestionFlag, User
from bot.runtime import Runtime
from tests.discord_support import ANSWER_ID, card_messages, custom_ids, serving, slash, text_of
from tests.fakes.discord_api import FakeDiscord, InteractionCallback

MANAGE_SERVER = 1 << 5


async def flags(runtime: Runtime) -> list[tuple[str, int | None, str | None]]:
    """(user external id, post id, reason) of every flag."""
    async with runtime.db.transaction() as session:
        rows = await session.execute(
            select(User.external_id, QuestionFlag.post_id, QuestionFlag.reason)
            .join(User, User.id == QuestionFlag.user_id)
            .order_by(QuestionFlag.id)
        )
        return [(r[0], r[1], r[2]) for r in rows]


async def press(fake: FakeDiscord, message: dict[str, Any], custom_id: str, **kw: Any) -> InteractionCallback:
    """Click a button, as INTERACTION_CREATE through the gateway; returns the callback (the reply's message id is
    the interaction's original response)."""
    data = fake.component_interaction(message, custom_id, **kw)
    callback = await fake.send_interaction(data)
    assert callback is not None
    callback.interaction_id = data["id"]  # type: ignore[attr-defined]
    return callback


async def test_report_a_problem_under_the_answer_reply_records_a_flag_ephemerally(
    runtime: Runtime, fake: FakeDiscord
) -> None:
    managers = fake.add_role("managers", permissions=MANAGE_SERVER)
    first = DiscordAdapter(runtime)
    async with serving(first, fake):
        await slash(fake, "now", {"pack": "data-parallelism"}, user_name="alice")
        card = (await fake.wait_for(lambda: card_messages(fake), what="the card"))[0]
        post_id = int(ANSWER_ID.fullmatch(custom_ids(card)[0]).group(1))  # type: ignore[union-attr]
        answered = await press(fake, card, custom_ids(card)[0], user_id=1002, user_name="bob")
        assert answered.type == 4 and answered.ephemeral
        assert custom_ids({"components": answered.components}) == [f"quiz:flag:{post_id}"]
        [[button]] = [row["components"] for row in answered.components]
        assert button["label"] == "Report a problem" and len(button["custom_id"]) <= 100
        reply = fake.original_response(answered.interaction_id)  # type: ignore[attr-defined]
        assert reply is not None

        flagged = await press(fake, reply, f"quiz:flag:{post_id}", user_id=1002, user_name="bob")
        assert flagged.type == 4 and flagged.ephemeral, text_of(flagged)
        assert flagged.data["allowed_mentions"] == {"parse": []}
        assert text_of(flagged).startswith("Thanks, your report is recorded.")
        assert await flags(runtime) == [("1002", post_id, None)]

        reason = await slash(fake, "flag", {"reason": "@everyone the explanation contradicts it"}, user_id=1002)
        assert reason.ephemeral and "now has your new reason" in text_of(reason)
        refused = await slash(fake, "list", group="flags", user_id=1002)
        assert refused.ephemeral and text_of(refused).startswith("Only leads and admins can see flagged questions")
    assert first.client.is_closed()

    second = DiscordAdapter(runtime)  # after a restart the button on the old reply still works
    async with serving(second, fake):
        carol = await press(fake, reply, f"quiz:flag:{post_id}", user_id=1003, user_name="carol")
        assert carol.ephemeral and text_of(carol).startswith("Thanks, your report is recorded.")
        listing = await slash(fake, "list", group="flags", user_id=1001, roles=[managers["id"]])
        assert listing.ephemeral and text_of(listing).startswith("Flagged questions (1)"), text_of(listing)
        assert "flagged by 2 people" in text_of(listing)
        # A reason is shown inside an embed (embeds never ping) and no mention is allowed: it cannot notify anyone.
        assert "“@everyone the explanation contradicts it”" in listing.embeds[0]["description"]
        assert not listing.content and listing.data["allowed_mentions"] == {"parse": []}
        forged = await press(fake, reply, f"quiz:flag:{post_id}", user_id=1003, user_name="carol")
        assert text_of(forged).startswith("You have already reported this question")
        cleared = await slash(
            fake, "clear", {"question": "data-parallelism/no-such-one"}, group="flags", roles=[managers["id"]]
        )
        assert cleared.ephemeral and "There is no question data-parallelism/no-such-one" in text_of(cleared)
    assert [(user, reason) for user, _, reason in await flags(runtime)] == [
        ("1002", "@everyone the explanation contradicts it"),
        ("1003", None),
    ]


def _view_timers() -> list[asyncio.Task[Any]]:
    """discord.py's timeout tasks of views it keeps listening to."""
    return [t for t in asyncio.all_tasks() if "timeout_task_impl" in repr(t.get_coro()) and not t.done()]


async def test_private_replies_leave_no_view_listening_and_their_buttons_still_work(
    runtime: Runtime, fake: FakeDiscord
) -> None:
    # Each private reply's view was stored by discord.py with a 15-minute timeout task of its own (it gives every
    # ephemeral view one): 20,000 clicks held ~63 MB for a quarter of an hour. Our buttons are dynamic items,
    # dispatched by their custom_id's pattern, so no view needs to listen.
    adapter = DiscordAdapter(runtime)
    async with serving(adapter, fake):
        await slash(fake, "now", {"pack": "data-parallelism"}, user_name="alice")
        card = (await fake.wait_for(lambda: card_messages(fake), what="the card"))[0]
        post_id = int(ANSWER_ID.fullmatch(custom_ids(card)[0]).group(1))  # type: ignore[union-attr]
        replies = [await press(fake, card, custom_ids(card)[0], user_id=2000 + n, user_name=f"u{n}") for n in range(5)]
        assert all(custom_ids({"components": r.components}) == [f"quiz:flag:{post_id}"] for r in replies)
        me = await slash(fake, "me", {}, user_id=2000)
        assert me.ephemeral
        assert _view_timers() == []
        reply = fake.original_response(replies[0].interaction_id)  # type: ignore[attr-defined]
        assert reply is not None
        flagged = await press(fake, reply, f"quiz:flag:{post_id}", user_id=2000, user_name="u0")
        assert text_of(flagged).startswith("Thanks, your report is recorded.")
