"""Schema-legal content always fits Discord's and Slack's limits AFTER escaping, and nothing is clipped away:
every choice (and the prompt and the explanation) is readable in full on the card and in the reveal.

Packs are generated at the schema's maxima (10 choices of 300 characters full of `_*~|>` and backticks, a
2,000-character prompt, explanation and pack title, names of 100 characters of markup) and every card, reveal
and reply shape is rendered on both platforms; hypothesis then tries random content within the schema.
"""

from __future__ import annotations

import dataclasses
import random
from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.discord.buttons import answer_view
from adapters.discord.card_pages import (
    CHOICES_MAX,
    EXPLANATION_MAX,
    card_embeds,
    card_layout,
    message_ref,
    page_ids,
    planned_pages,
)
from adapters.discord.embeds import MAX_PAGES, answer_embed, message_embed
from adapters.slack.blocks import card_blocks, card_text, message_blocks, message_text
from bot.content.schema import pack_json_schema
from bot.domain import (
    AnswerOutcome,
    AnswerResult,
    ChannelRef,
    Leaderboard,
    LeaderboardRow,
    Pack,
    QuestionCard,
    RevealView,
    UserRef,
    UserStats,
)
from bot.domain.views import CohortView, CurriculumPack, DueQuestion, MemberProgress, Nudge
from bot.ports import Message
from bot.wording.answers import answer_message
from bot.wording.boards import leaderboard_message
from bot.wording.cohorts import MAX_MEMBER_LINES, nudge_message, reminded, show_message
from bot.wording.me import stats_message
from tests.render_limits_support import (
    HOSTILE_NAMES,
    appears,
    assert_discord_message,
    assert_slack_blocks,
    card_of,
    discord_shown,
    markup_text,
    max_pack,
    names,
    reveals,
    slack_shown,
    squash,
)

PACKS = {
    "markup": max_pack(),
    "markup-lines": max_pack(alphabet="_*~|>`\n-#1. "),
    "entities": max_pack(alphabet="&<>"),  # Slack's worst case: `&amp;` is five characters for one
    "links": max_pack(alphabet="[]()<@#:/ ", choices=CHOICES_MAX),
    "two-choices": max_pack(choices=2),
}


def test_the_renderers_know_the_schemas_maxima() -> None:
    schema = pack_json_schema()
    question = schema["$defs"]["QuestionModel"]["properties"]
    assert question["explanation"]["maxLength"] == EXPLANATION_MAX
    assert question["choices"]["maxItems"] == CHOICES_MAX


def _results(pack: Pack) -> list[AnswerResult]:
    question = pack.questions[0]
    right, wrong = question.correct_choice, question.choices[0]
    explanation = question.explanation
    return [
        AnswerResult(AnswerOutcome.RECORDED, 42, right, True, right, explanation),
        AnswerResult(AnswerOutcome.RECORDED, 42, right, True, right, explanation, points=20, rank=10**6),
        AnswerResult(AnswerOutcome.RECORDED, 42, wrong, False, right, explanation),
        AnswerResult(AnswerOutcome.ALREADY_ANSWERED, 42, wrong, False, right, explanation),
        AnswerResult(AnswerOutcome.CLOSED, 42, wrong, None, right, explanation, revealed=True),
        AnswerResult(AnswerOutcome.CLOSED, 42, None, None, right, explanation, revealed=True),
    ]


@pytest.mark.parametrize("kind", PACKS)
def test_discord_cards_and_reveals_fit_and_show_every_choice_in_full(kind: str) -> None:
    pack = PACKS[kind]
    question = pack.questions[0]
    open_card = card_of(pack)
    pages = planned_pages(open_card)
    assert 1 <= pages <= MAX_PAGES
    assert len(message_ref([10**19] * pages)) <= 128  # Post.message_ref is a String(128)
    for answers in (0, 1, 10**6):
        card = dataclasses.replace(open_card, answer_count=answers)
        assert not card_layout(card, pages).clipped
        embeds = card_embeds(card, pages)
        assert len(embeds) == pages
        for index, embed in enumerate(embeds):  # each page is one message; the last has the buttons
            assert_discord_message([embed], answer_view(card) if index == pages - 1 else None)
        shown = discord_shown(embeds)
        assert appears(question.prompt, shown)
        assert all(appears(choice, shown) for choice in question.choices)
    for reveal in reveals(pack):
        revealed = dataclasses.replace(open_card, reveal=reveal, answer_count=sum(reveal.counts))
        assert not card_layout(revealed, pages).clipped, kind
        embeds = card_embeds(revealed, pages)
        for embed in embeds:
            assert_discord_message([embed])
        shown = discord_shown(embeds)
        assert appears(question.prompt, shown)
        assert appears(question.explanation, shown)
        for position, choice in enumerate(revealed.choices):
            assert appears(f"{choice} — {reveal.counts[position]}", shown), (kind, position)


@pytest.mark.parametrize("kind", PACKS)
def test_an_answer_count_edit_changes_only_the_last_page(kind: str) -> None:
    card = card_of(PACKS[kind])
    pages = planned_pages(card)
    before = [e.to_dict() for e in card_embeds(card, pages)]
    after = [e.to_dict() for e in card_embeds(dataclasses.replace(card, answer_count=123_456), pages)]
    assert before[:-1] == after[:-1]
    assert before[-1]["footer"] != after[-1]["footer"]


def test_a_short_card_is_one_message_and_its_reference_is_its_id() -> None:
    card = QuestionCard(
        post_id=1,
        pack_title="Data Parallelism Quiz",
        question_number=1,
        question_count=8,
        prompt="Which collective keeps replicas in sync?",
        choices=("Broadcast", "All-reduce", "Scatter", "Nothing"),
        choice_ids=(0, 1, 2, 3),
        answer_count=0,
    )
    assert planned_pages(card) == 1
    assert message_ref([123]) == "123"
    assert page_ids("123") == [123]
    assert page_ids(message_ref([1, 2, 3])) == [1, 2, 3]


@pytest.mark.parametrize("kind", PACKS)
def test_discord_private_replies_fit_and_keep_the_whole_explanation(kind: str) -> None:
    pack = PACKS[kind]
    for result in _results(pack):
        embed = answer_embed(result)
        assert_discord_message([embed])
        shown = discord_shown([embed])
        assert appears(result.explanation, shown)
        message = answer_message(result)  # verdict, choices named in it, and explanation: all of it, unclipped
        assert all(appears(text, shown) for text in (message.title, *message.lines))


@pytest.mark.parametrize("kind", PACKS)
def test_slack_cards_and_reveals_fit_and_show_every_choice_in_full(kind: str) -> None:
    pack = PACKS[kind]
    question = pack.questions[0]
    card = card_of(pack, answers=10**6)
    blocks = card_blocks(card)
    assert_slack_blocks(blocks, card_text(card))
    shown = slack_shown(blocks)
    assert appears(question.prompt, shown)
    assert all(appears(choice, shown) for choice in question.choices)
    for reveal in reveals(pack):
        revealed = dataclasses.replace(card, reveal=reveal)
        blocks = card_blocks(revealed)
        assert_slack_blocks(blocks, card_text(revealed))
        shown = slack_shown(blocks)
        assert appears(question.prompt, shown)
        assert appears(question.explanation, shown)
        for position, choice in enumerate(revealed.choices):
            assert appears(f"{choice} — {reveal.counts[position]}", shown), (kind, position)


@pytest.mark.parametrize("kind", PACKS)
def test_slack_private_replies_fit_and_keep_the_whole_explanation(kind: str) -> None:
    for result in _results(PACKS[kind]):
        message = answer_message(result)
        blocks = message_blocks(message)
        assert_slack_blocks(blocks, message_text(message))
        shown = slack_shown(blocks)
        assert appears(result.explanation, shown)
        assert all(appears(text, shown) for text in (message.title, *message.lines))


def _board() -> Leaderboard:
    rows = [LeaderboardRow(rank=i + 1, name=name, points=10, correct=1, answered=2) for i, name in enumerate(names(20))]
    return Leaderboard(scope="channel", window="all", rows=rows)


def test_boards_and_stats_with_long_markup_names_fit_both_platforms() -> None:
    board = leaderboard_message(_board())
    stats = stats_message(UserStats(name=names(1)[0], answered=3, correct=2, points=20, rank=1))
    for message in (board, stats):
        embed = message_embed(message)
        assert_discord_message([embed])
        assert_slack_blocks(message_blocks(message), message_text(message))
    shown_discord, shown_slack = discord_shown([message_embed(board)]), slack_shown(message_blocks(board))
    for name in names(20):
        assert appears(name, shown_discord) and appears(name, shown_slack)


# --- spoofed names --------------------------------------------------------------------------------------


def _spoof_board() -> Message:
    rows = [LeaderboardRow(rank=1, name=name, points=1, correct=1, answered=1) for name in HOSTILE_NAMES]
    return leaderboard_message(Leaderboard(scope="channel", window="all", rows=rows))


def _spoof_reveal() -> QuestionCard:
    card = card_of(max_pack(choices=2))
    return dataclasses.replace(
        card,
        prompt="Who is admin?",
        choices=("a", "b"),
        reveal=RevealView(0, (1, 1), "Because.", tuple(HOSTILE_NAMES)),
        answer_count=2,
    )


def test_discord_names_cannot_link_mention_or_hide_characters() -> None:
    board = message_embed(_spoof_board())
    reveal = card_embeds(_spoof_reveal(), 1)
    for embeds in ([board], reveal):
        assert_discord_message(embeds)  # no zero-width or bidi character is shown anywhere
        text = "\n".join(e.description or "" for e in embeds)
        assert "\\[Free Nitro](https://evil.example/x)" in text  # the bracket is escaped: no masked link
        assert "\\<@123456789012345678>" in text  # not a mention
        assert "admin" in text and "evil" + "txt.exe" in text  # ZWSP and RLO are gone
        # A code span that needs no escaping is kept: Discord shows its text literally, so it can hide nothing.
        assert "\\*bold\\* \\_it\\_ \\~s\\~ `code` \\|\\|spoiler\\|\\|" in text
        # @everyone is shown as written: an embed never pings, and every message sends AllowedMentions.none().
        assert "@everyone" in text


def test_slack_names_cannot_link_mention_or_hide_characters() -> None:
    for blocks in (message_blocks(_spoof_board()), card_blocks(_spoof_reveal())):
        assert_slack_blocks(blocks)  # no `<`, `>` or shown invisible character in any mrkdwn text
        text = "\n".join(b["text"]["text"] for b in blocks if b["type"] == "section")
        assert "&lt;!channel&gt; &lt;https://evil.example|click me&gt;" in text
        assert "&lt;@123456789012345678&gt;" in text
        assert "@everyone" not in text  # "@\u200beveryone": a word, not a mention Slack could parse
        assert "admin" in text and "eviltxt.exe" in text
        assert "*bold*" not in text and "_it_" not in text and "~s~" not in text  # each delimiter is guarded
        assert "\u200b*\u200bbold\u200b*\u200b" in text
        assert "`code`" in text  # a code span needing no guard is kept: Slack shows its text as written


# --- random content within the schema ---------------------------------------------------------------------

_ALPHABET = st.sampled_from([*"ab _*~|>`&<[]()@#-1.\n", "\u200b", "\u202e", "é", "🙂"])
_TEXT = st.text(_ALPHABET, min_size=1, max_size=2000)
_CHOICE = st.text(_ALPHABET, min_size=1, max_size=300)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    prompt=_TEXT,
    choices=st.lists(_CHOICE, min_size=2, max_size=CHOICES_MAX),
    explanation=_TEXT,
    title=_TEXT,
    users=st.lists(st.text(_ALPHABET, max_size=100), max_size=25),
    correct=st.integers(min_value=0, max_value=CHOICES_MAX - 1),
)
def test_any_schema_sized_content_fits_both_platforms_in_full(
    prompt: str, choices: list[str], explanation: str, title: str, users: list[str], correct: int
) -> None:
    n = len(choices)
    card = QuestionCard(
        post_id=7,
        pack_title=title,
        question_number=1,
        question_count=1,
        prompt=prompt,
        choices=tuple(choices),
        choice_ids=tuple(range(n)),
        answer_count=len(users),
    )
    reveal = RevealView(correct % n, tuple(i % 3 for i in range(n)), explanation, tuple(users))
    revealed = dataclasses.replace(card, reveal=reveal)
    pages = planned_pages(card)
    for shape in (card, revealed):
        assert not card_layout(shape, pages).clipped
        embeds = card_embeds(shape, pages)
        for embed in embeds:
            assert_discord_message([embed])
        blocks = card_blocks(shape)
        assert_slack_blocks(blocks, card_text(shape))
        on_discord, on_slack = discord_shown(embeds), slack_shown(blocks)
        if shape.reveal is None:  # a choice short enough for its button is shown on the button
            labels = [b["label"] for row in answer_view(shape).to_components() for b in row["components"]]
            on_discord += "|" + "|".join(squash(label) for label in labels)
            texts = [b["text"]["text"] for block in blocks if block["type"] == "actions" for b in block["elements"]]
            on_slack += "|" + "|".join(squash(text) for text in texts)
        for choice in choices:
            assert appears(choice, on_discord) and appears(choice, on_slack)
        if shape.reveal is not None:
            assert appears(explanation, on_discord) and appears(explanation, on_slack)
    result = AnswerResult(AnswerOutcome.RECORDED, 7, choices[0], False, choices[-1], explanation)
    assert_discord_message([answer_embed(result)])
    assert appears(explanation, discord_shown([answer_embed(result)]))
    assert_slack_blocks(message_blocks(answer_message(result)))


_SYMBOLS = "ab _*~|>`&<[]()@#-+1.\n\u200b\u202e🙂"


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32), n=st.integers(min_value=2, max_value=CHOICES_MAX))
def test_random_content_at_the_schema_maxima_fits_both_platforms_in_full(seed: int, n: int) -> None:
    rng = random.Random(seed)
    weights = [rng.random() ** 3 for _ in _SYMBOLS]  # some runs are nearly all one kind of markup

    def text(length: int, lead: str) -> str:
        return lead + "".join(rng.choices(_SYMBOLS, weights, k=length - len(lead)))

    choices = tuple(text(300, f"c{i}") for i in range(n))
    card = QuestionCard(7, text(2000, "t"), 1, 1, text(2000, "p"), choices, tuple(range(n)), rng.randrange(10**7))
    explanation = text(2000, "e")
    users = tuple(text(100, f"u{i}") for i in range(rng.randrange(40)))
    counts = tuple(rng.randrange(10**6) for _ in range(n))
    revealed = dataclasses.replace(card, reveal=RevealView(rng.randrange(n), counts, explanation, users))
    pages = planned_pages(card)
    assert pages <= MAX_PAGES
    for shape in (card, revealed):
        assert not card_layout(shape, pages).clipped
        embeds = card_embeds(shape, pages)
        for index, embed in enumerate(embeds):
            assert_discord_message([embed], answer_view(shape) if index == pages - 1 and not shape.reveal else None)
        blocks = card_blocks(shape)
        assert_slack_blocks(blocks, card_text(shape))
        on_discord, on_slack = discord_shown(embeds), slack_shown(blocks)
        for position, choice in enumerate(choices):
            suffix = f" — {counts[position]}" if shape.reveal else ""
            assert appears(choice + suffix, on_discord) and appears(choice + suffix, on_slack)
        assert appears(card.prompt, on_discord) and appears(card.prompt, on_slack)
        if shape.reveal:
            assert appears(explanation, on_discord) and appears(explanation, on_slack)


def test_pack_titles_in_discord_autocomplete_show_every_character() -> None:
    from types import SimpleNamespace

    from adapters.discord.adapter import DiscordAdapter

    pack = dataclasses.replace(max_pack(choices=2), title="Quiz \u202eevil\u200b", id="spoof")
    host = SimpleNamespace(runtime=SimpleNamespace(app=SimpleNamespace(packs=[pack])))
    [choice] = DiscordAdapter.pack_choices(host, "")  # type: ignore[arg-type]
    assert choice.name == "Quiz evil (spoof)" and choice.value == "spoof"


@pytest.mark.parametrize("pages", [1, 2, 3])
def test_content_beyond_the_schema_is_shortened_within_the_limits_not_refused(pages: int) -> None:
    # A card posted before pages existed (one message), or content past the schema: the last resort clips.
    pack = PACKS["markup"]
    reveal = RevealView(0, (1,) * CHOICES_MAX, "_ " * 20_000, names(100))
    card = dataclasses.replace(card_of(pack), reveal=reveal)
    result = card_layout(card, pages)
    assert result.clipped
    embeds = card_embeds(card, pages)
    assert len(embeds) == pages
    for embed in embeds:
        assert_discord_message([embed])
    assert (embeds[-1].fields[-1].value if embeds[-1].fields else embeds[-1].description or "").endswith("…")
    assert_slack_blocks(card_blocks(card), card_text(card))
    huge = Message("t" * 9000, tuple("x_" * 3000 for _ in range(5)))
    assert_discord_message([message_embed(huge)])
    assert_slack_blocks(message_blocks(huge), message_text(huge))


# --- the onboarding lead's view ---------------------------------------------------------------------------


def _cohort_view(members: int) -> CohortView:
    people = tuple(
        MemberProgress(
            name=name,
            answered=i % 4,
            correct=i % 3,
            points=99_999,
            cohort_points=9_999,
            last_active=None if i % 5 == 0 else date(2026, 1, 1 + i % 28),
            behind=i % 2 == 0,
            inactive=i % 3 == 0,
            user_id=f"U{i}",
        )
        for i, name in enumerate(names(members))
    )
    curriculum = (CurriculumPack("p" * 64, markup_text(300, 5), 99, 99),) * 5
    return CohortView("c" * 40, date(2026, 1, 5), names(1)[0], curriculum, people, posts=9_999)


@pytest.mark.parametrize("members", [1, 30, 200])
def test_cohort_show_remind_and_nudges_fit_both_platforms(members: int) -> None:
    view = _cohort_view(members)
    due = tuple(
        DueQuestion(i, markup_text(2000, i), markup_text(300, i), ChannelRef("x", "W", "C"), None, "UTC")
        for i in range(members)
    )
    nudge = Nudge(UserRef("x", "W", "U1", names(1)[0]), view.name, due)
    for message in (show_message(view), nudge_message(nudge), reminded(view.name, nudged=7, unreachable=2, behind=9)):
        assert_discord_message([message_embed(message)])
        assert_slack_blocks(message_blocks(message), message_text(message))
    shown = show_message(view)
    assert sum(1 for line in shown.lines if " answered · " in line) == min(members, MAX_MEMBER_LINES)
