"""Flagging through the real slack-bolt app and the loopback fake Slack (signed block_actions and slash commands), and
through the terminal adapter: "Report a problem" under the private answer reply, `/quiz flag [reason]`."""

from __future__ import annotations

import io
import json
import re
from typing import Any

from sqlalchemy import select

from adapters.console import ConsoleAdapter
from bot.db.models import QuestionFlag, QuestionRow, User
from bot.runtime import Runtime
from tests.fakes.slack_api import FakeSlack, validate_blocks
from tests.slack_harness import choice_action, post_id_of, question_of, running_adapter


async def flags(runtime: Runtime) -> list[tuple[str, str, int | None, str | None]]:
    """(user external id, question id, post id, reason) of every flag."""
    async with runtime.db.transaction() as session:
        rows = await session.execute(
            select(User.external_id, QuestionRow.key, QuestionFlag.post_id, QuestionFlag.reason)
            .join(User, User.id == QuestionFlag.user_id)
            .join(QuestionRow, QuestionRow.id == QuestionFlag.question_id)
            .order_by(QuestionFlag.id)
        )
        return [(r[0], r[1], r[2], r[3]) for r in rows]


def buttons(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [element for block in blocks if block["type"] == "actions" for element in block["elements"]]


async def test_the_report_a_problem_button_records_a_flag_and_replies_privately(
    runtime: Runtime, fake: FakeSlack
) -> None:
    async with running_adapter(runtime, fake) as slack:
        await slack.command("now data-parallelism")
        card = await slack.posted_card()
        await slack.idle()
        post_id, question = post_id_of(card), question_of(runtime, card)
        assert (await slack.click(card, choice_action(runtime, card, correct=False), user_id="U0BOB"))[0] == 200
        [verdict] = await slack.ephemerals(1)
        assert verdict["user"] == "U0BOB" and verdict["text"].startswith("Not quite.")
        assert validate_blocks(verdict["blocks"]) == []
        [report] = buttons(verdict["blocks"])
        assert report["action_id"] == report["value"] == f"quiz:flag:{post_id}"
        assert report["text"]["text"] == "Report a problem"

        # Slack sends no `message` for a click in an ephemeral message: only its container and the action.
        reply_message = {"ts": verdict["message_ts"], "blocks": verdict["blocks"]}
        clicked = await slack.click(
            reply_message, report["action_id"], user_id="U0BOB", channel_id="C0001", is_ephemeral=True
        )
        assert clicked == (200, "")
        flagged = (await slack.ephemerals(2))[-1]
        assert flagged["user"] == "U0BOB" and flagged["source"] == "chat.postEphemeral"
        assert flagged["text"].startswith("Thanks, your report is recorded.")
        assert "/quiz flag REASON" in flagged["text"]  # a reason is asked for in words; nothing opens
        assert fake.calls_to("views.open") == [] and fake.calls_to("chat.postMessage")[1:] == []
        assert await flags(runtime) == [("U0BOB", question.key, post_id, None)]

        # The reason, typed afterwards, goes to the same report.
        await slack.command("flag two of the choices are <!channel> right, aren't they?", user_id="U0BOB")
        reason = (await slack.ephemerals(3))[-1]
        assert reason["source"] == "response_url" and reason["user"] == "U0BOB"
        assert "Your report on this question now has your new reason." in reason["text"]
        assert "<!channel>" not in json.dumps(reason["blocks"])  # shown escaped
        assert await flags(runtime) == [
            ("U0BOB", question.key, post_id, "two of the choices are <!channel> right, aren't they?")
        ]

        # Only admins see the list.
        await slack.command("flags", user_id="U0BOB")
        assert "Only leads and admins can see flagged questions" in (await slack.ephemerals(4))[-1]["text"]
        await slack.command("flags", user_id="U0ADMIN")
        listing = (await slack.ephemerals(5))[-1]
        assert listing["text"].startswith("Flagged questions (1)")
        assert f"{question.pack_id}/{question.key}" in listing["text"] and "0% right (1 answer)" in listing["text"]
        assert validate_blocks(listing["blocks"]) == []

        # A forged or stale flag button gets the polite reply, and records nothing.
        forged = await slack.click(
            reply_message, "quiz:flag:999999", value="quiz:flag:999999", user_id="U0CAROL", channel_id="C0001"
        )
        assert forged == (200, "")
        assert "That question no longer exists" in (await slack.ephemerals(6))[-1]["text"]
        await slack.click(reply_message, "quiz:flag:x", value="quiz:flag:x", user_id="U0CAROL", channel_id="C0001")
        assert "not a quiz answer I understand" in (await slack.ephemerals(7))[-1]["text"]
    assert len(await flags(runtime)) == 1


def _correct_number(runtime: Runtime, output: str) -> int:
    card = output.rsplit("❓", 1)[1]
    prompt = card.splitlines()[1]
    question = next(q for p in runtime.catalog.packs for q in p.questions if q.prompt == prompt)
    shown = re.findall(r"^\s+\[(\d+)\] (.*)$", card, flags=re.MULTILINE)
    return next(int(n) for n, text in shown if text == question.correct_choice)


async def test_flag_wrong_answer_in_the_terminal(runtime: Runtime) -> None:
    out = io.StringIO()
    console = ConsoleAdapter(runtime, stdin=io.StringIO(""), stdout=out)
    runtime.platforms.register(console)
    await console.handle_line("/quiz now data-parallelism")
    await console.handle_line(str(_correct_number(runtime, out.getvalue())))
    assert "Something wrong with this question? `/quiz flag REASON` reports it." in out.getvalue()
    await console.handle_line("/quiz flag wrong answer")
    text = out.getvalue()
    assert "Thanks, your report is recorded." in text
    assert "Your reason: “wrong answer”" in text
    [(user, _, post_id, reason)] = await flags(runtime)
    assert (user, reason) == (console.user.user_id, "wrong answer") and post_id is not None

    await console.handle_line("/quiz flag it's the wrong answer, isn't it?")  # no quoting needed
    await console.handle_line("/quiz flags")  # the terminal's user is its admin
    text = out.getvalue()
    assert "Your report on this question now has your new reason." in text
    assert "flagged by 1 person · 100% right (1 answer)" in text
    assert "“it's the wrong answer, isn't it?”" in text
