"""Rotation: a channel's next question is one it has been asked least, and never the one it was asked last.

Each test loops over many seeds of the post's random choice (`random.Random(seed)`), on SQLite and PostgreSQL:
no two consecutive posts in a channel share a question when the pool has more than one.
"""

from __future__ import annotations

import dataclasses
import random

from bot.content import Catalog
from bot.domain import ChannelRef, Pack
from bot.runtime import Runtime

SEEDS = range(25)


async def _with_pair_pack(runtime: Runtime) -> None:
    """Load a third pack of two questions (copies of two seed questions) beside the seed packs."""
    seed = runtime.catalog.get("data-parallelism")
    pair = Pack(
        id="pair",
        title="Pair",
        description="Two questions.",
        questions=tuple(dataclasses.replace(q, pack_id="pair") for q in seed.questions[:2]),
    )
    runtime.quiz.catalog = Catalog(packs=(*runtime.catalog.packs, pair))
    await runtime.app.sync_content()


async def _asked(runtime: Runtime, channel: ChannelRef, pack: str | None) -> tuple[str, str]:
    card = (await runtime.quiz.post_question(channel, pack_id=pack)).card
    return card.pack_title, card.prompt


def _repeats(asked: list[tuple[str, str]]) -> list[int]:
    return [i for i in range(1, len(asked)) if asked[i] == asked[i - 1]]


async def test_a_two_question_pack_alternates(runtime: Runtime) -> None:
    await _with_pair_pack(runtime)
    for seed in SEEDS:
        runtime.quiz.rng = random.Random(seed)
        channel = ChannelRef("fake", "W1", f"two-{seed}")
        asked = [await _asked(runtime, channel, "pair") for _ in range(7)]
        assert _repeats(asked) == [], f"seed {seed}: {asked}"


async def test_a_new_cycle_never_starts_with_the_question_that_ended_the_last(runtime: Runtime) -> None:
    for seed in SEEDS:
        runtime.quiz.rng = random.Random(seed)
        channel = ChannelRef("fake", "W1", f"eight-{seed}")
        asked = [await _asked(runtime, channel, "data-parallelism") for _ in range(17)]
        assert len(set(asked[:8])) == 8 and len(set(asked[8:16])) == 8  # no repeat within a cycle
        assert _repeats(asked) == [], f"seed {seed}: the 9th or 17th post repeated the one before"


async def test_a_cycle_does_not_restart_on_its_last_question_after_another_packs_post(runtime: Runtime) -> None:
    for seed in SEEDS:
        runtime.quiz.rng = random.Random(seed)
        channel = ChannelRef("fake", "W1", f"between-{seed}")
        cycle = [await _asked(runtime, channel, "data-parallelism") for _ in range(8)]
        await _asked(runtime, channel, "model-pipeline-parallelism")
        assert await _asked(runtime, channel, "data-parallelism") != cycle[-1], f"seed {seed}"


async def test_no_two_consecutive_posts_share_a_question_whatever_pool_each_draws_from(runtime: Runtime) -> None:
    await _with_pair_pack(runtime)
    pools = [None, "data-parallelism", "pair", "pair"]
    for seed in SEEDS:
        rng = random.Random(seed)
        runtime.quiz.rng = random.Random(seed)
        channel = ChannelRef("fake", "W1", f"mixed-{seed}")
        asked = [await _asked(runtime, channel, rng.choice(pools)) for _ in range(12)]
        assert _repeats(asked) == [], f"seed {seed}: {asked}"
