"""A cohort on the shipped onboarding curriculum walks it in order (through the unit of work, both databases)."""

from __future__ import annotations

import yaml

from bot.content import load_catalog
from bot.domain import ChannelRef
from tests.conftest import CONTENT, patient_settings
from tests.unit.test_curriculum import CURRICULUM


async def test_a_cohort_walks_the_curriculum_in_order(database_url: str) -> None:
    import random

    from bot.clock import ManualClock
    from bot.runtime import build_runtime
    from bot.service.facade import Invocation
    from tests.conftest import make_user
    from tests.fakes.fake_platform import FakePlatform

    settings = patient_settings(database_url=database_url, content_dir=CONTENT, card_update_interval=0.0)
    runtime = await build_runtime(settings, clock=ManualClock(), rng=random.Random(3), migrate=False)
    platform = FakePlatform()
    runtime.platforms.register(platform)
    try:
        channel = ChannelRef("fake", "W1", "C1")
        lead = make_user("lead")
        reply = await runtime.app.handle_command(
            Invocation(channel, lead, "cohort create spring curriculum:ml-infrastructure-onboarding")
        )
        assert reply.ok, reply.message.text
        order = yaml.safe_load(CURRICULUM.read_text(encoding="utf-8"))["packs"]
        catalog = load_catalog(CONTENT)
        expected = [(pack, q.key) for pack in order for q in catalog.get(pack).questions]
        assert "Curriculum: " + ", ".join(order) in reply.message.text
        for _ in range(10):  # the first ten questions: the seed pack's, in order, then the next pack's
            assert (await runtime.app.handle_command(Invocation(channel, lead, "cohort next spring"))).ok
        titles = [sent.card.prompt for sent in platform.sent if sent.kind == "post_card"]
        prompts = [catalog.get(pack).question(key).prompt for pack, key in expected[:10]]  # type: ignore[union-attr]
        assert titles == prompts
    finally:
        await runtime.aclose()
