"""Confirmations and seasons through the real discord.py client and the loopback fake Discord: a destructive
command's ephemeral question with Confirm and Cancel components (DynamicItems, so they work after a restart), only
its asker confirms, once, before it expires; `/quiz season start|end|list` and the leaderboard's season option."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import select

from adapters.discord.adapter import DiscordAdapter
from bot.clock import ManualClock
from bot.db.models import Cohort, Schedule
from bot.runtime import Runtime
from tests.discord_support import card_messages, click, custom_ids, embed_text, serving, slash, text_of
from tests.fakes.discord_api import FakeDiscord, InteractionCallback

MANAGE_SERVER = 1 << 5


async def count(runtime: Runtime, model: type[Any]) -> int:
    async with runtime.db.transaction() as session:
        return len((await session.execute(select(model))).all())


def question_of(fake: FakeDiscord, asked: InteractionCallback, data_id: str) -> dict[str, Any]:
    """The stored ephemeral question an interaction was answered with (its buttons are clicked on it)."""
    message = fake.original_response(data_id)
    assert message is not None
    return message


async def ask(fake: FakeDiscord, subcommand: str, options: dict[str, Any] | None, group: str, **kw: Any) -> Any:
    data = fake.slash_command_interaction("quiz", subcommand=subcommand, options=options, group=group, **kw)
    asked = await fake.send_interaction(data)
    assert asked is not None and asked.type == 4 and asked.ephemeral
    confirm, cancel = custom_ids({"components": asked.components})
    assert confirm.startswith("quiz:confirm:yes:") and cancel.startswith("quiz:confirm:no:")
    assert all(len(custom_id) <= 100 for custom_id in (confirm, cancel))
    return asked, question_of(fake, asked, data["id"]), confirm, cancel


async def test_schedule_remove_asks_and_only_the_asker_confirms_once(runtime: Runtime, fake: FakeDiscord) -> None:
    managers = fake.add_role("managers", permissions=MANAGE_SERVER)
    admin = {"user_id": 1001, "user_name": "ada", "roles": [managers["id"]]}
    first = DiscordAdapter(runtime)
    async with serving(first, fake):
        await slash(fake, "add", {"when": "daily 09:00"}, group="schedule", **admin)
        asked, question, confirm, _ = await ask(fake, "remove", {"id": 1}, "schedule", **admin)
        assert text_of(asked).startswith("Remove schedule #1 (every day at 09:00")
        assert "Only you can confirm, within 2 minutes." in text_of(asked)
        [[yes, no]] = [row["components"] for row in asked.components]
        assert yes["style"] == 4 and yes["label"] == "Remove the schedule" and no["label"] == "Cancel"

        other = await click(fake, question, confirm, user_id=1002, user_name="bob")
        assert other.type == 4 and other.ephemeral
        assert text_of(other) == "Only ada can confirm this; nothing was changed."
        assert await count(runtime, Schedule) == 1
    assert first.client.is_closed()

    second = DiscordAdapter(runtime)  # the buttons of a question asked before a restart still work
    async with serving(second, fake):
        done = await click(fake, question, confirm, **admin)
        assert done.type == 7  # the question itself is edited: the result, and no buttons left
        assert text_of(done).startswith("Removed schedule #1") and done.components == []
        assert await count(runtime, Schedule) == 0
        public = [m for m in fake.channel_messages() if "Removed schedule #1" in embed_text(m)]
        assert public and not public[-1].get("interaction_metadata")  # the channel sees it too
        # The buttons are gone from the question, so there is no second click to make here (a replayed one is
        # refused by the core: tests/integration/test_confirmations.py, and on Slack).


async def test_an_expired_confirmation_and_a_cancel_change_nothing(
    runtime: Runtime, fake: FakeDiscord, clock: ManualClock
) -> None:
    async with serving(DiscordAdapter(runtime), fake):
        lead = {"user_id": 1003, "user_name": "lead"}
        await slash(fake, "create", {"name": "spring"}, group="cohort", **lead)
        _, question, confirm, _ = await ask(fake, "delete", {"name": "spring"}, "cohort", **lead)
        clock.advance(timedelta(minutes=3))
        late = await click(fake, question, confirm, **lead)
        assert late.ephemeral and text_of(late).startswith("This confirmation expired (they last 2 minutes)")
        _, question, _, cancel = await ask(fake, "delete", {"name": "spring"}, "cohort", **lead)
        cancelled = await click(fake, question, cancel, **lead)
        assert cancelled.type == 7 and text_of(cancelled) == "Cancelled: nothing was changed."
        assert await count(runtime, Cohort) == 1


async def test_seasons_on_discord(runtime: Runtime, fake: FakeDiscord, clock: ManualClock) -> None:
    managers = fake.add_role("managers", permissions=MANAGE_SERVER)
    admin = {"user_id": 1001, "user_name": "ada", "roles": [managers["id"]]}
    async with serving(DiscordAdapter(runtime), fake):
        refused = await slash(fake, "start", {"name": "winter"}, group="season", user_id=1002, user_name="bob")
        assert refused.ephemeral and text_of(refused).startswith("Only leads and admins can start seasons")
        started = await slash(fake, "start", {"name": "winter", "until": "2026-02-28"}, group="season", **admin)
        assert not started.ephemeral and text_of(started).startswith("Season winter has started: it runs through")
        bad = await slash(fake, "start", {"name": "x", "until": "soon"}, group="season", **admin)
        assert bad.ephemeral and "is not a date" in text_of(bad)

        await slash(fake, "now", {"pack": "data-parallelism"}, user_name="alice")
        card = (await fake.wait_for(lambda: card_messages(fake), what="the card"))[0]
        await click(fake, card, custom_ids(card)[0], user_id=1002, user_name="bob")
        board = await slash(fake, "leaderboard", {"window": "season"}, user_name="bob")
        assert text_of(board).startswith("Leaderboard (channel, season winter)") and "bob" in text_of(board)

        clock.advance(timedelta(minutes=1))
        _, question, confirm, _ = await ask(fake, "end", None, "season", **admin)
        ended = await click(fake, question, confirm, **admin)
        assert ended.type == 7 and text_of(ended).startswith("Season winter has ended.")
        final = [m for m in fake.channel_messages() if "Season winter is over" in embed_text(m)]
        assert len(final) == 1 and "1st: bob" in embed_text(final[0])

        past = await slash(fake, "leaderboard", {"season": "WINTER"}, user_name="bob")
        assert text_of(past).startswith("Leaderboard (channel, season winter)")
        listing = await slash(fake, "list", group="season", user_name="bob")
        assert "winter — 2026-01-05 to 2026-01-05" in text_of(listing)
        none = await slash(fake, "leaderboard", {"window": "season"}, user_name="bob")
        assert none.ephemeral and text_of(none).startswith("No season is running.")
