"""Images on cards: a Slack image block, a Discord embed image, and an image file (not uploaded) as its alt text."""

from __future__ import annotations

from adapters.console.adapter import image_lines
from adapters.discord.card_pages import card_embeds
from adapters.slack.blocks import card_blocks
from bot.domain import Image, QuestionCard, RevealView
from tests.render_limits_support import assert_discord_message, assert_slack_blocks

URL = Image(alt="A ring of <!channel> GPUs", url="https://example.com/ring.png")
FILE = Image(alt="The steps", file="steps.png")


def _card(image: Image | None, explanation_image: Image | None, *, revealed: bool = False) -> QuestionCard:
    reveal = RevealView(0, (1, 0), "Because.", ("bob",)) if revealed else None
    return QuestionCard(
        post_id=1,
        pack_title="P",
        question_number=1,
        question_count=1,
        prompt="Q?",
        choices=("`a`", "b"),
        choice_ids=(0, 1),
        answer_count=1,
        reveal=reveal,
        image=image,
        explanation_image=explanation_image,
    )


def test_slack_shows_an_https_image_as_an_image_block_and_a_file_as_its_alt_text() -> None:
    blocks = card_blocks(_card(URL, FILE, revealed=True))
    assert_slack_blocks(blocks)
    kinds = [b["type"] for b in blocks]
    assert kinds.index("image") == 1  # right under the prompt
    assert blocks[1] == {"type": "image", "image_url": URL.url, "alt_text": "A ring of <!channel> GPUs"}
    contexts = [el["text"] for b in blocks if b["type"] == "context" for el in b["elements"]]
    assert "🖼 The steps" in contexts  # not uploaded: its alt text where it would be
    open_blocks = card_blocks(_card(URL, FILE))
    assert sum(b["type"] == "image" for b in open_blocks) == 1  # the explanation's image waits for the reveal
    assert not any("The steps" in str(b) for b in open_blocks)


def test_discord_sets_the_embed_image_and_shows_the_alt_text() -> None:
    (embed,) = card_embeds(_card(URL, None))
    assert_discord_message([embed])
    assert embed.image.url == URL.url
    assert "-# 🖼 A ring of \\<!channel> GPUs" in (embed.description or "")
    (revealed,) = card_embeds(_card(None, Image(alt="Steps", url="https://example.com/steps.png"), revealed=True))
    assert revealed.image.url == "https://example.com/steps.png"
    (with_file,) = card_embeds(_card(FILE, None))
    assert with_file.image.url is None and "-# 🖼 The steps" in (with_file.description or "")


def test_the_terminal_names_the_image_and_where_to_see_it() -> None:
    assert image_lines(URL) == ["🖼 A ring of <!channel> GPUs (https://example.com/ring.png)"]
    assert image_lines(FILE) == ["🖼 The steps (images/steps.png)"]
