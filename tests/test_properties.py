"""Property-based tests: whatever a user or an author feeds in, only the project's own clear errors come out."""

from __future__ import annotations

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
