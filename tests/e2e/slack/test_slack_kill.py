"""Fault: `quizbot run` (Slack HTTP mode) SIGKILLed in the middle of a storm of signed clicks, many in flight.

An ack is a promise: every click acked as committed is in the database, every private verdict is stored, and
every stored answer is the one that was clicked. Clicks in flight when the process died got no ack, so Slack
shows those people the click failed and they click again. (The figures at 8,000 clicks: bench/kill_clicks.py.)
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from tests.click_storm import audit, post_cards, running_bot, storm
from tests.conftest import PATIENT_DATABASE_ENV
from tests.fakes.slack_api import FakeSlack

CLICKS = 400
CARDS = 4
IN_FLIGHT = 80
KILL_AFTER = 150
"""The bot is SIGKILLed once this many clicks were acked: well before the storm ends, with IN_FLIGHT pending."""


async def test_sigkill_mid_storm_loses_no_acknowledged_click(
    database_url: str, fake: FakeSlack, tmp_path: Path
) -> None:
    # Patient acks: every 200 is a click acked as committed. With the production deadline a loaded machine acked
    # some clicks late (their commit took over 2 s), and a late ack the kill cut before its commit was a click
    # acked, not stored and told nothing, which is what the late ack risks, not what this test is about.
    async with running_bot(fake, database_url, tmp_path, env=PATIENT_DATABASE_ENV, patient_acks=True) as bot:
        cards = await post_cards(bot, fake, CARDS)

        def kill_midway(acks: int) -> None:
            if acks == KILL_AFTER and bot.process.returncode is None:
                bot.process.send_signal(signal.SIGKILL)

        result = await storm(bot, fake, cards, clicks=CLICKS, concurrency=IN_FLIGHT, on_ack=kill_midway)
        await bot.process.wait()
        assert bot.process.returncode == -signal.SIGKILL
    await asyncio.sleep(0.2)  # private replies already on their way to the fake land
    found = await audit(result, fake, database_url)
    kinds = result.kinds()
    assert kinds["no_response"] > 0, kinds  # the kill came midway: clicks were in flight or still to be sent
    assert found.acked_not_stored_not_told_retry == []  # any 200 is stored, or the person was told to retry
    assert len(result.acked("recorded")) >= KILL_AFTER
    assert found.acked_committed_not_stored == []  # 0 acknowledged-but-not-stored
    assert found.told_recorded_not_stored == []
    assert found.stored_wrongly == []  # every stored answer is the click that was sent
    assert set(found.stored) <= {c.key for c in result.clicks}
