"""A terminal's keyboard for the console tests: the adapter reads it as a terminal (`isatty`)."""

from __future__ import annotations

import io
import threading

PATIENT = 60.0
"""Seconds the keyboard waits for the question to be shown (a loaded machine is slow; a hang still fails)."""


class Keyboard(io.StringIO):
    """A terminal's input: lines as typed, where "" is a Ctrl-D. Like a person, it presses Ctrl-D only once the
    question (a y/N question, a form's field) is on the screen, which the test signals with `asked` (a real
    terminal's read blocks until the person types); after its lines, the input is over."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        self.lines = lines
        self.asked = threading.Event()

    def isatty(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> str:
        if not self.lines:
            return ""
        line = self.lines.pop(0)
        if line == "":
            assert self.asked.wait(PATIENT), "the question was never asked"
            self.asked.clear()
        return line
