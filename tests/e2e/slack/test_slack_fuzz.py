"""A fuzzed stream of malformed, signed Slack requests through the real slack-bolt app of the adapter:
no 500, no crash, nothing recorded, and the bot still answers a real click afterwards."""

from __future__ import annotations

import copy
import json
import random
from typing import Any
from urllib.parse import urlencode

from sqlalchemy import func, select

from bot.db.models import Answer, Post
from bot.runtime import Runtime
from tests.fakes.slack_api import FakeSlack
from tests.slack_harness import answer_buttons, post_id_of, running_adapter

JUNK: list[Any] = [
    None,
    "",
    " ",
    "0",
    "-1",
    "9" * 30,
    "quiz:answer:",
    "quiz:answer:x:y",
    "quiz:answer:1:-1",
    "quiz:answer:99999999:0",
    "quiz:answer:1:99",
    "<!channel>",
    "\u0000",
    "ü" * 500,
    3.5,
    True,
    [],
    {},
    [1],
]


def _mutate(payload: Any, rng: random.Random, depth: int = 0) -> Any:
    """Replace, drop or retype one random part of a JSON-like value."""
    if isinstance(payload, dict) and payload and depth < 4:
        key = rng.choice(list(payload))
        choice = rng.random()
        out = dict(payload)
        if choice < 0.25:
            del out[key]
        elif choice < 0.5:
            out[key] = rng.choice(JUNK)
        else:
            out[key] = _mutate(payload[key], rng, depth + 1)
        return out
    if isinstance(payload, list) and payload and depth < 4:
        out_list = list(payload)
        index = rng.randrange(len(out_list))
        if rng.random() < 0.3:
            del out_list[index]
        else:
            out_list[index] = _mutate(out_list[index], rng, depth + 1)
        return out_list
    return rng.choice(JUNK)


def _click_payloads(valid: dict[str, Any], count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    bodies = []
    for _ in range(count):
        mutated = copy.deepcopy(valid)
        for _ in range(rng.randint(1, 3)):
            mutated = _mutate(mutated, rng)
        # Keep the click from being a real answer: neither its action_id nor its value may name the real post
        # and choice (the adapter reads either).
        real = valid["actions"][0]["action_id"]
        if isinstance(mutated, dict) and isinstance(mutated.get("actions"), list):
            for action in mutated["actions"]:
                if isinstance(action, dict):
                    for field in ("action_id", "value"):
                        if action.get(field) == real:
                            action[field] = rng.choice(["quiz:answer:0:0", "quiz:answer:x", "other"])
        kind = rng.random()
        if kind < 0.1:
            bodies.append(urlencode({"payload": json.dumps(mutated)[: rng.randint(0, 200)]}))  # truncated JSON
        elif kind < 0.15:
            bodies.append(urlencode({"payload": "not json"}))
        elif kind < 0.2:
            bodies.append(json.dumps(mutated))  # JSON instead of a form
        else:
            bodies.append(urlencode({"payload": json.dumps(mutated)}))
    return bodies


def _command_bodies(fake: FakeSlack, count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    valid = fake.slash_command_payload("leaderboard")
    bodies = []
    for _ in range(count):
        form = {k: v for k, v in valid.items() if rng.random() > 0.2}
        for key in rng.sample(list(form), k=min(len(form), rng.randint(0, 3))):
            form[key] = rng.choice([j for j in JUNK if isinstance(j, str)])
        form["text"] = rng.choice(["dance", "now no-such-pack", "reveal now", '"', "leaderboard yearly", "help \u0000"])
        bodies.append(urlencode(form))
    return bodies


async def _count(runtime: Runtime, model: type[Answer] | type[Post]) -> int:
    async with runtime.db.transaction() as session:
        return int((await session.execute(select(func.count(model.id)))).scalar_one())


async def test_fuzzed_payloads_never_500_and_record_nothing(runtime: Runtime, fake: FakeSlack) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("now")
        card = await slack.posted_card()
        action_id = answer_buttons(card)[0]["action_id"]
        valid = fake.block_actions_payload(card, action_id, user_id="U0ALICE")
        posts_before = await _count(runtime, Post)

        statuses: list[int] = []
        for body in _click_payloads(valid, 150, seed=11) + _command_bodies(fake, 50, seed=12):
            status, _ = await slack.post(body)
            statuses.append(status)
        await slack.idle()

        assert 500 not in statuses
        assert set(statuses) <= {200, 400, 401, 404}
        assert await _count(runtime, Answer) == 0
        assert await _count(runtime, Post) == posts_before

        # Still alive and correct: a real click is recorded.
        assert (await slack.click(card, action_id, user_id="U0BOB"))[0] == 200
        await slack.idle()
        assert await _count(runtime, Answer) == 1
        assert post_id_of(card) > 0
