"""Code blocks and images in packs: what `quizbot content check` refuses, and what the JSON Schema documents."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.cli import main
from bot.content import load_pack
from bot.domain import Image

PACK: dict[str, Any] = {
    "id": "code-images",
    "title": "Code and images",
    "questions": [
        {
            "id": "q-ring",
            "prompt": "What does this print?\n```python\nprint(2 ** 3)\n```",
            "choices": ["`8`", "`6`"],
            "answer": 1,
            "explanation": "`**` is a power: 2 * 2 * 2.",
            "image": {"url": "https://example.com/ring.png", "alt": "Eight GPUs in a ring"},
            "explanation_image": {"file": "ring.png", "alt": "The ring, step by step"},
        }
    ],
}


def _write(folder: Path, pack: dict[str, Any], *, image: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if image:
        (folder / "images").mkdir(exist_ok=True)
        (folder / "images" / "ring.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    path = folder / "pack.yaml"
    path.write_text(yaml.safe_dump(pack, allow_unicode=True), encoding="utf-8")
    return path


def _with(**changes: Any) -> dict[str, Any]:
    pack = copy.deepcopy(PACK)
    pack["questions"][0].update(changes)
    return pack


def test_a_pack_with_code_and_images_passes_and_loads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, PACK)
    assert main(["content", "check", str(tmp_path)]) == 0, capsys.readouterr()
    question = load_pack(path).questions[0]
    assert question.image == Image(alt="Eight GPUs in a ring", url="https://example.com/ring.png")
    assert question.explanation_image == Image(alt="The ring, step by step", file="ring.png")


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"prompt": "What?\n```python\nprint(1)"}, "does not close"),
        ({"explanation": "```\nx\n```\nthen\n```c"}, "does not close"),
        ({"prompt": "What?\n```python\n" + "x" * 201 + "\n```"}, "longer than 200"),
        ({"prompt": "What?\n```python code\nx\n```"}, "is not a fence"),
        ({"choices": ["```\nx\n```", "b"]}, "a choice may hold `inline code` only"),
        ({"image": {"url": "http://example.com/ring.png", "alt": "a ring"}}, "image.url"),
        ({"image": {"url": "javascript:alert(1)", "alt": "a ring"}}, "image.url"),
        ({"image": {"url": "https://example.com/ring.png"}}, "image.alt"),
        ({"image": {"url": "https://example.com/ring.png", "alt": " "}}, "image.alt"),
        ({"image": {"alt": "a ring"}}, "exactly one of url"),
        ({"explanation_image": {"file": "../etc/passwd", "alt": "x"}}, "explanation_image.file"),
        ({"explanation_image": {"file": "nope.png", "alt": "x"}}, "file 'nope.png' is not in"),
    ],
)
def test_check_refuses_unclosed_fences_bad_urls_missing_alt_text_and_missing_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], changes: dict[str, Any], expected: str
) -> None:
    _write(tmp_path, _with(**changes))
    assert main(["content", "check", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert expected in err, err
    assert "Traceback" not in err


def test_the_json_schema_documents_code_and_images(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["content", "schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    question = schema["$defs"]["QuestionModel"]["properties"]
    assert "```" in question["prompt"]["description"]
    image = schema["$defs"]["ImageModel"]
    assert image["required"] == ["alt"]
    assert image["properties"]["url"]["anyOf"][0]["pattern"].startswith("^https://")
    assert {"image", "explanation_image"} <= set(question)


def test_a_question_without_images_keeps_its_version_digest_and_an_image_makes_a_new_one() -> None:
    from bot.domain.versions import content_digest

    plain = content_digest("Q?", ["a", "b"], 0, "E.")
    assert content_digest("Q?", ["a", "b"], 0, "E.", None) == plain  # versions stored before images still match
    assert content_digest("Q?", ["a", "b"], 0, "E.", {"prompt": {"url": "https://x.example/a.png", "alt": "A"}}) != (
        plain
    )


@pytest.mark.parametrize("fmt", ["gift", "csv"])
def test_gift_and_csv_carry_code_and_images_both_ways(fmt: str) -> None:
    from bot.content.drafts import draft_from_model, to_yaml
    from bot.content.formats import export_text, import_text
    from bot.content.loader import parse_pack_model

    pack = _with(
        prompt="Which line breaks?\n```c\nint main() {\n    if (a == b) { x = {1}; } // #: ~ =\n}\n```",
        explanation="`a = b` assigns: {} and # are GIFT's own, escaped\n```\n  x: 1\n```",
        explanation_image={"file": "ring.png", "alt": "The ring, step by step"},
    )
    model = parse_pack_model(yaml.safe_dump(pack, allow_unicode=True), source="p.yaml")
    draft = draft_from_model(model)
    exported = export_text(draft, fmt)
    back = import_text(exported, fmt, source=f"x.{fmt}", name=f"x.{fmt}").pack
    assert back == draft
    assert parse_pack_model(to_yaml(back), source="again.yaml") == model
    assert "https://example.com/ring.png" in exported and "Eight GPUs in a ring" in exported


def test_a_todo_inside_code_is_content_but_an_example_image_address_is_a_placeholder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.content.quality import pack_warnings
    from bot.content.schema import PackModel

    pack = _with(
        prompt="What is left to do?\n```python\n# TODO: free the cache\ncache = None\n```\nSee `TODO` above.",
        image={"url": "https://images.example/ring.png", "alt": "A ring"},
    )
    warnings = [w for w in pack_warnings(PackModel.model_validate(pack), source="p.yaml") if w.rule == "placeholder"]
    assert [w.message for w in warnings] == [
        "the image https://images.example/ring.png is an example address: link the real image"
    ]
