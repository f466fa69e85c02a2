"""The settings form on Slack (the real Bolt app, the loopback fake, signed requests): `/quiz settings channel edit`
opens a modal of the channel's settings; a value that is not allowed comes back inside the modal under its field
and nothing is stored; a good one is stored, and the channel's settings then say so, with no restart."""

from __future__ import annotations

import json
from typing import Any

from bot.runtime import Runtime
from tests.fakes.slack_api import FakeSlack, poll_until, validate_modal
from tests.slack_harness import running_adapter

FIRST_PAGE = ["timezone", "now-posters", "now-cooldown", "now-limit", "close-after"]


async def test_the_settings_modal_refuses_a_bad_value_in_place_and_stores_a_good_one(
    runtime: Runtime, fake: FakeSlack
) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("settings channel edit", user_id="U0ADMIN")
        await fake.wait_for_calls("views.open", 1, ok=True)
        [view] = fake.opened_views
        assert validate_modal(view) == []
        assert [b["block_id"] for b in view["blocks"]] == FIRST_PAGE

        async def submit(values: dict[str, str]) -> Any:
            typed = {key: values.get(key, "") for key in FIRST_PAGE}
            status, text = await slack.post(fake.view_submission_body(view, typed, user_id="U0ADMIN"))
            assert status == 200
            return json.loads(text)

        refused = await submit({"now-cooldown": "10m", "now-limit": "lots"})
        assert refused["response_action"] == "errors" and list(refused["errors"]) == ["now-limit"]
        assert "lots" in refused["errors"]["now-limit"]
        await slack.command("settings channel", user_id="U0ADMIN")
        [shown] = await slack.ephemerals(1)
        assert "10 min" not in shown["text"]  # the refused form stored nothing, the good value included

        assert await submit({"now-cooldown": "10m"}) == {"response_action": "clear"}
        await slack.ephemerals(2)
        await slack.command("settings channel", user_id="U0ADMIN")
        [*_, after] = await slack.ephemerals(3)
        assert "now-cooldown" in after["text"] and "10 min" in after["text"], after["text"]
        await poll_until(lambda: slack.adapter.listeners.in_flight == 0, message="idle")
