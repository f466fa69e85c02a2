"""Issue 23 end to end in the terminal (the console adapter reading a script, `QUIZBOT_CONSOLE_ADMINS=lee`): ann
writes a question field by field in the `/quiz write` form, fixes the field the pack rules refuse, lee approves it
with the queue's button (`/press 1`), and `/quiz now runbooks` asks it."""

from __future__ import annotations

import io

import pytest

from adapters.console import ConsoleAdapter
from bot.config import Settings
from bot.runtime import Runtime
from tests.conftest import SEED_CONTENT, patient_settings

PROMPT = "Which collective leaves every rank with the sum of all ranks' gradients?"


@pytest.fixture
def settings(database_url: str) -> Settings:
    """The test bot's settings, with lee the terminal's only admin."""
    return patient_settings(
        database_url=database_url, content_dir=SEED_CONTENT, card_update_interval=0.0, console_admins="lee"
    )


async def test_a_question_written_field_by_field_is_approved_with_a_button_and_asked(runtime: Runtime) -> None:
    script = "\n".join(
        [
            "/as ann",
            "/quiz write runbooks",
            PROMPT,
            "all-reduce",  # choices, none marked: the pack rules refuse it
            "broadcast",
            "scatter",
            "",
            "All-reduce sums the tensors and gives every rank the result.",
            "Broadcast only copies one rank's data.",
            ".",
            "https://pytorch.org/docs/stable/distributed.html",
            "",
            "tags: ddp, nccl; difficulty: easy",
            "*all-reduce",  # asked again: only the choices
            "broadcast",
            "scatter",
            ".",
            "/as lee",
            "/quiz drafts",
            "/press 1",
            "/quiz now runbooks",
            "",
        ]
    )
    out = io.StringIO()
    console = ConsoleAdapter(runtime, stdin=io.StringIO(script), stdout=out)
    await console.run()
    text = out.getvalue()
    refused = text.split("Please fix 1 field in Write a question:\n", 1)[1].splitlines()[0]
    assert refused.startswith("Choices") and refused.endswith(
        ": Mark the correct choice with a leading `*`, e.g. `*all-reduce`."
    )
    assert "[all-reduce ⏎ broadcast ⏎ scatter] (several lines): *all-reduce" in text  # only the choices again
    assert "Draft 1 saved for review by a lead." in text
    assert "Buttons (3): type /press N to press one.\n  /press 1  Approve 1\n" in text
    assert "(direct message to ann) Your question was approved and joined the `runbooks` pack." in text
    card = text.rsplit("❓", 1)[1]
    assert card.splitlines()[1] == PROMPT
    assert sorted(line.split("] ", 1)[1] for line in card.splitlines() if line.startswith("  [")) == [
        "all-reduce",
        "broadcast",
        "scatter",
    ]


async def test_the_form_asks_for_a_reference_at_once_and_never_calls_it_optional(runtime: Runtime) -> None:
    """A draft without a reference is refused by the pack rules (no-reference), so the field is not `(optional)`:
    left empty, it is asked again at once rather than after the whole form."""
    script = "\n".join(
        [
            "/quiz write",
            PROMPT,
            "*all-reduce",
            "broadcast",
            "",
            "All-reduce sums the tensors and gives every rank the result. Broadcast only copies one rank's data.",
            "",
            "",  # no reference
            "https://pytorch.org/docs/stable/distributed.html",
            "",
            "",
            "",
        ]
    )
    out = io.StringIO()
    await ConsoleAdapter(runtime, stdin=io.StringIO(script), stdout=out).run()
    text = out.getvalue()
    asked = [line for line in text.splitlines() if line.startswith("References")]
    assert asked and not any("(optional)" in line for line in asked), asked
    assert "References: links, one a line is required; type something, or /cancel." in text
    assert "Please fix" not in text
    assert "Draft 1 saved for review by a lead." in text
