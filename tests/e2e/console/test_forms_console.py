"""Forms and page buttons in the terminal (`quizbot run`'s console adapter reading a script): a form is asked
field by field (Enter keeps the value shown, a field of several lines ends with an empty line or `.`), the core's
problems are printed and only the fields in error asked again, keeping what was typed; /cancel and the end of input
leave a form with one line; a page's buttons are numbered and `/press N` runs one through the core.

The form and the buttons are the test's own (tests/forms_support.py), registered for each test only."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest

from adapters.console import ConsoleAdapter
from bot.runtime import Runtime
from tests.e2e.console.keyboard import Keyboard
from tests.forms_support import NoteBook, form_routes


@pytest.fixture
def book(runtime: Runtime) -> Iterator[NoteBook]:
    with form_routes(runtime) as notes:
        yield notes


async def run(runtime: Runtime, script: str) -> str:
    """The terminal reading `script` as piped input until its end; what it printed."""
    out = io.StringIO()
    await ConsoleAdapter(runtime, stdin=io.StringIO(script), stdout=out).run()
    return out.getvalue()


async def test_a_form_is_asked_field_by_field_and_its_problems_asked_again(runtime: Runtime, book: NoteBook) -> None:
    script = (
        "/quiz help\n"
        "ab\n"  # name: too short (the core says so)
        "  indented first line\n"  # body, two lines, ended by "."
        "second line\n"
        ".\n"
        "\n"  # tags: Enter keeps "general"
        "Runbooks\n"  # only the name is asked again
    )
    text = await run(runtime, script)
    assert [saved[:2] for saved in book.saved] == [
        ("channel", {"name": "Runbooks", "body": "  indented first line\nsecond line", "tags": "general"})
    ]
    lines = text.splitlines()
    start = lines.index("📝 Write a team note: answer each field (Enter keeps the value in [brackets]; /cancel stops).")
    assert lines[start : start + 11] == [
        "📝 Write a team note: answer each field (Enter keeps the value in [brackets]; /cancel stops).",
        "   Fields of several lines end with an empty line or a line holding only a dot (.).",
        "Name (3 to 40 characters): ab",
        "Text (Several lines are fine) (several lines):   indented first line",
        "... second line",
        "... .",
        "Tags (optional) [general]: ",
        "Please fix 1 field in Write a team note:",
        "Name: A name needs at least 3 characters.",
        "Fix the fields above (what you typed is the default):",
        "Name (3 to 40 characters) [ab]: Runbooks",
    ]
    assert "Saved the note Runbooks." in lines


async def test_a_required_field_is_asked_again_and_cancel_or_the_end_of_input_sends_nothing(
    runtime: Runtime, book: NoteBook
) -> None:
    text = await run(runtime, "/quiz help\n\nRunbooks\n/cancel\n/quiz help\nRunbooks\nOne line\n")
    assert "Name is required; type something, or /cancel." in text
    assert text.count("Form cancelled: nothing was sent.") == 2  # /cancel, then the input ends inside the form
    assert book.saved == []
    assert "Traceback" not in text


async def test_page_buttons_are_numbered_and_pressed(runtime: Runtime, book: NoteBook) -> None:
    script = "/quiz help packs\n/press 4\n/press 2\n\nFixed.\n\n\n/press 9\n"
    text = await run(runtime, script)
    assert "Buttons (6): type /press N to press one.\n  /press 1  Approve #7\n  /press 2  Edit #7\n" in text
    assert "Done: approve-draft #8." in text
    assert [click[:2] for click in book.clicks] == [("approve-draft", "8"), ("edit-draft", "7")]
    assert "Name (3 to 40 characters) [draft 7]: " in text
    assert book.saved[0][0] == "7" and book.saved[0][1]["name"] == "draft 7"
    assert "Press a button from 1 to 6 (the last page's buttons)." in text


async def test_ctrl_d_at_a_terminal_leaves_the_form_and_the_terminal_reads_on(
    runtime: Runtime, book: NoteBook, monkeypatch: pytest.MonkeyPatch
) -> None:
    keyboard = Keyboard(["/quiz help\n", "Runbooks\n", "", "/quiz packs\n"])
    out = io.StringIO()
    console = ConsoleAdapter(runtime, stdin=keyboard, stdout=out)
    ask = console._ask

    def asked() -> None:
        ask()
        if console._form is not None and console._form.current.key == "body":
            keyboard.asked.set()  # the Text question is on the screen

    monkeypatch.setattr(console, "_ask", asked)
    await console.run()
    text = out.getvalue()
    assert text.count("Form cancelled: nothing was sent.") == 1
    assert text.index("Form cancelled") < text.index("data-parallelism — Data Parallelism Quiz")
    assert book.saved == []
    assert text.rstrip().endswith("Bye.")
