"""A user's first `/quiz me` (no checkpoint yet) reads, of their channels' scheduled questions they did not answer,
only the misses that tell (bot/service/streak_stats.py, `_telling_misses`: the latest before each of their answers,
before the checkpoint's instant and by now), not every one; its streaks and the checkpoint it stores must still be
what every miss gives. Checked on SQLite and PostgreSQL over random histories of overlapping questions in two
channels, several users answering each at random (right, wrong, late or not at all), against the whole history
(`user_streaks(..., history=True)`), at the first call and at the next ones, which resume from that checkpoint.
"""

from __future__ import annotations

import random
from datetime import timedelta

from bot.clock import ManualClock
from bot.domain import ChannelRef, QuestionCard
from bot.runtime import Runtime
from tests.integration.test_me_checkpoint import OTHER, me, scheduled
from tests.scoring_helpers import answer

USERS = [f"u{n}" for n in range(6)]


async def _history(runtime: Runtime, channel: ChannelRef, clock: ManualClock, rng: random.Random, steps: int) -> None:
    """`steps` scheduled questions, open 10 to 90 minutes, posted 5 minutes to 2 hours apart (so several are open at
    once and finish out of order); at each step every user may answer one open question they have not answered."""
    open_cards: list[QuestionCard] = []
    answered: set[tuple[str, int]] = set()
    for _ in range(steps):
        where = channel if rng.random() < 0.6 else OTHER
        open_for = timedelta(minutes=rng.choice([10, 30, 90]))
        card = await scheduled(runtime, where, clock, open_for=open_for)
        open_cards.append(card)
        for who in USERS:
            choices = [c for c in open_cards if (who, c.post_id) not in answered]
            if choices and rng.random() < 0.6:
                chosen = rng.choice(choices)
                answered.add((who, chosen.post_id))
                await answer(runtime, chosen, who, right=rng.random() < 0.75)
        clock.advance(timedelta(minutes=rng.choice([5, 20, 45, 120])))
        open_cards = open_cards[-4:]  # older ones have closed (a click on a closed one is refused: late)


async def test_a_first_call_shows_what_every_miss_shows(
    runtime: Runtime, channel: ChannelRef, clock: ManualClock
) -> None:
    rng = random.Random(26)
    await _history(runtime, channel, clock, rng, 40)
    for who in USERS:
        await me(runtime, who)  # the first call, checked against the whole history
    for _ in range(3):
        await _history(runtime, channel, clock, rng, 8)
        for who in USERS:
            await me(runtime, who)  # resumed from the checkpoint the first call stored (or moved on since)
