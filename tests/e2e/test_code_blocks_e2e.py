"""End to end: a pack whose prompt and explanation hold long fenced code blocks (and inline code in choices),
and an image each (https), posted, answered and revealed through the real discord.py and slack-bolt clients against the loopback fakes, and
printed by the terminal adapter.

The code is full of what markup would eat (`*`, `_`, `&`, `<`, `>`), of what must not act (`<!channel>`,
`@everyone`, a ``` inside the code) and long enough that each platform has to continue it in another section or
field: every piece stays within the documented limits, each is a whole code block (a cut block is closed and
reopened), no line of code is cut, and the code is shown exactly as written. The images show as a Slack image block
with its alt text, a Discord embed image (the alt text as subtext), and alt text and URL in the terminal.
"""

from __future__ import annotations

import io
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import yaml

from adapters.console import ConsoleAdapter
from adapters.discord.adapter import DiscordAdapter
from bot.config import Settings
from bot.runtime import Runtime
from tests.conftest import patient_settings
from tests.discord_support import ANSWER_ID, card_messages, click, custom_ids, serving, slash
from tests.e2e.test_render_limits_e2e import assert_discord_message_dicts
from tests.fakes.discord_api import FakeDiscord
from tests.fakes.slack_api import FakeSlack
from tests.render_limits_support import assert_slack_blocks, discord_texts
from tests.slack_harness import answer_buttons, running_adapter

PACK_ID = "code-pack"


def _code(lines: int, tag: str) -> list[str]:
    return [
        f"    int *{tag}{i} = &a[{i}] * b_{i}; /* <!channel> @everyone ``` */ c = a<<b && d>>e;" for i in range(lines)
    ]


PROMPT_CODE = _code(18, "p")
EXPLANATION_CODE = _code(18, "e")
MARKUP = "*_" * 220  # prose that escaping doubles, so the texts must be continued in other fields
PROMPT = f"What does this C print? {MARKUP}\n```c\n" + "\n".join(PROMPT_CODE) + "\n```\nAssume `int a[32]`."
CHOICES = ["`*p0` is `a[0] * b_0`", "It does not compile", "`&a[0]`", "Undefined behaviour"]
EXPLANATION = f"Because: {MARKUP}\n```c\n" + "\n".join(EXPLANATION_CODE) + "\n```\nSee `*p0`."

PROMPT_IMAGE = "https://images.example/ring.png"
PROMPT_ALT = "Eight GPUs in a ring <!channel> *each* sending to the next"
EXPLANATION_IMAGE = "https://images.example/steps.png"
EXPLANATION_ALT = "The ring all-reduce, step by step"


def _write_pack(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    pack = {
        "id": PACK_ID,
        "title": "Code",
        "questions": [
            {
                "id": "q1",
                "prompt": PROMPT,
                "choices": CHOICES,
                "answer": 1,
                "explanation": EXPLANATION,
                "image": {"url": PROMPT_IMAGE, "alt": PROMPT_ALT},
                "explanation_image": {"url": EXPLANATION_IMAGE, "alt": EXPLANATION_ALT},
            }
        ],
    }
    (directory / f"{PACK_ID}.yaml").write_text(yaml.safe_dump(pack, allow_unicode=True), encoding="utf-8")
    return directory


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return patient_settings(
        database_url=database_url,
        content_dir=_write_pack(tmp_path / "content"),
        card_update_interval=0.0,
        discord_token="fake-bot-token",
    )


@pytest.fixture
async def discord_fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as fake:
        yield fake


def _code_lines_shown(texts: list[str], *, language: str) -> list[str]:
    """Every line inside a code block of the texts; each text must hold whole blocks only."""
    lines: list[str] = []
    for text in texts:
        fences = [line for line in text.split("\n") if line.startswith("```")]
        assert len(fences) % 2 == 0, text  # a block cut across two pieces was closed, and reopened in the next
        assert all(opener == f"```{language}" for opener in fences[::2]), fences
        for block in re.findall(r"^```[^\n]*\n(.*?)\n```", text, flags=re.MULTILINE | re.DOTALL):
            lines += block.split("\n")
    return lines


def _fences(texts: list[str]) -> int:
    return sum(1 for text in texts for line in text.split("\n") if line.startswith("```"))


def _assert_code_shown(lines: list[str], code: list[str], *, slack: bool) -> None:
    """Each line of `code` appears whole, once per rendering, as written but for the neutralised parts."""
    for shown in lines:
        line = shown
        if slack:
            assert "<" not in line and ">" not in line  # `<!channel>` cannot form: escaped as Slack requires
            assert "@\u200beveryone" in line
            line = line.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
        assert "`\u200b`\u200b`" in line  # the ``` inside the code cannot close the block
        assert "\\" not in line  # nothing escaped: a `*` stays a `*`
        assert line.replace("\u200b", "") in code, line  # never cut in the middle of a line
    assert {
        line.replace("\u200b", "").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&") for line in lines
    } >= set(code)


async def test_discord_renders_code_blocks_natively_within_every_limit(
    runtime: Runtime, discord_fake: FakeDiscord
) -> None:
    fake = discord_fake
    async with serving(DiscordAdapter(runtime), fake):
        await slash(fake, "now", {"pack": PACK_ID}, user_name="alice")
        pages = await fake.wait_for(lambda: card_messages(fake), what="the card")
        last = pages[-1]
        post_id = int(ANSWER_ID.fullmatch(custom_ids(last)[0]).group(1))  # type: ignore[union-attr]
        texts = discord_texts(e for m in pages for e in m["embeds"])
        _assert_code_shown(_code_lines_shown(texts, language="c"), PROMPT_CODE, slack=False)
        assert "Assume `int a[32]`." in "\n".join(texts)  # inline code kept as code
        assert pages[0]["embeds"][0]["image"]["url"] == PROMPT_IMAGE
        labels = [c["label"] for row in last["components"] for c in row["components"]]
        assert "`*p0` is `a[0] * b_0`" in labels and "`&a[0]`" in labels, labels  # plain text, as written
        assert "-# 🖼 Eight GPUs in a ring \\<!channel> \\*each\\* sending to the next" in "\n".join(texts)

        reply = await click(fake, last, f"quiz:answer:{post_id}:0", user_id=2001, user_name="bob")
        reply_texts = discord_texts(reply.embeds)
        _assert_code_shown(_code_lines_shown(reply_texts, language="c"), EXPLANATION_CODE, slack=False)
        await runtime.cards.flush()
        await slash(fake, "reveal", user_name="alice")
        stored = [fake.get_message(m["id"]) for m in pages]
        texts = discord_texts(e for m in stored if m for e in m["embeds"])
        assert _fences(texts) > 4  # a block was cut, closed and reopened in the next field
        _assert_code_shown(_code_lines_shown(texts, language="c"), PROMPT_CODE + EXPLANATION_CODE, slack=False)
        assert "`*p0` is `a[0] * b_0`" in "\n".join(texts)  # a choice's inline code, unescaped
        assert stored[0] is not None and stored[-1] is not None
        assert stored[0]["embeds"][0]["image"]["url"] == PROMPT_IMAGE
        assert stored[-1]["embeds"][-1]["image"]["url"] == EXPLANATION_IMAGE
        assert f"-# 🖼 {EXPLANATION_ALT}" in "\n".join(texts)
    assert [r for r in fake.requests if (r.status or 0) >= 400] == []
    for message in pages:
        stored_message = fake.get_message(message["id"])
        assert stored_message is not None
        assert_discord_message_dicts(stored_message["embeds"])


def _mrkdwn(blocks: list[dict[str, object]]) -> list[str]:
    return [b["text"]["text"] for b in blocks if b["type"] == "section"]  # type: ignore[index]


async def test_slack_renders_code_blocks_natively_within_every_limit(runtime: Runtime, fake: FakeSlack) -> None:
    fake.add_user("U0B", name="bob")
    async with running_adapter(runtime, fake) as slack:
        assert (await slack.command(f"now {PACK_ID}"))[0] == 200
        card = await slack.posted_card()
        assert_slack_blocks(card["blocks"], card["text"])
        texts = _mrkdwn(card["blocks"])
        assert _fences(texts) > 2  # the block was cut, closed and reopened in the next section
        _assert_code_shown(_code_lines_shown(texts, language=""), PROMPT_CODE, slack=True)
        assert "Assume `int a[32]`." in "\n".join(texts)
        images = [b for b in card["blocks"] if b["type"] == "image"]
        assert [(b["image_url"], b["alt_text"]) for b in images] == [(PROMPT_IMAGE, PROMPT_ALT)]
        buttons = answer_buttons(card)
        labels = [b["text"]["text"] for b in buttons]
        assert any(text.endswith(". `*p0` is `a[0] * b_0`") for text in labels), labels  # plain text, as written
        assert (await slack.click(card, buttons[0]["action_id"], user_id="U0B"))[0] == 200
        (reply,) = await slack.ephemerals(1)
        assert_slack_blocks(reply["blocks"], reply["text"])
        _assert_code_shown(_code_lines_shown(_mrkdwn(reply["blocks"]), language=""), EXPLANATION_CODE, slack=True)
        await slack.idle()
        await runtime.cards.flush()
        assert (await slack.command("reveal", user_id="U0ADMIN"))[0] == 200
        await fake.wait_for_calls("chat.update", 1)
        await slack.idle()
        revealed = fake.message("C0001", card["ts"])
        assert revealed is not None
        assert_slack_blocks(revealed["blocks"], revealed["text"])
        images = [b for b in revealed["blocks"] if b["type"] == "image"]
        assert [(b["image_url"], b["alt_text"]) for b in images] == [
            (PROMPT_IMAGE, PROMPT_ALT),
            (EXPLANATION_IMAGE, EXPLANATION_ALT),
        ]
        lines = _code_lines_shown(_mrkdwn(revealed["blocks"]), language="")
        _assert_code_shown(lines, PROMPT_CODE + EXPLANATION_CODE, slack=True)
        assert "`\u200b*\u200bp0` is `a[0] \u200b*\u200b b\u200b_\u200b0`" in "\n".join(_mrkdwn(revealed["blocks"]))
    assert [c.method for c in fake.calls if not c.ok and c.method.startswith("chat.")] == []


async def test_the_terminal_shows_code_blocks_indented(runtime: Runtime) -> None:
    out = io.StringIO()
    console = ConsoleAdapter(runtime, stdin=io.StringIO(""), stdout=out)
    runtime.platforms.register(console)
    await console.handle_line(f"/quiz now {PACK_ID}")
    await console.handle_line("/quiz reveal")
    text = out.getvalue()
    assert not re.search(r"(?m)^```", text)  # the fences are gone (the ``` inside the code stays)
    assert "    [c]\n" + "\n".join("    " + line for line in PROMPT_CODE) in text
    assert "\n".join("    " + line for line in EXPLANATION_CODE) in text
    assert "Assume `int a[32]`." in text
    assert f"🖼 {PROMPT_ALT} ({PROMPT_IMAGE})" in text
    assert f"🖼 {EXPLANATION_ALT} ({EXPLANATION_IMAGE})" in text
