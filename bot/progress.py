"""A progress bar for long operator commands (`quizbot export`, `quizbot db upgrade`): drawn on stderr while a
person watches (stdout and stderr both terminals), silent otherwise, so pipes, files and logs never see it.

No dependency: one line redrawn with a carriage return, only when what it shows changes (never on a timer).
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import IO, Self

WIDTH = 30
"""Characters of the bar itself."""


def watched() -> bool:
    """Whether a person is watching: stdout and stderr are both terminals."""
    return _isatty(sys.stdout) and _isatty(sys.stderr)


def _isatty(stream: IO[str] | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False


class Progress:
    """`with Progress("export", total=4) as bar: ... bar.advance()`: `label [#####-----] 50% 2/4` on stderr.

    `enabled` defaults to `watched()`; when off every method does nothing. The line is finished (a newline) on exit,
    so whatever is printed next starts on its own line.
    """

    def __init__(self, label: str, total: int, *, enabled: bool | None = None, stream: IO[str] | None = None) -> None:
        self.label = label
        self.total = max(0, total)
        self.done = 0
        self.enabled = watched() if enabled is None else enabled
        self.stream = stream
        self._shown: str | None = None

    def __enter__(self) -> Self:
        self._draw()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def advance(self, steps: int = 1) -> None:
        """`steps` more done (never past the total)."""
        self.update(self.done + steps)

    def update(self, done: int, total: int | None = None) -> None:
        """`done` of `total` (the total may change once it is known)."""
        if total is not None:
            self.total = max(0, total)
        self.done = min(max(0, done), self.total) if self.total else max(0, done)
        self._draw()

    def line(self) -> str:
        """The bar as it reads now, without the carriage return."""
        if not self.total:
            return f"{self.label} ..."
        filled = WIDTH * self.done // self.total
        percent = 100 * self.done // self.total
        return f"{self.label} [{'#' * filled}{'-' * (WIDTH - filled)}] {percent:3d}% {self.done}/{self.total}"

    def close(self) -> None:
        """End the bar's line (once)."""
        if self.enabled and self._shown is not None:
            out = self.stream or sys.stderr
            out.write("\n")
            out.flush()
            self._shown = None

    def _draw(self) -> None:
        if not self.enabled:
            return
        text = self.line()
        if text == self._shown:
            return
        out = self.stream or sys.stderr
        out.write("\r" + text)
        out.flush()
        self._shown = text
