"""Property-based tests: whatever a user or an author feeds in, only the project's own clear errors come out."""

from __future__ import annotations

import re

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.discord.custom_ids import ANSWER_TEMPLATE, answer_custom_id
from adapters.slack.blocks import parse_answer_action
from bot.content.importer import parse_plain_quiz
from bot.content.loader import parse_pack
from bot.errors import InvalidPack

scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 20), st.text(max_size=30))
documents = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(
            st.sampled_from(["id", "title", "questions", "prompt", "choices", "answer", "explanation", "tags", "x"]),
            children,
            max_size=6,
        ),
    ),
    max_leaves=30,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(documents)
def test_any_yaml_document_loads_or_is_refused_with_invalid_pack(document: object) -> None:
    try:
        parse_pack(yaml.safe_dump(document), source="fuzz.yaml")
    except InvalidPack as exc:
        message = str(exc)
    else:
        return
    assert message.startswith("fuzz.yaml")


@given(st.text(max_size=300))
def test_any_text_as_a_pack_is_refused_cleanly(text: str) -> None:
    try:
        parse_pack(text, source="fuzz.yaml")
    except InvalidPack:
        pass


lines = st.one_of(
    st.text(max_size=40),
    st.builds(lambda n, t: f"{n}. {t}", st.integers(0, 20), st.text(min_size=1, max_size=30)),
    st.builds(lambda t: f"   • {t}", st.text(min_size=1, max_size=30)),
)


@given(st.lists(lines, max_size=30))
def test_any_plain_text_quiz_imports_or_is_refused_cleanly(parts: list[str]) -> None:
    try:
        quiz = parse_plain_quiz("\n".join(parts))
    except InvalidPack:
        return
    assert quiz.questions
    assert all(len(q.choices) >= 2 for q in quiz.questions)


# Button values: what a forged click can carry, decoded by each adapter's own parser.

button_texts = st.one_of(
    st.text(max_size=120),
    st.builds(lambda a, b: f"quiz:answer:{a}:{b}", st.text(max_size=25), st.text(max_size=5)),
    st.builds(lambda a, b: f"quiz:answer:{a}:{b}", st.integers(-(10**25), 10**25), st.integers(-5, 10**4)),
)


@given(button_texts)
def test_slack_button_values_decode_to_small_ids_or_nothing(value: str) -> None:
    parsed = parse_answer_action(value)
    if parsed is not None:
        post_id, choice = parsed
        assert 0 <= post_id < 2**63  # always fits the database's BIGINT
        assert 0 <= choice < 1000


@given(button_texts)
def test_discord_custom_ids_match_only_small_ids(custom_id: str) -> None:
    match = re.fullmatch(ANSWER_TEMPLATE, custom_id)
    if match is not None:
        post_id, choice = (int(value) for value in match.groups())
        assert 0 <= post_id < 2**63
        assert 0 <= choice < 100


@given(st.integers(0, 10**18 - 1), st.integers(0, 9))  # 18 digits: far beyond any real post id
def test_discord_custom_ids_round_trip(post_id: int, choice: int) -> None:
    match = re.fullmatch(ANSWER_TEMPLATE, answer_custom_id(post_id, choice))
    assert match is not None
    assert (int(match["post_id"]), int(match["choice"])) == (post_id, choice)
