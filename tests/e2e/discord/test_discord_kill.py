"""Fault: the bot (bot.runtime.serve with the Discord adapter, a child process) SIGKILLed in the middle of a storm
of clicks, many waiting for their interaction response.

An interaction response is a promise: every click told "Correct!" / "Not quite." (as the response, or as the
edit of a deferred one) is stored, once, with the choice clicked; a click acknowledged and not stored was told to
retry, by our words or by Discord (no response: "This interaction failed"; a defer never edited: "The application
did not respond"). With the acknowledgement deadline at 0.05 s nearly every click is deferred first, and the kill
catches defers waiting for their commit. The test sets that up rather than hoping for it (a fast machine commits
within 0.05 s, a loaded one may be killed before any commit started): the first clicks are answered in full, then
the bot holds the commits of the others, as a slow database would; the test lets those of the middle of the storm
go on to their commit shortly before the kill, so that it lands while they commit and their deferred responses are
edited, and the later ones wait for ever. (The figures at 8,000 clicks: bench/kill_clicks.py.)
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from tests.conftest import PATIENT_DATABASE_ENV
from tests.discord_storm import (
    HOLD_ENV,
    DiscordStorm,
    Outcome,
    audit,
    follow_deferred,
    plan_clicks,
    release_held,
    settle,
    start_bot,
    stop_bot,
    storm,
)
from tests.discord_support import card_messages, slash
from tests.fakes.discord_api import FakeDiscord

CLICKS = 400
CARDS = 4
IN_FLIGHT = 80
KILL_AFTER = 150
"""The bot is SIGKILLed once this many clicks got their interaction response, with IN_FLIGHT waiting."""
FIRST_USER = 10**6
"""plan_clicks: click n is by user FIRST_USER + n // CARDS (the storm sends the clicks in that order)."""
FREE = 20
"""The first FREE clicks are sent, and answered in full (recorded, and told so), before the rest of the storm."""
NEVER_RELEASED, RELEASE_AT = 120, 140
"""With the short deadline, clicks FREE <= n < NEVER_RELEASED are held until RELEASE_AT clicks got their response,
the later ones for ever. Whatever the machine's speed, the kill (after KILL_AFTER responses, with at most
KILL_AFTER + IN_FLIGHT clicks sent) then finds at least KILL_AFTER - NEVER_RELEASED deferred clicks waiting for
their commit, and at least RELEASE_AT - FREE deferred clicks: more than half of those acknowledged."""


@pytest.mark.parametrize("deadline", [None, 0.05], ids=["default-deadline", "deferring"])
async def test_sigkill_mid_storm_loses_no_acknowledged_click(
    database_url: str, fake: FakeDiscord, tmp_path: Path, deadline: float | None
) -> None:
    extra = {}
    if deadline is not None:
        hold = f"{FIRST_USER + FREE // CARDS}:{FIRST_USER + NEVER_RELEASED // CARDS}"
        extra = {"QUIZBOT_DISCORD_ACK_DEADLINE": str(deadline), HOLD_ENV: hold}
    bot = await start_bot(fake, database_url, tmp_path / "bot.log", env={**PATIENT_DATABASE_ENV, **extra})
    killed = False
    try:
        for _ in range(CARDS):
            await slash(fake, "now", {}, user_name="host")
        # A deferred /quiz now posts its card after its response.
        cards = await fake.wait_for(lambda: len(card_messages(fake)) >= CARDS and card_messages(fake), timeout=60)
        planned = plan_clicks(cards, CLICKS, first_user=FIRST_USER)
        first = await storm(fake, planned[:FREE], concurrency=IN_FLIGHT)
        assert len(first.acknowledged()) == FREE and await follow_deferred(fake, first, timeout=60) == []

        def kill_midway(responses: int) -> None:
            nonlocal killed
            if FREE + responses == RELEASE_AT and deadline is not None:
                release_held(bot)
            if FREE + responses == KILL_AFTER:
                bot.send_signal(signal.SIGKILL)
                killed = True

        await storm(fake, planned[FREE:], concurrency=IN_FLIGHT, on_response=kill_midway, gone=lambda: killed)
        result = DiscordStorm(clicks=planned)
        await bot.wait()
        assert bot.returncode == -signal.SIGKILL
    finally:
        await stop_bot(bot)
    await asyncio.sleep(0.2)  # responses and edits already on their way land at the fake
    settle(fake, result)
    found = await audit(result, database_url)
    outcomes = result.outcomes()
    assert outcomes[Outcome.NOT_SENT] + outcomes[Outcome.NO_RESPONSE] > 0, outcomes  # the kill came midway
    assert len(result.acknowledged()) >= KILL_AFTER
    if deadline is not None:
        # The kill caught defers waiting for their commit. (Not "every click deferred": on a quiet machine the
        # first FREE commit within even 0.05 s.)
        assert outcomes[Outcome.DEFERRED_UNFINISHED] > 0, outcomes
        assert len(result.deferred()) > len(result.acknowledged()) // 2, outcomes
    assert found.acknowledged_not_stored_not_told_retry == []  # stored, or told to retry (by us or by Discord)
    assert found.told_recorded_not_stored == []
    assert found.stored_twice == []
    assert found.stored_wrongly == []  # every stored answer is the click that was sent
    assert set(found.stored) <= {c.key for c in result.clicks if c.sent_at is not None}
