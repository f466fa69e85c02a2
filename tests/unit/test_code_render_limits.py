"""Schema-sized prompts and explanations made of prose and fenced code blocks, with images: every card and reveal
fits every documented limit on both platforms, nothing is clipped, and every line of code is shown whole."""

from __future__ import annotations

import dataclasses
import re

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from adapters.discord import markup as discord_markup
from adapters.discord.card_pages import card_embeds, card_layout, planned_pages
from adapters.slack import markup as slack_markup
from adapters.slack.blocks import card_blocks, card_text
from bot.content.schema import PackModel
from bot.domain import QuestionCard, RevealView
from tests.render_limits_support import assert_discord_message, assert_slack_blocks, discord_texts, squash

_PROSE = st.text(st.sampled_from([*"ab _*~|>`&<[]()@#-1.\n", "é"]), max_size=400)
_CODE_LINE = st.text(st.sampled_from([*"ab *_~|>`&<[]()@#-\\{}; ", "\u200b", "🙂"]), max_size=120)
_BLOCK = st.tuples(st.sampled_from(["", "c", "python", "yaml"]), st.lists(_CODE_LINE, min_size=1, max_size=14))
_SEGMENTS = st.lists(st.one_of(_PROSE, _BLOCK), min_size=1, max_size=5)
_FENCE_LINE = re.compile(r"^```[A-Za-z0-9_+#.-]*[ \t]*$", re.MULTILINE)


def _text(segments: list[str | tuple[str, list[str]]]) -> str:
    out: list[str] = []
    for segment in segments:
        if isinstance(segment, str):
            out.append(segment.replace("```", "``"))
        else:
            language, lines = segment
            out.append(f"\n```{language}\n" + "\n".join(lines) + "\n```\n")
    return "".join(out)


def _plain(text: str) -> str:
    """Text without its fence lines (a cut block is closed and reopened) or white space, as read."""
    return squash(_FENCE_LINE.sub("", text))


def _shown(texts: list[str], markup: object) -> str:
    ours_removed = ["".join(a for a in markup.atoms(t) if a != "*") for t in texts]  # type: ignore[attr-defined]
    return _plain(markup.unescape("\n".join(ours_removed)))  # type: ignore[attr-defined]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(prompt=_SEGMENTS, explanation=_SEGMENTS)
def test_code_blocks_at_schema_size_fit_both_platforms_whole(
    prompt: list[str | tuple[str, list[str]]], explanation: list[str | tuple[str, list[str]]]
) -> None:
    raw = {
        "id": "code",
        "title": "Code",
        "questions": [
            {
                "id": "q",
                "prompt": _text(prompt) or "?",
                "choices": ["`*p`", "`&x`"],
                "answer": 1,
                "explanation": _text(explanation) or "!",
                "image": {"url": "https://images.example/a.png", "alt": "<!channel> *a* " * 60},
                "explanation_image": {"url": "https://images.example/b.png", "alt": "b"},
            }
        ],
    }
    try:
        question = PackModel.model_validate(raw).to_domain().questions[0]
    except ValueError:
        assume(False)  # over 2,000 characters, or blank once stripped
        return
    card = QuestionCard(
        post_id=7,
        pack_title="Code",
        question_number=1,
        question_count=1,
        prompt=question.prompt,
        choices=question.choices,
        choice_ids=(0, 1),
        answer_count=3,
        image=question.image,
        explanation_image=question.explanation_image,
    )
    revealed = dataclasses.replace(card, reveal=RevealView(0, (2, 1), question.explanation, ("bob", "ann")))
    pages = planned_pages(card)
    for shape in (card, revealed):
        assert not card_layout(shape, pages).clipped
        embeds = card_embeds(shape, pages)
        for embed in embeds:
            assert_discord_message([embed])
        blocks = card_blocks(shape)
        assert_slack_blocks(blocks, card_text(shape))
        for texts in (
            [e.description or "" for e in embeds] + [f.value or "" for e in embeds for f in e.fields],
            [b["text"]["text"] for b in blocks if b["type"] == "section"],
        ):
            for text in texts:  # each piece holds whole blocks: a cut block was closed, and reopened in the next
                assert sum(1 for line in text.split("\n") if line.startswith("```")) % 2 == 0, text
        sections = [b["text"]["text"] for b in blocks if b["type"] == "section"]
        shown = [_shown(discord_texts(embeds), discord_markup), _shown(sections, slack_markup)]
        wanted = [question.prompt] + ([question.explanation] if shape.reveal else [])
        for text in wanted:
            visible = _plain("".join(ch for ch in text if ch != "\u200b"))
            assert all(visible in where for where in shown), (visible, shown)
        assert [b["image_url"] for b in blocks if b["type"] == "image"] == (
            ["https://images.example/a.png"] + (["https://images.example/b.png"] if shape.reveal else [])
        )
