"""Saving HTTP mode's request URLs (docs/getting-started/slack-http-mode.md, step 4): Slack sends a signed
`url_verification` challenge to the running bot and expects it echoed; an unsigned or forged one gets nothing."""

from __future__ import annotations

import json

from bot.runtime import Runtime
from tests.fakes.slack_api import JSON_CONTENT_TYPE, FakeSlack
from tests.slack_harness import running_adapter

CHALLENGE = "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"


def _challenge() -> str:
    return json.dumps({"token": "Jhj5dZrVaK7ZwHHjRyZWjbDl", "challenge": CHALLENGE, "type": "url_verification"})


async def test_the_running_bot_answers_slacks_url_verification(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake) as slack:
        status, text = await slack.post(_challenge(), headers={"Content-Type": JSON_CONTENT_TYPE})
        assert status == 200
        assert json.loads(text) == {"challenge": CHALLENGE}


async def test_a_forged_or_unsigned_challenge_is_refused(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake) as slack:
        headers = {"Content-Type": JSON_CONTENT_TYPE}
        forged = await slack.post(_challenge(), bad_signature=True, headers=headers)
        unsigned = await slack.post(_challenge(), sign=False, headers=headers)
        assert [forged[0], unsigned[0]] == [401, 401]
        assert CHALLENGE not in forged[1] + unsigned[1]
