"""Answer clicks as the client answers them itself (not as discord.py dynamic items), with the reply parts it keeps
between clicks: every verdict is its own post's and its own moment's (a second post, a reveal)."""

from __future__ import annotations

from typing import Any

from adapters.discord.adapter import DiscordAdapter
from bot.runtime import Runtime
from tests.discord_support import ANSWER_ID, answer_rows, card_messages, click, custom_ids, serving, slash, text_of
from tests.fakes.discord_api import FakeDiscord


async def _post(fake: FakeDiscord) -> tuple[dict[str, Any], int]:
    before = len(card_messages(fake))
    await slash(fake, "now", {"pack": "data-parallelism"}, user_name="alice")
    message = (await fake.wait_for(lambda: card_messages(fake)[before:], what="the card"))[0]
    return message, int(ANSWER_ID.fullmatch(custom_ids(message)[0]).group(1))  # type: ignore[union-attr]


def _flag_ids(callback: Any) -> list[str]:
    return custom_ids({"components": callback.components})


async def test_each_verdict_is_its_own_posts_and_a_reveal_changes_it(runtime: Runtime, fake: FakeDiscord) -> None:
    adapter = DiscordAdapter(runtime)
    async with serving(adapter, fake):
        first, first_id = await _post(fake)
        button = custom_ids(first)[0]
        alice = await click(fake, first, button, user_id=1001, user_name="alice")
        bob = await click(fake, first, button, user_id=1002, user_name="bob")
        assert alice.type == bob.type == 4 and alice.ephemeral and bob.ephemeral
        assert text_of(alice).splitlines()[0] == text_of(bob).splitlines()[0]  # the same verdict, built once
        assert _flag_ids(alice) == _flag_ids(bob) == [f"quiz:flag:{first_id}"]

        second, second_id = await _post(fake)
        assert second_id != first_id
        carol = await click(fake, second, custom_ids(second)[0], user_id=1003, user_name="carol")
        assert _flag_ids(carol) == [f"quiz:flag:{second_id}"]  # a new post: its own Report button

        in_flight = fake.component_interaction(second, custom_ids(second)[0], user_id=1004, user_name="dave")
        await slash(fake, "reveal", user_name="alice")  # closes the newest open post of the channel
        late = await fake.send_interaction(in_flight)  # clicked before the reveal, arriving after it
        assert late is not None and late.type == 4 and late.ephemeral
        assert "closed" in text_of(late).splitlines()[0], text_of(late)  # not the verdict given before the reveal
        assert _flag_ids(late) == [f"quiz:flag:{second_id}"]
        still_open = await click(fake, first, button, user_id=1004, user_name="dave")
        assert text_of(still_open).splitlines()[0] == text_of(alice).splitlines()[0]
        assert _flag_ids(still_open) == [f"quiz:flag:{first_id}"]
        again = await click(fake, first, button, user_id=1001, user_name="alice")
        assert text_of(again).startswith("You already answered"), text_of(again)
        assert _flag_ids(again) == [f"quiz:flag:{first_id}"]
        assert sorted((post, user) for post, user, *_ in await answer_rows(runtime)) == [
            (first_id, "1001"),
            (first_id, "1002"),
            (first_id, "1004"),
            (second_id, "1003"),
        ]
