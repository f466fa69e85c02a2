"""Clock skew seen from Discord: the `Date` of Discord's REST answers tells how far this host's clock is off, and
/healthz says so (degraded, with the offset in seconds)."""

from __future__ import annotations

import aiohttp

from adapters.discord.adapter import DiscordAdapter
from bot.clock_skew import MAX_ROUND_TRIP
from bot.ops.http import OpsServer
from bot.runtime import Runtime
from tests.discord_support import serving
from tests.fakes.discord_api import FakeDiscord

LEEWAY = MAX_ROUND_TRIP / 2 + 1
"""How far a measured offset may be from the true one: half the slowest round trip the bot uses (it dates a `Date`
at the round trip's middle) plus the header's one-second resolution, so a loaded machine's slow loopback passes."""


async def test_healthz_says_degraded_while_the_clock_is_ten_minutes_ahead_of_discords(
    runtime: Runtime, fake: FakeDiscord
) -> None:
    fake.clock_skew = -600.0  # Discord's clock ten minutes behind this host's: this host's is ten minutes ahead
    ops = OpsServer(runtime, host="127.0.0.1", port=0)
    await ops.start()
    try:
        async with serving(DiscordAdapter(runtime), fake):
            async with aiohttp.ClientSession() as session:
                async with session.get(f"http://127.0.0.1:{ops.port}/healthz") as response:
                    assert response.status == 200
                    report = await response.json()
    finally:
        await ops.stop()
    assert report["status"] == "degraded", report
    assert report["clock"]["compared_with"] == "discord"
    assert 600 - LEEWAY <= report["clock"]["offset_seconds"] <= 600 + LEEWAY
    assert "10 minutes ahead of Discord's" in report["clock"]["problem"]
